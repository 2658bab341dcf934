/* One-sided communication: windows, their control blocks in the region, and the
 * active-message path (mpi_win.c: creation, synchronization; mpi_rma.c: data movement).
 *
 * Two ways to reach a target:
 *  - direct: the target shares this rank's region, and its window memory and control block
 *    lie in the region (Win_allocate, Win_allocate_shared, Win_create over MPI_Alloc_mem
 *    memory). Put/Get are plain copies and accumulates run under the target's accumulate
 *    lock word, with no target involvement. A rank always reaches itself directly.
 *  - active messages (AM): anything else (Win_create over malloc memory, dynamic windows,
 *    targets on other hosts). The origin sends requests on the reserved context IVC_RMA_CTX;
 *    the target's progress engine executes them on its memory (taking the same lock words)
 *    and acknowledges, so correctness holds for any memory. Messages are cut to the shm
 *    channel's eager limit, so a target handles them in arrival order; a larger one (a
 *    channel with a smaller limit) is pulled by rendezvous and handled when it lands.
 *    Every request is answered (data, acknowledgement, lock reply, or a refusal), and an
 *    origin ends an epoch only after every answer, so no later synchronization can overtake
 *    an operation.
 *
 * Control block of one rank's window, in that rank's arena (mpi_mem.c) when the region has
 * room, else in private memory (then every peer goes through AM). It is the only one-sided
 * structure that crosses VMs; it sits inside arena blocks rather than the region's fixed
 * layout, hence here and not in region/region_layout.h.
 */
#ifndef IVC_MPI_RMA_IMPL_H
#define IVC_MPI_RMA_IMPL_H

#include "mpi_impl.h"

#include "base/ivc_atomic.h"

typedef struct ivc_win_ctl {
    /* Passive-target lock of this window at this rank, exclusive side: 0 free, else bit 63
     * (held or reserved exclusively) | the exclusive holder's world rank + 1 in bits 32-62;
     * bits 0-31 stay 0. Writers: any co-located origin and the owner's AM handler (for an
     * origin elsewhere, in its name): CAS 0 -> EXCL | holder (seq_cst: S1 in lock_try,
     * pairs with S2), CAS back to 0 on release (acq_rel: L1, publishes the holder's stores
     * to the next acquirer). An exclusive locker that wins the CAS has reserved the lock:
     * it holds it once `shared` is empty (it waits for shared holders to leave; new shared
     * lockers see the reservation and back off). */
    IVC_ATOMIC(uint64_t) lock IVC_ALIGNED_LINE;
    /* Lockers of this window (exclusive or shared) that may sleep until the lock frees: a
     * count (rma_wait.h). Writers: each such waiter, fetch_add 1 before it first announces
     * a sleep and fetch_sub 1 when it stops waiting (seq_cst). Readers: every writer that
     * frees the lock (a release, a recovery, a shared locker backing off), after its write
     * and a full fence (D2): nonzero rings the co-located sleepers. A wrong value costs
     * rings (too high) or a sleep until IVC_WAIT_TIMEOUT (too low), never a wrong lock. */
    IVC_ATOMIC(uint64_t) lock_waiters;
    /* Accumulate lock: 0 free, else the holder's world rank + 1. Makes every
     * accumulate-type operation on this window's memory atomic with the others. Writers:
     * same as `lock`; CAS 0 -> holder (acq_rel), release store 0 (L2 in acc_lock/acc_unlock,
     * pairs with the next CAS); a waiter that finds a failed rank's name takes it over by
     * CAS (the dead rank's accumulate may be half done: that element is what it is). */
    IVC_ATOMIC(uint64_t) acc IVC_ALIGNED_LINE;
    /* Accumulate-lock waiters that may sleep: as lock_waiters, for `acc` (its release in
     * acc_unlock, or a stray name cleared by the audit, rings them). */
    IVC_ATOMIC(uint64_t) acc_waiters;
    /* Shared holders, one bit per world rank (bit r % 64 of word r / 64), WIN_CTL_WORDS(world)
     * words. A named record rather than a count, so that a hold of a rank that died can be
     * released by a survivor and a bit no live rank owns can be cleared by the rank it
     * names. Writers: the holder (or the owner's AM handler in its name): fetch_or of its
     * bit, then a load of `lock` (seq_cst: S2, pairs with S1: of a shared locker and an
     * exclusive one racing, at least one sees the other), fetch_and to leave (L1 release);
     * a survivor clears the bit of a rank known to have failed (lock_recover); the rank a
     * bit names clears it when it holds no such lock (ivc_mpi_rma_audit). Bits at or above the
     * world size are never set: one that is means another writer (ctl_broken). */
    IVC_ATOMIC(uint64_t) shared[] IVC_ALIGNED_LINE;
} ivc_win_ctl_t;
_Static_assert(sizeof(ivc_win_ctl_t) == 2 * IVC_CACHE_LINE, "two lock lines, then shared");

#define WIN_LOCK_EXCL (1ull << 63)
/* The exclusive holder's field of the lock word for world rank r. */
#define WIN_LOCK_OWNER(r)   ((uint64_t)((r) + 1) << 32)
#define WIN_LOCK_OWNER_MASK 0x7fffffff00000000ull
/* Words of the shared-holder record, and bytes of the whole block, for `world` ranks. */
#define WIN_CTL_WORDS(world) (((uint64_t)(world) + 63) / 64)
#define WIN_CTL_BYTES(world)                                                                       \
    (sizeof(ivc_win_ctl_t) +                                                                       \
     (WIN_CTL_WORDS(world) * 8 + IVC_CACHE_LINE - 1) / IVC_CACHE_LINE * IVC_CACHE_LINE)

/* What an origin knows about one target. */
typedef struct win_peer {
    int world;           /* world rank */
    int direct;          /* reached with loads and stores */
    uint8_t *base;       /* direct: the target's window memory in this mapping */
    uint64_t size;       /* window bytes at the target */
    uint32_t disp_unit;  /* the target's displacement unit */
    ivc_win_ctl_t *ctl;  /* direct: the target's control block */
    int lock;            /* passive epoch held: 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE */
    int nocheck;         /* the lock was taken with MPI_MODE_NOCHECK (nothing to release) */
    int locking;         /* inside ivc_rma_lock: a name of this rank in the block is ours */
    ivc_win_ctl_t *seen; /* the target's control block when this rank can read it (direct,
                          * or co-located with the block in the region): audited for this
                          * rank's name (ivc_mpi_rma_audit) */
    int remote;          /* not co-located: this rank, the owner, audits its names */
    int am_held;         /* owner side: lock type granted to this origin through AM, or
                          * AM_RESERVING while its exclusive reservation waits */
    uint64_t pending;    /* AM puts/accumulates not yet acknowledged */
    int err;             /* an AM the target refused (class), reported by the next flush */
} win_peer_t;

/* win_peer_t.am_held: an exclusive reservation of this origin waits for shared holders. */
#define AM_RESERVING 1

/* A memory range attached to a dynamic window. */
typedef struct win_attach {
    struct win_attach *next;
    uintptr_t base;
    uint64_t size;
} win_attach_t;

struct ivc_mpi_win_s {
    uint32_t magic;
    int id;        /* the internal communicator's context id: names the window in AMs */
    MPI_Comm comm; /* private duplicate of the user's communicator */
    void *base;
    uint64_t size;
    int disp_unit;
    int flavor;         /* MPI_WIN_FLAVOR_* */
    int model;          /* MPI_WIN_UNIFIED */
    void *mem;          /* memory this window allocated (Win_allocate), freed with it */
    void *shared_block; /* Win_allocate_shared: the block rank 0 allocated for everyone */
    ivc_win_ctl_t *ctl; /* this rank's control block */
    int ctl_private;    /* ctl is malloc'ed, not in the arena */
    win_peer_t *peers;  /* by rank in comm */
    win_attach_t *attached;
    int lock_all;                      /* inside Win_lock_all */
    int fence; /* a fence without MPI_MODE_NOSUCCEED came last: RMA calls may follow; a lock
                * or a start ends that (empty) fence epoch */
    int freeing;                       /* inside Win_free: peers' blocks may be reused */
    MPI_Group start_group, post_group; /* PSCW access / exposure epochs, or NULL */
    int *post_done;                    /* Win_test: completions received from post_group members */
    /* Attribute values handed out by Win_get_attr (their addresses are returned). */
    void *attr_base;
    MPI_Aint attr_size;
    int attr_disp_unit, attr_flavor, attr_model;
    struct ivc_mpi_attr *attrs; /* user attributes (comm/mpi_attr.c) */
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Info info; /* hints given at creation and by Win_set_info (Win_get_info) */
};

/* Active-message kinds (the envelope's tag). */
enum {
    AM_PUT = 1, /* data -> target; acknowledged */
    AM_ACC,     /* accumulate; acknowledged */
    AM_GET,     /* reply AM_DATA with rlen bytes */
    AM_GACC,    /* fetch then accumulate (also Fetch_and_op); reply AM_DATA */
    AM_CAS,     /* payload: compare, then origin value; reply AM_DATA (old value) */
    AM_LOCK,    /* flags: lock type; reply AM_LOCKED (flags 1 = granted) */
    AM_UNLOCK,  /* flags: lock type */
    AM_ACK,     /* to the origin: one AM_PUT/AM_ACC applied (flags 1: refused) */
    AM_DATA,    /* to the origin: reply data (flags 1: refused, no data) */
    AM_LOCKED,  /* to the origin: lock reply */
    AM_KINDS
};

typedef struct am_hdr {
    uint32_t kind;
    int32_t win;     /* window id */
    uint64_t disp;   /* byte offset in the target's window (dynamic: absolute address) */
    uint64_t len;    /* payload bytes after this header */
    uint64_t rlen;   /* reply bytes wanted (AM_GET, AM_GACC, AM_CAS) */
    uint64_t cookie; /* origin's sequence number, echoed in replies */
    int32_t op;      /* reduction op id (OP_*) */
    int32_t basic;   /* basic kind of the elements */
    uint32_t flags;
    uint32_t pad;
} am_hdr_t;

/* mpi_rma.c */
int ivc_rma_am_send(int world, const am_hdr_t *h, const void *payload, uint64_t len);
/* Largest AM payload to `world` that stays eager, a multiple of 64. */
uint64_t ivc_rma_am_max_payload(int world);
/* Waits until every AM put/accumulate to rank t of win is acknowledged. */
int ivc_rma_flush_am(MPI_Win win, int t);
/* Passive-target lock of rank t's window (direct or AM); returns MPI_SUCCESS or a class. */
int ivc_rma_lock(MPI_Win win, int t, int type);
int ivc_rma_unlock(MPI_Win win, int t, int type);
MPI_Win ivc_rma_win_lookup(int id);

/* mpi_win.c */
int ivc_rma_win_register(MPI_Win win);
void ivc_rma_win_unregister(MPI_Win win);

static inline int ivc_win_valid(MPI_Win w)
{
    return w != MPI_WIN_NULL && w->magic == WIN_MAGIC;
}

/* Entry checks of a function on a window: returns from the caller on failure. */
#define CHECK_WIN(w, fn)                                                                           \
    do {                                                                                           \
        int rc_ = ivc_mpi_check_init(fn);                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        if (!ivc_win_valid(w))                                                                     \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_WIN, fn, "invalid window");               \
    } while (0)

#endif
