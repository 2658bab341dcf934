/* Spawn again and again: 10 rounds of spawning 4 children, one checked message each way,
 * MPI_Comm_disconnect. The children finalize and exit while the parent already spawns the
 * next round, so the sockets of earlier rounds close under it: none of that may count as a
 * failure (a peer that said goodbye before its socket closed), whichever of the parent's
 * read or write sees the close first. Prints the mean round time. */
#include "../t_util.h"

#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE);
        v += t_rank;
        MPI_Send(&v, 1, MPI_INT, 0, 0, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        t_fail("readlink failed");
    self[n] = '\0';
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    double t0 = MPI_Wtime();
    for (int k = 0; k < rounds; k++) {
        MPI_Comm inter;
        MPI_Comm_spawn(self, MPI_ARGV_NULL, 4, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                       MPI_ERRCODES_IGNORE);
        for (int c = 0; c < 4; c++) {
            int v = 100 * k;
            MPI_Send(&v, 1, MPI_INT, c, 0, inter);
        }
        for (int c = 0; c < 4; c++) {
            int v = -1;
            MPI_Recv(&v, 1, MPI_INT, c, 0, inter, MPI_STATUS_IGNORE);
            if (v != 100 * k + c)
                t_fail("round %d, child %d: expected %d, got %d", k, c, 100 * k + c, v);
        }
        MPI_Comm_disconnect(&inter);
    }
    printf("dyn_loop: %d rounds of spawn 4 + exchange + disconnect, %.1f ms each\n", rounds,
           (MPI_Wtime() - t0) * 1e3 / rounds);
    MPI_Finalize();
    return 0;
}
