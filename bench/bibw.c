/*
 * bibw.c - bidirectional streaming bandwidth between two ranks.
 *
 * Each iteration, both ranks post `window` (64) MPI_Irecv into distinct buffers, then
 * `window` MPI_Isend of `size` bytes to the other rank, then MPI_Waitall on all of
 * them.  After the timed iterations rank 1 sends a 4-byte ack and rank 0 stops its
 * clock when it arrives.  Bandwidth = 2 * size * window * iterations / elapsed time
 * (both directions counted), in MB/s (10^6 bytes/s).  Sizes 1 B .. 4 MiB (option -m).
 * Output: "# Size  Bandwidth (MB/s)" rows.
 */
#include "common.h"

#define TAG_DATA 20
#define TAG_ACK  21

static void bibw_counts(size_t size, const bench_opts_t *o, int *warmup, int *iters)
{
    if (size <= 8192) {
        *warmup = bench_iters(20, o->iter_scale, 2);
        *iters = bench_iters(200, o->iter_scale, 10);
    } else {
        *warmup = bench_iters(2, o->iter_scale, 1);
        *iters = bench_iters(20, o->iter_scale, 3);
        /* Large sizes: cap the timed volume per direction at ~1 GiB (scaled). */
        double cap = 1.0 * (1u << 30) * o->iter_scale / ((double)size * o->window);
        if (*iters > cap)
            *iters = cap < 3 ? 3 : (int)cap;
    }
}

static void exchange(char *sbuf, char **rbufs, MPI_Request *reqs, int window, size_t size, int peer)
{
    for (int k = 0; k < window; k++)
        MPI_Irecv(rbufs[k], (int)size, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[k]);
    for (int k = 0; k < window; k++)
        MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[window + k]);
    MPI_Waitall(2 * window, reqs, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_init(&argc, &argv, &o, 1, (size_t)4 << 20, "bidirectional streaming bandwidth", 1);

    const int W = o.window, peer = 1 - o.rank;
    char *sbuf = bench_alloc(o.max_size);
    char **rbufs = calloc((size_t)W, sizeof *rbufs);
    MPI_Request *reqs = calloc(2 * (size_t)W, sizeof *reqs);
    if (!rbufs || !reqs)
        bench_die("out of memory");
    for (int k = 0; k < W; k++)
        rbufs[k] = bench_alloc(o.max_size);
    bench_fill(sbuf, o.max_size, 1);
    int nsizes = 0, ack = 0;

    if (o.rank == 0) {
        printf("# IVC bench: bidirectional bandwidth (window %d, both directions summed)\n", W);
        printf("# %-8s%18s\n", "Size", "Bandwidth (MB/s)");
        fflush(stdout);
    }
    for (size_t size = bench_first_size(o.min_size); size <= o.max_size;
         size = bench_next_size(size)) {
        int warmup, iters;
        bibw_counts(size, &o, &warmup, &iters);
        MPI_Barrier(MPI_COMM_WORLD);

        double t0 = 0.0;
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            exchange(sbuf, rbufs, reqs, W, size, peer);
        }
        if (o.rank == 0)
            MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
        double t = MPI_Wtime() - t0;

        /* Untimed validation round: direction-specific pattern, poisoned receive buffers. */
        uint32_t mine = bench_seed(size, o.rank), theirs = bench_seed(size, peer);
        bench_fill(sbuf, size, mine);
        for (int k = 0; k < W; k++)
            memset(rbufs[k], BENCH_POISON, size);
        exchange(sbuf, rbufs, reqs, W, size, peer);
        for (int k = 0; k < W; k++) {
            long bad = bench_check(rbufs[k], size, theirs);
            if (bad >= 0) {
                bench_report_bad("bibw", o.rank, size, k, bad, rbufs[k], theirs);
                bench_die("received data is wrong");
            }
        }
        bench_fill(sbuf, size, 1);

        uint64_t per_dir = (uint64_t)size * (uint64_t)W * (uint64_t)(warmup + iters + 1);
        bench_bytes_0to1 += per_dir;
        bench_bytes_1to0 += per_dir;
        nsizes++;
        if (o.rank == 0) {
            double bytes = 2.0 * (double)size * W * iters;
            printf("%-10zu%18.2f\n", size, t > 0 ? bytes / t / 1e6 : 0.0);
            fflush(stdout);
        }
    }

    return bench_finish(o.rank, nsizes);
}
