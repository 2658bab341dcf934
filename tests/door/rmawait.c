/* One-sided and agreement waits sleep (issue 11: everything that waits sleeps).
 *   rmawait lock|amlock|shared|agree [seconds]   2 ranks; rank 1 makes rank 0 wait
 *       `seconds` (default 2): it holds an exclusive lock of rank 0's window (lock: a
 *       window in the region, reached directly; amlock: a window over malloc memory, locked
 *       through active messages), or a shared one while rank 0 asks for an exclusive one
 *       (shared), or it enters MPIX_Comm_agree late (agree). Rank 0 measures its CPU time
 *       (getrusage) over the wait and checks what rank 1 wrote under the lock (or the
 *       agreed flag). Run with IVC_WAIT=block: a sleeping rank uses a few per cent of a
 *       core at most, a yielding or spinning one most of it. Prints "cpu <percent>".
 *   rmawait storm [rounds]   any number of ranks: every rank, many times, locks a random
 *       target's window (exclusive or shared, direct or through active messages), updates
 *       counters with random pauses while holding it, accumulates, and now and then all
 *       agree; the counters are checked at the end. Run with IVC_WAIT=block IVC_SPIN=1 and a
 *       long IVC_WAIT_TIMEOUT: a lost wake-up shows as a sleep ended by its timeout
 *       (door.sh reads the doorbell statistics). */
#include <mpi.h>
#include <mpi-ext.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test_util.h"

static int fail(int rank, const char *what, long want, long got)
{
    printf("rank %d: FAIL: %s: expected %ld, got %ld\n", rank, what, want, got);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

/* Rank 0 waits while rank 1 holds what it needs for `secs` seconds. */
static int one_wait(const char *mode, int rank, int secs)
{
    long *mem = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int am = !strcmp(mode, "amlock");
    if (strcmp(mode, "agree") != 0) {
        if (am) {
            mem = calloc(4, sizeof(long));
            MPI_Win_create(mem, 4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win);
        } else {
            MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                             &win);
            memset(mem, 0, 4 * sizeof(long));
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double wall0 = MPI_Wtime(), cpu0 = 0;
    long got = 0, want = 0;
    if (!strcmp(mode, "agree")) {
        int flag = rank == 0 ? 0x7 : 0x5;
        if (rank == 1)
            t_pause_us(secs * 1000000l);
        else
            cpu0 = t_cpu_seconds();
        int rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        if (rc != MPI_SUCCESS)
            return fail(rank, "MPIX_Comm_agree's return", MPI_SUCCESS, rc);
        got = flag;
        want = 0x5;
    } else if (rank == 1) {
        int type = !strcmp(mode, "shared") ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE;
        long v = 4242;
        MPI_Win_lock(type, 0, 0, win);
        MPI_Barrier(MPI_COMM_WORLD); /* rank 0 asks only now */
        t_pause_us(secs * 1000000l);
        MPI_Put(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        cpu0 = t_cpu_seconds();
        wall0 = MPI_Wtime();
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        got = mem[1];
        want = 4242;
        MPI_Win_unlock(0, win);
    }
    if (rank == 0) {
        double cpu = t_cpu_seconds() - cpu0, wall = MPI_Wtime() - wall0;
        if (got != want)
            return fail(rank, "value after the wait", want, got);
        if (wall < secs * 0.9)
            return fail(rank, "ms waited (the wait ended early)", secs * 900, (long)(wall * 1000));
        printf("%s: waited %.2f s, cpu %.2f%%\n", mode, wall, 100 * cpu / wall);
    }
    if (win != MPI_WIN_NULL)
        MPI_Win_free(&win);
    if (am)
        free(mem);
    return 0;
}

static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Counters in every rank's windows: [0] exclusive increments, [1] accumulates. */
static int storm(int rank, int size, long rounds)
{
    MPI_Win win[2];
    long *mem[2];
    MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem[0],
                     &win[0]);
    mem[1] = calloc(2, sizeof(long));
    MPI_Win_create(mem[1], 2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win[1]);
    memset(mem[0], 0, 2 * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    rng = 88172645463325252ull ^ ((uint64_t)rank * 0x9e3779b97f4a7c15ull);
    long mine[2][64] = {{0}}; /* increments this rank made, per window and target */
    for (long r = 0; r < rounds; r++) {
        uint64_t x = next();
        int w = (int)(x & 1), t = (int)((x >> 8) % (uint64_t)size);
        long hold = (long)((x >> 16) % 200), gap = (long)((x >> 32) % 200); /* µs */
        if ((x >> 48) % 4 != 0) { /* exclusive: read-modify-write with a pause inside */
            long v;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win[w]);
            MPI_Get(&v, 1, MPI_LONG, t, 0, 1, MPI_LONG, win[w]);
            MPI_Win_flush(t, win[w]);
            t_pause_us(hold);
            v++;
            MPI_Put(&v, 1, MPI_LONG, t, 0, 1, MPI_LONG, win[w]);
            MPI_Win_unlock(t, win[w]);
            mine[w][t]++;
        } else { /* shared: an accumulate (the accumulate lock) */
            long one = 1;
            MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win[w]);
            t_pause_us(hold / 2);
            MPI_Accumulate(&one, 1, MPI_LONG, t, 1, 1, MPI_LONG, MPI_SUM, win[w]);
            MPI_Win_unlock(t, win[w]);
        }
        t_pause_us(gap);
        if (r % 200 == 199) { /* every rank reaches the same rounds: agree on them */
            int flag = 1;
            if (MPIX_Comm_agree(MPI_COMM_WORLD, &flag) != MPI_SUCCESS || flag != 1)
                return fail(rank, "agreement flag", 1, flag);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Every rank's exclusive increments, summed per target: each target's counter holds
     * exactly its sum; with the accumulates, every operation is counted once. */
    long excl[2][64], ops = 0;
    for (int w = 0; w < 2; w++) {
        MPI_Allreduce(mine[w], excl[w], 64, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (mem[w][0] != excl[w][rank])
            return fail(rank, w ? "AM window's exclusive counter" : "window's exclusive counter",
                        excl[w][rank], mem[w][0]);
        long acc = mem[w][1], all_acc;
        MPI_Allreduce(&acc, &all_acc, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        ops += all_acc;
        for (int t = 0; t < size; t++)
            ops += excl[w][t];
    }
    if (ops != rounds * size)
        return fail(rank, "operations in all", rounds * size, ops);
    MPI_Win_free(&win[0]);
    MPI_Win_free(&win[1]);
    free(mem[1]);
    if (rank == 0)
        printf("rmawait storm: %ld rounds on %d ranks, counters checked\n", rounds, size);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "lock";
    int rc;
    if (!strcmp(mode, "storm")) {
        if (size > 64)
            return fail(rank, "ranks at most", 64, size);
        rc = storm(rank, size, argc > 2 ? atol(argv[2]) : 2000);
    } else {
        if (size != 2)
            return fail(rank, "ranks", 2, size);
        rc = one_wait(mode, rank, argc > 2 ? atoi(argv[2]) : 2);
    }
    MPI_Finalize();
    return rc;
}
