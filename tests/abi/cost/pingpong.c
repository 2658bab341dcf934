/* pingpong.c: the cost of the ABI conversion layers, from one source built three times (IVC's
 * mpicc, MPICH's mpicc.mpich and IVC's mpicc -mpi-abi, all run on IVC: cost.sh).
 *
 * Per size (0, 1, 8 bytes, 64 KiB and 1 MiB): rank 0 times batches of round trips of a blocking
 * ping-pong with rank 1 (200 per batch, 10 for 1 MiB; 100 batches) and reports the median
 * and the minimum over batches of the one-way latency (round trip / 2). Batches, not single
 * round trips, for a clock read far less often than the operation; median and minimum, not
 * the mean: on a shared machine a rank that loses its CPU inflates a batch by
 * milliseconds, which would swamp a difference of nanoseconds.
 * With -s, one process instead times MPI_Sendrecv with itself on MPI_COMM_SELF (the
 * library's path and the wrapper's conversions, no peer to wait for).
 * Output: "size median_us min_us" lines. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, self = argc > 1 && !strcmp(argv[1], "-s");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t sizes[] = {0, 1, 8, 1 << 16, 1 << 20};
    char *buf = malloc(1 << 20), *rbuf = malloc(1 << 20);
    memset(buf, 1, 1 << 20);
    for (int s = 0; s < 5; s++) {
        int n = 100, batch = sizes[s] >= (1u << 20) ? 10 : sizes[s] >= (1u << 16) ? 50 : 200;
        double *t = malloc(sizeof(double) * (size_t)n);
        int count = (int)sizes[s];
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = -10; i < n; i++) {
            double t0 = MPI_Wtime();
            for (int k = 0; k < batch; k++) {
                if (self) {
                    MPI_Sendrecv(buf, count, MPI_BYTE, 0, 1, rbuf, count, MPI_BYTE, 0, 1,
                                 MPI_COMM_SELF, MPI_STATUS_IGNORE);
                } else if (rank == 0) {
                    MPI_Send(buf, count, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(rbuf, count, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    MPI_Recv(rbuf, count, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, count, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
                }
            }
            if (i >= 0)
                t[i] = (MPI_Wtime() - t0) * 1e6 / batch / (self ? 1 : 2);
        }
        if (rank == 0) {
            qsort(t, (size_t)n, sizeof(double), cmp_double);
            printf("%zu %.3f %.3f\n", sizes[s], t[n / 2], t[0]);
            fflush(stdout);
        }
        free(t);
    }
    free(buf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
