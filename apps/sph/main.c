/* ivc_sph: the SPH fluid as N processes in N (simulated) VMs on a particle array in the
 * IVC region, or as N threads of one process on a heap array: the same code, so the
 * results are bit-identical (compare the hashes they print).
 *
 *   ivcrun -n N --vms N ivc_sph [-p PARTICLES] [-s STEPS] [-o final.png] [-w wait]
 *   ivc_sph --threads N [-p PARTICLES] [-s STEPS] [-o final.png]
 *
 * Defaults: 4096 particles, 200 steps (the published run: -p 65536 -s 1000). Four barriers
 * per step (libivc barriers across VMs, -w spin|yield|block, default yield; pthread barriers between
 * threads). Rank 0 (or the main thread) prints "sph MODE N particles P steps S time T s
 * hash H". */
#define _GNU_SOURCE
#include "sph.h"

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

/* ---- threads ---- */

typedef struct thr {
    sph_hdr_t *h;
    uint32_t me, steps;
    pthread_barrier_t *b;
} thr_t;

static void thr_barrier(void *arg)
{
    pthread_barrier_wait(arg);
}

static void *thr_main(void *arg)
{
    thr_t *t = arg;
    sph_run(t->h, t->me, t->steps, thr_barrier, t->b);
    return NULL;
}

/* ---- processes in VMs ---- */

typedef struct vm_bar {
    ivc_barrier_t *b;
    int mode;
} vm_bar_t;

static void vm_barrier(void *arg)
{
    vm_bar_t *vb = arg;
    int rc = ivc_barrier_wait(vb->b, vb->mode, 120000);
    if (rc != 0) {
        fprintf(stderr, "ivc_sph: barrier: %s\n", ivc_strerror(rc));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    uint32_t n = 4096, steps = 200, threads = 0;
    const char *png = NULL, *wait = "yield";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-p") && i + 1 < argc)
            n = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            steps = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            png = argv[++i];
        else if (!strcmp(argv[i], "-w") && i + 1 < argc)
            wait = argv[++i];
        else {
            fprintf(stderr, "usage: ivc_sph [--threads N] [-p PARTICLES] [-s STEPS] [-o PNG] "
                            "[-w spin|yield|block]\n");
            return 2;
        }
    }
    steps += steps & 1; /* even: the final state is in buffer 0 (sph_png) */
    if (threads > 0) {
        sph_hdr_t *h = aligned_alloc(64, (sph_bytes(n, threads) + 63) & ~63ull);
        if (h == NULL)
            return 1;
        memset(h, 0, sph_bytes(n, threads));
        sph_init(h, n, threads);
        pthread_barrier_t b;
        pthread_barrier_init(&b, NULL, threads);
        thr_t *t = calloc(threads, sizeof(*t));
        pthread_t *tid = calloc(threads, sizeof(*tid));
        double t0 = now_s();
        for (uint32_t k = 0; k < threads; k++) {
            t[k] = (thr_t){h, k, steps, &b};
            pthread_create(&tid[k], NULL, thr_main, &t[k]);
        }
        for (uint32_t k = 0; k < threads; k++)
            pthread_join(tid[k], NULL);
        double dt = now_s() - t0;
        printf("sph threads %u particles %u steps %u time %.3f s hash %016llx\n", threads, n,
               steps, dt, (unsigned long long)sph_hash(h));
        if (png != NULL && sph_png(h, png, 480) != 0)
            fprintf(stderr, "ivc_sph: cannot write %s\n", png);
        pthread_barrier_destroy(&b);
        free(t);
        free(tid);
        free(h);
        return 0;
    }
    const char *rs = getenv("PMI_RANK"), *ss = getenv("PMI_SIZE");
    if (rs == NULL || ss == NULL) {
        fprintf(stderr, "ivc_sph: run it under ivcrun, or with --threads N\n");
        return 2;
    }
    uint32_t me = (uint32_t)atoi(rs), np = (uint32_t)atoi(ss);
    ivc_t *ivc;
    vm_bar_t vb = {NULL, !strcmp(wait, "block") ? IVC_WAIT_BLOCK
                         : !strcmp(wait, "yield") ? IVC_WAIT_YIELD
                                                  : IVC_WAIT_SPIN};
    uint64_t off;
    int rc = ivc_open(NULL, NULL, 0, &ivc);
    if (rc == 0)
        rc = ivc_barrier_open(ivc, "sph", np, &vb.b);
    if (rc == 0)
        rc = ivc_shm_get(ivc, "sph", sph_bytes(n, np), &off, NULL);
    if (rc != 0) {
        fprintf(stderr, "ivc_sph: %s\n", ivc_strerror(rc));
        return 1;
    }
    sph_hdr_t *h = ivc_ptr(ivc, off, sph_bytes(n, np));
    if (me == 0)
        sph_init(h, n, np);
    vm_barrier(&vb); /* the state is there */
    if (h->n != n || h->nparts != np) {
        fprintf(stderr, "ivc_sph: the shared block holds another run's state\n");
        return 1;
    }
    double t0 = now_s();
    sph_run(h, me, steps, vm_barrier, &vb);
    double dt = now_s() - t0;
    if (me == 0) {
        printf("sph vms %u particles %u steps %u time %.3f s hash %016llx\n", np, n, steps, dt,
               (unsigned long long)sph_hash(h));
        if (png != NULL && sph_png(h, png, 480) != 0)
            fprintf(stderr, "ivc_sph: cannot write %s\n", png);
    }
    vm_barrier(&vb); /* nobody leaves while rank 0 reads the state */
    ivc_barrier_close(vb.b);
    ivc_close(ivc);
    return 0;
}
