/* A real MPI job in which rank 1 misbehaves while rank 0 waits for it in MPI_Recv:
 *   exit   rank 1 exits 0 without MPI_Finalize
 *   crash  rank 1 dies of SIGSEGV
 *   abort  rank 1 calls MPI_Abort(MPI_COMM_WORLD, 5)
 *   fail   rank 1 returns 3 from main without MPI_Finalize
 *   none   rank 1 sends what rank 0 waits for
 * Otherwise rank 0 would wait forever: only the launcher can end the job. */
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "exit";
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (!strcmp(mode, "exit"))
            exit(0);
        if (!strcmp(mode, "crash"))
            raise(SIGSEGV);
        if (!strcmp(mode, "abort"))
            MPI_Abort(MPI_COMM_WORLD, 5);
        if (!strcmp(mode, "fail"))
            return 3;
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* well-behaved */
    }
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
