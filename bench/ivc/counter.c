/* A shared counter incremented INCS times by each participant, the published
 * minitransaction table: minitransactions against a coarse spin lock.
 *
 *   ivcrun -n N --vms N ivc_bench_counter mtx|lock none|medium|high [INCS]
 *
 * Contention: none: each participant has its own counter; medium: participants share
 * counters in pairs; high: everyone increments one counter. Each counter has its own
 * cache line. mtx: read the counter, commit compare(old) + write(old + 1) through
 * ivc_mtx_retry, and on a compare failure try again with the value the commit read.
 * lock: one spin lock word for everything (test-and-test-and-set with a pause), as a
 * program without minitransactions would protect its shared data; the counter is read and
 * written under it. Rank 0 prints "counter METHOD CONTENTION N RATE" (increments per
 * second, all participants together) after checking every counter's final value. */
#define _GNU_SOURCE
#include <ivc.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
}

int main(int argc, char **argv)
{
    const char *ss = getenv("PMI_SIZE"), *rs = getenv("PMI_RANK");
    if (argc < 3 || ss == NULL || rs == NULL) {
        fprintf(stderr, "usage: ivcrun -n N ivc_bench_counter mtx|lock none|medium|high [INCS]\n");
        return 2;
    }
    int use_mtx = strcmp(argv[1], "mtx") == 0;
    int level = strcmp(argv[2], "none") == 0 ? 0 : strcmp(argv[2], "medium") == 0 ? 1 : 2;
    long incs = argc > 3 ? atol(argv[3]) : 4000000;
    int n = atoi(ss), rank = atoi(rs);
    int mine = level == 0 ? rank : level == 1 ? rank / 2 : 0;
    ivc_t *ivc;
    ivc_barrier_t *b;
    uint64_t off;
    int rc = ivc_open(NULL, NULL, 0, &ivc);
    if (rc == 0)
        rc = ivc_barrier_open(ivc, "counter", (uint32_t)n, &b);
    /* Line 0: the coarse lock; line 1+k: counter k. */
    if (rc == 0)
        rc = ivc_shm_get(ivc, "counter", (uint64_t)(n + 1) * 64, &off, NULL);
    if (rc != 0) {
        fprintf(stderr, "ivc_bench_counter: %s\n", ivc_strerror(rc));
        return 1;
    }
    _Atomic uint32_t *lock = ivc_ptr(ivc, off, 64);
    uint64_t coff = off + 64 * (uint64_t)(1 + mine);
    volatile uint64_t *counter = ivc_ptr(ivc, coff, 8);
    ivc_barrier_wait(b, IVC_WAIT_BLOCK, 60000);
    double t0 = now_s();
    long retries = 0;
    for (long i = 0; i < incs; i++) {
        if (use_mtx) {
            uint64_t old = *counter, neu;
            for (;;) {
                neu = old + 1;
                ivc_mtx_item_t it = {coff, 8, IVC_MTX_CMP | IVC_MTX_WRITE | IVC_MTX_READ, &old,
                                     &neu, &old};
                rc = ivc_mtx_retry(ivc, &it, 1, 60000);
                if (rc == IVC_MTX_COMMITTED)
                    break;
                if (rc != IVC_MTX_COMPARE_FAILED) {
                    fprintf(stderr, "ivc_bench_counter: commit: %d\n", rc);
                    return 1;
                }
                retries++;
            }
        } else {
            for (;;) {
                uint32_t z = 0;
                if (atomic_load_explicit(lock, memory_order_relaxed) == 0 &&
                    atomic_compare_exchange_weak_explicit(lock, &z, 1, memory_order_acquire,
                                                          memory_order_relaxed))
                    break;
                relax();
            }
            *counter = *counter + 1;
            atomic_store_explicit(lock, 0, memory_order_release);
        }
    }
    /* Until the last participant is done: the rate of the whole job. */
    ivc_barrier_wait(b, IVC_WAIT_BLOCK, 600000);
    double slowest = now_s() - t0;
    if (rank == 0) {
        /* Every counter holds the increments of its participants. */
        for (int k = 0; k < n; k++) {
            int users = 0;
            for (int r = 0; r < n; r++)
                users += (level == 0 ? r : level == 1 ? r / 2 : 0) == k;
            uint64_t v = *(volatile uint64_t *)ivc_ptr(ivc, off + 64 * (uint64_t)(1 + k), 8);
            if (v != (uint64_t)users * (uint64_t)incs) {
                fprintf(stderr, "ivc_bench_counter: counter %d is %llu, expected %llu\n", k,
                        (unsigned long long)v, (unsigned long long)users * incs);
                return 1;
            }
        }
        printf("counter %s %s %d %.4g\n", argv[1], argv[2], n, (double)incs * n / slowest);
    }
    (void)retries;
    ivc_barrier_close(b);
    ivc_close(ivc);
    return 0;
}
