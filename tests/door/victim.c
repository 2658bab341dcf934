/* A rank asleep in MPI_Recv wakes and reports when its peer dies (issue 11), and waiting
 * works without a doorbell server or after it is gone. door.sh starts the ranks by hand.
 *   victim recv      rank 0 blocks in MPI_Recv from rank 1, which never sends (door.sh
 *                    kills it); rank 0 prints "reported MPI_ERR_PROC_FAILED" and exits 0
 *   victim pingpong N [pause_us]   N checked round trips, rank 1 pausing before each reply;
 *                    prints "pingpong ok" */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *mode = argc > 1 ? argv[1] : "recv";
    MPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(mode, "recv")) {
        if (rank == 0) {
            printf("waiting\n");
            fflush(stdout);
            int v, rc = MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int cls = -1;
            MPI_Error_class(rc, &cls);
            if (cls == MPI_ERR_PROC_FAILED) {
                printf("reported MPI_ERR_PROC_FAILED\n");
                fflush(stdout);
                _Exit(0); /* the job is broken; nothing left to finalize with */
            }
            printf("FAIL: MPI_Recv returned error class %d, expected MPI_ERR_PROC_FAILED\n", cls);
            return 1;
        }
        for (;;) { /* rank 1: never sends; killed by door.sh */
            struct timespec ts = {1, 0};
            nanosleep(&ts, NULL);
        }
    }
    long n = argc > 2 ? atol(argv[2]) : 100, pause = argc > 3 ? atol(argv[3]) : 1000;
    for (long i = 0; i < n; i++) {
        long v = i;
        if (rank == 0) {
            MPI_Send(&v, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (v != 2 * i) {
                printf("FAIL: round %ld: expected %ld, got %ld\n", i, 2 * i, v);
                return 1;
            }
        } else {
            MPI_Recv(&v, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            struct timespec ts = {0, pause * 1000};
            nanosleep(&ts, NULL);
            v *= 2;
            MPI_Send(&v, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("pingpong ok\n");
    MPI_Finalize();
    return 0;
}
