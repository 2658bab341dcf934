/* MPI_THREAD_MULTIPLE's process-wide lock (ivc_biglock.h). */
#include "ivc_biglock.h"

#include <sched.h>

ivc_biglock_t ivc_biglock;

static _Thread_local char self_byte;

uintptr_t ivc_biglock_self(void)
{
    return (uintptr_t)&self_byte;
}

void ivc_biglock_enable(void)
{
    ivc_biglock.on = 1;
}

/* Takes the lock, then marks this thread the holder at nesting `depth`. A waiter polls
 * briefly, then yields: the holder may need this core (2 vCPUs, more threads). Not first
 * come, first served: whichever waiter runs when the lock is free takes it, so a holder
 * descheduled behind other threads does not stall the ones queued after it. */
static void take(uint32_t depth)
{
    /* A1: the exchange's acquire pairs with R1 in give(): the last holder's writes */
    if (ivc_exchange(&ivc_biglock.held, 1) != 0) {
        ivc_fetch_add(&ivc_biglock.waiting, 1); /* waiting: the holder hands over */
        for (uint32_t i = 0;; i++) {
            if (ivc_load_relaxed(&ivc_biglock.held) == 0 &&
                ivc_exchange(&ivc_biglock.held, 1) == 0)
                break;
            if (i < 64)
                ivc_cpu_relax();
            else
                sched_yield();
        }
        ivc_fetch_add(&ivc_biglock.waiting, (uint32_t)-1);
    }
    ivc_store_relaxed(&ivc_biglock.owner, ivc_biglock_self());
    ivc_biglock.depth = depth;
    /* A thread that gave the lock up to sleep may wait for what this thread will do. */
    if (ivc_load_relaxed(&ivc_biglock.sleepers) != 0 && ivc_biglock.wake != NULL)
        ivc_biglock.wake();
}

/* Gives the lock up; returns the nesting it had. */
static uint32_t give(void)
{
    uint32_t depth = ivc_biglock.depth;
    ivc_biglock.depth = 0;
    ivc_store_relaxed(&ivc_biglock.owner, 0);
    ivc_store_release(&ivc_biglock.held, 0); /* R1: pairs with A1 in take() */
    return depth;
}

void ivc_biglock_lock(void)
{
    if (ivc_load_relaxed(&ivc_biglock.owner) == ivc_biglock_self())
        ivc_biglock.depth++;
    else
        take(1);
}

void ivc_biglock_unlock(void)
{
    if (--ivc_biglock.depth == 0)
        give();
}

int ivc_biglock_handover(void)
{
    if (!ivc_biglock_contended())
        return 0;
    uint32_t depth = give();
    sched_yield();
    take(depth);
    return 1;
}

uint32_t ivc_biglock_release_for_sleep(void)
{
    if (!ivc_biglock.on || ivc_load_relaxed(&ivc_biglock.owner) != ivc_biglock_self())
        return 0;
    ivc_fetch_add(&ivc_biglock.sleepers, 1); /* before give(): its release orders it */
    return give();
}

void ivc_biglock_reacquire(uint32_t depth)
{
    if (depth == 0)
        return;
    /* Awake already: threads that take the lock before this one need not ring it. */
    ivc_fetch_add(&ivc_biglock.sleepers, (uint32_t)-1);
    take(depth);
}
