/* Latency across VM migrations (issue 12): a 2 KiB ping-pong between ranks 0 and 1 that
 * prints, every `step` seconds, the mean one-way latency of that interval and the worst
 * round trip in it, so that the plateaus (apart: network; co-located: shared memory) and
 * the switches between them show. Run it on two simulated hosts and move a VM:
 *   ivcrun -n 2 --hosts 2 --migrate 1:0@2 --migrate 1:1@4 migrate_trace 6
 * Then, per interval, the message rate and bandwidth of 64 KiB messages streamed both
 * ways (rate mode: migrate_trace SECONDS rate).
 *   migrate_trace [seconds (6)] [lat|rate] [step seconds (0.25)] */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 6;
    int rate = argc > 2 && strcmp(argv[2], "rate") == 0;
    double step = argc > 3 ? atof(argv[3]) : 0.25;
    int len = rate ? 65536 : 2048, window = 16;
    char *buf = calloc((size_t)window, (size_t)len);
    MPI_Request req[16];
    if (rank == 0)
        printf("# time (s)  %s\n", rate ? "messages/s  MB/s (64 KiB, window 16)"
                                        : "latency (us, 2 KiB, mean)  worst round trip (us)");
    double t0 = MPI_Wtime(), next = t0 + step;
    long n = 0;
    double worst = 0;
    int go = 1;
    while (go) {
        double a = MPI_Wtime();
        if (rate) {
            int peer = 1 - rank;
            for (int i = 0; i < window; i++)
                MPI_Irecv(buf + (size_t)i * len, len, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[i]);
            for (int i = 0; i < window; i++)
                MPI_Send(buf + (size_t)i * len, len, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        } else if (rank == 0) {
            MPI_Send(buf, len, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, len, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
        double b = MPI_Wtime();
        n++;
        if (b - a > worst)
            worst = b - a;
        /* Rank 0 keeps the clock; rank 1 learns the end with the next message's tag. */
        if (rank == 0 && b >= next) {
            double span = b - (next - step);
            if (rate)
                printf("%8.2f  %10.0f  %8.1f\n", b - t0, n * window * 2 / span,
                       n * window * 2.0 * len / span / 1e6);
            else
                printf("%8.2f  %8.2f  %8.1f\n", b - t0, span / n / 2 * 1e6, worst * 1e6);
            fflush(stdout);
            n = 0;
            worst = 0;
            next += step;
            go = b - t0 < seconds;
        }
        if (rank < 2) {
            int peer = 1 - rank, theirs = 1;
            MPI_Sendrecv(&go, 1, MPI_INT, peer, 2, &theirs, 1, MPI_INT, peer, 2, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            go = go && theirs;
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
