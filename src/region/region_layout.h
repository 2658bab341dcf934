/* Every structure that crosses VMs (DESIGN.md "Rules of the shared region").
 *
 * The region is mapped by every VM at its own address and written by separate kernels, so:
 *  - positions are byte offsets from the region base, never pointers;
 *  - shared words are C11 atomics; each field below names its one writer, its readers and
 *    the access mode; plain fields are written once before a release store publishes them;
 *  - everything read from here is untrusted: readers copy a field once into a local and
 *    validate it (offset/length/index against bounds) before use.
 *
 * Map of a region of `size` bytes:
 *
 *   0                 ivc_region_hdr_t (one page): identity, allocator, job control, barrier,
 *                     where libivc's directory is
 *   members_off       ivc_member_t[world_size]: the locality detector's membership table
 *   doors_off         ivc_door_t[world_size]: each rank's sleep word and doorbell address
 *   moves_off         ivc_move_t[world_size]: migration orders for each rank and its replies
 *   heap_off..heap_end  bump-allocated blocks: one receive block per rank (shm channel),
 *                       one shared heap per rank (shm/shm_heap.h), collective areas (unless
 *                       in sections); libivc's directory and its rings, lanes and shared
 *                       blocks
 *   sec_off + k * sec_size  (layout version 5; only when sec_size != 0) rank k's *section*:
 *                       memory only rank k can write (region_sect.h). Not part of the
 *                       file: each section is a sealed memfd of its owner, handed to its
 *                       co-located peers by the launcher, which they map read-only at this
 *                       offset of their mapping. Starts with the owner's membership
 *                       record (ivc_sect_member_t, layout version 6), then its channel
 *                       block and collective area.
 *
 * A rank's channel block (still called receive block: ivc_rxblock_t, rx_off), allocated
 * and written by its owner O alone (layout version 5: before it, senders wrote into their
 * receiver's block):
 *
 *   ivc_rxblock_t            geometry, written once before O publishes the block
 *   slot[0 .. nsenders-1]    one per co-located peer P, at inbox_stride:
 *       ivc_inbox_ctl_t      ring_head, pipe_drained: what O consumed of P's ring and pipe
 *                            to O; pipe_filled: chunks O filled for P (one line each)
 *       ring[ring_size]      O's eager records to P (ivc_rec_t or ivc_rec_short_t + payload),
 *                            free-running
 *       slack[ring_slack]    a record that starts near the end of ring runs on into here
 *       chunks[nchunks * chunk_size]   O's rendezvous pipeline buffers to P
 * So a sender writes records and chunks into its own block and a receiver its consumer
 * counters into its own; each reads the other's. (Migration mode alone has one exception:
 * shm_chan.c, "migration".)
 */
#ifndef IVC_REGION_LAYOUT_H
#define IVC_REGION_LAYOUT_H

#include "../base/ivc_atomic.h"

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

/* "IVCREGN1" read as a little-endian u64. */
#define IVC_REGION_MAGIC 0x314e474552435649ULL
/* Bump on any change to a structure in this file. */
#define IVC_LAYOUT_VERSION 7u

#define IVC_REGION_HDR_SIZE 4096u
#define IVC_REGION_MIN_SIZE (1u << 20)

/* ivc_region_hdr_t.state */
enum {
    IVC_REGION_EMPTY = 0,      /* a zero-filled file: the first rank to arrive formats it */
    IVC_REGION_FORMATTING = 1, /* a formatter won the CAS and is writing the header */
    IVC_REGION_READY = 2,
};

typedef struct ivc_region_hdr {
    /* Line 0, identity. The first 24 bytes keep this shape in every layout version so that
     * any library can say what differs. Writer: the formatter, once, while state is
     * FORMATTING. Readers: every attacher, after the acquire load of `state`. */
    uint64_t magic;
    uint32_t layout_version;
    uint32_t format; /* IVC_REGION_FORMAT of the formatter's build */
    IVC_ATOMIC(uint32_t)
    state;               /* writer: formatter (CAS EMPTY->FORMATTING, R0 release
                          * store READY; pairs with A0 in region_wait_ready) */
    uint32_t world_size; /* ranks in the job (slots in the membership table) */
    uint64_t size;       /* bytes the formatter sized the region to */
    uint64_t job_id;
    uint64_t members_off;
    uint64_t heap_off;
    uint64_t heap_end;

    /* Line 1, allocator. Writers: any attached rank (fetch_add); readers: same. The value
     * is untrusted: an allocation is used only if it lies inside [heap_off, heap_end). */
    IVC_ATOMIC(uint64_t) heap_next IVC_ALIGNED_LINE;

    /* Line 2, job control. Writer: the first rank to abort (CAS on abort_state 0->1, then
     * plain stores, then R2 release store 2); readers: every rank's progress loop and the
     * launcher (A2 acquire load of abort_state == 2). */
    IVC_ATOMIC(uint32_t) abort_state IVC_ALIGNED_LINE;
    IVC_ATOMIC(uint32_t) abort_rank;
    IVC_ATOMIC(int32_t) abort_code;

    /* Lines 3-4, the region barrier (start-up and finalize when the region is the
     * bootstrap). Writers: every participating rank. `bar_arrived` counts arrivals with
     * fetch_add; the last arrival resets it and R3 release-increments `bar_generation`,
     * which the others wait on with A3 acquire loads. */
    IVC_ATOMIC(uint32_t) bar_arrived IVC_ALIGNED_LINE;
    IVC_ATOMIC(uint32_t) bar_generation IVC_ALIGNED_LINE;

    /* Line 5, incarnation. `format_gen`: writer the formatter (plain, while FORMATTING,
     * covered by R0), bumped by every (re)format; readers: an attacher deciding that the
     * region is stale reads it before and re-checks it after winning the READY->FORMATTING
     * CAS, so that it never resets a region another rank of its own job already reset and
     * joined. `started`: writers every rank of the job once its start-up barrier is
     * passed (relaxed store 1); readers: attachers (relaxed): a region whose job started
     * and still has a live rank is in use and refused. */
    IVC_ATOMIC(uint32_t) format_gen IVC_ALIGNED_LINE;
    IVC_ATOMIC(uint32_t) started;
    /* A rank of this job that cannot join because it was started with another job size
     * (PMI_SIZE): writer that rank (CAS misfit_rank 0 -> rank + 1 after a plain store of
     * misfit_size; R10 is the CAS, release); readers: the job's ranks waiting at start-up
     * (A10 acquire), which then fail at once instead of waiting for the timeout. */
    uint32_t misfit_size;
    IVC_ATOMIC(uint32_t) misfit_rank;

    /* Line 6, libivc (src/ivc/lib_layout.h): offset of libivc's directory block, 0 while
     * no libivc process came. Writers: the first libivc process (CAS 0 -> 1 claims the
     * setup, R11 release store of the offset once the block is formatted). Readers: libivc
     * processes (A11 acquire; they wait while it is 1 and validate the offset). */
    IVC_ATOMIC(uint64_t) lib_off IVC_ALIGNED_LINE;

    /* Line 7, doorbells (layout version 3). Writer: the formatter, plain, covered by R0;
     * readers: attachers after A0, validated like members_off. */
    uint64_t doors_off IVC_ALIGNED_LINE;

    /* Line 8, migration (layout version 4). Writer: the formatter, plain, covered by R0;
     * readers: attachers after A0, validated like members_off. */
    uint64_t moves_off IVC_ALIGNED_LINE;

    /* Line 9, write-exclusive sections (layout version 5). Writer: the formatter, plain,
     * covered by R0; readers: attachers after A0. sec_size 0: the region has none (every
     * block lies in the file's heap). Otherwise rank k's section occupies
     * [sec_off + k * sec_size, + sec_size) of every rank's mapping, past the file's end
     * (sec_off >= size), and only the launcher that formatted the region hands sections
     * out (region_sect.h). Attachers validate both against overflow before use. */
    uint64_t sec_off IVC_ALIGNED_LINE;
    uint64_t sec_size;
} ivc_region_hdr_t;

_Static_assert(offsetof(ivc_region_hdr_t, magic) == 0, "magic first");
_Static_assert(offsetof(ivc_region_hdr_t, layout_version) == 8, "fixed preamble");
_Static_assert(offsetof(ivc_region_hdr_t, format) == 12, "fixed preamble");
_Static_assert(offsetof(ivc_region_hdr_t, state) == 16, "fixed preamble");
_Static_assert(offsetof(ivc_region_hdr_t, heap_next) == IVC_CACHE_LINE, "allocator line");
_Static_assert(offsetof(ivc_region_hdr_t, bar_generation) -
                       offsetof(ivc_region_hdr_t, bar_arrived) ==
                   IVC_CACHE_LINE,
               "barrier words on separate lines");
_Static_assert(offsetof(ivc_region_hdr_t, lib_off) == 6 * IVC_CACHE_LINE, "libivc line");
_Static_assert(offsetof(ivc_region_hdr_t, doors_off) == 7 * IVC_CACHE_LINE, "doorbell line");
_Static_assert(offsetof(ivc_region_hdr_t, moves_off) == 8 * IVC_CACHE_LINE, "migration line");
_Static_assert(offsetof(ivc_region_hdr_t, sec_off) == 9 * IVC_CACHE_LINE, "sections line");
_Static_assert(sizeof(ivc_region_hdr_t) <= IVC_REGION_HDR_SIZE, "header fits its page");

/* ivc_member_t.state: one writer per slot, the rank it belongs to, except FAILED, which a
 * peer that declares the rank failed writes with a CAS from JOINED (or from ABSENT, for a
 * rank on another host) so that it never overwrites a rank's own FINALIZED or ABORTED. */
enum {
    IVC_MEMBER_ABSENT = 0,    /* never joined through this region */
    IVC_MEMBER_JOINED = 1,    /* in MPI_Init or running */
    IVC_MEMBER_FINALIZED = 2, /* in or past MPI_Finalize: needs nothing more from its peers */
    IVC_MEMBER_ABORTED = 3,   /* left through MPI_Abort or a fatal error */
    IVC_MEMBER_FAILED = 4,    /* declared failed by a peer or the launcher (fail_* say how) */
    IVC_MEMBER_MOVED = 5,     /* its VM migrated to another host (coord/coord_move.h): it
                               * left this region alive, after draining its channels here */
};

/* ivc_member_t.fail_how: how a rank failed. */
enum {
    IVC_FAIL_NONE = 0,
    IVC_FAIL_EXITED = 1,   /* its process ended without MPI_Finalize */
    IVC_FAIL_SILENT = 2,   /* its heartbeat stopped (dead, hung, or its VM paused too long) */
    IVC_FAIL_PROTOCOL = 3, /* it wrote what the protocol forbids into the region */
    IVC_FAIL_NETWORK = 4,  /* its network connection broke */
};

/* Length of the text a failure record carries (what the detector saw), NUL included. */
#define IVC_FAIL_WHAT_LEN 24

/* One slot per global rank: the locality detector's table (the published designs keep one
 * byte per rank; a slot here also carries where the rank's receive block is, its liveness
 * and, once it failed, how). A rank that shares this region marks its slot JOINED; after
 * the start-up barrier every JOINED slot is a co-located rank, and local order is slot
 * order. */
typedef struct ivc_member {
    /* Writer: the slot's rank (R4 release store), or a peer declaring it failed (CAS, after
     * the fail_* fields: R9). Readers (peers, launcher) use A4 acquire. */
    IVC_ATOMIC(uint32_t) state;
    /* Failure record (IVC_FAIL_* above), valid once state is FAILED. Writer: the one
     * declarer that won the fail_claim CAS, plain stores before R9; readers after A4. */
    uint32_t fail_how;
    /* Writer: the slot's rank, before JOINED's successor barrier; offset of its receive
     * block or 0. R5 release; readers (co-located senders) A5 acquire, then validate. */
    IVC_ATOMIC(uint64_t) rx_off;
    /* Writer: the slot's rank's liveness thread, relaxed, advanced every heartbeat period
     * while the process runs. Readers: peers' liveness threads, relaxed; only change
     * matters, never the value. */
    IVC_ATOMIC(uint64_t) heartbeat;
    /* Writer: the slot's rank before it marks JOINED (covered by R4): a hash of its
     * kernel's boot id when it holds its lock on the region file (ivc_region_lock), else 0.
     * Readers (A4 first): a peer trusts "the lock was released" only from a rank whose
     * kernel is its own, since file locks do not cross kernels (real guests). */
    uint64_t kernel_id;
    uint32_t fail_by; /* failure record: declaring rank, IVC_FAIL_BY_LAUNCHER: the launcher */
    /* Writers: declarers of a failure, CAS 0 -> 1 (one record per slot); readers none. */
    IVC_ATOMIC(uint32_t) fail_claim;
    char fail_what[IVC_FAIL_WHAT_LEN]; /* failure record: what was seen, NUL-terminated */
} ivc_member_t;
#define IVC_FAIL_BY_LAUNCHER 0xffffffffu
_Static_assert(sizeof(ivc_member_t) == IVC_CACHE_LINE, "one slot per cache line");

/* The first bytes of every write-exclusive section (layout version 6): what its owner says
 * about itself and about its peers, which no one else can write. Where a region has
 * sections, a peer believes a membership slot of the file (above, writable by every rank
 * and by anyone who can open the file) only as far as these records confirm it:
 * region.c's ivc_region_member_get. */
typedef struct ivc_sect_member {
    /* Writer: the owner, R4 with its slot's state (the same value); 0 before it joined.
     * Readers A4. */
    IVC_ATOMIC(uint32_t) state;
    uint32_t pad0;
    /* Writer: the owner before it marks JOINED; as ivc_member_t's kernel_id. */
    IVC_ATOMIC(uint64_t) kernel_id;
    uint8_t pad1[IVC_CACHE_LINE - 16];
    /* [world_size]: IVC_FAIL_* how the owner declared that rank failed, 0 if it did not.
     * Writer: the owner, release, before the file's record (R9); readers acquire. */
    IVC_ATOMIC(uint32_t) accused[];
} ivc_sect_member_t;
_Static_assert(sizeof(ivc_sect_member_t) == IVC_CACHE_LINE, "header line, then accusations");

/* Bytes at the start of each section that its membership record takes (whole pages, so
 * that what follows can be made private page by page). */
static inline uint64_t ivc_sect_member_bytes(uint32_t world)
{
    return (sizeof(ivc_sect_member_t) + 4ull * world + 4095) / 4096 * 4096;
}

/* One slot per global rank: how a waiting rank is woken (region/door.h has the protocol).
 * A rank that found nothing to do for a while announces in `sleeping` that it is about to
 * sleep, re-checks everything it waits for, and sleeps on its doorbell; a peer that
 * publishes anything this rank may wait for checks `sleeping` after its publication and
 * rings only when it is set. Both sides put a full fence between their store and their
 * load (D1 in ivc_door_announce pairs with D2 in ivc_door_kick), so either the sleeper's
 * re-check sees the publication or the publisher sees the announcement: no lost wake-up.
 * The doorbell itself (an eventfd, an ivshmem doorbell register) is outside the region. */
typedef struct ivc_door {
    /* Writer: the slot's rank: 1 (announce) with a relaxed store followed by D1, 0 when it
     * is awake again (relaxed). Readers: publishers, relaxed after D2; a stale 1 costs a
     * spurious ring, a stale 0 is what the fences exclude. */
    IVC_ATOMIC(uint32_t) sleeping;
    /* Writer: the slot's rank, before it marks JOINED (covered by R4); readers: peers after
     * the start-up barrier, validated against their own doorbell table. `door_id` is the
     * rank's address in its doorbell domain (an index into the launcher's eventfds, or an
     * ivshmem peer id); `domain` names the set of doorbells (0: this rank has none). Ranks
     * ring each other only when every co-located rank names the same domain. */
    uint32_t door_id;
    uint64_t domain;
    /* Writer: the slot's rank (relaxed); readers: tools (ivc-info -r). Sleeps so far. */
    IVC_ATOMIC(uint64_t) sleeps;
    uint8_t pad[IVC_CACHE_LINE - 24];
} ivc_door_t;
_Static_assert(sizeof(ivc_door_t) == IVC_CACHE_LINE, "one door slot per cache line");

/* One slot per global rank: how a rank is told to move to another host (VM migration,
 * coord/coord_move.h) and how it says it did. The order is written into the slot of the
 * region the rank is in now; the reply into its slot of the region it went to. */
typedef struct ivc_move {
    /* Writer: the launcher or host daemon (release store, M1) of (seq << 16) | (dest + 1):
     * move to host region `dest` of the job's list (IVC_HOST_REGIONS), `seq` counting the
     * orders from 1. Reader: the slot's rank, acquire (M1), every few hundred progress
     * calls; an order names a region index it validates against its list. */
    IVC_ATOMIC(uint64_t) order;
    /* Writer: the slot's rank, release, once the move `seq` is complete (every peer of the
     * new host reached through shared memory, every old one through the network); readers:
     * the launcher, acquire. */
    IVC_ATOMIC(uint64_t) done;
    /* Writer: the slot's rank, before `done`: nanoseconds from reading the order to done
     * (relaxed). Readers: the launcher, after `done`. */
    IVC_ATOMIC(uint64_t) took_ns;
    /* Writer: the slot's rank, release, when it joins this region (before its member state
     * says JOINED): the last order it took, wherever it was written. Reader: a tool that
     * numbers its next order, after reading JOINED (acquire): above this one, every order
     * left in the slot by an earlier visit is stale, and the rank ignores it. */
    IVC_ATOMIC(uint64_t) at_seq;
    uint8_t pad[IVC_CACHE_LINE - 32];
} ivc_move_t;
_Static_assert(sizeof(ivc_move_t) == IVC_CACHE_LINE, "one move slot per cache line");

/* "RXBK" */
#define IVC_RXBLOCK_MAGIC 0x4b425852u

/* Geometry of a receive block. Writer: its owner, plain stores before R5 publishes rx_off.
 * Readers: senders, after A5; every field is validated against the region's bounds and the
 * reader's own limits before use. */
typedef struct ivc_rxblock {
    uint32_t magic;
    uint32_t nsenders;   /* inboxes: co-located ranks other than the owner */
    uint32_t ring_size;  /* power of two */
    uint32_t ring_slack; /* bytes after the ring a record may run into: max record size */
    uint32_t chunk_size; /* multiple of the cache line */
    uint32_t nchunks;    /* power of two */
    uint64_t inbox_stride;
    uint64_t block_size;
    /* The owner's shared heap (shm/shm_heap.h): region offset and bytes, 0 and 0 when it
     * has none. Offsets the owner publishes for one-copy rendezvous (IVC_REC_RTS_HEAP,
     * IVC_REC_CTS_HEAP) must lie inside it; readers check that it lies in the region's heap
     * and overlaps none of their own blocks. */
    uint64_t heap_off;
    uint64_t heap_len;
    uint8_t pad[IVC_CACHE_LINE - 56];
} ivc_rxblock_t;
_Static_assert(sizeof(ivc_rxblock_t) == IVC_CACHE_LINE, "rxblock header is one line");

/* Counters of owner O's slot for peer P, each on its own cache line (producer and consumer
 * indexes never share a line). All are free-running 64-bit counters, all written by O. */
typedef struct ivc_inbox_ctl {
    /* Writer: O, as the receiver of P's ring (in P's slot for O). Ring bytes consumed,
     * published lazily (R6 release in shm_ring_release; pairs with A6 in shm_ring_reserve's
     * full check at P). */
    IVC_ATOMIC(uint64_t) ring_head IVC_ALIGNED_LINE;
    /* Writer: O, as the receiver of P's pipeline. Chunks copied out (R7 release in
     * shm_pipe_drain; pairs with A7 in shm_pipe_fill before P overwrites a chunk). */
    IVC_ATOMIC(uint64_t) pipe_drained IVC_ALIGNED_LINE;
    /* Writer: O, as the sender of the pipeline in this slot. Chunks filled (R8 release in
     * shm_pipe_fill; pairs with A8 in shm_pipe_drain before P reads a chunk). */
    IVC_ATOMIC(uint64_t) pipe_filled IVC_ALIGNED_LINE;
} ivc_inbox_ctl_t;
_Static_assert(sizeof(ivc_inbox_ctl_t) == 3 * IVC_CACHE_LINE, "three counter lines");

/* ivc_rec_t.kind */
enum {
    IVC_REC_EAGER = 1, /* envelope + the whole message as payload */
    IVC_REC_RTS = 2,   /* envelope; arg = message length; cookie = sender's handle */
    IVC_REC_CTS = 3,   /* cookie = sender's handle; arg = bytes the receiver accepts */
    IVC_REC_ACK = 4,   /* synchronous-send acknowledgement; cookie = sender's handle */
    /* One copy (shm_chan.c "One copy"). RTS_HEAP: an RTS whose 8-byte payload is the region
     * offset of the sender's contiguous buffer, inside its shared heap; the receiver may
     * copy straight out of it and answer RDONE, or answer CTS and have it streamed. */
    IVC_REC_RTS_HEAP = 5,
    IVC_REC_RDONE = 6, /* receiver has copied the sender's buffer; cookie = sender's handle,
                        * arg = bytes copied */
    /* CTS_HEAP: a CTS whose 8-byte payload is the region offset of the receiver's
     * contiguous buffer, inside its shared heap: the sender copies straight into it, then
     * sends WDONE. */
    IVC_REC_CTS_HEAP = 7,
    IVC_REC_WDONE = 8, /* sender has written the receiver's buffer; arg = bytes written */
    IVC_REC_SHORT = 9, /* an eager message in the short header (ivc_rec_short_t) */
    IVC_REC_PAD = 10,  /* stamp and kind only (ivc_rec_short_t's first 9 bytes): the rest
                        * of the line is unused, the next record starts on the next line */
};

/* One record of an eager ring, starting on a cache line at ring position `pos`.
 * Writer: the ring's sender (the owner of the block it lies in): every field and the payload with plain stores, then `stamp`
 * last with R1 release (shm_ring_commit); pairs with A1 (shm_ring_poll), where the receiver
 * accepts the record only if stamp == pos + 1. The sender also zeroes the stamp word of the
 * next record position before R1, so stale bytes of an earlier lap never look fresh; a
 * record behind a pad (IVC_REC_PAD) is published before the pad, so its stamp word is
 * never read before it is written. */
typedef struct ivc_rec {
    IVC_ATOMIC(uint64_t) stamp;
    uint8_t kind;
    uint8_t flags; /* IVC_ENV_* flags of the envelope */
    uint16_t rsvd;   /* channel framing flags: bit 0 (SHM_REC_CSUM) a check word follows
                      * the payload (shm_ring.h; rendezvous chunk framing: shm_pipe.h) */
    uint32_t paylen; /* payload bytes following this header */
    uint32_t ctx;    /* envelope: context id */
    int32_t src;     /* envelope: sender's rank in the communicator */
    int32_t tag;     /* envelope: tag */
    uint32_t seq;    /* per-pair sequence number, for ordering checks */
    uint64_t arg;
    uint64_t cookie;
} ivc_rec_t;
_Static_assert(sizeof(ivc_rec_t) == 48, "record header size is part of the format");

/* The short form of an eager record (kind IVC_REC_SHORT): a message of at most
 * IVC_REC_SHORT_MAX bytes that needs no acknowledgement and no check word; its payload
 * follows this header and the record takes its bytes rounded up to 16, starting on 16
 * bytes, so two 8-byte messages share a cache line (a full record takes at least a line).
 * Same writer and the same stamp protocol as ivc_rec_t; the stamp and kind lie where they
 * lie there. */
typedef struct ivc_rec_short {
    IVC_ATOMIC(uint64_t) stamp;
    uint8_t kind;    /* IVC_REC_SHORT */
    uint8_t flags;   /* IVC_ENV_* flags of the envelope; never IVC_ENV_SYNC */
    uint16_t paylen; /* payload bytes following this header */
    uint32_t ctx;    /* envelope: context id */
    int32_t src;     /* envelope: sender's rank in the communicator */
    int32_t tag;     /* envelope: tag */
} ivc_rec_short_t;
_Static_assert(sizeof(ivc_rec_short_t) == 24, "short record header size is part of the format");
#define IVC_REC_SHORT_MAX 232u /* payload bytes: a short record is at most 256 bytes */

/* Options that change the layout without changing a struct; a mismatch is reported field by
 * field. */
#define IVC_REGION_FORMAT                                                                          \
    ((uint32_t)(6u /* log2 cache line */) | ((uint32_t)sizeof(ivc_member_t) << 8) |                \
     ((uint32_t)sizeof(ivc_rec_t) << 16) |                                                         \
     ((uint32_t)(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) << 24))

#endif
