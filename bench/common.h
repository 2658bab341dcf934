/*
 * common.h - shared helpers for the IVC point-to-point benchmarks (lat, bw, bibw, mr).
 *
 * Everything here is plain C11 + POSIX on top of a minimal MPI subset: MPI_Init(_thread),
 * MPI_Finalize, MPI_Comm_rank/size, MPI_Send/Recv, MPI_Isend/Irecv, MPI_Waitall,
 * MPI_Barrier, MPI_Wtime and MPI_Abort.  The same source is compiled against IVC and
 * against a reference MPI, so nothing implementation specific may appear here.
 *
 * Data validation: after the timed loop of every message size each benchmark runs one
 * extra, untimed round in which the sender fills its buffer with a pattern that depends
 * on the size, the receiver poisons its buffers first and then checks every byte.  A
 * transport that drops, truncates, shifts or reuses stale data therefore fails the run
 * (MPI_Abort, non-zero exit) instead of printing good-looking numbers.
 */
#ifndef IVC_BENCH_COMMON_H
#define IVC_BENCH_COMMON_H

#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include "init.h"
#include "size.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_MAX_WINDOW 1024
#define BENCH_POISON     0xA5

typedef struct {
    size_t min_size;   /* smallest message size (bytes); 0 allowed */
    size_t max_size;   /* largest message size (bytes) */
    double iter_scale; /* multiplies every iteration / warm-up count */
    int window;        /* messages in flight per iteration (bw, bibw, mr) */
    int bufmode;       /* BENCH_BUF_*: where the message buffers come from (-b) */
    size_t pool;       /* -b pool: bytes of each cyclic pool (-p; default 2x the LLC) */
    int rank;
    int size;
} bench_opts_t;

/* -b: message buffers from one fixed allocation (default), from a cyclic pool larger than
 * the last-level cache (each message uses the next buffer, so no copy finds its source or
 * destination in a cache, nor a one-copy transport its mapping in a cache), or from
 * MPI_Alloc_mem (which an MPI may place where peers reach it directly). */
enum { BENCH_BUF_FIXED, BENCH_BUF_POOL, BENCH_BUF_ALLOCMEM };
static int bench_bufmode;

/* Byte counters, reported at the end so a launcher can check where the traffic went. */
static uint64_t bench_bytes_0to1, bench_bytes_1to0;

static void bench_die(const char *what)
{
    fprintf(stderr, "bench: FATAL: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Twice the last-level cache this CPU reports (Linux sysfs), at least 64 MiB. */
static size_t bench_default_pool(void)
{
    size_t llc = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], text[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            break;
        if (fgets(text, sizeof text, f) != NULL) {
            size_t v = 0;
            if (bench_parse_size(strtok(text, "\n"), &v) == 0 && v > llc)
                llc = v;
        }
        fclose(f);
    }
    return 2 * llc > ((size_t)64 << 20) ? 2 * llc : (size_t)64 << 20;
}

static void bench_usage(const char *prog, const char *what, int has_window)
{
    fprintf(stderr,
            "usage: %s [-m [min:]max] [-i scale] [-b fixed|pool|allocmem] [-p pool] %s[-h]\n"
            "  %s\n"
            "  -m [min:]max  message size range in bytes, K/M suffixes allowed (powers of two\n"
            "                are used between min and max; 0 is included when min is 0)\n"
            "  -i scale      multiply all iteration and warm-up counts by scale (e.g. 0.2)\n"
            "  -b mode       message buffers: fixed (one allocation, default), pool (each\n"
            "                message uses the next buffer of a cyclic pool), allocmem\n"
            "                (MPI_Alloc_mem)\n"
            "  -p bytes      size of each pool (default: twice the last-level cache, >= 64M)\n"
            "%s"
            "  -h            this help\n"
            "Runs with exactly 2 ranks; only rank 0 prints.\n",
            prog, has_window ? "[-w window] " : "", what,
            has_window ? "  -w window     messages in flight per iteration (default 64)\n" : "");
}

/*
 * Parses the common options.  Every rank parses the same argv, so all ranks agree.
 * Returns 1 when the program should just exit (help printed), 0 to run.
 */
static int bench_init(int *argc, char ***argv, bench_opts_t *o, size_t def_min, size_t def_max,
                      const char *what, int has_window)
{
    bench_mpi_init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->size);
    o->min_size = def_min;
    o->max_size = def_max;
    o->iter_scale = 1.0;
    o->window = 64;
    o->bufmode = BENCH_BUF_FIXED;
    o->pool = 0;

    int c, bad = 0, help = 0;
    const char *optstr = has_window ? "m:i:w:b:p:h" : "m:i:b:p:h";
    opterr = 0;
    while ((c = getopt(*argc, *argv, optstr)) != -1) {
        switch (c) {
        case 'm': {
            char buf[128];
            snprintf(buf, sizeof buf, "%s", optarg);
            char *colon = strchr(buf, ':');
            if (colon) {
                *colon = '\0';
                if (bench_parse_size(buf, &o->min_size) ||
                    bench_parse_size(colon + 1, &o->max_size))
                    bad = 1;
            } else if (bench_parse_size(buf, &o->max_size)) {
                bad = 1;
            }
            break;
        }
        case 'i': {
            char *end;
            o->iter_scale = strtod(optarg, &end);
            if (*end || !(o->iter_scale > 0.0) || o->iter_scale > 1000.0)
                bad = 1;
            break;
        }
        case 'w':
            o->window = atoi(optarg);
            if (o->window < 1 || o->window > BENCH_MAX_WINDOW)
                bad = 1;
            break;
        case 'b':
            if (strcmp(optarg, "fixed") == 0)
                o->bufmode = BENCH_BUF_FIXED;
            else if (strcmp(optarg, "pool") == 0)
                o->bufmode = BENCH_BUF_POOL;
            else if (strcmp(optarg, "allocmem") == 0)
                o->bufmode = BENCH_BUF_ALLOCMEM;
            else
                bad = 1;
            break;
        case 'p':
            if (bench_parse_size(optarg, &o->pool) || o->pool == 0)
                bad = 1;
            break;
        case 'h': help = 1; break;
        default: bad = 1; break;
        }
    }
    if (o->max_size < o->min_size || o->max_size > ((size_t)1 << 30))
        bad = 1;
    bench_bufmode = o->bufmode;
    if (o->pool == 0)
        o->pool = bench_default_pool();
    if (help || bad) {
        if (o->rank == 0)
            bench_usage((*argv)[0], what, has_window);
        MPI_Finalize();
        exit(bad ? 2 : 0);
    }
    if (o->size != 2) {
        if (o->rank == 0)
            fprintf(stderr, "%s: needs exactly 2 ranks, got %d\n", (*argv)[0], o->size);
        MPI_Finalize();
        exit(2);
    }
    return 0;
}

/* Next size in the sweep: 0 -> 1 -> 2 -> 4 ... */
static size_t bench_next_size(size_t s)
{
    return s == 0 ? 1 : s * 2;
}

/* First size of the sweep: min itself if 0, else the smallest power of two >= min. */
static size_t bench_first_size(size_t min)
{
    if (min == 0)
        return 0;
    size_t s = 1;
    while (s < min)
        s *= 2;
    return s;
}

/* Scaled iteration count, never below lo. */
static int bench_iters(int base, double scale, int lo)
{
    double v = base * scale;
    int n = (int)(v + 0.5);
    return n < lo ? lo : n;
}

static void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0)
        bytes = 1;
    if (bench_bufmode == BENCH_BUF_ALLOCMEM) {
        if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p) != MPI_SUCCESS)
            bench_die("MPI_Alloc_mem failed");
    } else if (posix_memalign(&p, 4096, bytes) != 0)
        bench_die("out of memory");
    /* Touch every page now so first-touch faults do not land in a timed loop. */
    memset(p, 0, bytes);
    return p;
}

static void bench_free(void *p)
{
    if (bench_bufmode == BENCH_BUF_ALLOCMEM)
        MPI_Free_mem(p);
    else
        free(p);
}

/* -b pool: buffers of one size, used in turn, spread over `bytes` of memory. */
typedef struct {
    char *base;
    size_t bytes, next;
} bench_pool_t;

static void bench_pool_init(bench_pool_t *p, size_t bytes, size_t max_size)
{
    p->bytes = bytes > 2 * max_size ? bytes : 2 * max_size;
    p->base = bench_alloc(p->bytes);
    p->next = 0;
}

/* The next buffer of `size` bytes (page-aligned; the pool wraps). */
static char *bench_pool_get(bench_pool_t *p, size_t size)
{
    size_t stride = size < 4096 ? 4096 : (size + 4095) / 4096 * 4096;
    size_t n = p->bytes / stride;
    return p->base + (p->next++ % n) * stride;
}

/* Deterministic, position- and seed-dependent pattern; detects shifts and truncation. */
static inline uint8_t bench_pattern_byte(size_t i, uint32_t seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + (uint32_t)(i >> 12) * 97u;
    return (uint8_t)(x >> 24 ^ x >> 8 ^ seed);
}

static void bench_fill(void *buf, size_t n, uint32_t seed)
{
    uint8_t *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = bench_pattern_byte(i, seed);
}

/* Returns the index of the first wrong byte, or -1 when the buffer matches. */
static long bench_check(const void *buf, size_t n, uint32_t seed)
{
    const uint8_t *b = buf;
    for (size_t i = 0; i < n; i++)
        if (b[i] != bench_pattern_byte(i, seed))
            return (long)i;
    return -1;
}

static uint32_t bench_seed(size_t size, int direction)
{
    return (uint32_t)(size * 7919u + 17u + (unsigned)direction * 104729u);
}

static void bench_report_bad(const char *bench, int rank, size_t size, int slot, long at,
                             const void *buf, uint32_t seed)
{
    const uint8_t *b = buf;
    fprintf(stderr,
            "%s: VALIDATION FAILED on rank %d: size %zu, message %d, byte %ld: got 0x%02x, "
            "expected 0x%02x\n",
            bench, rank, size, slot, at, b[at], bench_pattern_byte((size_t)at, seed));
    fflush(stderr);
}

/* Printed by rank 0 at the very end; the harness relies on both lines. */
static void bench_footer(int nsizes)
{
    printf("# Validation: OK (%d sizes checked)\n", nsizes);
    printf("# Payload bytes: rank0->rank1 %llu rank1->rank0 %llu\n",
           (unsigned long long)bench_bytes_0to1, (unsigned long long)bench_bytes_1to0);
    fflush(stdout);
}

/* The end of every benchmark: all ranks done, rank 0 prints the footer, MPI goes away.
 * Returns main's exit status. */
static int bench_finish(int rank, int nsizes)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        bench_footer(nsizes);
    MPI_Finalize();
    return 0;
}

#endif
