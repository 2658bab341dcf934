/*
 * lat.c - ping-pong latency between two ranks.
 *
 * Rank 0 sends a message of `size` bytes to rank 1, which sends one of the same size
 * back (blocking MPI_Send / MPI_Recv).  The one-way latency is half the average round
 * trip over the timed iterations, after untimed warm-up iterations.  Sizes: 0, 1, 2,
 * 4, ... up to 4 MiB (option -m).  Output: "# Size  Latency (us)" rows.
 */
#include "common.h"

#define TAG_PING 1
#define TAG_PONG 2

static void lat_counts(size_t size, double scale, int *warmup, int *iters)
{
    if (size <= 8192) {
        *warmup = bench_iters(1000, scale, 10);
        *iters = bench_iters(10000, scale, 100);
    } else if (size < (1u << 20)) {
        *warmup = bench_iters(100, scale, 5);
        *iters = bench_iters(1000, scale, 20);
    } else {
        *warmup = bench_iters(10, scale, 2);
        *iters = bench_iters(100, scale, 10);
    }
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_init(&argc, &argv, &o, 0, (size_t)4 << 20, "ping-pong one-way latency", 0);

    /* Pools first, so that an MPI placing large allocations where peers reach them puts
     * the pools there before the fixed buffers. */
    bench_pool_t spool = {0}, rpool = {0};
    if (o.bufmode == BENCH_BUF_POOL) {
        bench_pool_init(&spool, o.pool, o.max_size);
        bench_pool_init(&rpool, o.pool, o.max_size);
    }
    char *sbuf = bench_alloc(o.max_size);
    char *rbuf = bench_alloc(o.max_size);
    const int peer = 1 - o.rank;
    int nsizes = 0;

    if (o.rank == 0) {
        printf("# IVC bench: ping-pong latency (one-way = round trip / 2)%s\n",
               o.bufmode == BENCH_BUF_POOL       ? ", cyclic buffer pool"
               : o.bufmode == BENCH_BUF_ALLOCMEM ? ", MPI_Alloc_mem buffers"
                                                 : "");
        printf("# %-8s%18s\n", "Size", "Latency (us)");
        fflush(stdout);
    }
    bench_fill(sbuf, o.max_size, 1);

    for (size_t size = bench_first_size(o.min_size); size <= o.max_size;
         size = bench_next_size(size)) {
        int warmup, iters;
        lat_counts(size, o.iter_scale, &warmup, &iters);
        MPI_Barrier(MPI_COMM_WORLD);

        double t0 = 0.0;
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            char *sb = sbuf, *rb = rbuf;
            if (o.bufmode == BENCH_BUF_POOL) {
                sb = bench_pool_get(&spool, size);
                rb = bench_pool_get(&rpool, size);
            }
            if (o.rank == 0) {
                MPI_Send(sb, (int)size, MPI_CHAR, peer, TAG_PING, MPI_COMM_WORLD);
                MPI_Recv(rb, (int)size, MPI_CHAR, peer, TAG_PONG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rb, (int)size, MPI_CHAR, peer, TAG_PING, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(sb, (int)size, MPI_CHAR, peer, TAG_PONG, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;

        /* Untimed validation round: fresh pattern each way, receive buffer poisoned. */
        uint32_t s01 = bench_seed(size, 0), s10 = bench_seed(size, 1);
        memset(rbuf, BENCH_POISON, size);
        if (o.rank == 0) {
            bench_fill(sbuf, size, s01);
            MPI_Send(sbuf, (int)size, MPI_CHAR, peer, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, TAG_PONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            long bad = bench_check(rbuf, size, s10);
            if (bad >= 0) {
                bench_report_bad("lat", 0, size, 0, bad, rbuf, s10);
                bench_die("received data is wrong");
            }
        } else {
            bench_fill(sbuf, size, s10);
            MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            long bad = bench_check(rbuf, size, s01);
            if (bad >= 0) {
                bench_report_bad("lat", 1, size, 0, bad, rbuf, s01);
                bench_die("received data is wrong");
            }
            MPI_Send(sbuf, (int)size, MPI_CHAR, peer, TAG_PONG, MPI_COMM_WORLD);
        }
        bench_fill(sbuf, size, 1);

        uint64_t per_dir = (uint64_t)size * (uint64_t)(warmup + iters + 1);
        bench_bytes_0to1 += per_dir;
        bench_bytes_1to0 += per_dir;
        nsizes++;
        if (o.rank == 0) {
            /* Three decimals: at 0.1 µs a step of 0.01 is 10%. */
            printf("%-10zu%18.3f\n", size, t * 1e6 / (2.0 * iters));
            fflush(stdout);
        }
    }

    bench_free(sbuf);
    bench_free(rbuf);
    if (o.bufmode == BENCH_BUF_POOL) {
        bench_free(spool.base);
        bench_free(rpool.base);
    }
    return bench_finish(o.rank, nsizes);
}
