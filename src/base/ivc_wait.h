/* Waiting without starving a co-scheduled rank (DESIGN.md rule 7): the waiting policy.
 *
 * A waiting rank goes through up to three stages, chosen by IVC_WAIT (region/door.c reads
 * it and sets the globals below once at start-up):
 *   1. poll with a pause for `ivc_wait_spin` rounds (IVC_SPIN);
 *   2. keep polling, spinning or yielding the core on every round, for
 *      `ivc_wait_poll_ns` (IVC_WAIT_POLL) in the modes that sleep after it;
 *   3. sleep: the caller announces that it sleeps, re-checks what it waits for and blocks
 *      on its doorbell until a peer rings it (region/door.h has the handshake).
 * This header holds only the decision (which stage now); sleeping needs the doorbells of
 * the region layer and a re-check that only the caller knows, so the caller does it when
 * ivc_backoff_idle() says so. ivc_backoff_wait() never sleeps: it is for waits whose
 * publishers do not ring (or that may not block, like a wait inside a message handler).
 *
 * Modes (ivc_wait_mode):
 *   SPIN   stage 1 forever: lowest latency when every rank has a core of its own;
 *   YIELD  stage 1, then yield forever (IVC before doorbells);
 *   BLOCK  stages 1 and 3: poll briefly, then sleep;
 *   AUTO   stages 1, 2 (yielding for 1 ms) and 3: busy waits behave as YIELD did, only a
 *          wait longer than 1 ms sleeps. Measured on the 2 loaded cores of the development
 *          machine with a 4 KiB ring (mpi.sizes.small): sleeping after the polls took
 *          20 s where yielding took 1.4-7 s (every sleep costs a wake-up of 20-40 µs
 *          here), and spinning 2 ms before sleeping took 15-120 s (a spinning rank holds
 *          the core its descheduled peer needs). Against CPU-bound competitors spinning
 *          keeps latency closest to MPICH's: IVC_WAIT=spin, or IVC_WAIT_POLL with
 *          `ivc_wait_poll_spins` (not a tunable).
 * Without doorbells (none given to this rank, or not every co-located rank can be rung)
 * BLOCK and AUTO yield instead of sleeping, and say so once. */
#ifndef IVC_WAIT_H
#define IVC_WAIT_H

#include "ivc_atomic.h"
#include "ivc_biglock.h"

#include <sched.h>
#include <stdint.h>
#include <time.h>

enum { IVC_WAITING_SPIN = 0, IVC_WAITING_YIELD = 1, IVC_WAITING_BLOCK = 2, IVC_WAITING_AUTO = 3 };

typedef struct ivc_backoff {
    uint32_t rounds;
    uint32_t spin;
    uint64_t poll_end; /* stage 2: when it ends (0: not started) */
    /* What the caller waits for when progress alone cannot tell (a word in the region), for
     * the re-check between announcing a sleep and sleeping; NULL: progress-driven. */
    int (*ready)(void *arg);
    void *ready_arg;
    uint8_t may_sleep; /* set by ivc_backoff_init_idle(): the caller sleeps when told to */
} ivc_backoff_t;

/* Process-wide policy, set once at start-up (coordinator: IVC_SPIN; doorbells: IVC_WAIT,
 * IVC_WAIT_POLL, and whether this rank can sleep at all). */
extern uint32_t ivc_wait_spin;
extern uint32_t ivc_wait_mode;
extern uint64_t ivc_wait_poll_ns;  /* stage 2's length (auto) */
extern int ivc_wait_poll_spins;     /* stage 2 spins (1) or yields (0) */
extern int ivc_wait_can_sleep; /* doorbells usable: every co-located rank can be rung */
extern int ivc_wait_doors_known; /* whether they are has been decided (after start-up) */

/* Says once (per process) that the policy would sleep but has no doorbell, and why. */
void ivc_wait_no_doorbell(void);
extern const char *ivc_wait_no_doorbell_why;

static inline void ivc_backoff_init(ivc_backoff_t *b)
{
    b->rounds = 0;
    b->spin = ivc_wait_spin;
    b->poll_end = 0;
    b->ready = NULL;
    b->ready_arg = NULL;
    b->may_sleep = 0;
}

/* For waits that may sleep: every publisher of what they wait for rings (door.h).
 * `ready` (may be NULL) tells whether the awaited thing is there without progress. */
static inline void ivc_backoff_init_idle(ivc_backoff_t *b, int (*ready)(void *), void *arg)
{
    ivc_backoff_init(b);
    b->ready = ready;
    b->ready_arg = arg;
    b->may_sleep = 1;
}

static inline void ivc_backoff_reset(ivc_backoff_t *b)
{
    b->rounds = 0;
    b->poll_end = 0;
}

static inline uint64_t ivc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spin or yield; never sleeps. With MPI_THREAD_MULTIPLE, a round hands the lock over
 * instead when another thread waits for it (ivc_biglock.h). */
static inline void ivc_backoff_wait(ivc_backoff_t *b)
{
    if (__builtin_expect(ivc_biglock.on, 0) && ivc_biglock_handover()) {
        b->rounds++;
    } else if (b->rounds < b->spin) {
        b->rounds++;
        ivc_cpu_relax();
    } else if (ivc_wait_mode == IVC_WAITING_SPIN) {
        b->rounds++;
        ivc_cpu_relax();
    } else {
        b->rounds++;
        sched_yield();
    }
}

/* One idle round of a wait that found nothing to do: spins or yields as the policy says
 * and returns 0, or returns 1 when the caller should sleep now (it then announces, re-checks
 * and sleeps, and calls ivc_backoff_reset() once awake). */
static inline int ivc_backoff_idle(ivc_backoff_t *b)
{
    if (b->rounds < b->spin || ivc_biglock_contended() || ivc_wait_mode == IVC_WAITING_SPIN ||
        ivc_wait_mode == IVC_WAITING_YIELD ||
        !b->may_sleep) {
        ivc_backoff_wait(b);
        return 0;
    }
    b->rounds++;
    if (__builtin_expect(!ivc_wait_can_sleep, 0)) {
        ivc_wait_no_doorbell();
        sched_yield();
        return 0;
    }
    if (ivc_wait_mode == IVC_WAITING_AUTO && ivc_wait_poll_ns != 0) {
        uint64_t now = ivc_now_ns();
        if (b->poll_end == 0)
            b->poll_end = now + ivc_wait_poll_ns;
        if (now < b->poll_end) {
            if (ivc_wait_poll_spins)
                ivc_cpu_relax();
            else
                sched_yield();
            return 0;
        }
    }
    return 1;
}

#endif
