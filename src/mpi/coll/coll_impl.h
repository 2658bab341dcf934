/* Internals of the collectives: per-communicator state, the shared-memory collective areas,
 * and the algorithm families (coll_shm.c over the areas, coll_p2p.c over point-to-point,
 * coll_op.c reductions). mpi_coll.c checks arguments of the blocking calls and picks an
 * algorithm.
 *
 * Nonblocking, persistent, neighbourhood and intercommunicator collectives are schedules of
 * point-to-point rounds: coll_nbc.c runs them, coll_sched.c (intracommunicators and
 * neighbourhoods) and coll_inter.c (intercommunicators) build them from a coll_args_t;
 * mpi_icoll.c (nonblocking calls and the shared argument checks), mpi_pcoll.c (persistent),
 * mpi_neighbor.c (neighbourhoods) describe each call as one. The blocking
 * intercommunicator calls run the same schedules to completion.
 *
 * Hierarchy: a communicator whose members all share this rank's region runs the
 * shared-memory algorithms. One that spans regions (hosts) runs Barrier, Bcast and
 * commutative Reduce/Allreduce in three steps (shared memory inside each host's "node"
 * communicator, point-to-point among the nodes' leaders, shared memory again; mpi_coll.c)
 * and everything else with the point-to-point algorithms, which work over any channel.
 * Every member decides the same way: locality is symmetric, and the hierarchy is agreed
 * from one allgathered table.
 *
 * ---- The collective area (shared memory) ----
 *
 * At MPI_Init every co-located rank reserves one area in the region (ivc_region_alloc; the
 * region is sized for it by ivc_shm_region_bytes) and learns the others' offsets through an
 * allgather. Communicators share these areas; an operation is named by a tag
 * (context id << 48 | sequence number) that every member computes the same way. The area
 * of rank P (local index p) has IVC_COLL_BANKS banks (shm_coll_config.h), each laid out as
 *
 *   ivc_coll_ctl_t   tag, filled: what P publishes in this bank           (bytes 0-15)
 *   ack[nlocal]      32-bit words: ack[q] in P's bank b + 1 (mod IVC_COLL_BANKS), units
 *                    of Q's publications in Q's bank b that fit the tag's line and that P
 *                    has consumed                                         (from byte 16)
 *   far[nlocal]      32-bit words: far[q] in P's bank b + IVC_COLL_BANKS / 2, the same for
 *                    Q's longer publications in its bank b
 *   len              a broadcast's message bytes (written before R10), which each reader
 *                    compares with its own count: a mismatch is MPI_ERR_TRUNCATE there;
 *                    the small data of other publications may cover it (place())
 *   data[]           P's publication: contributions, blocks, or a ring of chunks; the
 *                    data, or a descriptor of it in P's shared heap at a region offset:
 *                    for Gather, Allgather, Alltoall and Reduce_scatter `filled` tells
 *                    which; each half of a partitioned Allreduce starts with a descriptor
 *                    (a line) that tells it (coll_shm.c, "operands in the shared heap")
 *   csum[]           check words (below)
 * Bank 0 has IVC_COLL_AREA data bytes, the others IVC_COLL_CHUNK (at most 16 KiB). A
 * publication that fits a small bank goes to bank ops % IVC_COLL_BANKS, counting every
 * operation this rank took part in (ops), a larger one to bank 0: P writes its next small
 * publications while readers still read its last few, so a root (or a reduction's
 * contributors) runs up to IVC_COLL_BANKS - 1 operations ahead instead of waiting for every
 * reader each time. A reader looks for the tag in every bank and reads where it found it.
 * Counting operations rather than publications keeps the members of a communicator on the
 * same bank (a rank that publishes nothing in an operation moves on too), so an
 * acknowledgement written into the tag's line of a later bank of the reader travels to the
 * publisher with the reader's publication there instead of on its own:
 *  - of a publication that fits its tag's line, in the reader's next bank (ack[]);
 *  - of a longer one, half the banks on (far[]): in the next bank, the publisher polls that
 *    line while the reader waits for its own next publication's data line, and the
 *    acknowledgement stored into it first makes that line travel twice.
 * With the vCPUs far apart (2 ranks, the AMD development VM, bench/coll, 3 rounds against
 * the acknowledgement in the bank read): Allgather, Alltoall, Allreduce and Reduce_scatter
 * of 8 B 0.53-0.76x the time, 16-32 B 0.76-1.0x; 64-256 B Alltoall 0.77-1.0x, Allreduce
 * 0.96-1.07x, Reduce_scatter 1.11-1.28x (the old figures there came from a bank phase
 * between the ranks that happened to suit those sizes). Close together 0.83-0.93x at 8 B,
 * 0.92-1.10x at 16-512 B. The tag's line holds the acknowledgements for up to 6 ranks. All
 * of it has the one writer P.
 *
 * Protocol of one operation published by P in bank b and read by a set of readers:
 *  1. P waits until every reader of its earlier publications in bank b has acknowledged
 *     all of them (Q's ack[p] plus far[p] for bank b == owed[b][Q] modulo 2^32, owed kept
 *     in P's private memory: where Q acknowledges follows from the size Q expects, so a
 *     count that does not match P's still adds up), so nobody still reads bank b. A
 *     publication therefore stays in its bank until every reader acknowledged it.
 *  2. P writes data, sets `filled` (units already in place), then R10 release-stores `tag`.
 *  3. A reader Q waits for P's tag == the operation's tag in some bank (A10 acquire),
 *     reads, and R11 release-increments its acknowledgement word for bank b once per unit
 *     (once for an operation with none); P reads acks with A11 acquire loads.
 *  P publishes a communicator's tags in increasing order, so a tag of the communicator past
 *  the awaited one in some bank, with the awaited one in none (looked at after the later
 *  one), means another writer changed P's area or our acknowledgements (coll_shm.c).
 *  Failures: a reader that gives up an operation sets its communicator's bit in the gave-up
 *  bitmap of its own area (R13 release); a publisher stops waiting for acknowledgements a
 *  dead reader, or one whose bitmap has the context of the last publication in that bank
 *  (A13 acquire), will never make (coll_shm.c, "failures"). The bitmap (IVC_MPI_ID_WORDS
 *  words, writer: the owner) lies in the slack at the end of the area, else in chunks cut
 *  off bank 0's data.
 *  Streamed operations (large broadcasts, bank 0) publish further units by R12
 *  release-storing `filled` (A12 in readers); unit k lives in chunk slot k % nslots, and P
 *  reuses a slot only after every reader acknowledged the unit that was in it.
 * Stale tags: a communicator's sequence numbers start above the highest one any member ever
 * published (agreed at its first shared-memory operation), so a tag left in an area by a
 * freed communicator with the same context id never equals a current one.
 * Untrusted data: offsets and sizes are validated once at init; every index into an area
 * comes from this rank's own state; what peers write is only ever copied or reduced.
 * Other writers (a co-tenant scribbling on the region):
 *  - check words (IVC_CHECKSUM): after the data, csum[i] is the check word (shm_csum.h,
 *    seeded with the operation's tag and i) of block i of a publication: the piece a reader
 *    reads alone, or the unit in slot i of a streamed broadcast. Written before R10/R12. A
 *    reader checks what it read after reading it, in place: a publication stands until the
 *    reader acknowledges it, so a change made before the read is still there to be seen,
 *    and a mismatch fails the operation instead of delivering the data;
 *  - the owner keeps a private copy of every control word it wrote (tag, filled, acks,
 *    gave-up bits) and its waits compare them now and then, putting back what another
 *    writer changed (a changed tag or acknowledgement would otherwise hang its readers);
 *  - a wait on a rank that has gone into MPI_Finalize ends with an error: that rank
 *    published and acknowledged everything before it left, so the word waited on was
 *    damaged (or the collectives were mismatched). */
#ifndef IVC_MPI_COLL_IMPL_H
#define IVC_MPI_COLL_IMPL_H

#include "mpi_impl.h"

#include "shm/shm_coll_config.h"

#include <limits.h>
#include <stdint.h>

/* Tags on the collective context. Blocking operations use one tag each so that mismatched
 * collectives cannot silently match; nonblocking ones use NBC_TAG_BASE + a per-communicator
 * sequence number, so that several in flight never cross-match. */
enum {
    TAG_BARRIER = 1,
    TAG_BCAST,
    TAG_REDUCE,
    TAG_GATHER,
    TAG_SCATTER,
    TAG_ALLGATHER,
    TAG_ALLTOALL,
    TAG_SCAN,
    TAG_SEQ, /* agreement on a communicator's first sequence number */
};
#define NBC_TAG_BASE 0x100000

/* Control line of an area. Writer: the owner. */
typedef struct ivc_coll_ctl {
    /* Operation being published. R10 release store in coll_shm_publish(); pairs with A10 in
     * coll_shm_wait_tag(). */
    IVC_ATOMIC(uint64_t) tag;
    /* Units of the operation already in place. Plain-ordered before R10 at publication;
     * later R12 release stores in coll_shm_stream_put(); A12 in coll_shm_stream_get(). */
    IVC_ATOMIC(uint64_t) filled;
} ivc_coll_ctl_t;
_Static_assert(sizeof(ivc_coll_ctl_t) == 16, "acks follow at byte 16");

/* The cost of the shared-memory collectives, counted per algorithm family (IVC_REPORT_COLL:
 * printed per rank at MPI_Finalize; the cost-model tests read it): bytes this rank copied
 * into its own area, bytes it read out of other ranks' areas or shared-heap operands
 * (copies and reduction operands alike), bytes of operands it combined and publications
 * (synchronisation rounds); and apart, the sequence agreements (a communicator's set-up on
 * its first collective). */
enum {
    COLL_CK_BARRIER,
    COLL_CK_BCAST,
    COLL_CK_REDUCE,
    COLL_CK_ALLREDUCE,
    COLL_CK_REDUCE_SCATTER,
    COLL_CK_GATHER,
    COLL_CK_SCATTER,
    COLL_CK_ALLTOALL,
    COLL_CK_KINDS
};
typedef struct coll_count {
    uint64_t calls, published, read, reduced, rounds;
} coll_count_t;

/* Where a publication lies: its bank, the offset of its start (its descriptor, if any) in
 * the bank, and the descriptor's bytes before the payload (coll_shm.c place()). */
typedef struct coll_pos {
    uint32_t bank;
    uint32_t row; /* 1: acknowledged in far[], it runs past the tag's line */
    uint64_t off, desc;
} coll_pos_t;

/* What this rank knows of the areas (process memory, never shared). */
typedef struct ivc_coll_shm {
    int on;              /* shared-memory collectives are usable job-wide */
    uint32_t nlocal;     /* co-located ranks */
    uint32_t me;         /* my local index */
    int *lidx;           /* world rank -> local index, -1 if not co-located */
    uint8_t **areas;     /* local index -> area base in this mapping (validated) */
    /* Banks (IVC_COLL_BANKS, layout above): where each lies in an area, where its
     * check words are, the data bytes of banks 1.. (ivc_coll_small_bytes()). */
    uint64_t bank_off[IVC_COLL_BANKS], csum_off[IVC_COLL_BANKS], small;
    uint64_t data_off;   /* offset of data in a bank: the line after the control words */
    uint64_t inline_off; /* or right after them (small publications, coll_shm.c place()) */
    uint64_t plain_off;  /* or at the length word (small ones but a broadcast's) */
    coll_pos_t pub;      /* this rank's publication being written (or last made) */
    uint64_t ops;        /* tags this rank took, on any communicator: the bank of a small
                          * publication is ops % IVC_COLL_BANKS (coll_shm.c wait_acks()) */
    coll_pos_t *rd;      /* local index l -> l's publication this rank waited for last */
    uint64_t maxseq;     /* highest sequence number this rank ever published */
    uint64_t rooted_p2p; /* Bcast/Reduce/Gather/Scatter up to this size: point-to-point */
    uint64_t pair_bcast; /* Bcast between two members up to this size: point-to-point */
    int reduce_split;    /* Reduce is partitioned (IVC_COLL_REDUCE_SPLIT resolved) */
    uint64_t *owed;      /* [bank * nlocal + local index] -> units that reader must
                          * acknowledge in total of our publications in that bank */
    uint32_t *ack_seen;  /* [(row * IVC_COLL_BANKS + bank) * nlocal + l]: reader l's
                          * acknowledgement words of that bank as loaded last */
    uint32_t last_row[IVC_COLL_BANKS]; /* where our last publication per bank is acknowledged */
    uint64_t gaveup_off; /* offset in an area of its gave-up bitmap (coll_shm.c), 0: none */
    int csum;            /* publications carry check words: some co-located rank asked */
    int verify;          /* this rank checks what it reads (IVC_CHECKSUM set here) */
    int direct;          /* operands in the shared heap are read where they lie
                          * (IVC_ONE_COPY; coll_shm.c "operands in the shared heap") */
    int last_ctx[IVC_COLL_BANKS]; /* context id of this rank's last publication per bank */
    /* What this rank last wrote into the control words of its own area, per bank (my_acks:
     * [(row * IVC_COLL_BANKS + bank) * nlocal + l], row 1 for far[]): the audit
     * puts back what another writer overwrote (coll_shm.c, "audit"). */
    uint64_t my_tag[IVC_COLL_BANKS], my_filled[IVC_COLL_BANKS], *my_acks;
    uint64_t my_gaveup[IVC_MPI_ID_WORDS];
    int audit_warned;
    uint64_t audit_repairs; /* how often the audit found this rank's words changed */
    uint8_t *own;        /* with checks on: private copy of this rank's contribution */
    ivc_coll_config_t cfg;
    int kind;            /* COLL_CK_* of the operation in progress */
    coll_count_t count[COLL_CK_KINDS];
    uint64_t setups;     /* sequence agreements (lazy set-up of a communicator) */
} ivc_coll_shm_t;

extern ivc_coll_shm_t ivc_coll;

/* Per-communicator state. */
typedef struct ivc_coll_comm {
    int local;      /* every member shares the region: shared-memory algorithms apply */
    int *lidx;      /* comm rank -> local index (when local) */
    uint64_t seq;   /* sequence number of the next shared-memory operation; 0 = not agreed */
    uint32_t nbseq; /* nonblocking operations started */
    /* Hierarchy, for a communicator that spans regions (hosts): the members that share
     * this rank's region form `node`, the lowest-ranked member of every node is in
     * `leaders`. hier: 0 = not decided yet, 1 = in use, -1 = flat point-to-point. */
    int hier;
    MPI_Comm node, leaders; /* internal communicators (leaders: MPI_COMM_NULL off leaders) */
    int *leader_of;         /* comm rank -> comm rank of its node's leader */
    int *lindex;            /* comm rank of a leader -> its rank in `leaders`, else -1 */
} ivc_coll_comm_t;

/* The communicator's collective state, made at first use; NULL without memory. */
ivc_coll_comm_t *ivc_coll_comm(MPI_Comm comm);
/* 1 if the shared-memory algorithms run on comm. The first call on a co-located
 * communicator agrees on its sequence numbers with the other members, so it is made only
 * from blocking collectives, which every member calls in the same order. */
int coll_shm_usable(MPI_Comm comm, ivc_coll_comm_t *cc);

/* ---- reductions (coll_op.c) ---- */

/* inout = in op inout over `count` elements of dt, both packed (dt's type map flattened).
 * User functions get the elements in dt's own layout. Returns MPI_SUCCESS or an error
 * class (MPI_ERR_OP: op undefined on dt's kind, MPI_ERR_NO_MEM). */
int coll_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, uint64_t count);
/* out = in op in2 over `count` elements of dt (packed); one pass over the three buffers for
 * the predefined operations on plain kinds, else a copy of in2 to out and coll_op_apply().
 * out is in2 or overlaps neither. */
int coll_op_apply3(MPI_Op op, MPI_Datatype dt, const void *in, const void *in2, void *out,
                   uint64_t count);
/* Elements per reduction unit: pieces of a reduction are cut on multiples of this many
 * packed bytes (one element of dt). */
static inline uint64_t coll_elem_bytes(MPI_Datatype dt)
{
    return dt->map.size ? dt->map.size : 1;
}
int coll_op_commutes(MPI_Op op);

/* ---- byte helpers ---- */

/* Packed bytes of count elements of dt. */
static inline uint64_t coll_bytes(int count, MPI_Datatype dt)
{
    return (uint64_t)count * dt->map.size;
}

/* Ranks that disagree on counts (erroneous: in a collective "the amount of data sent must
 * be equal to the amount of data received", MPI-4.1 section 6.1) show up at a receiver as a
 * message longer (truncated) or shorter than the `want` packed bytes it posted for. The
 * point-to-point algorithms and the schedules check every receive with this and, when it
 * says so, keep running their remaining rounds and forward coll_len_poison() messages
 * instead of their data, so that the ranks after them in the algorithm fail as well and
 * none waits for a message that never comes; the call then returns MPI_ERR_TRUNCATE. A
 * mismatch between ranks that pick different algorithms (shared memory at one, point-to-point
 * at another) is not detected this way. err and got are the receive's status. */
static inline int coll_len_mismatch(int err, long long got, uint64_t want)
{
    if (err == MPI_ERR_TRUNCATE)
        return 1;
    return (err == MPI_SUCCESS || err == MPI_ERR_TYPE) && (uint64_t)got != want;
}

/* Size of the message a rank that saw a length mismatch sends where it would have sent
 * `want` packed bytes: one byte more, which every receiver expecting `want` bytes sees as
 * a mismatch in turn (0 when one more would not fit an int count). */
static inline int coll_len_poison(uint64_t want)
{
    return want < INT_MAX ? (int)want + 1 : 0;
}

/* Blocking point-to-point of n packed bytes (any size; sent as pieces below 2 GiB) on the
 * collective context. Return MPI_SUCCESS or an error class. */
int coll_send_bytes(const void *buf, uint64_t n, int dest, int tag, MPI_Comm comm);
int coll_recv_bytes(void *buf, uint64_t n, int src, int tag, MPI_Comm comm);

/* ---- point-to-point algorithms (coll_p2p.c); MPI_IN_PLACE already resolved as noted ---- */

int coll_p2p_barrier(MPI_Comm comm);
int coll_p2p_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
/* Reduce of packed data: `acc` holds this rank's contribution (bytes) and, at the root,
 * receives the result. */
int coll_p2p_reduce_packed(void *acc, uint64_t count, MPI_Datatype dt, MPI_Op op, int root,
                           MPI_Comm comm);
int coll_p2p_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                     const int *displs, MPI_Datatype rdt, int root, MPI_Comm comm);
int coll_p2p_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
                      void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm);
int coll_p2p_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm);
/* Alltoallw with byte displacements; sbuf == MPI_IN_PLACE takes the data from rbuf. */
int coll_p2p_alltoallw(const void *sbuf, const int *scounts, const MPI_Aint *sdispls,
                       const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                       const MPI_Aint *rdispls, const MPI_Datatype *rdts, MPI_Comm comm);
/* Inclusive (exclusive = 0) or exclusive scan of packed data in place in acc. */
int coll_p2p_scan_packed(void *acc, uint64_t count, MPI_Datatype dt, MPI_Op op, int exclusive,
                         MPI_Comm comm);

/* ---- shared-memory algorithms (coll_shm.c); only when ivc_coll_comm(comm)->local ---- */

int coll_shm_barrier(MPI_Comm comm, ivc_coll_comm_t *cc);
int coll_shm_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                   ivc_coll_comm_t *cc);
/* Reduction of packed contributions `mine` (count elements of dt): mode REDUCE leaves the
 * result in `out` at the root only, ALLREDUCE everywhere, SCAN / EXSCAN the prefix of ranks
 * 0..me (exclusive: 0..me-1; rank 0's `out` untouched). */
enum { COLL_REDUCE, COLL_ALLREDUCE, COLL_SCAN, COLL_EXSCAN };
int coll_shm_reduce(const void *mine, void *out, uint64_t count, MPI_Datatype dt, MPI_Op op,
                    int root, int mode, MPI_Comm comm, ivc_coll_comm_t *cc);
/* Reduce-scatter of packed contributions `mine` (total elements of dt): rank r gets the
 * result's elements [first[r], first[r] + counts[r]) in `out` (contiguous). */
int coll_shm_reduce_scatter(const void *mine, void *out, const uint64_t *first,
                            const uint64_t *counts, uint64_t total, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm, ivc_coll_comm_t *cc);
/* Block exchanges of packed bytes: every rank publishes `sbytes` of its data and reads
 * what it needs. blk = bytes of one rank's block (equal at every rank). */
int coll_shm_gather(const ivc_data_t *sd, ivc_data_t *rd, uint64_t blk, int root, int all,
                    MPI_Comm comm, ivc_coll_comm_t *cc);
int coll_shm_scatter(const ivc_data_t *sd, ivc_data_t *rd, uint64_t blk, int root, MPI_Comm comm,
                     ivc_coll_comm_t *cc);
int coll_shm_alltoall(const ivc_data_t *sd, ivc_data_t *rd, uint64_t blk, MPI_Comm comm,
                      ivc_coll_comm_t *cc);

/* ---- argument checks shared by the collective calls (mpi_coll.c) ----
 * Each returns MPI_SUCCESS or the error class raised on comm through ivc_mpi_raise(). */

int coll_chk_comm(MPI_Comm comm, const char *fn);    /* initialized, valid communicator */
int coll_chk_buf(MPI_Comm comm, int count, MPI_Datatype dt, const char *fn);
/* n counts (NULL array: MPI_ERR_ARG), each checked with dt. */
int coll_chk_counts(MPI_Comm comm, const int *counts, int n, MPI_Datatype dt, const char *fn);
int coll_chk_root(MPI_Comm comm, int root, const char *fn);
/* A valid operation that is defined on dt: every rank checks it before anything moves, so
 * an invalid pair fails at every rank alike (MPI_ERR_OP; MPI_ERR_TYPE for a predefined
 * operation on a datatype of mixed kinds). */
int coll_chk_op(MPI_Comm comm, MPI_Op op, MPI_Datatype dt, const char *fn);
/* Raises rc (when not MPI_SUCCESS) as the failure of collective fn. */
int coll_done(MPI_Comm comm, int rc, const char *fn);
/* Entry checks of a nonblocking or persistent call: comm, then a non-NULL request pointer. */
int coll_chk_request(MPI_Comm comm, MPI_Request *request, const char *fn);
struct coll_args;
/* Every argument of operation a (coll_args_t below) on comm; v: 0 for the plain form of a
 * call, 1 for its v form, 2 for its w form (mpi_icoll.c). */
int coll_chk_args(MPI_Comm comm, const struct coll_args *a, int v, const char *fn);

/* ---- nonblocking schedules (coll_nbc.c) ----
 *
 * A schedule is a list of rounds built whole when the operation starts; each round is a
 * set of sends and receives posted together and, once they all completed, local steps
 * (reduce, copy, unpack) in the order they were added. A round without transfers runs its
 * steps at once. Every transfer of an operation carries the operation's tag (plus an
 * offset for the few that need several), on the communicator's collective context. */

typedef struct nbc nbc_t;
enum { NBC_SEND, NBC_RECV };

/* Reserves the tag of the next nonblocking operation on comm (every member reserves the
 * same one: nonblocking and persistent collectives start in the same order everywhere).
 * Returns -1 without memory. */
int coll_nbc_tag(MPI_Comm comm);
/* A fresh schedule for an operation tagged `tag` on comm, with its request (not started);
 * NULL without memory. */
nbc_t *nbc_new(MPI_Comm comm, int tag);
MPI_Comm nbc_comm(const nbc_t *s);
/* Adds a send or a receive to the current round (dt retained until the schedule ends);
 * tagoff is added to the operation's tag. Return MPI_SUCCESS or MPI_ERR_NO_MEM. */
int nbc_xfer(nbc_t *s, int kind, int peer, void *buf, int count, MPI_Datatype dt, int tagoff);
/* The same on another communicator that lives at least as long as the schedule's (an
 * intercommunicator's local_comm); the operation's tag is used there too. */
int nbc_xfer_on(nbc_t *s, MPI_Comm comm, int kind, int peer, void *buf, int count,
                MPI_Datatype dt, int tagoff);
/* Local steps: inout = in op inout over count elements of the schedule's reduction type
 * (packed); memcpy of n bytes; unpack of count elements of dt at buf from packed src. */
int nbc_reduce(nbc_t *s, const void *in, void *inout, uint64_t count);
int nbc_copy(nbc_t *s, void *dst, const void *src, uint64_t n);
int nbc_unpack(nbc_t *s, void *buf, uint64_t count, MPI_Datatype dt, const void *src);
/* Closes the current round (one without any action is dropped). */
void nbc_end_round(nbc_t *s);
/* The operation and datatype of the schedule's reductions (op copied, dt retained). */
void nbc_set_op(nbc_t *s, MPI_Op op, MPI_Datatype dt);
/* Scratch memory owned by the schedule (freed with it); NULL without memory. */
void *nbc_scratch(nbc_t *s, uint64_t bytes);
/* Records a length mismatch seen while building s (its own blocks' sizes differ): s then
 * runs as after a mismatched receive and completes with MPI_ERR_TRUNCATE (coll_impl.h). */
void nbc_mark_mismatch(nbc_t *s);
/* Starts s (posts round 0, queues it) and sets *request; on error frees s. Returns
 * MPI_SUCCESS or an error class. */
int nbc_start(nbc_t *s, MPI_Request *request);
/* Frees a schedule that was not started, with its request. */
void nbc_discard(nbc_t *s);

/* ---- collective operations as data (coll_sched.c) ----
 *
 * One description serves the nonblocking call (pointing at the caller's arguments), the
 * persistent one (a deep copy made at init: the large-count wrappers free their temporary
 * arrays when the call returns) and the blocking neighbourhood and intercommunicator calls.
 * Block r of a buffer is at byte displacement sdispls_a[r], else sdispls[r] (bytes when
 * disp_bytes, else elements of the block's type extent), else r * count * extent. */
enum {
    CK_BARRIER,
    CK_BCAST,          /* rbuf, rcount, rdt, root */
    CK_REDUCE,         /* sbuf, rbuf, rcount, rdt, op, root */
    CK_ALLREDUCE,      /* sbuf, rbuf, rcount, rdt, op */
    CK_REDUCE_SCATTER, /* sbuf, rbuf, rcounts or rcount (block), rdt, op */
    CK_SCAN,           /* sbuf, rbuf, rcount, rdt, op */
    CK_EXSCAN,
    CK_GATHER,       /* (v): rcounts, rdispls at the root */
    CK_SCATTER,      /* (v): scounts, sdispls at the root */
    CK_ALLGATHER,    /* (v): rcounts, rdispls */
    CK_ALLTOALL,     /* (v, w) */
    CK_NB_ALLGATHER, /* neighbourhood (v) */
    CK_NB_ALLTOALL,  /* neighbourhood (v, w) */
    CK_KINDS
};

typedef struct coll_args {
    int kind;
    int root;
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype sdt, rdt;
    const int *scounts, *rcounts;
    const int *sdispls, *rdispls;
    const MPI_Aint *sdispls_a, *rdispls_a;
    int disp_bytes;
    const MPI_Datatype *sdts, *rdts;
    MPI_Op op;
} coll_args_t;

/* ---- per-block accessors of coll_args_t ---- */

static inline int ca_scount(const coll_args_t *a, int r)
{
    return a->scounts != NULL ? a->scounts[r] : a->scount;
}

static inline int ca_rcount(const coll_args_t *a, int r)
{
    return a->rcounts != NULL ? a->rcounts[r] : a->rcount;
}

static inline MPI_Datatype ca_sdt(const coll_args_t *a, int r)
{
    return a->sdts != NULL ? a->sdts[r] : a->sdt;
}

static inline MPI_Datatype ca_rdt(const coll_args_t *a, int r)
{
    return a->rdts != NULL ? a->rdts[r] : a->rdt;
}

static inline int64_t ca_disp(const int *d, const MPI_Aint *da, int bytes, int r, int count,
                              MPI_Datatype dt)
{
    if (da != NULL)
        return (int64_t)da[r];
    if (d != NULL)
        return bytes ? (int64_t)d[r] : (int64_t)d[r] * dt->map.extent;
    return (int64_t)r * count * dt->map.extent;
}

static inline const char *ca_sptr(const coll_args_t *a, int r)
{
    return (const char *)a->sbuf +
           ca_disp(a->sdispls, a->sdispls_a, a->disp_bytes, r, a->scount, ca_sdt(a, r));
}

static inline char *ca_rptr(const coll_args_t *a, int r)
{
    return (char *)a->rbuf +
           ca_disp(a->rdispls, a->rdispls_a, a->disp_bytes, r, a->rcount, ca_rdt(a, r));
}

/* Building blocks of schedules (coll_sched.c), over comm (the schedule's or its local_comm):
 * binomial broadcast of buf from root; binomial reduction of packed acc (count elements,
 * `bytes` bytes; `in` is scratch of the same size) toward `top`, where acc ends up holding
 * the result (ranks combine in the order of their distance from top, so top == 0 keeps
 * rank order); dissemination barrier. Return MPI_SUCCESS or MPI_ERR_NO_MEM. */
int coll_tree_bcast(nbc_t *s, MPI_Comm comm, void *buf, int count, MPI_Datatype dt, int root);
int coll_tree_reduce(nbc_t *s, MPI_Comm comm, uint8_t *acc, uint8_t *in, uint64_t count,
                     uint64_t bytes, int top);
int coll_dissemination(nbc_t *s, MPI_Comm comm);
/* A packed scratch copy of count elements of dt at buf with `extra` bytes after it; NULL
 * without memory. */
uint8_t *coll_pack_new(nbc_t *s, const void *buf, uint64_t count, MPI_Datatype dt, uint64_t extra);
/* Copies scount elements of sdt at sbuf into rcount elements of rdt at rbuf, now.
 * Returns MPI_SUCCESS, MPI_ERR_TRUNCATE (more data than room) or MPI_ERR_NO_MEM. */
int coll_local_copy(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt);

/* Adds the rounds of operation a on s's communicator. Returns MPI_SUCCESS or an error
 * class (nothing has moved: schedules only run once started). */
int coll_build(nbc_t *s, const coll_args_t *a);
/* Builds and starts a on comm with tag (-1: the next one). Returns MPI_SUCCESS or an
 * error class. */
int coll_issue(MPI_Comm comm, const coll_args_t *a, int tag, MPI_Request *request);
/* Checks a (coll_chk_args) and makes a persistent request for it whose every MPI_Start
 * runs its schedule (mpi_pcoll.c). Returns MPI_SUCCESS or the raised error class. */
int coll_persistent(MPI_Comm comm, const coll_args_t *a, int v, MPI_Info info, MPI_Request *request,
                    const char *fn);
/* Runs a to completion (blocking forms built on schedules). */
int coll_run(MPI_Comm comm, const coll_args_t *a);
/* Lengths of a's send-side and receive-side per-peer arrays on comm: the group size, the
 * remote group's on an intercommunicator, the out- and in-degree of a neighbourhood. */
void coll_args_lengths(MPI_Comm comm, const coll_args_t *a, int *ns, int *nr);
/* Schedules of the intercommunicator collectives (coll_inter.c); a->kind is not a scan or a
 * neighbourhood collective. */
int coll_build_inter(nbc_t *s, const coll_args_t *a);
/* The blocking collective a on an intercommunicator: checks, runs. Returns MPI_SUCCESS or
 * the raised error class. */
int coll_inter_run(MPI_Comm comm, const coll_args_t *a, int v, const char *fn);
/* Neighbours of comm's topology, in the order of the neighbourhood collectives: *in
 * (sources) and *out (destinations) malloc'ed, MPI_PROC_NULL where a Cartesian edge has
 * none. Returns MPI_SUCCESS, MPI_ERR_TOPOLOGY (no topology) or MPI_ERR_NO_MEM. */
int coll_neighbors(MPI_Comm comm, int *indeg, int **in, int *outdeg, int **out);

#endif
