/* libivc's structures in the shared region (region_layout.h names where they start:
 * ivc_region_hdr_t.lib_off). The rules of region_layout.h hold here too: offsets, never
 * pointers; each shared field names its one writer (or its CAS writers), its readers and
 * the access mode; everything read is validated by the reader before use.
 *
 * Map of the directory block (one heap block, allocated by the first libivc process):
 *
 *   ivclib_dir_t                       geometry, written once before R11 publishes lib_off
 *   ep[nendpoints]      ivclib_ep_t    endpoints (identity, liveness)
 *   chan[nchannels]     ivclib_chan_t  channel slots; each owns a ring pair block once used
 *   port[nports]        ivclib_port_t  datagram ports; each owns a lane block once used
 *   bar[nbarriers]      ivclib_bar_t   barriers
 *   obj[nobjects]       ivclib_obj_t   named shared blocks
 *   lock[nlocks]        u64            minitransaction locks, one per hashed cache line
 *   log[nendpoints]     log_size each  minitransaction redo logs, one per endpoint
 *
 * Owner words: a 64-bit "who" value names an endpoint incarnation: (gen << 32) | (id + 1),
 * 0 = nobody. An endpoint slot's gen grows at every claim, so a stale owner word (of a
 * process that left or died) never matches the slot's current incarnation. */
#ifndef IVC_LIB_LAYOUT_H
#define IVC_LIB_LAYOUT_H

#include "../base/ivc_atomic.h"

#include <stddef.h>
#include <stdint.h>

/* "IVCLIB01" little-endian */
#define IVCLIB_DIR_MAGIC   0x3130424c43564955ull
#define IVCLIB_DIR_VERSION 2u /* 2: endpoints publish a doorbell (ivclib_ep_t line 1) */
/* ivc_region_hdr_t.lib_off while the first process formats the directory. */
#define IVCLIB_DIR_BUSY 1u

#define IVCLIB_NAME_MAX 32
#define IVCLIB_BAR_MAX  64 /* participants of a barrier */

/* Hard limits a reader checks the creator's geometry against. */
#define IVCLIB_MAX_ENDPOINTS 4096u
#define IVCLIB_MAX_SLOTS     65536u
#define IVCLIB_MAX_RING      (1u << 30)
#define IVCLIB_MAX_LANES     64u
#define IVCLIB_MAX_LOCKS     (1u << 24)
#define IVCLIB_MAX_LOG       (1u << 20)

static inline uint64_t ivclib_who(uint32_t id, uint32_t gen)
{
    return ((uint64_t)gen << 32) | ((uint64_t)id + 1);
}
static inline uint32_t ivclib_who_id(uint64_t who) /* UINT32_MAX for nobody */
{
    return (uint32_t)(who & 0xffffffffu) - 1;
}
static inline uint32_t ivclib_who_gen(uint64_t who)
{
    return (uint32_t)(who >> 32);
}

/* Geometry. Writer: the directory's creator, plain stores before R11. Readers: every
 * libivc process after A11; each copies and checks the fields once (ivclib_dir_check). */
typedef struct ivclib_dir {
    uint64_t magic;
    uint32_t version;
    uint32_t nendpoints;
    uint32_t nchannels;
    uint32_t ring_size; /* bytes of each direction of a channel, power of two */
    uint32_t nports;
    uint32_t nlanes;    /* sender lanes per port */
    uint32_t lane_size; /* bytes of each lane, power of two */
    uint32_t nbarriers;
    uint32_t nobjects;
    uint32_t nlocks;    /* power of two */
    uint32_t log_size;  /* bytes of one endpoint's redo log, multiple of 64 */
    uint32_t rsvd;
    uint64_t ep_off, chan_off, port_off, bar_off, obj_off, lock_off, log_off; /* region offsets */
    uint64_t total; /* bytes of the whole block from the directory's own offset */
    /* Line 2: the creation lock, for finding-or-creating named things (barriers, blocks,
     * ports) without duplicates. Writers: any endpoint, CAS 0 -> its who (acquire), a
     * successor CAS from a dead owner's who, release store 0 to unlock. */
    IVC_ATOMIC(uint64_t) create_lock IVC_ALIGNED_LINE;
} ivclib_dir_t;
_Static_assert(sizeof(ivclib_dir_t) == 3 * IVC_CACHE_LINE, "directory header lines");

/* ivclib_ep_t.state */
enum { IVCLIB_EP_FREE = 0, IVCLIB_EP_CLAIMED = 1, IVCLIB_EP_ACTIVE = 2 };

/* One endpoint. */
typedef struct ivclib_ep {
    /* Writers: a claimant (CAS FREE -> CLAIMED, or ACTIVE -> CLAIMED over a dead owner),
     * then R12 release store ACTIVE; the owner at close (release store FREE). Readers: A12
     * acquire. */
    IVC_ATOMIC(uint32_t) state;
    /* Writer: the claimant while CLAIMED (relaxed, covered by R12); readers after A12. */
    IVC_ATOMIC(uint32_t) gen;
    int32_t rank;              /* plain, claimant while CLAIMED; -1 none */
    uint32_t rsvd;
    uint64_t kernel_id;        /* plain, claimant: who may trust its file lock (region.h) */
    char name[IVCLIB_NAME_MAX]; /* plain, claimant; readers copy and check it */
    uint8_t pad0[IVC_CACHE_LINE - 24 - IVCLIB_NAME_MAX];
    char host[IVCLIB_NAME_MAX]; /* plain, claimant */
    /* Writer: the owner's heartbeat thread, relaxed, every IVC_LIB_HEARTBEAT_PERIOD ms.
     * Readers: peers judging liveness, relaxed: only change matters. */
    IVC_ATOMIC(uint64_t) heartbeat;
    /* The endpoint's doorbell (lib_door.c): its domain (0: none) and its address in it.
     * Plain; writer: the claimant while CLAIMED (before R12) and the owner at close;
     * readers (a writer about to ring it) copy them once and ring only an address of their
     * own domain that they can reach. */
    uint64_t door_domain;
    uint32_t door_id;
    /* Threads of the owner asleep (or about to be) on the doorbell. Writers: the owner,
     * fetch_add 1 (seq_cst, D1) before its re-check and fetch_sub 1 when awake; reset to
     * 0 by the claimant. Readers: publishers, relaxed after their D2 fence (ivclib_kick):
     * nonzero means ring. Another writer can only cost rings or a sleep's timeout. */
    IVC_ATOMIC(uint32_t) sleepers;
    uint8_t pad1[IVC_CACHE_LINE - IVCLIB_NAME_MAX - 24];
} ivclib_ep_t;
_Static_assert(sizeof(ivclib_ep_t) == 2 * IVC_CACHE_LINE, "endpoint slot is two lines");

/* ivclib_chan_t.state */
enum { IVCLIB_CH_FREE = 0, IVCLIB_CH_CLAIMED = 1, IVCLIB_CH_REQUEST = 2, IVCLIB_CH_OPEN = 3 };
/* ivclib_chan_t.a_flags / b_flags */
#define IVCLIB_CH_CLOSED 1u

/* One channel between endpoint a (connector) and b (acceptor). */
typedef struct ivclib_chan {
    /* Writers: the connector (CAS FREE -> CLAIMED; R13 release store REQUEST once the
     * fields below are set; CAS REQUEST -> FREE when it gives up), the acceptor (CAS
     * REQUEST -> OPEN), the last side to close (CAS OPEN -> FREE), a reclaimer of a slot
     * whose endpoints are both gone (CAS -> CLAIMED). Readers: A13 acquire. */
    IVC_ATOMIC(uint32_t) state;
    uint32_t port;          /* plain, connector while CLAIMED */
    uint64_t a_who, b_who;  /* plain, connector while CLAIMED (ivclib_who) */
    /* Plain. Writer: the first connector ever to claim the slot, which allocates the ring
     * block; it never changes afterwards. Readers after A13 check it lies in the heap. */
    uint64_t ring_off;
    uint32_t ring_size;     /* plain, as ring_off: the directory's ring_size */
    uint8_t pad0[IVC_CACHE_LINE - 36];
    /* Writer: side a, release store CLOSED (R14; pairs with A14 of side b), reset by the
     * connector while CLAIMED. */
    IVC_ATOMIC(uint32_t) a_flags IVC_ALIGNED_LINE;
    /* Writer: side b, as a_flags. */
    IVC_ATOMIC(uint32_t) b_flags IVC_ALIGNED_LINE;
} ivclib_chan_t;
_Static_assert(sizeof(ivclib_chan_t) == 3 * IVC_CACHE_LINE, "channel slot is three lines");

/* One direction of a channel (and one sender lane of a port): a single-producer
 * single-consumer byte ring with free-running 64-bit positions, the two on separate
 * lines; `size` data bytes follow the control block. */
typedef struct ivclib_ring_ctl {
    /* Writer: the producer, R15 release store after copying the bytes in; reader: the
     * consumer, A15 acquire before copying them out. */
    IVC_ATOMIC(uint64_t) tail IVC_ALIGNED_LINE;
    /* Writer: the consumer, R16 release store after copying bytes out; reader: the
     * producer, A16 acquire before overwriting them. */
    IVC_ATOMIC(uint64_t) head IVC_ALIGNED_LINE;
} ivclib_ring_ctl_t;
_Static_assert(offsetof(ivclib_ring_ctl_t, head) - offsetof(ivclib_ring_ctl_t, tail) ==
                   IVC_CACHE_LINE,
               "producer and consumer positions on separate lines");
_Static_assert(sizeof(ivclib_ring_ctl_t) == 2 * IVC_CACHE_LINE, "ring control block");

/* Bytes of a ring (control + data) of `size` data bytes. */
static inline uint64_t ivclib_ring_bytes(uint32_t size)
{
    return sizeof(ivclib_ring_ctl_t) + (uint64_t)size;
}

/* ivclib_port_t.state */
enum { IVCLIB_PORT_FREE = 0, IVCLIB_PORT_CLAIMED = 1, IVCLIB_PORT_OPEN = 2 };

/* A datagram port: nlanes lanes, each a ring owned by one sender at a time. */
typedef struct ivclib_port {
    /* Writers: the binding endpoint (CAS FREE -> CLAIMED under the creation lock, R17
     * release store OPEN; release store FREE at close), a reclaimer of a dead owner's port
     * (under the creation lock). Readers: senders, A17 acquire. */
    IVC_ATOMIC(uint32_t) state;
    uint32_t port;      /* plain, binder while CLAIMED */
    uint64_t owner_who; /* plain, binder while CLAIMED */
    /* Plain, written once by the first binder ever (as ivclib_chan_t.ring_off). */
    uint64_t lanes_off;
    uint32_t nlanes, lane_size;
    uint8_t pad0[IVC_CACHE_LINE - 32];
} ivclib_port_t;
_Static_assert(sizeof(ivclib_port_t) == IVC_CACHE_LINE, "port slot is one line");

/* One sender lane of a port: the lane's owner word, then its ring. */
typedef struct ivclib_lane {
    /* Writers: a sender, CAS 0 -> its who (or from a dead sender's who); the sender at
     * close, CAS its who -> 0; the binder, relaxed 0 while the port is CLAIMED. Readers:
     * senders looking for a lane (acquire, in the CAS). */
    IVC_ATOMIC(uint64_t) owner IVC_ALIGNED_LINE;
    ivclib_ring_ctl_t ring;
} ivclib_lane_t;
_Static_assert(sizeof(ivclib_lane_t) == 3 * IVC_CACHE_LINE, "lane header");

/* Datagram record in a lane: header then payload, padded to 8 bytes. Writer: the lane's
 * sender, inside the ring bytes it publishes with R15. */
typedef struct ivclib_dgram_hdr {
    uint32_t len;  /* payload bytes */
    uint32_t from; /* sender's endpoint id */
} ivclib_dgram_hdr_t;

/* ivclib_bar_t.state */
enum { IVCLIB_BAR_FREE = 0, IVCLIB_BAR_CLAIMED = 1, IVCLIB_BAR_READY = 2 };

/* A barrier of `count` participants. */
typedef struct ivclib_bar {
    /* Writers: a creator under the creation lock (CAS FREE -> CLAIMED, R18 release store
     * READY), the last participant to leave (release store FREE, under the creation lock).
     * Readers: A18. */
    IVC_ATOMIC(uint32_t) state;
    uint32_t count;             /* plain, creator while CLAIMED */
    char name[IVCLIB_NAME_MAX]; /* plain, creator while CLAIMED */
    uint8_t pad0[IVC_CACHE_LINE - 8 - IVCLIB_NAME_MAX];
    /* Participants' who words. Writers: a joiner, CAS 0 -> its who; the participant at
     * close, release store 0. Readers: waiters checking liveness (acquire). */
    IVC_ATOMIC(uint64_t) part[IVCLIB_BAR_MAX];
    /* Writers: every arriving participant (fetch_add); the last arrival resets it to 0
     * (relaxed; ordered before R19). */
    IVC_ATOMIC(uint32_t) arrived IVC_ALIGNED_LINE;
    /* Writer: the last arrival, R19 release store generation + 1; readers: waiters, A19. */
    IVC_ATOMIC(uint32_t) generation IVC_ALIGNED_LINE;
    /* Writer: a participant that finds another dead or gone while it waits, or that gives
     * up waiting: CAS 0 -> (who of the dead one, or 1 for a timeout), release. Readers:
     * waiters (acquire). Once set it stays set: the barrier is broken for everyone. */
    IVC_ATOMIC(uint64_t) broken IVC_ALIGNED_LINE;
} ivclib_bar_t;
_Static_assert(offsetof(ivclib_bar_t, part) == IVC_CACHE_LINE, "participants after line 0");
_Static_assert(sizeof(ivclib_bar_t) == (4 + IVCLIB_BAR_MAX / 8) * IVC_CACHE_LINE, "barrier");

/* ivclib_obj_t.state */
enum { IVCLIB_OBJ_FREE = 0, IVCLIB_OBJ_READY = 2 };

/* A named shared block. Writer: its creator under the creation lock (plain fields, R20
 * release store READY; pairs with A20). Blocks are never freed. */
typedef struct ivclib_obj {
    IVC_ATOMIC(uint32_t) state;
    uint32_t rsvd;
    uint64_t off, size; /* validated by readers: inside the heap */
    char name[IVCLIB_NAME_MAX];
    uint8_t pad0[IVC_CACHE_LINE - 24 - IVCLIB_NAME_MAX];
} ivclib_obj_t;
_Static_assert(sizeof(ivclib_obj_t) == IVC_CACHE_LINE, "object slot is one line");

/* A minitransaction lock word (lock[(off / 64) & (nlocks - 1)]): 0 free, else the who of
 * the committer holding it. Writers: committers, CAS 0 -> who (acquire: sees what the last
 * holder wrote) and release store 0 (R21) after their writes; a recoverer, CAS from a dead
 * holder's who -> 0 after the holder's log is applied. */

/* ivclib_log_t.state */
#define IVCLIB_LOG_EMPTY 0ull
#define IVCLIB_LOG_VALID 1ull /* the records are complete: apply them */
/* else ivclib_log_recovering(): a recoverer is applying them */
#define IVCLIB_LOG_RECOVERING 2ull

/* The state word of a log a recoverer took: its id and the low 24 bits of its gen. */
static inline uint64_t ivclib_log_recovering(uint32_t id, uint32_t gen)
{
    return IVCLIB_LOG_RECOVERING | ((uint64_t)(gen & 0xffffffu) << 8) | ((uint64_t)(id + 1) << 32);
}

/* One endpoint's redo log: the writes of the commit it is applying. */
typedef struct ivclib_log {
    /* Writers: the owner (plain records, then R22 release store VALID while holding every
     * lock of the records; release store EMPTY after applying); a recoverer (CAS VALID or
     * a dead recoverer's RECOVERING -> RECOVERING|its who; release store EMPTY after
     * replaying). Readers: recoverers (acquire, in the CAS). */
    IVC_ATOMIC(uint64_t) state;
    uint64_t who;   /* the committer whose writes these are (plain, owner, before R22) */
    uint32_t nrec;  /* records that follow (plain, owner, before R22) */
    uint32_t bytes; /* bytes of records that follow the header */
    uint8_t pad0[IVC_CACHE_LINE - 24];
    /* records: ivclib_logrec_t + data padded to 8, `bytes` in all */
} ivclib_log_t;
_Static_assert(sizeof(ivclib_log_t) == IVC_CACHE_LINE, "log header is one line");

typedef struct ivclib_logrec {
    uint64_t off;
    uint32_t len;
    uint32_t rsvd;
} ivclib_logrec_t;

#endif
