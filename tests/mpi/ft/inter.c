/* ULFM on an intercommunicator: the even and the odd world ranks form the two groups; the
 * last rank dies. The survivors of both groups agree over the intercommunicator (the first
 * agreement reports MPIX_ERR_PROC_FAILED at every member, as nobody acknowledged the
 * failure; after MPIX_Comm_failure_ack the next succeeds and ANDs the flags of both groups),
 * then shrink it: the result is an intercommunicator of the survivors, each group in its
 * old order, that works (a point-to-point exchange across and a collective checked). */
#include "ft_util.h"

int main(int argc, char **argv)
{
    ft_init(&argc, &argv, 90);
    if (t_size < 4)
        t_skip("needs at least 4 ranks");
    int victim = t_size - 1, color = t_rank % 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, color, t_rank, &local);
    /* Leaders: world ranks 0 and 1. */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 5, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    ft_set_phase("victim dies");
    if (t_rank == victim)
        ft_die();
    ft_wait_failed(inter, 1);
    ft_set_phase("agree before ack");
    int flag = 1;
    FT_EXPECT(MPIX_Comm_agree(inter, &flag), MPIX_ERR_PROC_FAILED, "agree, failure not acked");
    ft_set_phase("agree after ack");
    MPIX_Comm_failure_ack(inter);
    flag = t_rank == 0 ? 0x6 : 0x7; /* AND over both groups: 0x6 */
    FT_EXPECT(MPIX_Comm_agree(inter, &flag), MPI_SUCCESS, "agree after the ack");
    if (flag != 0x6)
        t_fail("agreed flag: expected 0x6, got 0x%x", flag);
    ft_set_phase("shrink");
    MPI_Comm next;
    FT_EXPECT(MPIX_Comm_shrink(inter, &next), MPI_SUCCESS, "shrink");
    int is_inter = 0, lsize, rsize, lrank;
    MPI_Comm_test_inter(next, &is_inter);
    MPI_Comm_size(next, &lsize);
    MPI_Comm_remote_size(next, &rsize);
    MPI_Comm_rank(next, &lrank);
    int alive[2] = {0, 0}; /* survivors per color */
    for (int r = 0; r < t_size; r++)
        if (r != victim)
            alive[r % 2]++;
    if (!is_inter || lsize != alive[color] || rsize != alive[1 - color] || lrank != t_rank / 2)
        t_fail("shrunk intercommunicator: expected inter %d+%d rank %d, got inter=%d %d+%d "
               "rank %d",
               alive[color], alive[1 - color], t_rank / 2, is_inter, lsize, rsize, lrank);
    /* Rank 0 of each group exchanges with the other's rank 0; then a collective across. */
    ft_set_phase("use the shrunk intercommunicator");
    if (lrank == 0) {
        int mine = 100 + t_rank, got = -1;
        FT_EXPECT(
            MPI_Sendrecv(&mine, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, next, MPI_STATUS_IGNORE),
            MPI_SUCCESS, "sendrecv across");
        if (got != 100 + (1 - color))
            t_fail("across: expected %d, got %d", 100 + (1 - color), got);
    }
    int w = t_rank, sum = -1, want = 0;
    for (int r = 0; r < t_size; r++)
        if (r != victim && r % 2 != color)
            want += r;
    /* An intercommunicator allreduce gives each group the other group's reduction. */
    FT_EXPECT(MPI_Allreduce(&w, &sum, 1, MPI_INT, MPI_SUM, next), MPI_SUCCESS, "allreduce");
    if (sum != want)
        t_fail("allreduce across: expected %d, got %d", want, sum);
    MPI_Comm_free(&next);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    ft_set_phase("finalize");
    ft_ok();
    MPI_Finalize();
    return 0;
}
