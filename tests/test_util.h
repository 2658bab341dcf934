/* Helpers for standalone tests: exit 0 pass, 1 fail (printing expected against got),
 * 77 skip (printing why). */
#ifndef IVC_TEST_UTIL_H
#define IVC_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define T_FAIL(...)                                                                                \
    do {                                                                                           \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                       \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        exit(1);                                                                                   \
    } while (0)

#define T_EQ(expected, got, what)                                                                  \
    do {                                                                                           \
        long long e_ = (long long)(expected), g_ = (long long)(got);                               \
        if (e_ != g_)                                                                              \
            T_FAIL("%s: expected %lld, got %lld", (what), e_, g_);                                 \
    } while (0)

#define T_TRUE(cond, what)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            T_FAIL("%s: expected true: %s", (what), #cond);                                        \
    } while (0)

#define T_SKIP(...)                                                                                \
    do {                                                                                           \
        fprintf(stderr, "SKIP: ");                                                                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        exit(77);                                                                                  \
    } while (0)

/* Deterministic byte pattern of stream `seed` at offset i. */
static inline unsigned char t_pattern(unsigned seed, unsigned long long i)
{
    unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((unsigned long long)seed << 17);
    x ^= x >> 29;
    return (unsigned char)(x * 0xBF58476D1CE4E5B9ull >> 56);
}

/* CPU time (user + system) this process has used, in seconds: what a waiting rank costs. */
static inline double t_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

/* Sleeps `us` microseconds (not at all for us <= 0). */
static inline void t_pause_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    if (us > 0)
        nanosleep(&ts, NULL);
}

#endif
