/*
 * window.h - the unidirectional window pattern shared by bw.c and mr.c.
 *
 * One iteration: rank 1 has `window` MPI_Irecv pre-posted (into distinct buffers),
 * rank 0 issues `window` MPI_Isend of `size` bytes from one buffer and MPI_Waitall's
 * them; when rank 1's MPI_Waitall completes it pre-posts the receives of the next
 * iteration and then sends a 4-byte ack, which rank 0 receives before starting the next
 * iteration.  Rank 0 times `iters` iterations after `warmup` untimed ones; the clock
 * stops when the last ack has arrived.
 *
 * After the timed iterations one untimed validation iteration runs: rank 0 sends a
 * size-specific pattern, rank 1 poisons all its receive buffers before posting, checks
 * every byte of every message and returns the number of bad messages in the ack.
 */
#ifndef IVC_BENCH_WINDOW_H
#define IVC_BENCH_WINDOW_H

#include "common.h"

#define TAG_DATA 10
#define TAG_ACK  11

typedef struct {
    char *sbuf;        /* rank 0: one send buffer, max_size bytes */
    char **rbufs;      /* rank 1: window receive buffers, max_size bytes each */
    MPI_Request *reqs; /* window requests */
    int window;
    int use_pool;      /* -b pool: timed messages use the next buffer of `pool` */
    bench_pool_t pool;
} window_ctx_t;

static void window_setup(window_ctx_t *w, const bench_opts_t *o)
{
    w->window = o->window;
    w->reqs = calloc((size_t)o->window, sizeof *w->reqs);
    w->rbufs = calloc((size_t)o->window, sizeof *w->rbufs);
    if (!w->reqs || !w->rbufs)
        bench_die("out of memory");
    w->sbuf = NULL;
    w->use_pool = o->bufmode == BENCH_BUF_POOL;
    if (w->use_pool) /* first: see lat.c */
        bench_pool_init(&w->pool, o->pool, o->max_size);
    if (o->rank == 0) {
        w->sbuf = bench_alloc(o->max_size);
        bench_fill(w->sbuf, o->max_size, 1);
    } else {
        for (int k = 0; k < o->window; k++)
            w->rbufs[k] = bench_alloc(o->max_size);
    }
}

/* Timed receives may come from the pool; the validation iteration's never do. */
static void window_post_recvs(window_ctx_t *w, size_t size, int timed)
{
    for (int k = 0; k < w->window; k++) {
        char *r = timed && w->use_pool ? bench_pool_get(&w->pool, size) : w->rbufs[k];
        MPI_Irecv(r, (int)size, MPI_CHAR, 0, TAG_DATA, MPI_COMM_WORLD, &w->reqs[k]);
    }
}

/*
 * Runs warm-up + timed iterations plus the validation iteration for one size.
 * Returns the elapsed seconds of the timed iterations on rank 0 (0 on rank 1).
 */
static double window_run(window_ctx_t *w, const bench_opts_t *o, size_t size, int warmup, int iters,
                         const char *bench)
{
    const int total = warmup + iters;
    int ack = 0;
    double t0 = 0.0, t = 0.0;

    if (o->rank == 1)
        window_post_recvs(w, size, 1);
    MPI_Barrier(MPI_COMM_WORLD);

    if (o->rank == 0) {
        for (int i = 0; i < total; i++) {
            if (i == warmup)
                t0 = MPI_Wtime();
            for (int k = 0; k < w->window; k++) {
                char *sb = w->use_pool ? bench_pool_get(&w->pool, size) : w->sbuf;
                MPI_Isend(sb, (int)size, MPI_CHAR, 1, TAG_DATA, MPI_COMM_WORLD, &w->reqs[k]);
            }
            MPI_Waitall(w->window, w->reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        t = MPI_Wtime() - t0;

        /* validation iteration */
        uint32_t seed = bench_seed(size, 0);
        bench_fill(w->sbuf, size, seed);
        for (int k = 0; k < w->window; k++)
            MPI_Isend(w->sbuf, (int)size, MPI_CHAR, 1, TAG_DATA, MPI_COMM_WORLD, &w->reqs[k]);
        MPI_Waitall(w->window, w->reqs, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (ack != 0) {
            fprintf(stderr,
                    "%s: VALIDATION FAILED: rank 1 got %d of %d messages of %zu bytes "
                    "wrong\n",
                    bench, ack, w->window, size);
            bench_die("received data is wrong");
        }
        bench_fill(w->sbuf, size, 1);
    } else {
        for (int i = 0; i < total; i++) {
            MPI_Waitall(w->window, w->reqs, MPI_STATUSES_IGNORE);
            if (i + 1 < total)
                window_post_recvs(w, size, 1); /* pre-post before the ack releases rank 0 */
            MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
        }

        /* validation iteration */
        uint32_t seed = bench_seed(size, 0);
        for (int k = 0; k < w->window; k++)
            memset(w->rbufs[k], BENCH_POISON, size);
        window_post_recvs(w, size, 0);
        MPI_Waitall(w->window, w->reqs, MPI_STATUSES_IGNORE);
        int nbad = 0;
        for (int k = 0; k < w->window; k++) {
            long bad = bench_check(w->rbufs[k], size, seed);
            if (bad >= 0) {
                if (nbad == 0)
                    bench_report_bad(bench, 1, size, k, bad, w->rbufs[k], seed);
                nbad++;
            }
        }
        MPI_Send(&nbad, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
    }

    bench_bytes_0to1 += (uint64_t)size * (uint64_t)w->window * (uint64_t)(total + 1);
    bench_bytes_1to0 += sizeof(int) * (uint64_t)(total + 1);
    return t;
}

#endif
