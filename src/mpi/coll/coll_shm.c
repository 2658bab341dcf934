/* Shared-memory collectives over the per-rank collective areas (protocol in coll_impl.h).
 *
 * Every algorithm here is one or more "operations": the ranks that publish write into their
 * own area and release-store the operation's tag; the ranks that need the data wait for the
 * tag, copy or reduce straight out of the publisher's area, and acknowledge. A rank's data is
 * read in place by every reader, so a broadcast is one copy in and one copy out per reader,
 * and a reduction reads the contributions where they lie. Operations larger than an area run
 * as pieces, each its own operation. */
#define _GNU_SOURCE
#include "coll/coll_impl.h"

#include "base/ivc_copy.h"
#include "base/ivc_log.h"
#include "base/ivc_topo.h"
#include "region/door.h"
#include "region/region_sect.h"
#include "shm/shm_csum.h"
#include "shm/shm_heap.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ivc_coll_shm_t ivc_coll;

#define SEQ_BITS 48
#define SEQ_MASK ((1ull << SEQ_BITS) - 1)

/* Bank b of the area of local rank l. */
static inline uint8_t *bank_at(uint32_t l, uint32_t b)
{
    return ivc_coll.areas[l] + ivc_coll.bank_off[b];
}

/* The publication that this rank's accessors mean for area l: our own, or the one of l we
 * waited for (wait_tag). */
static inline const coll_pos_t *pos_of(uint32_t l)
{
    return l == ivc_coll.me ? &ivc_coll.pub : &ivc_coll.rd[l];
}

static inline uint32_t bank_cur(uint32_t l)
{
    return pos_of(l)->bank;
}

static inline ivc_coll_ctl_t *ctl_at(uint32_t l, uint32_t b)
{
    return (ivc_coll_ctl_t *)bank_at(l, b);
}

static inline ivc_coll_ctl_t *ctl_of(uint32_t l)
{
    return ctl_at(l, bank_cur(l));
}

/* Where `owner` acknowledges of's publications in of's bank b (coll_impl.h): those that
 * fit the tag's line in ack[of] of owner's bank b + 1, the others (row 1) in far[of] of
 * its bank b + ACK_FAR. */
#define ACK_FAR (IVC_COLL_BANKS / 2)
static inline IVC_ATOMIC(uint32_t) * ack_at(uint32_t owner, uint32_t of, uint32_t b, uint32_t row)
{
    uint32_t in = (b + (row ? ACK_FAR : 1)) % IVC_COLL_BANKS;
    return (IVC_ATOMIC(uint32_t) *)(bank_at(owner, in) + sizeof(ivc_coll_ctl_t)) +
           (row ? ivc_coll.nlocal + of : of);
}

/* Index of the count for local rank l's word `row` of bank b in my_acks and ack_seen
 * ([(row * IVC_COLL_BANKS + b) * nlocal + l], coll_impl.h). */
static inline size_t ack_index(uint32_t row, uint32_t b, uint32_t l)
{
    return ((size_t)row * IVC_COLL_BANKS + b) * ivc_coll.nlocal + l;
}

/* Units of our publications in bank b that reader l acknowledged, in both its words (A11:
 * pairs with R11 in its ack()). Only the word where it acknowledges our last publication
 * there is loaded unless `both`: the other, as loaded last (ack_seen), can only have grown,
 * and its line may be the one that the reader writes its next publication into. */
static inline uint32_t acks_got(uint32_t l, uint32_t b, int both)
{
    ivc_coll_shm_t *s = &ivc_coll;
    uint32_t got = 0;
    for (uint32_t row = 0; row < 2; row++) {
        uint32_t *v = &s->ack_seen[ack_index(row, b, l)];
        if (both || row == s->last_row[b])
            *v = ivc_load_acquire(ack_at(l, s->me, b, row));
        got += *v;
    }
    return got;
}

/* Acknowledgement counts are 32-bit and wrap (two per reader fit where one 64-bit word
 * was): compared as differences, which stay far below 2^31 (a bank holds one
 * publication of at most a few thousand units at a time). */
static inline int32_t acks_diff(uint32_t got, uint64_t want)
{
    return (int32_t)(got - (uint32_t)want);
}

/* The length word of the current bank of l (after its acknowledgements). */
static inline IVC_ATOMIC(uint64_t) * len_of(uint32_t l)
{
    return (IVC_ATOMIC(uint64_t) *)(bank_at(l, bank_cur(l)) + sizeof(ivc_coll_ctl_t)) +
           ivc_coll.nlocal;
}

/* Where a publication lies in its bank (publisher and readers work it out from the same
 * sizes): `payload` bytes, after a descriptor when `desc` is PUB_DESC ("operands in the
 * shared heap"). A small one starts right after the control words, in their cache line,
 * so that a reader fetches the tag and the first data with one transfer: a payload of up
 * to COLL_INLINE bytes without a descriptor (Allreduce and Reduce of 8-256 bytes at 2
 * ranks: 0.73-0.92x the time, the development VM, best of 3 runs x 3). Larger ones start
 * on the line after the control words: data that starts mid-line costs more than the
 * transfer saves (Allreduce of 512 bytes 1.20x, Allgather of 64-512 bytes 1.07-1.17x,
 * Alltoall and Allgather of 16-64 KiB 1.07-1.12x). A descriptor (the halves of a
 * partitioned allreduce, each a whole area's worth) takes a whole line before its data. */
#define COLL_INLINE 256
#define DESC_SMALL  32 /* a descriptor's room where data would lie (pub_room()) */
#define DESC_LINE   IVC_CACHE_LINE

/* What comes before a publication's payload: PUB_DESC, a descriptor; PUB_LEN, a broadcast's
 * length word (the last control word); PUB_PLAIN, nothing, and then a small payload also
 * covers the length word, which only a broadcast's readers read (2 ranks: 32 bytes of
 * data in the tag's line instead of 16; Allgather, Alltoall and Allreduce of 32 B with the
 * vCPUs far apart 0.56-0.79x the time, Reduce_scatter of 64 B 0.62-0.66x, the AMD
 * development VM, 3 A/B runs of 3 rounds; close together no size of 8-128 B slower beyond
 * noise). */
#define PUB_PLAIN 0
#define PUB_DESC  1
#define PUB_LEN   2

/* Sets p's offset and descriptor bytes (0 or DESC_LINE); returns the bytes of descriptor
 * and payload. */
static inline uint64_t place(coll_pos_t *p, uint64_t payload, int desc)
{
    int in = desc != PUB_DESC && payload <= COLL_INLINE;
    p->off = !in ? ivc_coll.data_off : desc == PUB_PLAIN ? ivc_coll.plain_off : ivc_coll.inline_off;
    p->desc = desc == PUB_DESC ? DESC_LINE : 0;
    p->row = p->off + p->desc + payload > IVC_CACHE_LINE;
    return p->desc + payload;
}

/* The start of l's current publication (its descriptor, if any): ours, or the one we
 * waited for (wait_tag). */
static inline uint8_t *data_of(uint32_t l)
{
    const coll_pos_t *p = pos_of(l);
    return bank_at(l, p->bank) + p->off;
}

static inline IVC_ATOMIC(uint64_t) * csum_of(uint32_t l)
{
    return (IVC_ATOMIC(uint64_t) *)(ivc_coll.areas[l] + ivc_coll.csum_off[bank_cur(l)]);
}

/* ---- cost counters (coll_impl.h, IVC_REPORT_COLL) ---- */

static inline coll_count_t *cnt(void)
{
    return &ivc_coll.count[ivc_coll.kind];
}

/* An operation of family k starts (nested ones, a reduce inside an allreduce, count as the
 * outer one: the family is set by the entry points only). */
#define COUNT_CALL(k)                                                                              \
    do {                                                                                           \
        ivc_coll.kind = (k);                                                                       \
        ivc_coll.count[(k)].calls++;                                                               \
    } while (0)

/* ---- failures (src/mpi/ft/ft.h) ----
 * An operation on a communicator with a failed member, or a revoked one, gives up wherever
 * it waits, so a survivor never waits for a peer that died or for a live one that gave up
 * first. What giving up leaves behind is the acknowledgement count: a publisher P owes
 * itself acknowledgements from every reader of its last publication (owed[], private) and
 * waits for them before writing its area again. A reader that gave up will never read that
 * publication, and a dead reader never acknowledges anything. So:
 *  - a reader that gives up an operation on a communicator sets that communicator's bit in
 *    the `gaveup` bitmap of its own area (one bit per context id; such ids are never reused
 *    here, mpi_comm.c) before it does anything else, with a release store (R13);
 *  - a publisher waiting for a reader's acknowledgements stops owing them when the reader
 *    is known dead, or when the reader's bitmap holds the communicator of its own last
 *    publication (A13 acquire load): every earlier publication was acknowledged before
 *    that one was written (wait_acks(comm) precedes every publication), so what is missing
 *    belongs to the last one, which that reader will never read. */
#define GAVEUP_BYTES (IVC_MPI_ID_WORDS * 8)

static inline IVC_ATOMIC(uint64_t) * gaveup_of(uint32_t l)
{
    return (IVC_ATOMIC(uint64_t) *)(ivc_coll.areas[l] + ivc_coll.gaveup_off);
}

/* Records that this rank gave up an operation on comm: it never reads a publication of
 * comm's context again. */
static void gave_up(MPI_Comm comm)
{
    if (ivc_coll.gaveup_off == 0 || comm->ctx_id < 0 || comm->ctx_id >= IVC_MPI_ID_WORDS * 64)
        return;
    uint64_t *mine = &ivc_coll.my_gaveup[comm->ctx_id / 64];
    *mine |= 1ull << (comm->ctx_id % 64);
    /* R13: after every acknowledgement this rank made; pairs with A13 in wait_acks(comm). */
    ivc_store_release(gaveup_of(ivc_coll.me) + comm->ctx_id / 64, *mine);
    ivc_door_kick_all(); /* a publisher may sleep waiting for our acknowledgement */
}

/* MPI_SUCCESS, or the error an operation on comm gives up with (recorded by gave_up()). */
static int shm_ft_broken(MPI_Comm comm)
{
    int e = ivc_mpi_ft_check_slow(comm, -2, 1);
    if (e != MPI_SUCCESS)
        gave_up(comm);
    return e;
}

#define SHM_FT_ENTRY(comm)                                                                         \
    do {                                                                                           \
        if (__builtin_expect(ivc_mpi_ft_state != 0, 0)) {                                          \
            int e_ = shm_ft_broken(comm);                                                          \
            if (e_ != MPI_SUCCESS)                                                                 \
                return e_;                                                                         \
        }                                                                                          \
    } while (0)

/* ---- set-up ---- */

/* With IVC_COLL_ROOTED_P2P=auto, a Bcast between two members of at most this many bytes is
 * one point-to-point message: the channel's eager ring lets a root run far ahead of its
 * reader, who hands ring space back once a quarter ring, where the area's banks let it run
 * 7 operations ahead and the reader acknowledges every one in a line the root polls (32
 * banks instead of 8 changed nothing at 8-128 B). 2 ranks, `bench/coll`, AMD development VM
 * (A/B, best of 3-4 rounds per placement): vCPUs far apart 0.57-0.80x the time at 8-256 B
 * (0.82-0.96x at 512 B), close together 0.80-0.95x at 8-256 B (3 rounds). Reduce
 * gains far (0.75-0.92x) but loses close (1.15-1.31x): not it. */
#define COLL_PAIR_BCAST 256

/* What each rank offers at set-up: its area's offset and bytes, its CPU count, whether it
 * checks what it reads, and its affinity mask (CPU_WORDS words). */
#define CPU_WORDS  (CPU_SETSIZE / 64)
#define MINE_WORDS (4 + CPU_WORDS)

/* The CPUs the co-located ranks may use together: the union of their masks (ranks bound to
 * a core each have as many as they are), or the smallest count when a mask is unknown. */
static uint64_t host_cpus(const uint64_t *all, const uint32_t *local, uint32_t nlocal)
{
    uint64_t u[CPU_WORDS] = {0}, least = UINT64_MAX, n = 0;
    int known = 1;
    for (uint32_t l = 0; l < nlocal; l++) {
        const uint64_t *m = all + (size_t)local[l] * MINE_WORDS;
        uint64_t any = 0;
        for (int i = 0; i < CPU_WORDS; i++) {
            u[i] |= m[4 + i];
            any |= m[4 + i];
        }
        known &= any != 0;
        least = m[2] < least ? m[2] : least;
    }
    if (!known)
        return least;
    for (int i = 0; i < CPU_WORDS; i++)
        n += (uint64_t)__builtin_popcountll(u[i]);
    return n;
}

int ivc_mpi_coll_init(void)
{
    ivc_coll_shm_t *s = &ivc_coll;
    memset(s, 0, sizeof(*s));
    if (ivc_coll_config_load(&s->cfg) != 0)
        return MPI_ERR_OTHER;
    ivc_coord_t *c = &ivc_coord;
    int world = ivc_mpi_world_size;
    /* The co-located set as it is now: a rank that migrates during the exchange below
     * (migration mode, which offers no area) changes c->nlocal and c->local under it. */
    uint32_t nlocal = c->nlocal;
    /* Everyone takes part in the exchange below, even a rank that cannot offer an area, so
     * that the job agrees on whether shared-memory collectives are on. */
    uint64_t mine[MINE_WORDS] = {0, 0, 0, (uint64_t)(c->shm_cfg.checksum != 0)};
    mine[2] = (uint64_t)ivc_topo_my_cpus(mine + 4, CPU_WORDS, NULL);
    uint64_t bytes = ivc_coll_area_bytes(&s->cfg, nlocal);
    uint64_t csumb = ivc_coll_csum_words(&s->cfg, nlocal) * 8;
    /* The gave-up bitmap (see "failures" above): in the slack after the data when there is
     * some, else in data chunks taken off the end (every co-located rank computes the same
     * from the same geometry). Zeroed in this rank's area before anyone can read it. */
    uint64_t ctlb = ivc_coll_ctl_bytes(nlocal);
    /* Banks (coll_impl.h): before chunks are cut off bank 0's data below. */
    s->small = ivc_coll_small_bytes(&s->cfg);
    for (uint32_t b = 0; b < IVC_COLL_BANKS; b++) {
        s->bank_off[b] = ivc_coll_bank_off(&s->cfg, nlocal, b);
        s->csum_off[b] = s->bank_off[b] + ctlb + (b == 0 ? s->cfg.area : s->small);
        s->last_ctx[b] = -1;
    }
    s->gaveup_off = 0;
    if (bytes >= ivc_coll_bank_off(&s->cfg, nlocal, IVC_COLL_BANKS) + GAVEUP_BYTES) {
        s->gaveup_off = bytes - GAVEUP_BYTES;
    } else {
        uint64_t cut = (GAVEUP_BYTES + s->cfg.chunk - 1) / s->cfg.chunk * s->cfg.chunk;
        if (s->cfg.area >= cut + 2 * s->cfg.chunk) {
            s->cfg.area -= cut;
            s->gaveup_off = s->bank_off[0] + ctlb + s->cfg.area;
        }
    }
    /* Migration changes who shares the region: collectives then run over point-to-point,
     * which follows each pair's switch (coord/coord_move.h). */
    /* With write-exclusive sections (region/region_sect.h) the area lies in this rank's
     * own section, which its peers map read-only: only this rank can write it. */
    int sect = ivc_region_has_sections(&c->region);
    if (s->cfg.shm && c->have_region && nlocal > 1 && !c->migrate) {
        uint64_t off;
        if (ivc_region_own_alloc(&c->region, bytes, 4096, &off) == 0) {
            uint8_t *a = ivc_region_owned_at(&c->region, c->boot.rank, off, bytes);
            if (a != NULL) {
                for (uint32_t b = 0; b < IVC_COLL_BANKS; b++) {
                    memset(a + s->bank_off[b], 0, ctlb);
                    memset(a + s->csum_off[b], 0, csumb);
                }
                if (s->gaveup_off != 0)
                    memset(a + s->gaveup_off, 0, GAVEUP_BYTES);
                mine[0] = off;
                mine[1] = bytes;
            }
        } else {
            ivc_warn("no room for the collective area (%llu bytes): collectives use "
                     "point-to-point",
                     (unsigned long long)bytes);
        }
    }
    uint64_t *all = malloc((size_t)world * sizeof(mine));
    s->lidx = malloc((size_t)world * sizeof(int));
    s->areas = calloc(nlocal, sizeof(uint8_t *));
    s->owed = calloc(IVC_COLL_BANKS * (size_t)nlocal, sizeof(uint64_t));
    s->my_acks = calloc(2 * IVC_COLL_BANKS * (size_t)nlocal, sizeof(uint64_t));
    s->ack_seen = calloc(2 * IVC_COLL_BANKS * (size_t)nlocal, sizeof(uint32_t));
    s->rd = calloc(nlocal, sizeof(coll_pos_t));
    if (all == NULL || s->lidx == NULL || s->areas == NULL || s->owed == NULL ||
        s->my_acks == NULL || s->ack_seen == NULL || s->rd == NULL) {
        free(all);
        return MPI_ERR_NO_MEM;
    }
    int rc = ivc_mpi_coll_allgather(mine, MINE_WORDS, MPI_UINT64_T, all, MINE_WORDS, MPI_UINT64_T,
                                    MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    for (int r = 0; r < world; r++)
        s->lidx[r] = -1;
    /* Usable only if every co-located rank has an area of exactly our geometry inside the
     * region (what a peer sent is untrusted). Every rank sees the same table: all agree. */
    int ok = mine[1] != 0;
    /* Publications carry check words when any co-located rank checks what it reads. */
    s->csum = 0;
    s->verify = mine[3] != 0;
    s->direct = c->shm_cfg.one_copy;
    for (uint32_t l = 0; c->local != NULL && l < nlocal; l++) {
        uint32_t r = c->local[l];
        s->lidx[r] = (int)l;
        uint64_t off = all[(size_t)r * MINE_WORDS], len = all[(size_t)r * MINE_WORDS + 1];
        s->csum |= all[(size_t)r * MINE_WORDS + 3] != 0;
        uint8_t *a = NULL;
        if (len == bytes && off % 4096 == 0) {
            /* A peer's area must lie in the peer's own section: it can name no other. */
            a = ivc_region_owned_at(&c->region, r, off, len);
            if (a == NULL && sect && off != 0) {
                free(all);
                return MPI_ERR_OTHER; /* printed: the launcher did not hand it over */
            }
        }
        if (a == NULL)
            ok = 0;
        s->areas[l] = a;
    }
    uint64_t cpus = c->local != NULL ? host_cpus(all, c->local, nlocal) : UINT64_MAX;
    free(all);
    ivc_coord_host_cpus(cpus < UINT32_MAX ? (uint32_t)cpus : UINT32_MAX);
    s->nlocal = nlocal;
    s->me = c->my_local;
    s->data_off = ivc_coll_ctl_bytes(nlocal);
    /* Right after the length word, or (PUB_PLAIN) at it, 16-byte aligned (see place()). */
    s->inline_off = (ivc_coll_ctl_used(nlocal) + 15) / 16 * 16;
    s->plain_off = (ivc_coll_ctl_used(nlocal) - 8 + 15) / 16 * 16;
    /* MPI_THREAD_MULTIPLE: threads may run collectives on different communicators at once,
     * in any order, and an area holds one operation at a time: point-to-point instead. */
    s->on = ok && !ivc_mpi_multiple;
    /* Rooted operations up to this size go point-to-point (see IVC_COLL_ROOTED_P2P); every
     * co-located rank computes it from the same table. */
    s->rooted_p2p = s->cfg.rooted_p2p;
    if (s->rooted_p2p == UINT64_MAX)
        s->rooted_p2p = nlocal > cpus ? c->shm_cfg.eager_limit : 0;
    s->pair_bcast = s->cfg.rooted_p2p == UINT64_MAX ? COLL_PAIR_BCAST : 0;
    /* The partitioned Reduce's extra round costs more than it spreads when ranks wait for
     * cores (4 ranks on 2: 1.2-1.8x slower at 8-256 KiB, 3 runs). */
    s->reduce_split = s->cfg.reduce_split >= 0 ? s->cfg.reduce_split : nlocal <= cpus;
    /* The exchange above made COMM_WORLD's state while the areas were off: start afresh. */
    ivc_mpi_coll_comm_free(MPI_COMM_WORLD);
    if (!ok && mine[1] != 0)
        ivc_debug("collective areas not usable by every co-located rank: point-to-point only");
    return MPI_SUCCESS;
}

void ivc_mpi_coll_finalize(void)
{
    static const char *const names[COLL_CK_KINDS] = {"barrier", "bcast",   "reduce",
                                                     "allreduce", "reduce_scatter",
                                                     "gather",  "scatter", "alltoall"};
    for (int k = 0; ivc_coll.cfg.report && k < COLL_CK_KINDS; k++) {
        const coll_count_t *c = &ivc_coll.count[k];
        if (c->calls != 0)
            fprintf(stderr,
                    "ivc: rank %d coll %s: calls %llu published %llu read %llu reduced %llu "
                    "rounds %llu\n",
                    ivc_mpi_world_rank, names[k], (unsigned long long)c->calls,
                    (unsigned long long)c->published, (unsigned long long)c->read,
                    (unsigned long long)c->reduced, (unsigned long long)c->rounds);
    }
    if (ivc_coll.cfg.report)
        fprintf(stderr, "ivc: rank %d coll setups %llu\n", ivc_mpi_world_rank,
                (unsigned long long)ivc_coll.setups);
    free(ivc_coll.lidx);
    free(ivc_coll.areas);
    free(ivc_coll.owed);
    free(ivc_coll.my_acks);
    free(ivc_coll.ack_seen);
    free(ivc_coll.rd);
    free(ivc_coll.own);
    memset(&ivc_coll, 0, sizeof(ivc_coll));
}

uint64_t ivc_mpi_coll_seq_offer(void)
{
    return ivc_coll.maxseq + 1;
}

/* Agrees on the communicator's first sequence number: above every member's highest. */
static int seq_agree(MPI_Comm comm, ivc_coll_comm_t *cc)
{
    uint64_t v = ivc_coll.maxseq + 1;
    ivc_coll.setups++;
    int rc = coll_p2p_reduce_packed(&v, 1, MPI_UINT64_T, MPI_MAX, 0, comm);
    if (rc == MPI_SUCCESS)
        rc = coll_p2p_bcast(&v, 1, MPI_UINT64_T, 0, comm);
    if (rc == MPI_SUCCESS)
        cc->seq = v;
    return rc;
}

ivc_coll_comm_t *ivc_coll_comm(MPI_Comm comm)
{
    if (comm->coll != NULL)
        return comm->coll;
    /* A stand-in communicator on a reserved context (MPI_Comm_create_group's agreement)
     * owns no context id to tag operations with, and nobody frees state attached to it:
     * point-to-point, with shared state that never changes. */
    static ivc_coll_comm_t p2p_only;
    if (comm->ctx != 2u * (uint32_t)comm->ctx_id)
        return &p2p_only;
    ivc_coll_comm_t *cc = calloc(1, sizeof(*cc));
    if (cc == NULL)
        return NULL;
    cc->local = ivc_coll.on && comm->size > 1;
    if (cc->local) {
        cc->lidx = malloc((size_t)comm->size * sizeof(int));
        if (cc->lidx == NULL) {
            free(cc);
            return NULL;
        }
        for (int i = 0; i < comm->size; i++) {
            /* World ids past the job's are dynamic-process peers: never co-located. */
            int w = comm->world[i];
            cc->lidx[i] = w >= 0 && w < ivc_mpi_world_size ? ivc_coll.lidx[w] : -1;
            if (cc->lidx[i] < 0)
                cc->local = 0;
        }
    }
    /* MPI_COMM_WORLD needs no agreement: its context id is never another communicator's,
     * and every member starts with nothing published under it, so 1 is above every tag it
     * could meet. Its first collective then costs what the next ones do. */
    if (comm == MPI_COMM_WORLD)
        cc->seq = 1;
    else
        cc->seq = comm->coll_seq0; /* agreed at creation (mpi_comm.c, id_agree), or 0 */
    comm->coll = cc;
    return cc;
}

int coll_shm_usable(MPI_Comm comm, ivc_coll_comm_t *cc)
{
    if (!cc->local)
        return 0;
    if (cc->seq == 0 && seq_agree(comm, cc) != MPI_SUCCESS)
        cc->local = 0; /* the failure is the communicator's; p2p reports it next */
    return cc->local;
}

void ivc_mpi_coll_comm_free(MPI_Comm comm)
{
    ivc_coll_comm_t *cc = comm->coll;
    if (cc == NULL)
        return;
    comm->coll = NULL;
    if (cc->node != NULL && cc->node != MPI_COMM_NULL)
        ivc_mpi_comm_release(cc->node);
    if (cc->leaders != NULL && cc->leaders != MPI_COMM_NULL)
        ivc_mpi_comm_release(cc->leaders);
    free(cc->leader_of);
    free(cc->lindex);
    free(cc->lidx);
    free(cc);
}

/* ---- the protocol ---- */

static uint64_t next_tag(MPI_Comm comm, ivc_coll_comm_t *cc)
{
    uint64_t s = cc->seq++ & SEQ_MASK;
    ivc_coll.ops++;
    if (s > ivc_coll.maxseq)
        ivc_coll.maxseq = s;
    return (uint64_t)comm->ctx_id << SEQ_BITS | s;
}

/* ---- other writers (coll_impl.h) ---- */

/* The operation on comm fails because the area of local rank l failed a check: l is
 * declared failed (a record naming the area), and the operation gives up like any other on
 * a communicator with a failed member. */
static int area_broken(MPI_Comm comm, uint32_t l, const char *why)
{
    uint32_t rank = ivc_coord.local[l];
    ivc_error("collective on a communicator with rank %u: %s", rank, why);
    ivc_coord_peer_broke(rank, "collective area");
    int e = shm_ft_broken(comm);
    return e != MPI_SUCCESS ? e : MPI_ERR_PROC_FAILED;
}

static inline uint64_t csum_seed(uint64_t tag, uint64_t i)
{
    return tag ^ (i + 1) * 0x9e3779b97f4a7c15ull;
}

/* Check word `slot` of our publication `tag`: block `blk` of it, the len bytes at p in our
 * area (slot and block differ only for the units of a streamed broadcast). */
static inline void pub_sum(uint64_t slot, uint64_t blk, uint64_t tag, const uint8_t *p,
                           uint64_t len)
{
    /* R14: after the data; pairs with A14 in sum_want(). */
    if (ivc_coll.csum)
        ivc_store_release(csum_of(ivc_coll.me) + slot,
                          ivc_shm_csum_copy(NULL, p, len, csum_seed(tag, blk)));
}

/* Check word `slot` of comm rank r, loaded BEFORE the data it covers is read: if it is the
 * one written for this block, the data was in place before it (A14), and whatever changes
 * the data afterwards (another writer, or the owner reusing the place early because a
 * scribbled count told it to) is still there when read_ok() checks in place. */
static inline uint64_t sum_want(ivc_coll_comm_t *cc, int r, uint64_t slot)
{
    if (!ivc_coll.verify)
        return 0;
    return ivc_load_acquire(csum_of((uint32_t)cc->lidx[r]) + slot); /* A14 */
}

static int data_broken(MPI_Comm comm, ivc_coll_comm_t *cc, int r)
{
    return area_broken(comm, (uint32_t)cc->lidx[r],
                       "data in its collective area does not match its check word "
                       "(changed after it was written); not delivered");
}

/* After reading block blk (the len bytes at p) of comm rank r's publication `tag`: whether
 * they match `want` (sum_want(), loaded before the read). On a mismatch the operation fails
 * (the data read is not delivered). */
static int read_ok(MPI_Comm comm, ivc_coll_comm_t *cc, int r, uint64_t want, uint64_t blk,
                   uint64_t tag, const uint8_t *p, uint64_t len)
{
    if (!ivc_coll.verify)
        return MPI_SUCCESS;
    if (ivc_shm_csum_copy(NULL, p, len, csum_seed(tag, blk)) == want)
        return MPI_SUCCESS;
    return data_broken(comm, cc, r);
}

/* Copies block blk (the len bytes at `from`) of comm rank r's publication `tag` to dst and
 * checks it against check word `slot`. The check word is computed on the way (shm_csum.h:
 * of exactly the bytes copied), so the publication is read once. */
static int read_into(MPI_Comm comm, ivc_coll_comm_t *cc, int r, uint64_t slot, uint64_t blk,
                     uint64_t tag, uint8_t *dst, const uint8_t *from, uint64_t len)
{
    cnt()->read += len;
    if (!ivc_coll.verify) {
        memcpy(dst, from, len);
        return MPI_SUCCESS;
    }
    uint64_t want = sum_want(cc, r, slot);
    if (ivc_shm_csum_copy(dst, from, len, csum_seed(tag, blk)) == want)
        return MPI_SUCCESS;
    return data_broken(comm, cc, r);
}

/* read_into() for packed bytes [doff, doff+len) of d; into memory that is not contiguous
 * the block is checked in place after the copy. */
static int read_copy(MPI_Comm comm, ivc_coll_comm_t *cc, int r, uint64_t slot, uint64_t blk,
                     uint64_t tag, ivc_data_t *d, uint64_t doff, const uint8_t *from, uint64_t len)
{
    if (ivc_data_contig(d))
        return read_into(comm, cc, r, slot, blk, tag, (uint8_t *)d->buf + doff, from, len);
    uint64_t want = sum_want(cc, r, slot);
    cnt()->read += len;
    ivc_data_unpack(d, doff, from, len);
    return read_ok(comm, cc, r, want, blk, tag, from, len);
}

void ivc_mpi_coll_audit(void)
{
    ivc_coll_shm_t *s = &ivc_coll;
    if (!s->on || s->areas == NULL || s->areas[s->me] == NULL)
        return;
    const char *what = NULL;
    for (uint32_t b = 0; b < IVC_COLL_BANKS; b++) {
        ivc_coll_ctl_t *c = ctl_at(s->me, b);
        if (ivc_load_relaxed(&c->filled) != s->my_filled[b]) {
            ivc_store_release(&c->filled, s->my_filled[b]);
            what = "fill count";
        }
        if (ivc_load_relaxed(&c->tag) != s->my_tag[b]) {
            ivc_store_release(&c->tag, s->my_tag[b]); /* as R10 */
            what = "operation tag";
        }
        for (uint32_t row = 0; row < 2; row++)
            for (uint32_t l = 0; l < s->nlocal; l++) {
                IVC_ATOMIC(uint32_t) *w = ack_at(s->me, l, b, row);
                uint32_t v = (uint32_t)s->my_acks[ack_index(row, b, l)];
                if (ivc_load_relaxed(w) != v) {
                    ivc_store_release(w, v); /* as R11 */
                    what = "acknowledgements";
                }
            }
    }
    for (int i = 0; s->gaveup_off != 0 && i < IVC_MPI_ID_WORDS; i++) {
        IVC_ATOMIC(uint64_t) *w = gaveup_of(s->me) + i;
        if (ivc_load_relaxed(w) != s->my_gaveup[i]) {
            ivc_store_release(w, s->my_gaveup[i]); /* as R13 */
            what = "gave-up bits";
        }
    }
    s->audit_repairs += what != NULL;
    if (what != NULL && !s->audit_warned) {
        s->audit_warned = 1;
        ivc_warn("another writer changed the %s in this rank's collective area; put back "
                 "(further repairs are not reported)",
                 what);
    }
}

/* Whether local rank l is in MPI_Finalize: it published and acknowledged all it ever will. */
static inline int area_owner_left(uint32_t l)
{
    return ivc_region_member_get(&ivc_coord.region, ivc_coord.local[l]) == IVC_MEMBER_FINALIZED;
}

/* What a sleeping waiter re-checks (ivc_wait.h ready()): the word it waits for. */
typedef struct word_wait {
    IVC_ATOMIC(uint64_t) * w;
    uint64_t v;
} word_wait_t;

static int word_ready(void *arg)
{
    const word_wait_t *ww = arg;
    return ivc_load_acquire(ww->w) >= ww->v; /* as the caller's A11 / A12 */
}

/* The same for reader l's acknowledgements of our bank b: both its words (acks_got()). */
typedef struct ack_wait {
    uint32_t l, b;
    uint64_t v;
} ack_wait_t;

static int ack_ready(void *arg)
{
    const ack_wait_t *aw = arg;
    return acks_diff(acks_got(aw->l, aw->b, 1), aw->v) >= 0; /* as the caller's A11 */
}

/* Whether local rank l's publication `tag` is up, in any bank; if so, remembers the bank
 * (rd[l].bank) for the accessors. The bank after the one of l's last publication we read is
 * looked at first: a rank's small publications take the banks in turn. */
static inline int tag_found(uint32_t l, uint64_t tag)
{
    uint32_t b = ivc_coll.rd[l].bank;
    for (int i = 0; i < IVC_COLL_BANKS; i++) {
        b = b + 1 < IVC_COLL_BANKS ? b + 1 : 0;
        if (ivc_load_acquire(&ctl_at(l, b)->tag) == tag) { /* A10: pairs with R10 */
            ivc_coll.rd[l].bank = b;
            return 1;
        }
    }
    return 0;
}

/* Whether a bank of l holds a tag of tag's communicator past it. */
static inline int tag_passed(uint32_t l, uint64_t tag)
{
    for (uint32_t b = 0; b < IVC_COLL_BANKS; b++) {
        uint64_t x = ivc_load_acquire(&ctl_at(l, b)->tag);
        if ((x ^ tag) >> SEQ_BITS == 0 && x > tag)
            return 1;
    }
    return 0;
}

typedef struct tag_wait {
    uint32_t l;
    uint64_t tag;
} tag_wait_t;

static int tag_ready(void *arg)
{
    const tag_wait_t *tw = arg;
    return tag_found(tw->l, tw->tag) || tag_passed(tw->l, tw->tag);
}

/* The owner of area l published a tag of comm past `tag`, which this rank still waits
 * for. It may: when it declared this rank failed (its record is in the membership table
 * before it goes on, ivc_coord_peer_broke) or gave up comm (its gave-up bit), and this rank
 * has not heard yet. Else it went on without this rank's acknowledgement, which wait_acks()
 * forbids: another writer changed its area or our acknowledgement word. */
static int tag_ran_past(MPI_Comm comm, uint32_t l, uint64_t tag)
{
    int ctx = (int)(tag >> SEQ_BITS);
    uint32_t me = ivc_coord.local[ivc_coll.me];
    int declared = ivc_region_member_get(&ivc_coord.region, me) == IVC_MEMBER_FAILED;
    int gaveup = ivc_coll.gaveup_off != 0 && ctx < IVC_MPI_ID_WORDS * 64 &&
                 (ivc_load_acquire(gaveup_of(l) + ctx / 64) >> (ctx % 64) & 1);
    if (declared || gaveup) {
        gave_up(comm);
        return MPI_ERR_PROC_FAILED;
    }
    /* Or this rank's own words misled it (acknowledgements, gave-up bits changed in this
     * rank's area: by this rank itself where areas lie in sections). Not the owner's fault. */
    ivc_mpi_coll_audit();
    if (ivc_coll.audit_repairs != 0) {
        ivc_error("collective on a communicator with rank %u: it went on without this rank, "
                  "whose own collective area had been changed (put back): not blamed on it",
                  ivc_coord.local[l]);
        gave_up(comm);
        return MPI_ERR_INTERN;
    }
    return area_broken(comm, l, "its operation tag ran past the one this rank waits for, "
                                "without this rank's acknowledgement (damaged by another "
                                "writer)");
}

/* One round of a wait on a word of local rank l's area: polls, and gives up when comm has
 * a failed member or is revoked (one branch on ivc_mpi_ft_state until a failure is known).
 * *left: l went into MPI_Finalize (checked now and then); the caller looks once more, and
 * then gives up with owner_left(). */
static int wait_round(MPI_Comm comm, uint32_t l, ivc_backoff_t *b, uint32_t n, int *left)
{
    ivc_mpi_poll(b);
    if (__builtin_expect(ivc_mpi_ft_state != 0, 0)) {
        int e = shm_ft_broken(comm);
        if (e != MPI_SUCCESS)
            return e;
    }
    *left = __builtin_expect(n % 1024 == 0, 0) && area_owner_left(l);
    return MPI_SUCCESS;
}

static int owner_left(MPI_Comm comm, uint32_t l)
{
    return area_broken(comm, l,
                       "it went into MPI_Finalize without writing the word this rank "
                       "waits for in its collective area (damaged by another writer, "
                       "or mismatched collectives)");
}

/* Polls until ready(arg): a word of local rank l's area reached a count (word_ready(),
 * ack_ready()). */
static int wait_count(MPI_Comm comm, uint32_t l, int (*ready)(void *), void *arg)
{
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, ready, arg);
    for (uint32_t n = 1;; n++) {
        if (ready(arg))
            return MPI_SUCCESS;
        int left, e = wait_round(comm, l, &b, n, &left);
        if (e != MPI_SUCCESS)
            return e;
        if (left)
            return ready(arg) ? MPI_SUCCESS : owner_left(comm, l);
    }
}

/* Polls until *w >= v (a fill count in local rank l's area). */
static int wait_word(MPI_Comm comm, uint32_t l, IVC_ATOMIC(uint64_t) * w, uint64_t v)
{
    word_wait_t ww = {w, v};
    return wait_count(comm, l, word_ready, &ww);
}

static int wait_tag_slow(MPI_Comm comm, uint32_t l, uint64_t tag)
{
    ivc_backoff_t b;
    tag_wait_t tw = {l, tag};
    ivc_backoff_init_idle(&b, tag_ready, &tw);
    for (uint32_t n = 1;; n++) {
        if (tag_found(l, tag))
            return MPI_SUCCESS;
        /* A tag of the same communicator past the one awaited, and the awaited one in
         * no bank (looked at again after the later one: published before it): the
         * owner went on without this rank's acknowledgement, which it cannot do (wait_acks
         * keeps a publication until its readers acknowledged it) unless its area or our
         * acknowledgement word was changed by another writer. Waiting on would never end. */
        if (ivc_mpi_ft_state == 0 && tag_passed(l, tag) && !tag_found(l, tag))
            return tag_ran_past(comm, l, tag);
        int left, e = wait_round(comm, l, &b, n, &left);
        if (e != MPI_SUCCESS)
            return e;
        if (left)
            return tag_found(l, tag) ? MPI_SUCCESS : owner_left(comm, l);
    }
}

/* Waits for comm rank r's publication `tag` (its size as its publisher gave it to
 * wait_acks()); the accessors then mean the bank holding it. */
static inline int wait_tag(MPI_Comm comm, ivc_coll_comm_t *cc, int r, uint64_t tag,
                           uint64_t payload, int desc)
{
    uint32_t l = (uint32_t)cc->lidx[r];
    place(&ivc_coll.rd[l], payload, desc);
    if (tag_found(l, tag))
        return MPI_SUCCESS;
    return wait_tag_slow(comm, l, tag);
}

/* Whether reader l will never acknowledge what it still owes of our publications in bank
 * b: it died, or it gave up the communicator of our last publication there (see "failures"
 * above: every earlier one in that bank was acknowledged before it was written). */
static int reader_gone(uint32_t l, uint32_t b)
{
    ivc_coll_shm_t *s = &ivc_coll;
    int ctx = s->last_ctx[b];
    if (ivc_mpi_peer_failed((int)ivc_coord.local[l]))
        return 1;
    if (s->gaveup_off == 0 || ctx < 0 || ctx >= IVC_MPI_ID_WORDS * 64)
        return 0;
    /* A13: pairs with R13 in the reader's gave_up(). */
    uint64_t bits = ivc_load_acquire(gaveup_of(l) + ctx / 64);
    return (bits >> (ctx % 64)) & 1;
}

/* Before writing bank b of its area again: every reader acknowledged all it read there, or
 * will never read it. */
static int wait_bank(MPI_Comm comm, uint32_t b)
{
    ivc_coll_shm_t *s = &ivc_coll;
    uint64_t *owed = s->owed + b * s->nlocal;
    for (uint32_t l = 0; l < s->nlocal; l++) {
        if (l == s->me || owed[l] == 0)
            continue;
        /* A11: pairs with R11 in ack(); the reader is done with our data. */
        int32_t d = acks_diff(acks_got(l, b, 0), owed[l]);
        if (__builtin_expect(d == 0, 1) || (d = acks_diff(acks_got(l, b, 1), owed[l])) == 0)
            continue;
        /* More than it was given: only a reader that gave up a communicator acknowledges
         * from where it stands (reader_gone() below, once a failure is known); otherwise
         * another writer changed the word, and going on could overwrite what it still
         * reads, or leave it waiting for a tag that is gone. */
        if (d > 0) {
            if (ivc_mpi_ft_state == 0)
                return area_broken(comm, l, "it acknowledged more of this rank's collective "
                                            "area than it was given (damaged by another "
                                            "writer)");
            continue;
        }
        ivc_backoff_t bo;
        ack_wait_t aw = {l, b, owed[l]};
        ivc_backoff_init_idle(&bo, ack_ready, &aw);
        for (uint32_t n = 1; !ack_ready(&aw); n++) { /* A11 */
            ivc_mpi_poll(&bo);
            if (__builtin_expect(n % 1024 == 0, 0) && area_owner_left(l) && !ack_ready(&aw))
                return area_broken(comm, l,
                                   "it went into MPI_Finalize without acknowledging "
                                   "what it read of this rank's collective area "
                                   "(damaged by another writer, or mismatched "
                                   "collectives)");
            if (__builtin_expect(ivc_mpi_ft_state == 0, 1))
                continue;
            if (reader_gone(l, b)) {
                /* Owe nothing more: it acknowledges from where it stands, if ever. */
                int32_t short_by = -acks_diff(acks_got(l, b, 1), owed[l]);
                ivc_debug("collective area: rank %u will not acknowledge %lld units; "
                          "no longer waiting for them",
                          ivc_coord.local[l], (long long)short_by);
                owed[l] -= (uint64_t)(int64_t)short_by;
                break;
            }
            int e = shm_ft_broken(comm);
            if (e != MPI_SUCCESS)
                return e;
        }
    }
    return MPI_SUCCESS;
}

/* Starts fetching the readers' acknowledgements of our publications in bank b, which
 * wait_bank() reads ACK_AHEAD publications from now: each lies in a line the reader wrote,
 * so the load there would otherwise miss, and a publisher running ahead (the contributors
 * of back-to-back Reduces) would wait for it each time. By then the readers have mostly
 * acknowledged, so the line fetched now is the one read then. Reduce of 8-256 B at 2
 * ranks, vCPUs far apart (AMD development VM, two A/B runs of 2-3 rounds): 0.69-0.94x the
 * time; no change beyond noise for Bcast, Allreduce, Alltoall, Allgather, Reduce_scatter
 * or with the vCPUs close together. */
#define ACK_AHEAD (IVC_COLL_BANKS / 2)
/* Those of a longer publication lie ACK_FAR banks on (ack_at()): fetched ACK_AHEAD_FAR
 * publications ahead, they lie in the reader's bank two before its current one, not in the
 * line it is writing. */
#define ACK_AHEAD_FAR (IVC_COLL_BANKS / 4)

static inline void prefetch_acks(uint32_t next)
{
    for (uint32_t row = 0; row < 2; row++) {
        uint32_t b = (next + (row ? ACK_AHEAD_FAR : ACK_AHEAD)) % IVC_COLL_BANKS;
        const uint64_t *owed = ivc_coll.owed + b * ivc_coll.nlocal;
        for (uint32_t l = 0; ivc_coll.last_row[b] == row && l < ivc_coll.nlocal; l++)
            if (owed[l] != 0 && l != ivc_coll.me)
                __builtin_prefetch((const void *)ack_at(l, ivc_coll.me, b, row), 0);
    }
}

/* Before writing a publication of `payload` bytes (after a descriptor when `desc`) into our
 * area for an operation on comm: places it (place()), picks the bank (one that fits a small
 * bank goes to the operation's, ops % IVC_COLL_BANKS, so that we can write it while readers
 * still read the last few and the members of comm use the same bank (coll_impl.h); a larger
 * one to bank 0) and waits until its readers are done with it.
 * The accessors then mean that bank for us, data_of(me) the publication's start. */
static int wait_acks(MPI_Comm comm, uint64_t payload, int desc)
{
    coll_pos_t *p = &ivc_coll.pub;
    uint32_t next = (uint32_t)(ivc_coll.ops % IVC_COLL_BANKS);
    p->bank = place(p, payload, desc) <= ivc_coll.small ? next : 0;
    prefetch_acks(next);
    return wait_bank(comm, p->bank);
}

/* Before returning from an operation that published operands lying in the program's
 * buffers (shared heap): every reader of every bank is done with them. */
static int wait_readers(MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    for (uint32_t b = 0; b < IVC_COLL_BANKS && rc == MPI_SUCCESS; b++)
        rc = wait_bank(comm, b);
    return rc;
}

static inline void publish(uint64_t tag, uint64_t filled)
{
    ivc_coll_shm_t *s = &ivc_coll;
    uint32_t b = s->pub.bank;
    cnt()->rounds++;
    s->last_ctx[b] = (int)(tag >> SEQ_BITS);
    ivc_coll_ctl_t *c = ctl_at(s->me, b);
    s->my_tag[b] = tag;
    s->my_filled[b] = filled;
    ivc_store_relaxed(&c->filled, filled);
    ivc_store_release(&c->tag, tag); /* R10: publishes data and filled; pairs with A10 */
    ivc_door_kick_all(); /* readers may sleep waiting for the tag */
}

/* Records that comm rank r will acknowledge n more units of our publications (in the bank
 * of the current one). */
static inline void owe(ivc_coll_comm_t *cc, int r, uint64_t n)
{
    ivc_coll.owed[ivc_coll.pub.bank * ivc_coll.nlocal + (uint32_t)cc->lidx[r]] += n;
    ivc_coll.last_row[ivc_coll.pub.bank] = ivc_coll.pub.row;
}

static inline void owe_all(MPI_Comm comm, ivc_coll_comm_t *cc, uint64_t n)
{
    for (int r = 0; r < comm->size; r++)
        if (r != comm->rank)
            owe(cc, r, n);
}

/* Acknowledges n units of comm rank r's publication we waited for (in the bank it lies). */
static inline void ack(ivc_coll_comm_t *cc, int r, uint64_t n)
{
    uint32_t l = (uint32_t)cc->lidx[r];
    const coll_pos_t *p = &ivc_coll.rd[l];
    uint64_t *mine = &ivc_coll.my_acks[ack_index(p->row, p->bank, l)];
    /* R11: we are done reading; pairs with A11 in wait_bank(). Only we write it, so the
     * count comes from our own record, never from the shared word. */
    *mine += n;
    ivc_store_release(ack_at(ivc_coll.me, l, p->bank, p->row), (uint32_t)*mine);
    ivc_door_kick(ivc_coord.local[l]); /* the publisher may sleep in wait_bank() */
}

/* Bytes of n at dst that lie in the line where they start, when they run on past it (else
 * 0). The copies below write them last: a small publication starts in its tag's line
 * (place()), which readers poll, so that line then moves to our core once, right before the
 * tag, instead of once for the data and again for the tag (as an eager record's first line,
 * shm_chan.c rec_write). */
static inline uint64_t head_bytes(const void *dst, uint64_t n)
{
    uint64_t in = (uint64_t)(-(uintptr_t)dst & (IVC_CACHE_LINE - 1));
    return in < n ? in : 0;
}

/* Writes packed bytes [off, off+n) of d into our area at dst. From IVC_COLL_STREAM_MIN
 * bytes contiguous data goes with non-temporal stores (ivc_copy.h): readers on other cores
 * then fetch it from memory instead of snooping it out of our cache line by line. */
static inline void pub_pack(const ivc_data_t *d, uint64_t off, void *dst, uint64_t n)
{
    cnt()->published += n;
    if (n >= ivc_coll.cfg.stream_min && ivc_data_contig(d)) {
        ivc_copy_stream(dst, (const uint8_t *)d->buf + off, n);
        return;
    }
    uint64_t h = head_bytes(dst, n);
    ivc_data_pack(d, off + h, (uint8_t *)dst + h, n - h);
    if (h)
        ivc_data_pack(d, off, dst, h);
}

static inline void pub_copy(void *dst, const void *src, uint64_t n)
{
    cnt()->published += n;
    if (n >= ivc_coll.cfg.stream_min) {
        ivc_copy_stream(dst, src, n);
        return;
    }
    uint64_t h = head_bytes(dst, n);
    memcpy((uint8_t *)dst + h, (const uint8_t *)src + h, n - h);
    if (h)
        memcpy(dst, src, h);
}

/* Packs bytes [off, off+n) of d to dst in our area and publishes check word `slot` for them
 * (block blk of publication tag). The check word is computed from private memory, never
 * from the area after the copy: a stray write into our own area between the two would be
 * covered by a valid check word and reach the readers as our data (hostile.own_coll). A
 * source that is not contiguous is packed privately first (falling back to the area when
 * there is no memory for it). */
static void pub_put(const ivc_data_t *d, uint64_t off, uint8_t *dst, uint64_t n, uint64_t slot,
                    uint64_t blk, uint64_t tag)
{
    int contig = ivc_data_contig(d);
    uint8_t *tmp = ivc_coll.csum && !contig && n > 0 ? malloc(n) : NULL;
    if (tmp == NULL) {
        pub_pack(d, off, dst, n);
        pub_sum(slot, blk, tag, contig ? (const uint8_t *)d->buf + off : dst, n);
        return;
    }
    cnt()->published += n;
    ivc_data_pack(d, off, tmp, n);
    /* R14: after the data; pairs with A14 in sum_want(). */
    ivc_store_release(csum_of(ivc_coll.me) + slot,
                      ivc_shm_csum_copy(dst, tmp, n, csum_seed(tag, blk)));
    free(tmp);
}

/* Copies packed bytes [soff, soff+n) of s to [doff, doff+n) of d. */
static int data_copy(const ivc_data_t *s, uint64_t soff, ivc_data_t *d, uint64_t doff, uint64_t n)
{
    if (n == 0)
        return MPI_SUCCESS;
    if (ivc_data_contig(s)) {
        ivc_data_unpack(d, doff, (const char *)s->buf + soff, n);
    } else if (ivc_data_contig(d)) {
        ivc_data_pack(s, soff, (char *)d->buf + doff, n);
    } else {
        uint64_t step = n < (1u << 20) ? n : (1u << 20);
        void *tmp = malloc(step);
        if (tmp == NULL)
            return MPI_ERR_NO_MEM;
        for (uint64_t o = 0; o < n; o += step) {
            uint64_t len = n - o < step ? n - o : step;
            ivc_data_pack(s, soff + o, tmp, len);
            ivc_data_unpack(d, doff + o, tmp, len);
        }
        free(tmp);
    }
    return MPI_SUCCESS;
}

/* ---- barrier ---- */

int coll_shm_barrier(MPI_Comm comm, ivc_coll_comm_t *cc)
{
    COUNT_CALL(COLL_CK_BARRIER);
    SHM_FT_ENTRY(comm);
    uint64_t tag = next_tag(comm, cc);
    int rc = wait_acks(comm, 0, PUB_PLAIN);
    if (rc != MPI_SUCCESS)
        return rc;
    publish(tag, 0);
    owe_all(comm, cc, 1);
    /* Everyone's flag, starting after our own rank, so that waiters spread over lines. */
    for (int i = 1; i < comm->size; i++) {
        int r = (comm->rank + i) % comm->size;
        if ((rc = wait_tag(comm, cc, r, tag, 0, PUB_PLAIN)) != MPI_SUCCESS)
            return rc;
        ack(cc, r, 1);
    }
    return MPI_SUCCESS;
}

/* ---- operands in the shared heap: read where they lie ----
 *
 * The partitioned allreduce starts each half of its area with a descriptor (placed by
 * place(); written by the area's owner before R10, read by the others after A10); gather,
 * allgather, alltoall and reduce-scatter say in `filled` which of the two theirs is
 * (pub_src()) and need a descriptor only for the second:
 * DESC_DATA, the bytes follow in the area as usual; or DESC_DIRECT, the operand lies in the
 * owner's shared heap (src/shm/shm_heap.h) at a region offset, and readers copy or reduce
 * their part straight out of it: one copy instead of two (a broadcast uses the same
 * descriptor, see below). Every rank runs the same pieces and publications either way (the
 * tags stay in step); a direct publisher only skips the copy into its area, and waits at
 * the end of the operation until every reader acknowledged, since its buffer is the
 * program's again once the call returns. A descriptor is checked before use: the bytes it
 * names must lie in the heap the owner published at connect (else the area is reported
 * broken); with check words on, the bytes read are checked as data from the area would be. */
#define DESC_DATA   0x41544144u /* "DATA" */
#define DESC_DIRECT 0x54434944u /* "DICT" */

typedef struct coll_desc {
    uint32_t magic, pad;
    uint64_t off, len; /* DIRECT: the operand's region offset and bytes */
} coll_desc_t;
_Static_assert(sizeof(coll_desc_t) <= DESC_SMALL, "a descriptor fits its place");

/* The region offset of our operand [p, p + len) when it lies in our shared heap. */
static int direct_ok(const void *p, uint64_t len, uint64_t *off)
{
    return ivc_coll.direct && len > 0 && ivc_shm_heap_offset(p, len, off);
}

/* The descriptor at byte dpos of our area's data (0, or the upper half of a partitioned
 * allreduce). */
static void desc_put_at(uint64_t dpos, int direct, uint64_t off, uint64_t len)
{
    coll_desc_t d = {direct ? DESC_DIRECT : DESC_DATA, 0, off, len};
    memcpy(data_of(ivc_coll.me) + dpos, &d, sizeof(d));
}

static void desc_put(int direct, uint64_t off, uint64_t len)
{
    desc_put_at(0, direct, off, len);
}

/* The bytes [at, at + len) of comm rank r's operand that descriptor d (one copy of it,
 * read once: the area is the owner's to change) names in r's heap. NULL (reported) for a
 * descriptor that is not DESC_DIRECT or names anything outside r's heap. */
static const uint8_t *desc_heap(MPI_Comm comm, ivc_coll_comm_t *cc, int r, const coll_desc_t *d,
                                uint64_t at, uint64_t len)
{
    uint64_t hoff, hlen;
    uint32_t rank = ivc_coord.local[cc->lidx[r]];
    if (d->magic == DESC_DIRECT && ivc_shm_chan_peer_heap(ivc_coord.shm, rank, &hoff, &hlen) &&
        d->off >= hoff && d->len <= hlen && d->off - hoff <= hlen - d->len && at <= d->len &&
        len <= d->len - at)
        return ivc_coord.region.base + d->off + at;
    area_broken(comm, (uint32_t)cc->lidx[r], "a descriptor in its collective area names memory "
                                             "outside its shared heap");
    return NULL;
}

/* Where comm rank r's publication holds bytes [at, at + len) of its operand: in its area
 * at `area_at` (past the descriptor), or in its heap. NULL (reported) for a descriptor
 * naming anything else. */
static const uint8_t *desc_src_at(MPI_Comm comm, ivc_coll_comm_t *cc, int r, uint64_t dpos,
                                  uint64_t at, uint64_t len, uint64_t area_at)
{
    coll_desc_t d;
    const uint8_t *area = data_of((uint32_t)cc->lidx[r]) + dpos;
    memcpy(&d, area, sizeof(d)); /* once: the area is the owner's to change */
    if (d.magic == DESC_DATA)
        return area + ivc_coll.rd[cc->lidx[r]].desc + area_at;
    return desc_heap(comm, cc, r, &d, at, len);
}

/* Publications whose kind `filled` gives (Gather, Allgather, Alltoall, Reduce_scatter):
 * FILL_DATA, the data lies in the area with no descriptor before it; FILL_DIRECT, a
 * descriptor lies where the data would (room for it: pub_room()). A descriptor before
 * small data pushed it out of the tag's cache line: without it, at 2 ranks on the AMD
 * development VM (best of 3 per placement), Alltoall 8-256 B takes 0.55-1.00x the time with
 * the vCPUs far apart and 0.71-0.80x close together, Allgather 8-256 B 0.56-1.02x and
 * 0.81-0.95x, Reduce_scatter 8-256 B 0.56-0.93x and 0.77-1.00x; no size up to 16 KiB
 * slower beyond noise. */
#define FILL_DATA   1
#define FILL_DIRECT 2

static inline uint64_t pub_room(uint64_t payload)
{
    return payload < DESC_SMALL ? DESC_SMALL : payload;
}

/* desc_src_at() for such a publication of comm rank r (after wait_tag). */
static const uint8_t *pub_src(MPI_Comm comm, ivc_coll_comm_t *cc, int r, uint64_t at, uint64_t len,
                              uint64_t area_at)
{
    uint32_t l = (uint32_t)cc->lidx[r];
    uint64_t kind = ivc_load_relaxed(&ctl_of(l)->filled); /* ordered by A10 in wait_tag() */
    if (kind == FILL_DATA)
        return data_of(l) + area_at;
    if (kind == FILL_DIRECT) {
        coll_desc_t d;
        memcpy(&d, data_of(l), sizeof(d)); /* once: the area is the owner's to change */
        return desc_heap(comm, cc, r, &d, at, len);
    }
    area_broken(comm, l, "a publication of unknown kind in its collective area");
    return NULL;
}

/* ---- broadcast: the root streams chunks through a ring of slots in its area ----
 *
 * or, when the root's buffer is contiguous, lies in its shared heap and is larger than one
 * chunk, publishes only a descriptor of it (in slot 0, `filled` = BCAST_DIRECT, which no
 * ring count reaches) and every reader copies the whole message straight out of it: one
 * copy instead of two, and two hand-overs per reader instead of two per chunk, which
 * matters most when the ranks share cores with other work. The root then waits for every
 * reader before returning (its buffer is the program's again). Readers tell the two apart
 * by `filled` alone; a descriptor is validated like any other (desc_heap), and with check
 * words on, check word 0 covers the whole message.
 *
 * Lengths: the root writes its message bytes into its length word before publishing, and
 * every reader compares them with its own. Counts that differ are erroneous (MPI-4.1
 * section 6.4), but a reader that read or acknowledged by its own count would hang the
 * root (or itself) or leave the two out of step for the next operation; so a reader that
 * sees another length acknowledges every unit the root's length makes, reads nothing and
 * returns MPI_ERR_TRUNCATE, as the point-to-point broadcast does. An empty broadcast is
 * published like any other (one empty unit), so that a rank whose count is 0 meets the
 * others' in step. */
#define BCAST_DIRECT UINT64_MAX
/* Above this, a length word is no message length (a damaged area). */
#define BCAST_LEN_MAX (1ull << 50)

/* Units a broadcast of `bytes` publishes through the ring. */
static inline uint64_t bcast_units(uint64_t bytes, uint64_t chunk)
{
    return bytes == 0 ? 1 : (bytes + chunk - 1) / chunk;
}

/* What a broadcast of `units` units, `bytes` bytes, asks of the root's area (wait_acks):
 * one unit, its bytes; more, the whole ring (a direct one, too: a reader knows only the
 * size, not whether the root's buffer lies in its heap). */
static inline uint64_t bcast_need(uint64_t units, uint64_t bytes)
{
    return units > 1 ? ivc_coll.cfg.area : bytes;
}

/* The root's side of a direct broadcast of d (bytes at heap offset hoff). */
static int bcast_direct(const ivc_data_t *d, uint64_t hoff, uint64_t tag, int root, MPI_Comm comm,
                        ivc_coll_comm_t *cc)
{
    int rc = wait_acks(comm, ivc_coll.cfg.area, PUB_LEN); /* bcast_need(): more than a unit */
    if (rc != MPI_SUCCESS)
        return rc;
    desc_put(1, hoff, d->bytes);
    pub_sum(0, 0, tag, (const uint8_t *)d->buf, d->bytes);
    ivc_store_relaxed(len_of(ivc_coll.me), d->bytes); /* before R10 in publish() */
    for (int r = 0; r < comm->size; r++)
        if (r != root)
            owe(cc, r, 1);
    publish(tag, BCAST_DIRECT);
    return wait_readers(comm);
}


int coll_shm_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                   ivc_coll_comm_t *cc)
{
    COUNT_CALL(COLL_CK_BCAST);
    SHM_FT_ENTRY(comm);
    ivc_data_t d;
    ivc_mpi_data(&d, buf, count, dt);
    uint64_t bytes = d.bytes, chunk = ivc_coll.cfg.chunk;
    uint64_t units = bcast_units(bytes, chunk), nslots = ivc_coll.cfg.area / chunk;
    uint64_t tag = next_tag(comm, cc);
    int rc;
    uint64_t hoff = 0;
    /* Up to one chunk the ring costs the root one small copy and lets it return at once. */
    if (comm->rank == root && units > 1 && ivc_data_contig(&d) && direct_ok(d.buf, bytes, &hoff))
        return bcast_direct(&d, hoff, tag, root, comm, cc);
    if (comm->rank == root) {
        if ((rc = wait_acks(comm, bcast_need(units, bytes), PUB_LEN)) != MPI_SUCCESS)
            return rc;
        /* base[r]: acknowledgements owed before this operation, for slot reuse. */
        uint64_t *base = NULL;
        if (units > nslots && (base = malloc((size_t)comm->size * sizeof(uint64_t))) == NULL)
            return MPI_ERR_NO_MEM;
        for (int r = 0; r < comm->size; r++) {
            if (r == root)
                continue;
            if (base != NULL)
                base[r] = ivc_coll.owed[(uint32_t)cc->lidx[r]]; /* bank 0: units > 1 */
            owe(cc, r, units);
        }
        /* A broadcast of one unit is one flag; a larger one publishes its first unit at
         * once, so that readers copy out while the root copies in. */
        uint64_t first = 1;
        uint64_t flen = first * chunk < bytes ? first * chunk : bytes;
        pub_put(&d, 0, data_of(ivc_coll.me), flen, 0, 0, tag);
        ivc_store_relaxed(len_of(ivc_coll.me), bytes); /* before R10 in publish() */
        publish(tag, first);
        ivc_coll_ctl_t *c = ctl_of(ivc_coll.me);
        for (uint64_t k = first; k < units; k++) {
            uint64_t off = k * chunk, len = bytes - off < chunk ? bytes - off : chunk;
            if (k >= nslots) {
                /* Slot k % nslots held unit k - nslots: wait until every reader has it. */
                for (int r = 0; r < comm->size; r++) {
                    if (r == root)
                        continue;
                    uint32_t l = (uint32_t)cc->lidx[r];
                    uint64_t need = base[r] + (k - nslots + 1);
                    /* A11: pairs with R11 in the reader's ack() */
                    ack_wait_t aw = {l, 0, need};
                    if (!ack_ready(&aw) &&
                        (rc = wait_count(comm, l, ack_ready, &aw)) != MPI_SUCCESS) {
                        free(base);
                        return rc;
                    }
                }
            }
            uint8_t *slot = data_of(ivc_coll.me) + (k % nslots) * chunk;
            pub_put(&d, off, slot, len, k % nslots, k, tag);
            ivc_coll.my_filled[ivc_coll.pub.bank] = k + 1;
            ivc_store_release(&c->filled, k + 1); /* R12: unit k is in; pairs with A12 */
            ivc_door_kick_all();
        }
        free(base);
        return MPI_SUCCESS;
    }
    if ((rc = wait_tag(comm, cc, root, tag, bcast_need(units, bytes), PUB_LEN)) != MPI_SUCCESS)
        return rc;
    uint32_t rl = (uint32_t)cc->lidx[root];
    ivc_coll_ctl_t *c = ctl_of(rl);
    const uint8_t *src = data_of(rl);
    uint64_t filled = ivc_load_acquire(&c->filled); /* A12: pairs with R10 / R12 */
    uint64_t rlen = ivc_load_relaxed(len_of(rl)); /* ordered by A10 in wait_tag() */
    if (__builtin_expect(rlen != bytes, 0)) {
        if (rlen > BCAST_LEN_MAX) {
            area_broken(comm, rl, "its broadcast length word holds an impossible length");
            return MPI_ERR_PROC_FAILED;
        }
        /* Every unit the root owes this rank, acknowledged unread (see "Lengths"). */
        ack(cc, root, filled == BCAST_DIRECT ? 1 : bcast_units(rlen, chunk));
        return MPI_ERR_TRUNCATE;
    }
    if (bytes == 0) {
        ack(cc, root, 1);
        return MPI_SUCCESS;
    }
    if (filled == BCAST_DIRECT) {
        coll_desc_t dd;
        memcpy(&dd, src, sizeof(dd)); /* once: the area is the root's to change */
        const uint8_t *from = desc_heap(comm, cc, root, &dd, 0, bytes);
        if (from == NULL)
            return MPI_ERR_PROC_FAILED;
        rc = read_copy(comm, cc, root, 0, 0, tag, &d, 0, from, bytes);
        ack(cc, root, 1);
        return rc;
    }
    for (uint64_t k = 0; k < units; k++) {
        if (filled <= k) {
            if ((rc = wait_word(comm, rl, &c->filled, k + 1)) != MPI_SUCCESS)
                return rc;
            filled = ivc_load_acquire(&c->filled); /* A12 */
        }
        uint64_t off = k * chunk, len = bytes - off < chunk ? bytes - off : chunk;
        if ((rc = read_copy(comm, cc, root, k % nslots, k, tag, &d, off,
                            src + (k % nslots) * chunk, len)) != MPI_SUCCESS)
            return rc;
        ack(cc, root, 1);
    }
    return MPI_SUCCESS;
}

/* ---- reductions: contributions are reduced where they lie ---- */

/* out = c_lo op ... op c_hi in rank order, reading c_r at src[r] (NULL: skip nothing).
 * Folds from the right (out = c_hi, then out = c_r op out) so that non-commutative
 * operations see rank order and every rank computes bit-identical results. The first step
 * reads c_hi and c_hi-1 and writes out in one pass (no copy of c_hi into out first): out is
 * the caller's private buffer, overlapping no contribution, or src[hi] itself. */
static int fold(const uint8_t *const *src, int lo, int hi, void *out, uint64_t count, uint64_t len,
                MPI_Datatype dt, MPI_Op op, int others)
{
    /* Counted: every operand combined, `others` of them read out of other ranks' memory. */
    cnt()->reduced += (uint64_t)(hi - lo + 1) * len;
    cnt()->read += (uint64_t)others * len;
    int r = hi - 1;
    if (hi > lo && (src[hi] == out || src[hi - 1] != out)) {
        int rc = coll_op_apply3(op, dt, src[hi - 1], src[hi], out, count);
        if (rc != MPI_SUCCESS)
            return rc;
        r--;
    } else if (src[hi] != out) {
        memcpy(out, src[hi], len);
    }
    for (; r >= lo; r--) {
        int rc = coll_op_apply(op, dt, src[r], out, count);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Per rank of a reduction: where its contribution is read, and its check word; on the
 * stack up to FOLD_STACK ranks, so that a small reduction allocates nothing. */
#define FOLD_STACK 16
typedef struct fold_refs {
    const uint8_t **src;
    uint64_t *want;
    const uint8_t *src_s[FOLD_STACK];
    uint64_t want_s[FOLD_STACK];
} fold_refs_t;

static int refs_init(fold_refs_t *f, int n)
{
    if (n <= FOLD_STACK) {
        f->src = f->src_s;
        f->want = f->want_s;
        return 0;
    }
    f->src = malloc((size_t)n * sizeof(*f->src));
    f->want = malloc((size_t)n * sizeof(*f->want));
    return f->src == NULL || f->want == NULL ? -1 : 0;
}

static void refs_free(fold_refs_t *f)
{
    if (f->src != f->src_s) {
        free(f->src);
        free(f->want);
    }
}

/* With checks on: private room for this rank's own contribution to a reduction (a piece
 * is at most an area), kept for the next one; NULL otherwise or without memory. */
static uint8_t *own_buf(void)
{
    if (ivc_coll.verify && ivc_coll.own == NULL)
        ivc_coll.own = malloc(ivc_coll.cfg.area);
    return ivc_coll.verify ? ivc_coll.own : NULL;
}

/* Partitioned allreduce: every rank publishes its contribution in the lower half of its
 * area; rank i folds slice i of all of them into the upper half and publishes that; every
 * rank then copies all slices. Each rank reads about 2 x bytes instead of (n - 1) x bytes.
 * With root >= 0, a partitioned reduce: the same first half, then only the root copies the
 * slices (the others fold theirs straight into their area, for it alone); the root reads
 * about 2 x bytes instead of (n - 1) x bytes and the others 1 x.
 * Each half starts with a descriptor ("operands in the shared heap"): a contribution
 * or a result that lies in the shared heap is read where it lies instead of being copied
 * into the area first (not in place, where the result overwrites the contribution). */
static int allreduce_split(const void *mine, void *out, uint64_t count, MPI_Datatype dt, MPI_Op op,
                           int root, MPI_Comm comm, ivc_coll_comm_t *cc)
{
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    uint64_t esz = coll_elem_bytes(dt), bytes = count * dt->map.size;
    uint64_t half = ivc_coll.cfg.area / 2, step = (half - DESC_LINE) / esz * esz;
    /* A reduce's non-roots have no result buffer: their slice is folded in private memory
     * (`scratch`, one piece) and published from there. */
    int no_out = root >= 0 && me != root;
    int sep = mine != out || no_out;
    uint8_t *scratch = no_out ? malloc(step) : NULL;
    if (no_out && scratch == NULL)
        return MPI_ERR_NO_MEM;
    uint64_t ioff = 0, ooff = 0;
    int din = sep && direct_ok(mine, bytes, &ioff);
    int dout = sep && !no_out && root < 0 && direct_ok(out, bytes, &ooff);
    fold_refs_t fr;
    int nomem = refs_init(&fr, n) != 0;
    const uint8_t **src = fr.src;
    uint64_t *want = fr.want;
    /* With checks on, our own slice is folded from a private copy: our area has no check
     * word for us (another writer could change it unseen), and mine may be out. */
    uint8_t *own = own_buf();
    if (nomem || (ivc_coll.verify && own == NULL)) {
        refs_free(&fr);
        free(scratch);
        return MPI_ERR_NO_MEM;
    }
    for (uint64_t off = 0; off < bytes && rc == MPI_SUCCESS; off += step) {
        uint64_t len = bytes - off < step ? bytes - off : step, nel = len / esz;
        /* Slice r: elements [r * nel / n, (r + 1) * nel / n) of this piece. */
        uint64_t lo = (uint64_t)me * nel / (uint64_t)n, hi = (uint64_t)(me + 1) * nel / (uint64_t)n;
        uint64_t tag1 = next_tag(comm, cc), tag2 = next_tag(comm, cc);
        if ((rc = wait_acks(comm, ivc_coll.cfg.area, PUB_DESC)) != MPI_SUCCESS)
            break;
        uint8_t *area = data_of(ivc_coll.me);
        desc_put_at(0, din, ioff, bytes);
        if (!din)
            pub_copy(area + DESC_LINE, (const uint8_t *)mine + off, len);
        for (int r = 0; ivc_coll.csum && r < n; r++) { /* from our (cached) copy */
            uint64_t rlo = (uint64_t)r * nel / (uint64_t)n, rhi = (uint64_t)(r + 1) * nel / (uint64_t)n;
            pub_sum((uint64_t)r, (uint64_t)r, tag1, (const uint8_t *)mine + off + rlo * esz,
                    (rhi - rlo) * esz);
        }
        publish(tag1, 1);
        owe_all(comm, cc, 1);
        int seen = n; /* ranks [0, seen) published this piece (see coll_shm_reduce) */
        for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
            if (r == me) {
                /* Our own slice: from our input, unless the result is about to overwrite
                 * it (in place), then from our copy in the area. */
                src[r] = sep ? (const uint8_t *)mine + off + lo * esz : area + DESC_LINE + lo * esz;
                want[r] = 0;
                continue;
            }
            if ((rc = wait_tag(comm, cc, r, tag1, ivc_coll.cfg.area, PUB_DESC)) != MPI_SUCCESS) {
                seen = r;
                break;
            }
            want[r] = sum_want(cc, r, (uint64_t)me);
            src[r] = desc_src_at(comm, cc, r, 0, off + lo * esz, (hi - lo) * esz, lo * esz);
            if (src[r] == NULL) {
                rc = MPI_ERR_PROC_FAILED;
                seen = r;
            }
        }
        if (own != NULL) {
            memcpy(own, (const uint8_t *)mine + off + lo * esz, (hi - lo) * esz);
            src[me] = own;
        }
        /* Our slice is folded into its place in `out` (private, cached here), then
         * published with streaming stores for the others to fetch from memory. */
        uint8_t *o = no_out ? scratch : (uint8_t *)out + off;
        if (rc == MPI_SUCCESS && hi > lo)
            rc = fold(src, 0, n - 1, o + lo * esz, hi - lo, (hi - lo) * esz, dt, op, n - 1);
        for (int r = 0; r < n && rc == MPI_SUCCESS; r++)
            if (r != me)
                rc = read_ok(comm, cc, r, want[r], (uint64_t)me, tag1, src[r], (hi - lo) * esz);
        for (int r = 0; r < seen; r++)
            if (r != me)
                ack(cc, r, 1);
        if (rc != MPI_SUCCESS || (rc = wait_acks(comm, ivc_coll.cfg.area, PUB_DESC)) != MPI_SUCCESS)
            break;
        if (me != root) {
            desc_put_at(half, dout, ooff, bytes);
            if (!dout)
                pub_copy(area + half + DESC_LINE + lo * esz, o + lo * esz, (hi - lo) * esz);
            pub_sum(0, 0, tag2, o + lo * esz, (hi - lo) * esz);
            publish(tag2, 1);
            if (root >= 0)
                owe(cc, root, 1);
            else
                owe_all(comm, cc, 1);
        }
        for (int i = 1; i < n && rc == MPI_SUCCESS && (root < 0 || me == root); i++) {
            int r = (me + i) % n;
            uint64_t rlo = (uint64_t)r * nel / (uint64_t)n,
                     rhi = (uint64_t)(r + 1) * nel / (uint64_t)n;
            if ((rc = wait_tag(comm, cc, r, tag2, ivc_coll.cfg.area, PUB_DESC)) != MPI_SUCCESS)
                break;
            const uint8_t *from =
                desc_src_at(comm, cc, r, half, off + rlo * esz, (rhi - rlo) * esz, rlo * esz);
            if (from == NULL) {
                rc = MPI_ERR_PROC_FAILED;
                break;
            }
            rc = read_into(comm, cc, r, 0, 0, tag2, o + rlo * esz, from, (rhi - rlo) * esz);
            ack(cc, r, 1);
        }
    }
    /* Our buffers are the program's again when we return: every reader must be done. */
    if ((din || dout) && rc == MPI_SUCCESS)
        rc = wait_readers(comm);
    refs_free(&fr);
    free(scratch);
    return rc;
}

/* Reduce-scatter: the first half of allreduce_split alone. Every rank publishes its
 * contribution (in pieces of a whole area), and rank i folds its own slice, elements
 * [first[i], first[i] + counts[i]) of the vector, straight out of every area into `out`.
 * Each rank copies its input once and reads n slices of 1/n: no allreduce of the whole
 * vector, no second round of publications, no copy of the result. */
int coll_shm_reduce_scatter(const void *mine, void *out, const uint64_t *first,
                            const uint64_t *counts, uint64_t total, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm, ivc_coll_comm_t *cc)
{
    COUNT_CALL(COLL_CK_REDUCE_SCATTER);
    SHM_FT_ENTRY(comm);
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    uint64_t esz = coll_elem_bytes(dt), bytes = total * dt->map.size;
    uint64_t step = ivc_coll.cfg.area / esz * esz; /* the piece, or a descriptor in its place */
    if (bytes == 0)
        return MPI_SUCCESS;
    if (step == 0)
        return MPI_ERR_INTERN;
    uint64_t hoff = 0;
    int direct = direct_ok(mine, bytes, &hoff);
    fold_refs_t fr;
    int nomem = refs_init(&fr, n) != 0;
    const uint8_t **src = fr.src;
    uint64_t *want = fr.want;
    uint8_t *own = own_buf(); /* see allreduce_split */
    if (nomem || (ivc_coll.verify && own == NULL)) {
        refs_free(&fr);
        return MPI_ERR_NO_MEM;
    }
    for (uint64_t off = 0; off < bytes && rc == MPI_SUCCESS; off += step) {
        uint64_t len = bytes - off < step ? bytes - off : step;
        uint64_t plo = off / esz, phi = (off + len) / esz; /* this piece, in elements */
        uint64_t tag = next_tag(comm, cc);
        uint64_t room = pub_room(len); /* the piece, or (direct) a descriptor: pub_src() */
        if ((rc = wait_acks(comm, room, PUB_PLAIN)) != MPI_SUCCESS)
            break;
        if (direct)
            desc_put(1, hoff, bytes);
        else
            pub_copy(data_of(ivc_coll.me), (const uint8_t *)mine + off, len);
        for (int r = 0; ivc_coll.csum && r < n; r++) { /* rank r's part of the piece */
            uint64_t a = first[r] > plo ? first[r] : plo;
            uint64_t b = first[r] + counts[r] < phi ? first[r] + counts[r] : phi;
            pub_sum((uint64_t)r, (uint64_t)r, tag, (const uint8_t *)mine + a * esz,
                    b > a ? (b - a) * esz : 0);
        }
        publish(tag, direct ? FILL_DIRECT : FILL_DATA);
        owe_all(comm, cc, 1);
        uint64_t a = first[me] > plo ? first[me] : plo;
        uint64_t b = first[me] + counts[me] < phi ? first[me] + counts[me] : phi;
        uint64_t mlen = b > a ? (b - a) * esz : 0;
        int seen = n; /* ranks [0, seen) published this piece (see coll_shm_reduce) */
        for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
            if (r != me && (rc = wait_tag(comm, cc, r, tag, room, PUB_PLAIN)) != MPI_SUCCESS)
                seen = r;
            want[r] = r != me && rc == MPI_SUCCESS ? sum_want(cc, r, (uint64_t)me) : 0;
            uint64_t at = b > a ? (a - plo) * esz : 0;
            if (r == me)
                src[r] = (const uint8_t *)mine + off + at;
            else if (rc == MPI_SUCCESS &&
                     (src[r] = pub_src(comm, cc, r, off + at, mlen, at)) == NULL) {
                rc = MPI_ERR_PROC_FAILED;
                seen = r;
            }
        }
        if (own != NULL && mlen) {
            memcpy(own, (const uint8_t *)mine + a * esz, mlen);
            src[me] = own;
        }
        if (rc == MPI_SUCCESS && mlen)
            rc = fold(src, 0, n - 1, (uint8_t *)out + (a - first[me]) * esz, b - a, mlen, dt, op,
                      n - 1);
        for (int r = 0; r < n && rc == MPI_SUCCESS; r++)
            if (r != me)
                rc = read_ok(comm, cc, r, want[r], (uint64_t)me, tag, src[r], mlen);
        for (int r = 0; r < seen; r++)
            if (r != me)
                ack(cc, r, 1);
    }
    /* Our input is the program's again when we return: every reader must be done. */
    if (direct && rc == MPI_SUCCESS)
        rc = wait_readers(comm);
    refs_free(&fr);
    return rc;
}

/* The smallest partitioned allreduce between 2 ranks. The AMD development VM, Allreduce of
 * floats, unpartitioned against partitioned, A/B of 2-3 rounds per placement: with the
 * vCPUs close together 0.72-0.96x the time from 4 KiB to 256 KiB (1.00x at 1-2 KiB); far
 * apart 0.53-0.90x from 4 to 16 KiB but 1.12-1.24x from 32 KiB to 256 KiB. */
#define COLL_SPLIT_PAIR_MIN (32u << 10)

int coll_shm_reduce(const void *mine, void *out, uint64_t count, MPI_Datatype dt, MPI_Op op,
                    int root, int mode, MPI_Comm comm, ivc_coll_comm_t *cc)
{
    COUNT_CALL(mode == COLL_REDUCE ? COLL_CK_REDUCE : COLL_CK_ALLREDUCE);
    SHM_FT_ENTRY(comm);
    /* Partitioned from IVC_COLL_SPLIT_MIN bytes: an allreduce at any size, a reduce from 4
     * ranks (with fewer the root reads little more than the split would, in one round
     * instead of two) where IVC_COLL_REDUCE_SPLIT says. Between 2 ranks each reads the
     * other's whole contribution either way, and the split only adds a round and halves
     * the additions: from COLL_SPLIT_PAIR_MIN. */
    uint64_t split_min = ivc_coll.cfg.split_min;
    if (comm->size == 2 && split_min != 0 && split_min < COLL_SPLIT_PAIR_MIN)
        split_min = COLL_SPLIT_PAIR_MIN;
    if ((mode == COLL_ALLREDUCE ||
         (mode == COLL_REDUCE && comm->size >= 4 && ivc_coll.reduce_split)) &&
        split_min != 0 && count * dt->map.size >= split_min &&
        ivc_coll.cfg.area / 2 >= DESC_LINE + coll_elem_bytes(dt))
        return allreduce_split(mine, out, count, dt, op, mode == COLL_REDUCE ? root : -1, comm, cc);
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    uint64_t esz = coll_elem_bytes(dt), bytes = count * dt->map.size;
    uint64_t step = ivc_coll.cfg.area / esz * esz;
    if (bytes == 0 || step == 0)
        return bytes == 0 ? MPI_SUCCESS : MPI_ERR_INTERN;
    fold_refs_t fr;
    int nomem = refs_init(&fr, n) != 0;
    const uint8_t **src = fr.src;
    uint64_t *want = fr.want;
    /* With checks on, our contribution is read from a private copy (see allreduce_split). */
    uint8_t *own = own_buf();
    if (nomem || (ivc_coll.verify && own == NULL)) {
        refs_free(&fr);
        return MPI_ERR_NO_MEM;
    }
    /* Which ranks this rank reads ([lo, hi]) and whether it publishes. */
    int lo = 0, hi = n - 1, pub;
    switch (mode) {
    case COLL_REDUCE:
        pub = me != root;
        if (me != root)
            lo = 0, hi = -1;
        break;
    case COLL_ALLREDUCE: pub = 1; break;
    case COLL_SCAN:
        pub = me < n - 1;
        hi = me;
        break;
    default: /* COLL_EXSCAN */
        pub = me < n - 1;
        hi = me - 1;
        break;
    }
    for (uint64_t off = 0; off < bytes && rc == MPI_SUCCESS; off += step) {
        uint64_t len = bytes - off < step ? bytes - off : step;
        uint64_t tag = next_tag(comm, cc);
        const uint8_t *my = (const uint8_t *)mine + off;
        uint8_t *o = hi >= lo ? (uint8_t *)out + off : NULL;
        if (pub) {
            if ((rc = wait_acks(comm, len, PUB_PLAIN)) != MPI_SUCCESS)
                break;
            pub_copy(data_of(ivc_coll.me), my, len);
            pub_sum(0, 0, tag, my, len);
            publish(tag, 1);
            /* Readers of our contribution. */
            for (int r = 0; r < n; r++) {
                if (r == me)
                    continue;
                if (mode == COLL_ALLREDUCE || (mode == COLL_REDUCE && r == root) ||
                    (mode >= COLL_SCAN && r > me))
                    owe(cc, r, 1);
            }
            my = data_of(ivc_coll.me); /* out may alias mine: read ours from the area */
        } else if (own == NULL && my == o && me != hi && lo <= me && me <= hi) {
            /* Our contribution would be overwritten by the first copy: keep it aside in
             * our own area (nobody reads it; we are not publishing). With checks on, the
             * private copy below serves instead. */
            if ((rc = wait_acks(comm, len, PUB_PLAIN)) != MPI_SUCCESS)
                break;
            memcpy(data_of(ivc_coll.me), my, len);
            my = data_of(ivc_coll.me);
        }
        if (hi < lo)
            continue;
        if (own != NULL) {
            memcpy(own, (const uint8_t *)mine + off, len);
            my = own;
        }
        /* Ranks [lo, seen) published this piece, and only they are acknowledged, also when
         * a wait gives up: acknowledgements are counts, so one for a piece a peer has not
         * published would count for its next publication (on this or a later
         * communicator), and its wait_acks() would let it overwrite that one while this
         * rank still reads it. */
        int seen = hi + 1;
        for (int r = lo; r <= hi && rc == MPI_SUCCESS; r++) {
            if (r == me) {
                src[r] = my;
                continue;
            }
            if ((rc = wait_tag(comm, cc, r, tag, len, PUB_PLAIN)) != MPI_SUCCESS)
                seen = r;
            want[r] = rc == MPI_SUCCESS ? sum_want(cc, r, 0) : 0;
            src[r] = data_of((uint32_t)cc->lidx[r]);
        }
        if (rc == MPI_SUCCESS)
            rc = fold(src, lo, hi, o, len / esz, len, dt, op,
                      hi - lo + 1 - (lo <= me && me <= hi));
        for (int r = lo; r <= hi && rc == MPI_SUCCESS; r++)
            if (r != me)
                rc = read_ok(comm, cc, r, want[r], 0, tag, src[r], len);
        for (int r = lo; r < seen; r++)
            if (r != me)
                ack(cc, r, 1);
    }
    refs_free(&fr);
    return rc;
}

/* ---- block exchanges ---- */

/* Pieces of one rank's block of blk bytes so that `per` of them fit in an area (a
 * descriptor, when operands lie in the heap, takes the place of the data: pub_src()). */
static uint64_t piece_bytes(uint64_t blk, uint64_t per)
{
    uint64_t p = ivc_coll.cfg.area / (per ? per : 1);
    p = p / IVC_CACHE_LINE * IVC_CACHE_LINE;
    if (p == 0)
        p = ivc_coll.cfg.area / (per ? per : 1);
    return p < blk ? p : blk;
}

int coll_shm_gather(const ivc_data_t *sd, ivc_data_t *rd, uint64_t blk, int root, int all,
                    MPI_Comm comm, ivc_coll_comm_t *cc)
{
    COUNT_CALL(COLL_CK_GATHER);
    SHM_FT_ENTRY(comm);
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    int reader = all || me == root;
    if (blk == 0)
        return MPI_SUCCESS;
    uint64_t step = piece_bytes(blk, 1);
    int pub = all || me != root;
    /* Our block, when it is contiguous and lies in our heap, is read where it lies (see
     * "operands in the shared heap"): in place it is block `me` of the receive buffer, which
     * this rank does not write during the operation. */
    const ivc_data_t *od = sd != NULL ? sd : rd;
    uint64_t ooff = sd != NULL ? 0 : (uint64_t)me * blk, hoff = 0;
    const uint8_t *obuf = (const uint8_t *)od->buf + ooff;
    /* A rooted gather of small blocks keeps them in the area, so that the others need not
     * wait for the root before returning (as for a broadcast, up to one chunk). */
    int direct = pub && (all || blk > ivc_coll.cfg.chunk) && ivc_data_contig(od) &&
                 direct_ok(obuf, blk, &hoff);
    for (uint64_t off = 0; off < blk && rc == MPI_SUCCESS; off += step) {
        uint64_t len = blk - off < step ? blk - off : step;
        uint64_t tag = next_tag(comm, cc);
        uint64_t room = pub_room(len); /* the block, or (direct) a descriptor: pub_src() */
        if (pub) {
            if ((rc = wait_acks(comm, room, PUB_PLAIN)) != MPI_SUCCESS)
                break;
            if (direct) {
                desc_put(1, hoff, blk);
                pub_sum(0, 0, tag, obuf + off, len);
            } else {
                pub_put(od, ooff + off, data_of(ivc_coll.me), len, 0, 0, tag);
            }
            publish(tag, direct ? FILL_DIRECT : FILL_DATA);
            if (all)
                owe_all(comm, cc, 1);
            else
                owe(cc, root, 1);
        }
        if (!reader)
            continue;
        /* Our own piece, straight from the send buffer (absent when in place), while the
         * others read ours. */
        if (sd != NULL && (rc = data_copy(sd, off, rd, (uint64_t)me * blk + off, len)) != 0)
            break;
        for (int i = 1; i < n && rc == MPI_SUCCESS; i++) {
            int r = (me + i) % n;
            if ((rc = wait_tag(comm, cc, r, tag, room, PUB_PLAIN)) != MPI_SUCCESS)
                break;
            const uint8_t *from = pub_src(comm, cc, r, off, len, 0);
            if (from == NULL) {
                rc = MPI_ERR_PROC_FAILED;
                break;
            }
            rc = read_copy(comm, cc, r, 0, 0, tag, rd, (uint64_t)r * blk + off, from, len);
            ack(cc, r, 1);
        }
    }
    /* Our buffer is the program's again when we return: every reader must be done. */
    if (direct && rc == MPI_SUCCESS)
        rc = wait_readers(comm);
    return rc;
}

int coll_shm_scatter(const ivc_data_t *sd, ivc_data_t *rd, uint64_t blk, int root, MPI_Comm comm,
                     ivc_coll_comm_t *cc)
{
    COUNT_CALL(COLL_CK_SCATTER);
    SHM_FT_ENTRY(comm);
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    if (blk == 0)
        return MPI_SUCCESS;
    if (me == root && rd != NULL && (rc = data_copy(sd, (uint64_t)me * blk, rd, 0, blk)) != 0)
        return rc;
    uint64_t step = piece_bytes(blk, (uint64_t)n);
    for (uint64_t off = 0; off < blk && rc == MPI_SUCCESS; off += step) {
        uint64_t len = blk - off < step ? blk - off : step;
        uint64_t tag = next_tag(comm, cc);
        if (me == root) {
            if ((rc = wait_acks(comm, (uint64_t)n * len, PUB_PLAIN)) != MPI_SUCCESS)
                break;
            for (int r = 0; r < n; r++)
                if (r != root)
                    pub_put(sd, (uint64_t)r * blk + off, data_of(ivc_coll.me) + r * len, len,
                            (uint64_t)r, (uint64_t)r, tag);
            publish(tag, 1);
            owe_all(comm, cc, 1);
            continue;
        }
        if ((rc = wait_tag(comm, cc, root, tag, (uint64_t)n * len, PUB_PLAIN)) != MPI_SUCCESS)
            break;
        rc = read_copy(comm, cc, root, (uint64_t)me, (uint64_t)me, tag, rd, off,
                       data_of((uint32_t)cc->lidx[root]) + me * len, len);
        ack(cc, root, 1);
    }
    return rc;
}

int coll_shm_alltoall(const ivc_data_t *sd, ivc_data_t *rd, uint64_t blk, MPI_Comm comm,
                      ivc_coll_comm_t *cc)
{
    COUNT_CALL(COLL_CK_ALLTOALL);
    SHM_FT_ENTRY(comm);
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    int inplace = sd->buf == rd->buf;
    if (blk == 0)
        return MPI_SUCCESS;
    /* Our send buffer, when it lies in our heap, is read where it lies. */
    uint64_t hoff = 0;
    int direct = !inplace && ivc_data_contig(sd) && direct_ok(sd->buf, (uint64_t)n * blk, &hoff);
    uint64_t step = piece_bytes(blk, (uint64_t)n);
    for (uint64_t off = 0; off < blk && rc == MPI_SUCCESS; off += step) {
        uint64_t len = blk - off < step ? blk - off : step;
        uint64_t tag = next_tag(comm, cc);
        /* Our blocks, or (direct) only a descriptor where they would lie: `filled` tells
         * the readers which, so data needs no descriptor before it. */
        uint64_t room = pub_room((uint64_t)n * len);
        if ((rc = wait_acks(comm, room, PUB_PLAIN)) != MPI_SUCCESS)
            break;
        /* In place our own block goes through the area too, since the receive buffer is
         * about to be overwritten. */
        uint8_t *area = data_of(ivc_coll.me);
        if (direct)
            desc_put(1, hoff, (uint64_t)n * blk);
        /* Backwards: the block in the tag's line last (head_bytes()). */
        for (int r = n - 1; r >= 0; r--)
            if (r != me || inplace) {
                if (direct)
                    pub_sum((uint64_t)r, (uint64_t)r, tag,
                            (const uint8_t *)sd->buf + (uint64_t)r * blk + off, len);
                else
                    pub_put(sd, (uint64_t)r * blk + off, area + r * len, len, (uint64_t)r,
                            (uint64_t)r, tag);
            }
        publish(tag, direct ? FILL_DIRECT : FILL_DATA);
        owe_all(comm, cc, 1);
        if (inplace)
            ivc_data_unpack(rd, (uint64_t)me * blk + off, area + me * len, len);
        else if ((rc = data_copy(sd, (uint64_t)me * blk + off, rd, (uint64_t)me * blk + off,
                                 len)) != MPI_SUCCESS)
            break;
        for (int i = 1; i < n && rc == MPI_SUCCESS; i++) {
            int r = (me + i) % n;
            if ((rc = wait_tag(comm, cc, r, tag, room, PUB_PLAIN)) != MPI_SUCCESS)
                break;
            const uint8_t *from =
                pub_src(comm, cc, r, (uint64_t)me * blk + off, len, (uint64_t)me * len);
            if (from == NULL) {
                rc = MPI_ERR_PROC_FAILED;
                break;
            }
            rc = read_copy(comm, cc, r, (uint64_t)me, (uint64_t)me, tag, rd, (uint64_t)r * blk + off,
                           from, len);
            ack(cc, r, 1);
        }
    }
    /* Our buffer is the program's again when we return: every reader must be done. */
    if (direct && rc == MPI_SUCCESS)
        rc = wait_readers(comm);
    return rc;
}
