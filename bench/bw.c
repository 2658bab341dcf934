/*
 * bw.c - unidirectional streaming bandwidth between two ranks.
 *
 * For each size, rank 0 streams windows of 64 non-blocking sends to rank 1 (which has
 * the matching receives pre-posted); after each window rank 1 returns a 4-byte ack.
 * Bandwidth = size * window * iterations / elapsed time, in MB/s (10^6 bytes/s).
 * Sizes 1 B .. 4 MiB (option -m).  Output: "# Size  Bandwidth (MB/s)" rows.
 */
#include "window.h"

static void bw_counts(size_t size, const bench_opts_t *o, int *warmup, int *iters)
{
    if (size <= 8192) {
        *warmup = bench_iters(20, o->iter_scale, 2);
        *iters = bench_iters(200, o->iter_scale, 10);
    } else {
        *warmup = bench_iters(2, o->iter_scale, 1);
        *iters = bench_iters(20, o->iter_scale, 3);
        /* Large sizes: cap the timed volume at ~2 GiB (scaled) to bound the run time. */
        double cap = 2.0 * (1u << 30) * o->iter_scale / ((double)size * o->window);
        if (*iters > cap)
            *iters = cap < 3 ? 3 : (int)cap;
    }
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_init(&argc, &argv, &o, 1, (size_t)4 << 20, "unidirectional streaming bandwidth", 1);

    window_ctx_t w;
    window_setup(&w, &o);
    int nsizes = 0;

    if (o.rank == 0) {
        printf("# IVC bench: unidirectional bandwidth (window %d)\n", o.window);
        printf("# %-8s%18s\n", "Size", "Bandwidth (MB/s)");
        fflush(stdout);
    }
    for (size_t size = bench_first_size(o.min_size); size <= o.max_size;
         size = bench_next_size(size)) {
        int warmup, iters;
        bw_counts(size, &o, &warmup, &iters);
        double t = window_run(&w, &o, size, warmup, iters, "bw");
        nsizes++;
        if (o.rank == 0) {
            double bytes = (double)size * o.window * iters;
            printf("%-10zu%18.2f\n", size, t > 0 ? bytes / t / 1e6 : 0.0);
            fflush(stdout);
        }
    }

    return bench_finish(o.rank, nsizes);
}
