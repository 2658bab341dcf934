/* Sleeping on a window's lock words (issue 11: everything that waits sleeps).
 *
 * A rank waiting for a passive-target lock or an accumulate lock waits on a word that
 * other ranks write (rma_impl.h, ivc_win_ctl_t), not on a message, so the channel's rings
 * do not wake it. The rings are exact instead of a timed sleep: a waiter counts itself in
 * the word's waiter count before it first announces a sleep (door.h), and every writer
 * that frees the lock checks the count after its write and rings the co-located sleepers
 * when it is nonzero:
 *
 *   waiter:  waiters += 1 (seq_cst); ... announce (W = 1, D1); re-check the lock word;
 *            sleep; ... waiters -= 1 when it stops waiting.
 *   freer:   free the lock (its release CAS / fetch_and / store); D2; if waiters != 0:
 *            ivc_door_kick_all() (which rings those whose W is set).
 *
 * Either the waiter's re-check sees the free lock or the freer sees the count (the count
 * and W were both written before D1, the lock word before D2), so no wake-up is lost.
 * Nobody waiting: the freer pays one fence and one load of a line it just wrote, and no
 * system call. kick_all rings every co-located sleeper, not only this lock's: a rank asleep
 * for another reason wakes, re-checks and sleeps again, which costs only while a lock has
 * waiters. The count is in the region, so another writer may break it: too high costs
 * rings, too low a sleep until IVC_WAIT_TIMEOUT; the lock itself stays right. */
#ifndef IVC_MPI_RMA_WAIT_H
#define IVC_MPI_RMA_WAIT_H

#include "base/ivc_atomic.h"
#include "region/door.h"

/* Counts this rank in `waiters` if doorbells are on. Returns 1 if counted (then
 * rma_waiters_leave must follow), else 0. */
static inline int rma_waiters_enter(IVC_ATOMIC(uint64_t) *waiters)
{
    if (!ivc_doors.on)
        return 0;
    atomic_fetch_add_explicit(waiters, 1, memory_order_seq_cst); /* before D1 */
    return 1;
}

static inline void rma_waiters_leave(IVC_ATOMIC(uint64_t) *waiters, int counted)
{
    if (counted)
        atomic_fetch_sub_explicit(waiters, 1, memory_order_relaxed);
}

/* After a write that frees the lock `waiters` belongs to. */
static inline void rma_waiters_kick(IVC_ATOMIC(uint64_t) *waiters)
{
    if (!ivc_doors.on)
        return;
    /* D2: orders the freeing write before the load of the count; pairs with D1 in
     * ivc_door_announce(), which follows the waiter's count. */
    ivc_fence_seq_cst();
    if (__builtin_expect(ivc_load_relaxed(waiters) != 0, 0))
        ivc_door_kick_all();
}

#endif
