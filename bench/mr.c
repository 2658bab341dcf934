/*
 * mr.c - message rate of one sender/receiver pair.
 *
 * Same window scheme as bw.c (rank 0 posts 64 MPI_Isend, rank 1 has 64 MPI_Irecv
 * pre-posted, Waitall, 4-byte ack), for small messages only (1 B .. 8 KiB by default)
 * and with more iterations, so the per-message software overhead dominates.
 * Output: "# Size  MB/s  Messages/s" rows (MB = 10^6 bytes).
 */
#include "window.h"

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_init(&argc, &argv, &o, 1, 8192, "message rate (one pair)", 1);

    window_ctx_t w;
    window_setup(&w, &o);
    int nsizes = 0;

    if (o.rank == 0) {
        printf("# IVC bench: message rate, 1 pair (window %d)\n", o.window);
        printf("# %-8s%18s%18s\n", "Size", "MB/s", "Messages/s");
        fflush(stdout);
    }
    for (size_t size = bench_first_size(o.min_size); size <= o.max_size;
         size = bench_next_size(size)) {
        int warmup = bench_iters(100, o.iter_scale, 2);
        int iters = bench_iters(1000, o.iter_scale, 10);
        if (size > 8192) {
            warmup = bench_iters(5, o.iter_scale, 1);
            iters = bench_iters(50, o.iter_scale, 3);
        }
        double t = window_run(&w, &o, size, warmup, iters, "mr");
        nsizes++;
        if (o.rank == 0) {
            double msgs = (double)o.window * iters;
            double rate = t > 0 ? msgs / t : 0.0;
            printf("%-10zu%18.2f%18.2f\n", size, rate * (double)size / 1e6, rate);
            fflush(stdout);
        }
    }

    return bench_finish(o.rank, nsizes);
}
