/* No lost wake-up under a storm of sleeps and wakes (issue 11). Every rank runs many rounds
 * of exchanges with random pauses in between, so that the waiting side is, at random,
 * spinning, about to sleep, or asleep when the message comes: ping-pong with a random peer
 * (eager and rendezvous sizes), MPI_Barrier, MPI_Allreduce and MPI_Bcast through the
 * collective areas. Data is checked every round. Run with IVC_WAIT=block, IVC_SPIN=1 (every
 * idle wait sleeps) and a long IVC_WAIT_TIMEOUT: a lost wake-up then shows as a sleep that
 * ended by its timeout, which door.sh looks for in the doorbell statistics (IVC_DEBUG).
 *   storm [rounds]   (default 3000) */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void pause_us(unsigned us)
{
    struct timespec ts = {0, (long)us * 1000};
    if (us > 0)
        nanosleep(&ts, NULL);
}

static int fail(int rank, const char *what, long round, long want, long got)
{
    printf("rank %d: FAIL: %s in round %ld: expected %ld, got %ld\n", rank, what, round, want, got);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long rounds = argc > 1 ? atol(argv[1]) : 3000;
    enum { BIG = 64 * 1024 };
    long *buf = malloc(BIG);
    if (buf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long r = 0; r < rounds; r++) {
        /* Every rank draws the same sequence: the same pattern everywhere. */
        uint64_t x = next();
        int kind = (int)(x % 5);
        int a = (int)((x >> 8) % (uint64_t)size), b = (int)((x >> 16) % (uint64_t)size);
        unsigned delay = (unsigned)((x >> 24) % 300); /* µs */
        if (b == a)
            b = (a + 1) % size;
        if (kind <= 1) { /* ping-pong a <-> b; kind 1: rendezvous size */
            int n = kind ? BIG / (int)sizeof(long) : 1;
            if (rank == a) {
                pause_us(delay);
                for (int i = 0; i < n; i++)
                    buf[i] = r * 7 + i;
                MPI_Send(buf, n, MPI_LONG, b, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_LONG, b, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (buf[n - 1] != r * 7 + n - 1 + 1)
                    return fail(rank, "pong", r, r * 7 + n, buf[n - 1]);
            } else if (rank == b) {
                MPI_Recv(buf, n, MPI_LONG, a, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (buf[0] != r * 7)
                    return fail(rank, "ping", r, r * 7, buf[0]);
                pause_us(delay / 2);
                buf[n - 1] += 1;
                MPI_Send(buf, n, MPI_LONG, a, 2, MPI_COMM_WORLD);
            }
        } else if (kind == 2) {
            if (rank == a)
                pause_us(delay);
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (kind == 3) {
            if (rank == a)
                pause_us(delay);
            long v = rank + r, sum;
            MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            long want = (long)size * (size - 1) / 2 + (long)size * r;
            if (sum != want)
                return fail(rank, "allreduce", r, want, sum);
        } else {
            if (rank == a)
                pause_us(delay);
            long v = rank == a ? r * 3 : -1;
            MPI_Bcast(&v, 1, MPI_LONG, a, MPI_COMM_WORLD);
            if (v != r * 3)
                return fail(rank, "bcast", r, r * 3, v);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("storm: %ld rounds on %d ranks, data checked\n", rounds, size);
    free(buf);
    MPI_Finalize();
    return 0;
}
