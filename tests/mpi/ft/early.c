/* A survivor that finalizes early is no failure: with a failed rank in the job, MPI_Finalize
 * meets nobody first, so a rank on another host can end while the others still work. Rank
 * `victim` (the last) dies; rank `early` (on the other host from ranks 0 and 1 in the
 * `hosts` configuration) finalizes as soon as it knows; ranks 0 and 1 keep progressing for
 * 1.5 s, long after `early` disconnected, then must still see only the victim failed and
 * exchange messages. Before the network channel's BYE, they took the disconnect for a
 * failure (mpi.ft.inter.hosts failed in CI that way). */
#include "ft_util.h"

static int failed_count(void)
{
    MPI_Group g;
    int n = 0;
    MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
    MPI_Group_size(g, &n);
    MPI_Group_free(&g);
    return n;
}

int main(int argc, char **argv)
{
    ft_init(&argc, &argv, 60);
    if (t_size != 4)
        t_skip("needs 4 ranks");
    int victim = 3, early = 2;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    ft_set_phase("victim dies");
    if (t_rank == victim)
        ft_die();
    ft_wait_failed(MPI_COMM_WORLD, 1);
    if (t_rank == early) {
        ft_set_phase("finalize early");
        ft_ok();
        MPI_Finalize();
        return 0;
    }
    ft_set_phase("progress after the early rank left");
    double end = MPI_Wtime() + 1.5;
    while (MPI_Wtime() < end) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        usleep(1000);
    }
    int n = failed_count();
    if (n != 1)
        t_fail("failed ranks: expected 1 (rank %d), got %d", victim, n);
    int peer = 1 - t_rank, mine = 10 + t_rank, got = -1;
    FT_EXPECT(MPI_Sendrecv(&mine, 1, MPI_INT, peer, 7, &got, 1, MPI_INT, peer, 7,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              MPI_SUCCESS, "sendrecv");
    if (got != 10 + peer)
        t_fail("sendrecv: expected %d, got %d", 10 + peer, got);
    ft_set_phase("finalize");
    ft_ok();
    MPI_Finalize();
    return 0;
}
