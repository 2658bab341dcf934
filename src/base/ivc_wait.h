/* Waiting without starving a co-scheduled rank (DESIGN.md rule 7): poll with a pause for
 * `spin` rounds, then give the core away with sched_yield() on every round. Doorbells will
 * add a sleeping stage below this one. */
#ifndef IVC_WAIT_H
#define IVC_WAIT_H

#include "ivc_atomic.h"

#include <sched.h>
#include <stdint.h>
#include <time.h>

typedef struct ivc_backoff {
    uint32_t rounds;
    uint32_t spin;
} ivc_backoff_t;

/* Process-wide spin budget, set from IVC_SPIN at start-up (auto: depends on whether the
 * ranks of this host outnumber its cores). */
extern uint32_t ivc_wait_spin;

static inline void ivc_backoff_init(ivc_backoff_t *b)
{
    b->rounds = 0;
    b->spin = ivc_wait_spin;
}

static inline void ivc_backoff_reset(ivc_backoff_t *b)
{
    b->rounds = 0;
}

static inline void ivc_backoff_wait(ivc_backoff_t *b)
{
    if (b->rounds < b->spin) {
        b->rounds++;
        ivc_cpu_relax();
    } else {
        sched_yield();
    }
}

static inline uint64_t ivc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
