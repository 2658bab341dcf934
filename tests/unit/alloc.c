/* The region allocator: aligned blocks inside the heap, no overlap when several threads
 * allocate at once (the bump pointer is shared through the region), and a clear -ENOMEM
 * when the heap is exhausted. */
#include "test_util.h"

#include "region/region.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define THREADS    4
#define PER_THREAD 200

static ivc_region_t region;
static uint64_t offs[THREADS][PER_THREAD], sizes[THREADS][PER_THREAD];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        uint64_t size = 1 + (uint64_t)((t * 131 + i * 71) % 3000);
        uint64_t align = (i % 3 == 0) ? 4096 : 64;
        if (ivc_region_alloc(&region, size, align, &offs[t][i]) != 0)
            T_FAIL("thread %d allocation %d failed", t, i);
        sizes[t][i] = size;
        if (offs[t][i] % align != 0)
            T_FAIL("offset %llu not aligned to %llu", (unsigned long long)offs[t][i],
                   (unsigned long long)align);
        /* write the whole block: overlapping blocks would be caught below */
        memset(region.base + offs[t][i], t * PER_THREAD + i + 1 > 255 ? 255 : 1, size);
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof(path), "/dev/shm/ivc-unit-alloc-%d", (int)getpid());
    if (ivc_region_create(path, 8u << 20, 42, 4, &region) != 0)
        T_FAIL("cannot create a region at %s", path);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    static uint64_t all[THREADS * PER_THREAD][2];
    int n = 0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++) {
            all[n][0] = offs[t][i];
            all[n][1] = sizes[t][i];
            n++;
        }
    qsort(all, (size_t)n, sizeof(all[0]), cmp);
    for (int i = 0; i < n; i++) {
        T_TRUE(all[i][0] >= region.heap_off, "block starts in the heap");
        T_TRUE(all[i][0] + all[i][1] <= region.heap_end, "block ends in the heap");
        if (i > 0 && all[i - 1][0] + all[i - 1][1] > all[i][0])
            T_FAIL("blocks at %llu (+%llu) and %llu overlap", (unsigned long long)all[i - 1][0],
                   (unsigned long long)all[i - 1][1], (unsigned long long)all[i][0]);
    }
    /* exhaustion: a block larger than what is left fails and the failure is reported */
    uint64_t off;
    T_EQ(-ENOMEM, ivc_region_alloc(&region, 16u << 20, 64, &off), "oversized allocation");
    /* a corrupted bump pointer (a faulty VM) is not trusted */
    ivc_store_relaxed(&ivc_region_hdr(&region)->heap_next, region.heap_end + 4096);
    T_EQ(-ENOMEM, ivc_region_alloc(&region, 64, 64, &off), "allocation past a corrupt pointer");
    ivc_store_relaxed(&ivc_region_hdr(&region)->heap_next, 12);
    T_EQ(-ENOMEM, ivc_region_alloc(&region, 64, 64, &off), "allocation before the heap");
    ivc_region_detach(&region, 1);
    printf("alloc: ok\n");
    return 0;
}
