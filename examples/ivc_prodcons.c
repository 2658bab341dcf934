/* libivc example: a producer and consumers in separate VMs, in step through a barrier.
 *
 *   ivcrun -n 4 --vms 4 ./ivc_prodcons [ROUNDS]     rank 0 produces, the others consume
 *
 * In each round the producer fills a shared block (ivc_shm_get) with a batch of numbers;
 * a barrier says the batch is ready; every consumer sums its share of it and adds the sum
 * to a shared total with a minitransaction (compare the total it read, write the new one;
 * retried while another consumer got there first); a second barrier says the batch is
 * consumed and the producer may overwrite it. At the end the producer checks that the
 * total is the sum of everything it produced.
 * Build: cc ivc_prodcons.c $(pkg-config --cflags --libs ivc). */
#include <ivc.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 4096 /* numbers per round */

static int die(const char *what, int rc)
{
    fprintf(stderr, "ivc_prodcons: %s: %s\n", what, ivc_strerror(rc));
    exit(1);
}

static uint64_t item(uint32_t round, uint32_t i)
{
    return (uint64_t)round * 1000003u + i * 7u + 1;
}

int main(int argc, char **argv)
{
    const char *rs = getenv("PMI_RANK"), *ss = getenv("PMI_SIZE");
    if (rs == NULL || ss == NULL) {
        fprintf(stderr, "ivc_prodcons: run it under ivcrun (-n 2 or more)\n");
        return 2;
    }
    uint32_t rank = (uint32_t)atoi(rs), size = (uint32_t)atoi(ss);
    uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 200;
    if (size < 2)
        return 2;
    ivc_t *ivc;
    int rc = ivc_open(NULL, NULL, 0, &ivc);
    if (rc != 0)
        die("open", rc);
    ivc_barrier_t *bar;
    if ((rc = ivc_barrier_open(ivc, "prodcons", size, &bar)) != 0)
        die("barrier", rc);
    uint64_t boff, toff;
    if ((rc = ivc_shm_get(ivc, "prodcons-batch", BATCH * 8, &boff, NULL)) != 0 ||
        (rc = ivc_shm_get(ivc, "prodcons-total", 64, &toff, NULL)) != 0)
        die("shared block", rc);
    uint64_t *batch = ivc_ptr(ivc, boff, BATCH * 8);
    uint64_t expect = 0, conflicts = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint32_t r = 0; r < rounds; r++) {
        if (rank == 0)
            for (uint32_t i = 0; i < BATCH; i++)
                expect += batch[i] = item(r, i);
        if ((rc = ivc_barrier_wait(bar, IVC_WAIT_BLOCK, 30000)) != 0)
            die("barrier (batch ready)", rc);
        if (rank != 0) {
            uint64_t sum = 0;
            for (uint32_t i = rank - 1; i < BATCH; i += size - 1) {
                if (batch[i] != item(r, i))
                    die("a number of the batch differs", -EPROTO);
                sum += batch[i];
            }
            uint64_t cur, neu;
            memcpy(&cur, ivc_ptr(ivc, toff, 8), 8);
            for (;;) {
                neu = cur + sum;
                ivc_mtx_item_t it = {toff, 8, IVC_MTX_CMP | IVC_MTX_WRITE | IVC_MTX_READ, &cur,
                                     &neu, &cur};
                rc = ivc_mtx_retry(ivc, &it, 1, 30000);
                if (rc == IVC_MTX_COMMITTED)
                    break;
                if (rc != IVC_MTX_COMPARE_FAILED)
                    die("minitransaction", rc);
                conflicts++;
            }
        }
        if ((rc = ivc_barrier_wait(bar, IVC_WAIT_BLOCK, 30000)) != 0)
            die("barrier (batch consumed)", rc);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (rank == 0) {
        uint64_t total;
        memcpy(&total, ivc_ptr(ivc, toff, 8), 8);
        if (total != expect) {
            fprintf(stderr, "ivc_prodcons: total %llu, expected %llu\n",
                    (unsigned long long)total, (unsigned long long)expect);
            return 1;
        }
        printf("prodcons: %u rounds of %u numbers to %u consumers: total %llu correct; %.0f "
               "rounds/s\n",
               rounds, BATCH, size - 1, (unsigned long long)total, rounds / s);
    } else if (conflicts > 0) {
        printf("prodcons: consumer %u retried %llu compare failures\n", rank,
               (unsigned long long)conflicts);
    }
    ivc_barrier_close(bar);
    ivc_close(ivc);
    return 0;
}
