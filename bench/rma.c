/*
 * rma.c - one-sided put/get latency and bandwidth between two ranks (OSU osu_put_latency,
 * osu_get_latency, osu_put_bw, osu_get_bw style).
 *
 *   rma [put|get|put_bw|get_bw] [fence] [-m [min:]max] [-i scale] [-w window]
 *
 * Rank 0 is the origin, rank 1 the target; the window is MPI_Win_allocate'd at both ranks
 * (max bytes). Synchronization, by default: one MPI_Win_lock(SHARED) epoch for the whole
 * size, MPI_Win_flush after each operation (latency) or after each window of operations
 * (bandwidth); with "fence": MPI_Win_fence after each operation / window, at both ranks.
 * Latency = time / operations (one operation plus its completion; no halving).
 * Bandwidth: MB/s = size * window * iterations / time, MB = 10^6 bytes.
 * Sizes: 0 (latency only), 1, 2, 4 ... 4 MiB. Output: "# Size  Latency (us)" or
 * "# Size  Bandwidth (MB/s)" rows, the same format as lat.c and bw.c.
 *
 * Validation: after the timed loop of each size one untimed operation moves a fresh
 * pattern (put: into the poisoned target window; get: from a freshly filled target window
 * into a poisoned buffer) and the receiving side checks every byte.
 */
#include "common.h"

enum { OP_PUT, OP_GET };

static void counts(size_t size, double scale, int bw, int *warmup, int *iters)
{
    int big = size >= (1u << 20), mid = size > 8192;
    if (bw) {
        *warmup = bench_iters(big ? 2 : 10, scale, 1);
        *iters = bench_iters(big ? 10 : mid ? 50 : 200, scale, 2);
    } else {
        *warmup = bench_iters(big ? 10 : mid ? 100 : 1000, scale, 2);
        *iters = bench_iters(big ? 100 : mid ? 1000 : 10000, scale, 10);
    }
}

static void op(int kind, char *buf, size_t size, MPI_Win win)
{
    if (kind == OP_PUT)
        MPI_Put(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
    else
        MPI_Get(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    /* Positional words (getopt leaves them alone): the operation and the sync mode. */
    int kind = OP_PUT, bw = 0, fence = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "put") || !strcmp(argv[i], "put_bw"))
            kind = OP_PUT, bw = argv[i][3] != '\0';
        else if (!strcmp(argv[i], "get") || !strcmp(argv[i], "get_bw"))
            kind = OP_GET, bw = argv[i][3] != '\0';
        else if (!strcmp(argv[i], "fence"))
            fence = 1;
    }
    bench_init(&argc, &argv, &o, bw ? 1 : 0, (size_t)4 << 20,
               "one-sided put/get latency or bandwidth ([put|get|put_bw|get_bw] [fence])", 1);

    char *buf = bench_alloc(o.max_size);
    char *wbase;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(o.max_size ? o.max_size : 1), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                     &wbase, &win);
    memset(wbase, 0, o.max_size ? o.max_size : 1);
    int nsizes = 0;
    const char *name = kind == OP_PUT ? "put" : "get";
    if (o.rank == 0) {
        printf("# IVC bench: one-sided %s %s (%s)\n", name, bw ? "bandwidth" : "latency",
               fence ? "MPI_Win_fence" : "MPI_Win_lock + MPI_Win_flush");
        printf("# %-8s%18s\n", "Size", bw ? "Bandwidth (MB/s)" : "Latency (us)");
        fflush(stdout);
    }
    bench_fill(buf, o.max_size, 1);
    if (!fence)
        MPI_Win_lock_all(0, win);

    for (size_t size = bench_first_size(o.min_size); size <= o.max_size;
         size = bench_next_size(size)) {
        int warmup, iters, per = bw ? o.window : 1;
        counts(size, o.iter_scale, bw, &warmup, &iters);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0.0;
        if (fence) {
            MPI_Win_fence(0, win);
            for (int i = 0; i < warmup + iters; i++) {
                if (i == warmup)
                    t0 = MPI_Wtime();
                if (o.rank == 0)
                    for (int k = 0; k < per; k++)
                        op(kind, buf, size, win);
                MPI_Win_fence(0, win);
            }
        } else if (o.rank == 0) {
            for (int i = 0; i < warmup + iters; i++) {
                if (i == warmup)
                    t0 = MPI_Wtime();
                for (int k = 0; k < per; k++)
                    op(kind, buf, size, win);
                MPI_Win_flush(1, win);
            }
        }
        double t = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);

        /* Untimed validation round. */
        uint32_t seed = bench_seed(size, kind);
        if (kind == OP_PUT) {
            /* Local stores to the window (unified model), ordered by Win_sync and the
             * barrier before the origin's access. */
            if (o.rank == 1) {
                memset(wbase, BENCH_POISON, size);
                if (!fence)
                    MPI_Win_sync(win);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            if (fence)
                MPI_Win_fence(0, win);
            if (o.rank == 0) {
                bench_fill(buf, size, seed);
                op(kind, buf, size, win);
                if (!fence)
                    MPI_Win_flush(1, win);
            }
            if (fence)
                MPI_Win_fence(0, win);
            MPI_Barrier(MPI_COMM_WORLD);
            if (o.rank == 1) {
                if (!fence)
                    MPI_Win_sync(win);
                long bad = bench_check(wbase, size, seed);
                if (bad >= 0) {
                    bench_report_bad("rma", 1, size, 0, bad, wbase, seed);
                    bench_die("the target window holds wrong data");
                }
            }
        } else {
            if (o.rank == 1) {
                bench_fill(wbase, size, seed);
                if (!fence)
                    MPI_Win_sync(win);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            if (fence)
                MPI_Win_fence(0, win);
            if (o.rank == 0) {
                memset(buf, BENCH_POISON, size);
                op(kind, buf, size, win);
                if (!fence)
                    MPI_Win_flush(1, win);
            }
            if (fence)
                MPI_Win_fence(0, win);
            if (o.rank == 0) {
                long bad = bench_check(buf, size, seed);
                if (bad >= 0) {
                    bench_report_bad("rma", 0, size, 0, bad, buf, seed);
                    bench_die("the origin received wrong data");
                }
            }
        }
        if (o.rank == 0)
            bench_fill(buf, size, 1);

        uint64_t moved = (uint64_t)size * (uint64_t)((warmup + iters) * per + 1);
        if (kind == OP_PUT)
            bench_bytes_0to1 += moved;
        else
            bench_bytes_1to0 += moved;
        nsizes++;
        if (o.rank == 0) {
            if (bw)
                printf("%-10zu%18.2f\n", size, (double)size * per * iters / t / 1e6);
            else
                printf("%-10zu%18.2f\n", size, t * 1e6 / iters);
            fflush(stdout);
        }
    }
    if (!fence)
        MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(buf);
    return bench_finish(o.rank, nsizes);
}
