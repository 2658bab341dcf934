/* Shared helpers for the multi-rank MPI tests (the programs in tests/mpi/).
 *
 * House style: a test exits 0 on pass; on failure it prints one line
 *   rank R: <what>: expected X, got Y
 * to stderr and calls MPI_Abort(MPI_COMM_WORLD, 1). Exit 77 means "skipped", with the
 * reason printed, and only when the condition cannot be tested at all.
 *
 * Everything here is static (inline) so that each test is a single translation unit
 * and unused helpers cause no warnings under -Wall -Wextra.
 */
#ifndef IVC_TESTS_MPI_T_UTIL_H
#define IVC_TESTS_MPI_T_UTIL_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* gcc >= 11 reports a false -Wstringop-overflow when MPI_STATUSES_IGNORE (a constant
 * pointer such as (MPI_Status *)1) is passed for an array parameter declared as
 * `MPI_Status array_of_statuses[]` (MPICH's header does that). Real overflows in the
 * tests are left to ASan. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

/* Set by t_init(); used in failure messages. -1 before MPI is initialized. */
static int t_rank = -1;
static int t_size = 0;

static inline void t_init(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
}

#if defined(__GNUC__)
#define T_PRINTF(fmt_arg, first_arg) __attribute__((format(printf, fmt_arg, first_arg)))
#define T_NORETURN                   __attribute__((noreturn))
#else
#define T_PRINTF(fmt_arg, first_arg)
#define T_NORETURN
#endif

/* Print "rank R: <formatted>" to stderr and abort the job. */
static inline void t_fail(const char *fmt, ...) T_PRINTF(1, 2) T_NORETURN;
static inline void t_fail(const char *fmt, ...)
{
    va_list ap;
    char line[1024];
    int n = snprintf(line, sizeof line, "rank %d: ", t_rank);
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* not reached */
}

/* Skip the test (exit 77) with a reason; rank 0 prints it. Collective over WORLD. */
static inline void t_skip(const char *why)
{
    if (t_rank <= 0)
        printf("SKIP: %s\n", why);
    fflush(stdout);
    MPI_Finalize();
    exit(77);
}

#define CHECK_INT(expected, got, what)                                                             \
    do {                                                                                           \
        long long t_e_ = (long long)(expected), t_g_ = (long long)(got);                           \
        if (t_e_ != t_g_)                                                                          \
            t_fail("%s: expected %lld, got %lld", (what), t_e_, t_g_);                             \
    } while (0)

#define CHECK_TRUE(cond, what)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            t_fail("%s: expected true (%s), got false", (what), #cond);                            \
    } while (0)

/* A call that must return MPI_SUCCESS (meaningful under MPI_ERRORS_RETURN). */
#define CHECK_MPI(call)                                                                            \
    do {                                                                                           \
        int t_rc_ = (call);                                                                        \
        if (t_rc_ != MPI_SUCCESS) {                                                                \
            char t_s_[MPI_MAX_ERROR_STRING];                                                       \
            int t_l_ = 0;                                                                          \
            t_s_[0] = 0;                                                                           \
            MPI_Error_string(t_rc_, t_s_, &t_l_);                                                  \
            t_fail("%s: expected MPI_SUCCESS, got error %d (%s)", #call, t_rc_, t_s_);             \
        }                                                                                          \
    } while (0)

/* Format a "what" string into a caller buffer (for checks inside loops). */
static inline const char *t_fmt(char *buf, size_t n, const char *fmt, ...) T_PRINTF(3, 4);
static inline const char *t_fmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return buf;
}

/* ---- deterministic PRNG (splitmix64) --------------------------------------------- */

static inline uint64_t t_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

typedef struct {
    uint64_t s;
} t_prng;

/* A generator for stream `stream` (e.g. a rank) under base seed `seed`. */
static inline void t_prng_init(t_prng *p, uint64_t seed, uint64_t stream)
{
    p->s = t_mix64(seed ^ t_mix64(stream + 0x1234567ULL));
}

static inline uint64_t t_prng_next(t_prng *p)
{
    p->s += 0x9e3779b97f4a7c15ULL;
    uint64_t z = p->s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0; the tiny modulo bias does not matter here). */
static inline uint64_t t_prng_below(t_prng *p, uint64_t n)
{
    return t_prng_next(p) % n;
}

/* Uniform in [lo, hi]. */
static inline uint64_t t_prng_range(t_prng *p, uint64_t lo, uint64_t hi)
{
    return lo + t_prng_below(p, hi - lo + 1);
}

/* A seed for a message identified by a few integers. */
static inline uint64_t t_seed(uint64_t a, uint64_t b, uint64_t c)
{
    return t_mix64(a * 0x100000001b3ULL ^ t_mix64(b * 0xc2b2ae3d27d4eb4fULL ^ t_mix64(c)));
}

/* ---- deterministic fill / verify ----------------------------------------------------
 * Byte i of the pattern for `seed` is byte (i % 8) of t_mix64(seed + i / 8), so every
 * offset of every message has its own value: shifted, truncated, duplicated or swapped
 * data is detected, not just flipped bits. */

static inline void t_fill(void *buf, size_t n, uint64_t seed)
{
    unsigned char *p = (unsigned char *)buf;
    size_t words = n / 8, i;
    for (i = 0; i < words; i++) {
        uint64_t w = t_mix64(seed + i);
        memcpy(p + 8 * i, &w, 8);
    }
    if (n % 8) {
        uint64_t w = t_mix64(seed + words);
        memcpy(p + 8 * words, &w, n % 8);
    }
}

/* Expected pattern byte at offset i. */
static inline unsigned char t_pattern_byte(uint64_t seed, size_t i)
{
    uint64_t w = t_mix64(seed + i / 8);
    unsigned char b[8];
    memcpy(b, &w, 8);
    return b[i % 8];
}

/* Offset of the first byte that differs from the pattern, or (size_t)-1 if none. */
static inline size_t t_find_mismatch(const void *buf, size_t n, uint64_t seed)
{
    const unsigned char *p = (const unsigned char *)buf;
    size_t words = n / 8, i, j;
    for (i = 0; i < words; i++) {
        uint64_t w = t_mix64(seed + i);
        if (memcmp(p + 8 * i, &w, 8) != 0)
            break;
    }
    for (j = 8 * i; j < n; j++)
        if (p[j] != t_pattern_byte(seed, j))
            return j;
    return (size_t)-1;
}

/* Fail unless buf[0..n) holds the pattern for seed. */
static inline void t_check_fill(const void *buf, size_t n, uint64_t seed, const char *what)
{
    size_t off = t_find_mismatch(buf, n, seed);
    if (off != (size_t)-1)
        t_fail("%s: byte %zu of %zu: expected 0x%02x, got 0x%02x", what, off, n,
               t_pattern_byte(seed, off), ((const unsigned char *)buf)[off]);
}

/* Fail unless buf[0..n) is all `value` (used for canaries / untouched areas). */
static inline void t_check_bytes(const void *buf, size_t n, unsigned char value, const char *what)
{
    const unsigned char *p = (const unsigned char *)buf;
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != value)
            t_fail("%s: byte %zu of %zu: expected 0x%02x, got 0x%02x", what, i, n, value, p[i]);
}

/* 64-bit FNV-1a checksum. */
static inline uint64_t t_checksum(const void *buf, size_t n)
{
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* malloc that fails the test on NULL (also for n == 0: returns a valid pointer). */
static inline void *t_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        t_fail("malloc(%zu): expected memory, got NULL", n);
    return p;
}

/* Sleep for ms milliseconds without spinning. */
static inline void t_sleep_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Require at least n ranks; otherwise skip (exit 77). */
static inline void t_require_ranks(int n)
{
    if (t_size < n) {
        char why[128];
        snprintf(why, sizeof why, "needs at least %d ranks, have %d", n, t_size);
        t_skip(why);
    }
}

/* Get_count as a plain int (for use inside CHECK_INT). */
static inline int t_count(const MPI_Status *st, MPI_Datatype dt)
{
    int c = -12345;
    MPI_Get_count(st, dt, &c);
    return c;
}

#endif
