/* The demo: an ordinary MPI program. Under `ivcrun --vms M` its ranks run in separate
 * simulated VMs and talk through the shared region. It prints where each rank runs, passes
 * a token around a ring, and measures a ping-pong and a 1 MiB transfer between the first
 * and last rank, checking every byte. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(size_t i, int salt)
{
    return (unsigned char)(i * 131 + (size_t)salt * 17 + (i >> 9));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME], *names = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);

    if (rank == 0)
        names = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        MPI_Get_library_version(lib, &len);
        printf("%s\n%d ranks:\n", lib, size);
        for (int r = 0; r < size; r++)
            printf("  rank %d runs on %s\n", r, names + (size_t)r * MPI_MAX_PROCESSOR_NAME);
        free(names);
    }

    /* A token around the ring: every rank adds its rank + 1. */
    long token = 0;
    if (size > 1) {
        if (rank == 0) {
            token = 1;
            MPI_Send(&token, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_LONG, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank + 1;
            MPI_Send(&token, 1, MPI_LONG, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    int ok = 1;
    if (rank == 0 && size > 1) {
        long want = (long)size * (size + 1) / 2;
        ok = token == want;
        printf("ring token: %ld (expected %ld) %s\n", token, want, ok ? "ok" : "WRONG");
    }

    /* Ping-pong and a 1 MiB transfer between rank 0 and the last rank. */
    int peer = rank == 0 ? size - 1 : 0;
    if (size > 1 && (rank == 0 || rank == size - 1)) {
        const int iters = 20000;
        char small[8] = {0};
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(small, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(small, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(small, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(small, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            }
        }
        double lat = (MPI_Wtime() - t0) / iters / 2 * 1e6;

        size_t n = 1 << 20;
        unsigned char *buf = malloc(n);
        const int reps = 200;
        double t1 = MPI_Wtime();
        for (int i = 0; i < reps; i++) {
            if (rank == 0) {
                for (size_t k = 0; k < n; k += 4096)
                    buf[k] = pattern(k, i);
                if (i == reps - 1)
                    for (size_t k = 0; k < n; k++)
                        buf[k] = pattern(k, i);
                MPI_Send(buf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
            } else {
                MPI_Recv(buf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        char ack = 0;
        if (rank == 0)
            MPI_Recv(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
        double bw = (double)n * reps / (MPI_Wtime() - t1) / 1e6;
        if (rank == size - 1)
            for (size_t k = 0; k < n && ok; k++)
                if (buf[k] != pattern(k, reps - 1)) {
                    printf("rank %d: byte %zu of the last 1 MiB message is wrong\n", rank, k);
                    ok = 0;
                }
        if (rank == 0)
            printf("rank 0 <-> rank %d: 8-byte latency %.2f us, 1 MiB bandwidth %.0f MB/s\n", peer,
                   lat, bw);
        free(buf);
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", all_ok ? "demo: all data checked, ok" : "demo: FAILED");
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
