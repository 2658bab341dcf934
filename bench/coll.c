/*
 * coll.c - OSU-style latency of one collective over message sizes, any number of ranks.
 *
 *   coll -c barrier|bcast|reduce|allreduce|allgather|alltoall|reduce_scatter
 *        [-m [min:]max] [-i scale]
 *
 * For each size every rank runs warm-up iterations, then a timed loop of the collective
 * back to back (no barrier inside the loop); the latency printed is the timed loop's time
 * per call averaged over the ranks (as osu_*_latency does). Size is the bytes each rank
 * contributes: the broadcast message; the MPI_FLOAT array of reduce/allreduce (root 0 for
 * bcast/reduce); one rank's block of allgather; one rank's block to each peer for alltoall;
 * the MPI_FLOAT input vector of reduce_scatter (MPI_Reduce_scatter_block: each rank gets
 * 1/n of the sum).
 * Barrier prints one row, size 0. Iterations: 200 warm-up and 10000 timed up to 8 KiB,
 * 20 + 1000 above, times -i, and never more than about 1 s of timed loop per size (rank 0
 * picks the count from the warm-up and broadcasts it), so oversubscribed runs finish.
 *
 * Validation: after each size, one untimed call with fresh data is checked element by
 * element on every rank (pattern for data movement, exact small-integer sums for
 * reductions); a wrong byte prints VALIDATION FAILED and aborts. The last two lines are
 * those of the other benchmarks ("# Validation: OK", "# Payload bytes: ..."); the payload
 * is a lower bound of what any correct algorithm moves between ranks 0 and 1 with 2 ranks.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include "init.h"
#include "size.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_ALLTOALL, C_REDUCE_SCATTER };
static const char *names[] = {"barrier",   "bcast",    "reduce",        "allreduce",
                              "allgather", "alltoall", "reduce_scatter"};

static int rank, nranks, coll = -1;
static size_t min_size = 8, max_size = 1 << 20;
static double scale = 1.0;
static uint64_t pay01, pay10;

static void die(const char *what)
{
    fprintf(stderr, "coll: FATAL: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void *alloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n ? n : 1) != 0)
        die("out of memory");
    memset(p, 0, n ? n : 1);
    return p;
}

static uint8_t pat(size_t i, uint32_t seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + (uint32_t)(i >> 12) * 97u;
    return (uint8_t)(x >> 24 ^ x >> 8 ^ seed);
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(i, seed);
}

static void check(const uint8_t *b, size_t n, uint32_t seed, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(i, seed)) {
            fprintf(stderr,
                    "coll: VALIDATION FAILED on rank %d: %s, %zu bytes, byte %zu: got 0x%02x, "
                    "expected 0x%02x\n",
                    rank, what, n, i, b[i], pat(i, seed));
            die("received data is wrong");
        }
}

/* One call of the collective on `size` bytes per rank. */
static void run(size_t size, uint8_t *s, uint8_t *r)
{
    int nf = (int)(size / sizeof(float));
    switch (coll) {
    case C_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case C_BCAST: MPI_Bcast(s, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case C_REDUCE: MPI_Reduce(s, r, nf, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case C_ALLREDUCE: MPI_Allreduce(s, r, nf, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
    case C_ALLGATHER:
        MPI_Allgather(s, (int)size, MPI_BYTE, r, (int)size, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case C_ALLTOALL:
        MPI_Alltoall(s, (int)size, MPI_BYTE, r, (int)size, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case C_REDUCE_SCATTER:
        MPI_Reduce_scatter_block(s, r, nf / nranks, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    }
}

/* Lower bound of payload bytes rank 0 -> 1 and 1 -> 0 per call with 2 ranks. */
static void payload(size_t size, uint64_t n)
{
    uint64_t to1 = 0, to0 = 0;
    switch (coll) {
    case C_BCAST: to1 = size; break;
    case C_REDUCE: to0 = size / sizeof(float) * sizeof(float); break;
    case C_ALLREDUCE: to1 = to0 = size / sizeof(float) * sizeof(float); break;
    case C_ALLGATHER:
    case C_ALLTOALL: to1 = to0 = size; break;
    case C_REDUCE_SCATTER: to1 = to0 = size / sizeof(float) / 2 * sizeof(float); break;
    default: break;
    }
    pay01 += to1 * n;
    pay10 += to0 * n;
}

/* Untimed call with fresh data, checked on every rank. */
static void validate(size_t size, uint8_t *s, uint8_t *r)
{
    char what[64];
    snprintf(what, sizeof what, "%s", names[coll]);
    uint32_t seed = (uint32_t)(size * 7919u + 17u);
    size_t nf = size / sizeof(float);
    float *fs = (float *)s, *fr = (float *)r;
    switch (coll) {
    case C_BARRIER: run(size, s, r); break;
    case C_BCAST:
        if (rank == 0)
            fill(s, size, seed);
        else
            memset(s, 0xA5, size);
        run(size, s, r);
        check(s, size, seed, what);
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        for (size_t i = 0; i < nf; i++)
            fs[i] = (float)((rank + i) % 7);
        memset(r, 0xA5, nf * sizeof(float));
        run(size, s, r);
        if (coll == C_ALLREDUCE || rank == 0)
            for (size_t i = 0; i < nf; i++) {
                float want = 0;
                for (int q = 0; q < nranks; q++)
                    want += (float)((q + i) % 7);
                if (fr[i] != want) {
                    fprintf(stderr,
                            "coll: VALIDATION FAILED on rank %d: %s element %zu: got %g, "
                            "expected %g\n",
                            rank, what, i, (double)fr[i], (double)want);
                    die("reduced data is wrong");
                }
            }
        break;
    case C_REDUCE_SCATTER: {
        size_t blk = nf / (size_t)nranks;
        for (size_t i = 0; i < nf; i++)
            fs[i] = (float)((rank + i) % 7);
        memset(r, 0xA5, blk * sizeof(float));
        run(size, s, r);
        for (size_t j = 0; j < blk; j++) {
            size_t i = (size_t)rank * blk + j;
            float want = 0;
            for (int q = 0; q < nranks; q++)
                want += (float)((q + i) % 7);
            if (fr[j] != want) {
                fprintf(stderr,
                        "coll: VALIDATION FAILED on rank %d: %s element %zu: got %g, expected %g\n",
                        rank, what, j, (double)fr[j], (double)want);
                die("reduced data is wrong");
            }
        }
        break;
    }
    case C_ALLGATHER:
        fill(s, size, seed + (uint32_t)rank);
        memset(r, 0xA5, size * (size_t)nranks);
        run(size, s, r);
        for (int q = 0; q < nranks; q++)
            check(r + (size_t)q * size, size, seed + (uint32_t)q, what);
        break;
    case C_ALLTOALL:
        for (int q = 0; q < nranks; q++)
            fill(s + (size_t)q * size, size, seed + (uint32_t)(rank * 64 + q));
        memset(r, 0xA5, size * (size_t)nranks);
        run(size, s, r);
        for (int q = 0; q < nranks; q++)
            check(r + (size_t)q * size, size, seed + (uint32_t)(q * 64 + rank), what);
        break;
    }
}

static int scaled(int base, int lo)
{
    int n = (int)(base * scale + 0.5);
    return n < lo ? lo : n;
}

int main(int argc, char **argv)
{
    bench_mpi_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int c, bad = 0;
    while ((c = getopt(argc, argv, "c:m:i:h")) != -1) {
        switch (c) {
        case 'c':
            for (int k = 0; k < (int)(sizeof(names) / sizeof(names[0])); k++)
                if (strcmp(optarg, names[k]) == 0)
                    coll = k;
            break;
        case 'm': {
            char buf[128];
            snprintf(buf, sizeof buf, "%s", optarg);
            char *colon = strchr(buf, ':');
            if (colon) {
                *colon = '\0';
                bad |= bench_parse_size(buf, &min_size) || bench_parse_size(colon + 1, &max_size);
            } else {
                bad |= bench_parse_size(buf, &max_size);
            }
            break;
        }
        case 'i':
            scale = strtod(optarg, NULL);
            bad |= !(scale > 0 && scale <= 1000);
            break;
        default: bad = 1; break;
        }
    }
    if (coll < 0 || bad || max_size < min_size || max_size > ((size_t)1 << 28)) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s -c barrier|bcast|reduce|allreduce|allgather|alltoall "
                    "[-m [min:]max] [-i scale]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (coll == C_BARRIER)
        min_size = max_size = 0;
    size_t per = coll == C_ALLGATHER || coll == C_ALLTOALL ? (size_t)nranks : 1;
    uint8_t *s = alloc(max_size * (coll == C_ALLTOALL ? per : 1));
    uint8_t *r = alloc(max_size * per);
    if (rank == 0) {
        printf("# IVC bench: MPI_%s latency, %d ranks (average over ranks)\n", names[coll], nranks);
        printf("# %-8s%18s\n", "Size", "Latency (us)");
        fflush(stdout);
    }
    int nsizes = 0;
    for (size_t size = min_size; size <= max_size; size = size ? size * 2 : 1) {
        int small = size <= 8192;
        int warmup = scaled(small ? 200 : 20, 2), iters = scaled(small ? 10000 : 1000, 10);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < warmup; i++)
            run(size, s, r);
        double per_call = (MPI_Wtime() - t0) / warmup;
        /* At most ~1 s of timed loop: rank 0 decides so that every rank runs the same. */
        if (per_call * iters > 1.0)
            iters = (int)(1.0 / per_call) > 10 ? (int)(1.0 / per_call) : 10;
        MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            run(size, s, r);
        double t = (MPI_Wtime() - t0) / iters, sum = 0;
        MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        validate(size, s, r);
        payload(size, (uint64_t)(warmup + iters + 1));
        nsizes++;
        if (rank == 0) {
            /* Three decimals: at 0.1 µs a step of 0.01 is 10%. */
            printf("%-10zu%18.3f\n", size, sum / nranks * 1e6);
            fflush(stdout);
        }
        if (size == 0 && max_size == 0)
            break;
    }
    free(s);
    free(r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("# Validation: OK (%d sizes checked)\n", nsizes);
        printf("# Payload bytes: rank0->rank1 %llu rank1->rank0 %llu\n", (unsigned long long)pay01,
               (unsigned long long)pay10);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
