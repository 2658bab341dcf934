/* Barrier rate (barriers per second), the published inter-VM barrier table.
 *
 *   ivcrun -n N --vms N ivc_bench_barrier spin|yield|block [ITERS]   processes in N VMs
 *   ivcrun -n N --no-ns ivc_bench_barrier spin [ITERS]               processes, no VMs
 *   ivc_bench_barrier pthread N [ITERS]     N threads of one process, pthread_barrier_t
 *
 * Every participant runs ITERS/10 warm-up barriers, then ITERS timed ones; rank 0 prints
 * "barrier MODE N RATE" with RATE = ITERS / its time. */
#define _GNU_SOURCE
#include <ivc.h>

#include <pthread.h>
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

static pthread_barrier_t pb;
static long iters;

static void *pthread_part(void *arg)
{
    (void)arg;
    for (long i = 0; i < iters / 10 + iters; i++)
        pthread_barrier_wait(&pb);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ivc_bench_barrier spin|yield|block [ITERS] | pthread N [ITERS]\n");
        return 2;
    }
    if (strcmp(argv[1], "pthread") == 0) {
        int n = argc > 2 ? atoi(argv[2]) : 2;
        iters = argc > 3 ? atol(argv[3]) : 200000;
        pthread_t t[64];
        if (n < 1 || n > 64)
            return 2;
        pthread_barrier_init(&pb, NULL, (unsigned)n);
        for (int i = 1; i < n; i++)
            pthread_create(&t[i], NULL, pthread_part, NULL);
        for (long i = 0; i < iters / 10; i++)
            pthread_barrier_wait(&pb);
        double t0 = now_s();
        for (long i = 0; i < iters; i++)
            pthread_barrier_wait(&pb);
        double dt = now_s() - t0;
        for (int i = 1; i < n; i++)
            pthread_join(t[i], NULL);
        printf("barrier pthread %d %.4g\n", n, iters / dt);
        return 0;
    }
    int mode = strcmp(argv[1], "spin") == 0    ? IVC_WAIT_SPIN
               : strcmp(argv[1], "yield") == 0 ? IVC_WAIT_YIELD
               : strcmp(argv[1], "block") == 0 ? IVC_WAIT_BLOCK
                                               : -1;
    if (mode < 0)
        return 2;
    iters = argc > 2 ? atol(argv[2]) : 200000;
    const char *ss = getenv("PMI_SIZE"), *rs = getenv("PMI_RANK");
    if (ss == NULL || rs == NULL) {
        fprintf(stderr, "ivc_bench_barrier: run it under ivcrun\n");
        return 2;
    }
    int n = atoi(ss), rank = atoi(rs);
    ivc_t *ivc;
    ivc_barrier_t *b;
    int rc = ivc_open(NULL, NULL, 0, &ivc);
    if (rc == 0)
        rc = ivc_barrier_open(ivc, "bench", (uint32_t)n, &b);
    if (rc != 0) {
        fprintf(stderr, "ivc_bench_barrier: %s\n", ivc_strerror(rc));
        return 1;
    }
    for (long i = 0; i < iters / 10; i++)
        if ((rc = ivc_barrier_wait(b, mode, 60000)) != 0)
            break;
    double t0 = now_s();
    for (long i = 0; i < iters && rc == 0; i++)
        rc = ivc_barrier_wait(b, mode, 60000);
    double dt = now_s() - t0;
    if (rc != 0) {
        fprintf(stderr, "ivc_bench_barrier: barrier: %s\n", ivc_strerror(rc));
        return 1;
    }
    if (rank == 0)
        printf("barrier %s %d %.4g\n", argv[1], n, iters / dt);
    ivc_barrier_close(b);
    ivc_close(ivc);
    return 0;
}
