/* One-sided data movement: Put, Get, Accumulate, Get_accumulate, Fetch_and_op,
 * Compare_and_swap, over direct loads and stores or active messages (see rma_impl.h), and
 * the target side of the active messages.
 *
 * Everything a peer sends is untrusted: the handler copies the header once, checks the
 * window id, the sender's membership, kinds, lengths, element sizes and that every byte
 * touched lies inside the window (or an attached range of a dynamic window). A bad message
 * is dropped with a log line; the sender may break its own epochs, never this rank. */
#include "rma/rma_impl.h"
#include "rma/rma_wait.h"

#include "base/ivc_log.h"

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- element sizes of the basic kinds (the target trusts only this table) ---- */

static const uint8_t basic_size[B_COUNT_KINDS] = {
    [B_CHAR] = 1,
    [B_SCHAR] = 1,
    [B_UCHAR] = 1,
    [B_BYTE] = 1,
    [B_WCHAR] = sizeof(wchar_t),
    [B_SHORT] = sizeof(short),
    [B_USHORT] = sizeof(short),
    [B_INT] = sizeof(int),
    [B_UINT] = sizeof(int),
    [B_LONG] = sizeof(long),
    [B_ULONG] = sizeof(long),
    [B_LLONG] = sizeof(long long),
    [B_ULLONG] = sizeof(long long),
    [B_FLOAT] = sizeof(float),
    [B_DOUBLE] = sizeof(double),
    [B_LDOUBLE] = sizeof(long double),
    [B_BOOL] = sizeof(bool),
    [B_I8] = 1,
    [B_I16] = 2,
    [B_I32] = 4,
    [B_I64] = 8,
    [B_U8] = 1,
    [B_U16] = 2,
    [B_U32] = 4,
    [B_U64] = 8,
    [B_AINT] = sizeof(MPI_Aint),
    [B_OFFSET] = sizeof(MPI_Offset),
    [B_COUNT] = sizeof(MPI_Count),
    [B_CFLOAT] = sizeof(float complex),
    [B_CDOUBLE] = sizeof(double complex),
    [B_CLDOUBLE] = sizeof(long double complex),
    [B_PACKED] = 1,
    [B_FLOAT_INT] = sizeof(float_int_t),
    [B_DOUBLE_INT] = sizeof(double_int_t),
    [B_LONG_INT] = sizeof(long_int_t),
    [B_2INT] = sizeof(int2_t),
    [B_SHORT_INT] = sizeof(short_int_t),
    [B_LDOUBLE_INT] = sizeof(ldouble_int_t),
    [B_2FLOAT] = sizeof(float2_t),
    [B_2DOUBLE] = sizeof(double2_t),
    [B_I128] = sizeof(ivc_i128_t),
    [B_FLOAT128] = sizeof(ivc_f128_t),
    [B_CFLOAT128] = sizeof(ivc_c128_t),
};

static MPI_Op const op_by_id[OP_USER] = {
    [OP_MAX] = MPI_MAX,         [OP_MIN] = MPI_MIN,       [OP_SUM] = MPI_SUM,
    [OP_PROD] = MPI_PROD,       [OP_LAND] = MPI_LAND,     [OP_BAND] = MPI_BAND,
    [OP_LOR] = MPI_LOR,         [OP_BOR] = MPI_BOR,       [OP_LXOR] = MPI_LXOR,
    [OP_BXOR] = MPI_BXOR,       [OP_MAXLOC] = MPI_MAXLOC, [OP_MINLOC] = MPI_MINLOC,
    [OP_REPLACE] = MPI_REPLACE, [OP_NO_OP] = MPI_NO_OP,
};

/* inout = in op inout over `bytes` of basic kind `basic`. Returns MPI_SUCCESS or
 * MPI_ERR_OP. */
static int apply(int opid, const void *in, void *inout, uint64_t bytes, int basic)
{
    if (opid == OP_REPLACE) {
        memmove(inout, in, bytes);
        return MPI_SUCCESS;
    }
    if (opid == OP_NO_OP)
        return MPI_SUCCESS;
    return ivc_mpi_op_apply(op_by_id[opid], in, inout, bytes / basic_size[basic], basic);
}

/* ---- lock words ---- */

/* Whether world rank r is known to have failed: through the MPI layer's record, or
 * straight from the coordinator (the AM handler cannot wait for progress to tell it). */
static int rank_failed(uint64_t r)
{
    return r < (uint64_t)ivc_mpi_world_size &&
           (ivc_mpi_peer_failed((int)r) || ivc_coord_peer_failed((uint32_t)r));
}

/* A lock word of the control block of world rank `owner`'s window holds what no rank
 * could have written (another writer changed it): a waiter would wait forever. The owner
 * is declared failed (its window is unusable to everyone) and the call fails; in this
 * rank's own block, it cannot go on serving the window and ends with the reason. */
static int ctl_broken(int owner, const char *word)
{
    char why[160];
    snprintf(why, sizeof(why),
             "the %s of rank %d's window control block holds a value no rank writes "
             "(overwritten by another writer)",
             word, owner);
    if (owner == ivc_mpi_world_rank)
        ivc_mpi_die(MPI_ERR_OTHER, why);
    ivc_error("%s", why);
    ivc_coord_peer_broke((uint32_t)owner, "window lock word");
    return MPI_ERR_PROC_FAILED;
}

/* Whether a passive-target lock word could have been written by the protocol: an
 * exclusive holder's name exactly when the exclusive bit is set, nothing else. */
static int lock_word_sane(uint64_t v)
{
    uint64_t holder = (v & WIN_LOCK_OWNER_MASK) >> 32;
    if (v & 0xffffffffull)
        return 0;
    return (v & WIN_LOCK_EXCL) ? holder >= 1 && holder <= (uint64_t)ivc_mpi_world_size
                               : holder == 0;
}

/* Whether the shared-holder record names only ranks that exist. */
static int shared_sane(ivc_win_ctl_t *c)
{
    uint64_t words = WIN_CTL_WORDS(ivc_mpi_world_size), tail = ivc_mpi_world_size % 64;
    return tail == 0 || (ivc_load_relaxed(&c->shared[words - 1]) >> tail) == 0;
}

/* acc_lock's re-check before it sleeps: the word is free, or holds what its periodic
 * checks must look at (a name that is no live holder's, or garbage). */
static int acc_ready(void *arg)
{
    ivc_win_ctl_t *c = arg;
    uint64_t v = ivc_load_relaxed(&c->acc);
    return v == 0 || v == (uint64_t)ivc_mpi_world_rank + 1 || v > (uint64_t)ivc_mpi_world_size ||
           rank_failed(v - 1);
}

/* Waits without driving progress: safe inside the AM handler. Spins, yields, then sleeps
 * (rma_wait.h: acc_unlock rings), as the waiting policy says. A holder never waits for
 * anything while it holds the accumulate lock, so this ends unless the holder died: then
 * the lock is taken over from it (rma_impl.h), or the job's abort word ends the wait (the
 * failure detector and an aborting rank ring this rank). A word that names no rank, or
 * names this one (it holds no accumulate lock while it waits for one), was written by
 * someone else: this one is taken over, the other fails the call (ctl_broken). Returns
 * MPI_SUCCESS with the lock held, or an error class. */
static int acc_lock_wait(ivc_win_ctl_t *c, int owner, int *counted)
{
    uint64_t me = (uint64_t)ivc_mpi_world_rank + 1;
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, NULL, NULL);
    for (uint32_t n = 0;; n++) {
        uint64_t exp = 0;
        if (ivc_load_relaxed(&c->acc) == 0 && ivc_cas(&c->acc, &exp, me)) /* L2 acquire */
            return MPI_SUCCESS;
        int slept = 0;
        if (ivc_backoff_idle(&b)) {
            if (!*counted)
                *counted = rma_waiters_enter(&c->acc_waiters);
            ivc_coord_sleep(acc_ready, c);
            ivc_backoff_reset(&b);
            slept = 1;
        }
        /* The checks below, now and then, and after every sleep (a wake-up may be the
         * failure detector's or an abort's). */
        if ((n & 1023) != 1023 && !slept)
            continue;
        uint32_t rank;
        int code;
        if (ivc_coord_aborted(&rank, &code))
            ivc_mpi_die(code, "the job was aborted while waiting for an accumulate lock");
        exp = ivc_load_relaxed(&c->acc);
        if (exp == me)
            return MPI_SUCCESS; /* our name, not our hold: it is ours now */
        if (exp > (uint64_t)ivc_mpi_world_size)
            return ctl_broken(owner, "accumulate lock word");
        if (exp != 0 && rank_failed(exp - 1) && ivc_cas(&c->acc, &exp, me)) /* L2 acquire */
            return MPI_SUCCESS;
    }
}

static int acc_lock(ivc_win_ctl_t *c, int owner)
{
    int counted = 0;
    int rc = acc_lock_wait(c, owner, &counted);
    rma_waiters_leave(&c->acc_waiters, counted);
    return rc;
}

static void acc_unlock(ivc_win_ctl_t *c)
{
    ivc_store_release(&c->acc, 0); /* L2: publishes the update; pairs with the next CAS */
    rma_waiters_kick(&c->acc_waiters);
}

/* Whether world rank `who` holds the lock of block c as `type` (per the block). */
static int lock_named(ivc_win_ctl_t *c, int type, int who)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        return ivc_load_relaxed(&c->lock) == (WIN_LOCK_EXCL | WIN_LOCK_OWNER(who));
    return (ivc_load_relaxed(&c->shared[who / 64]) >> (who % 64)) & 1;
}

/* Removes world rank `who`'s hold of block c as `type` (L1 release: publishes the holder's
 * stores to the next acquirer). Returns 1 if the block named it, 0 if it did not (then
 * nothing changed). */
static int lock_unname(ivc_win_ctl_t *c, int type, int who)
{
    int named;
    if (type == MPI_LOCK_EXCLUSIVE) {
        uint64_t exp = WIN_LOCK_EXCL | WIN_LOCK_OWNER(who);
        named = ivc_cas(&c->lock, &exp, 0);
    } else {
        uint64_t bit = 1ull << (who % 64);
        named = (atomic_fetch_and_explicit(&c->shared[who / 64], ~bit, memory_order_acq_rel) &
                 bit) != 0;
    }
    if (named)
        rma_waiters_kick(&c->lock_waiters); /* lockers may sleep until it frees */
    return named;
}

/* Releases the holds of ranks known to have failed (rma_impl.h): an exclusive hold or
 * reservation by CAS (it fails when the word changed meanwhile: another survivor recovered
 * it first, or it is held anew), and shared holds by clearing their bits. Whatever the dead
 * rank stored before dying stays. */
static void lock_recover(ivc_win_ctl_t *c)
{
    uint64_t v = ivc_load_relaxed(&c->lock);
    if ((v & WIN_LOCK_EXCL) && lock_word_sane(v)) {
        uint64_t owner = ((v & WIN_LOCK_OWNER_MASK) >> 32) - 1;
        if (rank_failed(owner) && lock_unname(c, MPI_LOCK_EXCLUSIVE, (int)owner))
            ivc_warn("released the exclusive window lock that failed rank %llu held",
                     (unsigned long long)owner);
    }
    for (uint64_t k = 0; k < WIN_CTL_WORDS(ivc_mpi_world_size); k++) {
        uint64_t bits = ivc_load_relaxed(&c->shared[k]);
        while (bits != 0) {
            uint64_t r = k * 64 + (uint64_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            if (rank_failed(r) && lock_unname(c, MPI_LOCK_SHARED, (int)r))
                ivc_warn("released the shared window lock that failed rank %llu held",
                         (unsigned long long)r);
        }
    }
}

/* Whether no rank holds the lock shared (S2's partner load: seq_cst). */
static int shared_empty(ivc_win_ctl_t *c)
{
    for (uint64_t k = 0; k < WIN_CTL_WORDS(ivc_mpi_world_size); k++)
        if (atomic_load_explicit(&c->shared[k], memory_order_seq_cst) != 0)
            return 0;
    return 1;
}

/* One attempt at the passive-target lock for world rank `who`. Returns 1 if taken; an
 * exclusive attempt may leave a reservation in who's name (taken on a later attempt once
 * the shared holders have left). */
static int lock_try(ivc_win_ctl_t *c, int type, int who)
{
    if (type == MPI_LOCK_EXCLUSIVE) {
        uint64_t mine = WIN_LOCK_EXCL | WIN_LOCK_OWNER(who), exp = 0;
        if (ivc_load_relaxed(&c->lock) == mine ||
            atomic_compare_exchange_strong_explicit(&c->lock, &exp, mine, memory_order_seq_cst,
                                                    memory_order_relaxed)) { /* S1 */
            if (shared_empty(c))
                return 1;
        }
    } else {
        uint64_t bit = 1ull << (who % 64);
        atomic_fetch_or_explicit(&c->shared[who / 64], bit, memory_order_seq_cst); /* S2 */
        if (!(atomic_load_explicit(&c->lock, memory_order_seq_cst) & WIN_LOCK_EXCL))
            return 1; /* L1 acquire: the seq_cst load sees the last exclusive release */
        /* back off: a writer holds or reserved it (and may sleep until the shared
         * holders, this transient one included, have left) */
        atomic_fetch_and_explicit(&c->shared[who / 64], ~bit, memory_order_release);
        rma_waiters_kick(&c->lock_waiters);
    }
    if (__builtin_expect(ivc_mpi_ft_state != 0, 0))
        lock_recover(c);
    return 0;
}

static void lock_release(ivc_win_ctl_t *c, int type, int who)
{
    /* A word that no longer names the holder was changed by another writer: the hold is
     * gone either way. */
    if (!lock_unname(c, type, who) && type == MPI_LOCK_EXCLUSIVE)
        ivc_warn("the window lock this rank held exclusively was overwritten (it holds "
                 "0x%llx)",
                 (unsigned long long)ivc_load_relaxed(&c->lock));
}

/* ---- waiting for replies ---- */

static struct {
    uint64_t seq;     /* of the request whose reply is awaited */
    int active, peer; /* world rank the reply must come from */
    void *dst;        /* AM_DATA: where the reply goes */
    uint64_t len;     /* AM_DATA: bytes expected */
    volatile int done;
    int granted; /* AM_LOCKED */
    int refused; /* AM_DATA with flags 1: the target found the access invalid */
} reply;
static uint64_t next_seq = 1;

/* A wait's ready() (ivc_wait.h): the awaited reply came (progress handles it; the reply
 * is a message, whose sender rings this rank when it sleeps). */
static int reply_ready(void *arg)
{
    (void)arg;
    return reply.done;
}

/* Sends h (+ payload) and waits for its reply; returns MPI_SUCCESS or a class. */
static int am_call(int world, am_hdr_t *h, const void *payload, uint64_t len, void *dst)
{
    reply.seq = h->cookie = next_seq++;
    reply.peer = world;
    reply.dst = dst;
    reply.len = h->rlen;
    reply.done = 0;
    reply.refused = 0;
    reply.active = 1;
    int rc = ivc_rma_am_send(world, h, payload, len);
    if (rc != MPI_SUCCESS) {
        reply.active = 0;
        return rc;
    }
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, reply_ready, NULL);
    while (!reply.done) {
        if (ivc_mpi_peer_failed(world)) {
            reply.active = 0;
            return MPI_ERR_PROC_FAILED;
        }
        ivc_mpi_poll(&b);
    }
    return reply.refused ? MPI_ERR_RMA_RANGE : MPI_SUCCESS;
}

/* ---- sending ---- */

typedef struct am_out {
    ivc_chan_op_t op;
    am_hdr_t h; /* followed by the payload */
} am_out_t;

static void am_out_done(ivc_chan_op_t *op, int status)
{
    if (status < 0)
        ivc_debug("an RMA message failed: %d", status);
    free(op);
}

int ivc_rma_am_send(int world, const am_hdr_t *h, const void *payload, uint64_t len)
{
    if (ivc_mpi_peer_failed(world))
        return MPI_ERR_PROC_FAILED;
    am_out_t *o = malloc(sizeof(*o) + len);
    if (o == NULL)
        return MPI_ERR_NO_MEM;
    o->h = *h;
    o->h.len = len;
    if (len > 0)
        memcpy(&o->h + 1, payload, len);
    memset(&o->op, 0, sizeof(o->op));
    o->op.env.ctx = IVC_RMA_CTX;
    o->op.env.src = ivc_mpi_world_rank;
    o->op.env.tag = (int32_t)h->kind;
    o->op.data.buf = &o->h;
    o->op.data.count = sizeof(am_hdr_t) + len;
    o->op.data.map = NULL;
    o->op.data.bytes = sizeof(am_hdr_t) + len;
    o->op.done = am_out_done;
    int rc = ivc_coord_send((uint32_t)world, &o->op);
    if (rc == 0)
        return MPI_SUCCESS; /* in flight: am_out_done frees it */
    free(o);
    return rc == 1 ? MPI_SUCCESS : ivc_mpi_errno_class(rc);
}

uint64_t ivc_rma_am_max_payload(int world)
{
    ivc_vc_t *vc = &ivc_coord.vcs[world];
    uint64_t lim = ivc_coord.shm_cfg.eager_limit;
    if (vc->ops == &ivc_shm_chan_ops)
        lim = ivc_shm_chan_eager_limit(vc->ep);
    if (lim < sizeof(am_hdr_t) + 64)
        return 64; /* then messages go by rendezvous, still handled in order of completion */
    return (lim - sizeof(am_hdr_t)) / 64 * 64;
}

/* ---- target side ---- */

static int win_rank_of(MPI_Win w, int world)
{
    for (int i = 0; i < w->comm->size; i++)
        if (w->comm->world[i] == world)
            return i;
    return -1;
}

/* Pointer to [disp, disp + len) of this rank's window memory, or NULL when any byte lies
 * outside it. In a dynamic window the range may run across attached ranges that adjoin
 * (the memory is contiguous then, whichever order they were attached in). */
static uint8_t *target_range(MPI_Win w, uint64_t disp, uint64_t len)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        uint64_t at = disp, left = len;
        for (;;) {
            win_attach_t *a = w->attached;
            while (a != NULL && !(at >= a->base && at - a->base <= a->size &&
                                  (at - a->base < a->size || left == 0)))
                a = a->next;
            if (a == NULL)
                return NULL;
            uint64_t avail = a->size - (at - a->base);
            if (left <= avail)
                return (uint8_t *)(uintptr_t)disp;
            at += avail; /* avail > 0 here: the next range must start where this one ends */
            left -= avail;
        }
    }
    if (disp > w->size || len > w->size - disp)
        return NULL;
    return (uint8_t *)w->base + disp;
}

static void reply_send(int peer, uint32_t kind, int win, uint64_t cookie, uint32_t flags,
                       const void *data, uint64_t len)
{
    am_hdr_t r = {.kind = kind, .win = win, .cookie = cookie, .flags = flags};
    int rc = ivc_rma_am_send(peer, &r, data, len);
    if (rc != MPI_SUCCESS)
        ivc_debug("RMA reply to rank %d failed (class %d)", peer, rc);
}

static void am_reply_in(int peer, const am_hdr_t *h, const uint8_t *data)
{
    if (!reply.active || h->cookie != reply.seq || peer != reply.peer) {
        ivc_debug("dropping a stray RMA reply from rank %d", peer);
        return;
    }
    if (h->kind == AM_DATA && h->flags == 1) {
        reply.refused = 1;
    } else if (h->kind == AM_DATA) {
        if (h->len != reply.len) {
            ivc_warn("rank %d sent %llu RMA reply bytes, %llu expected; dropped", peer,
                     (unsigned long long)h->len, (unsigned long long)reply.len);
            return;
        }
        memcpy(reply.dst, data, h->len);
    } else {
        reply.granted = h->flags == 1;
    }
    reply.active = 0;
    reply.done = 1;
}

static void am_ack_in(int peer, const am_hdr_t *h)
{
    MPI_Win w = ivc_rma_win_lookup(h->win);
    int t = w != NULL ? win_rank_of(w, peer) : -1;
    if (t < 0 || w->peers[t].pending == 0) {
        ivc_debug("dropping a stray RMA acknowledgement from rank %d", peer);
        return;
    }
    w->peers[t].pending--;
    if (h->flags == 1 && w->peers[t].err == 0)
        w->peers[t].err = MPI_ERR_RMA_RANGE;
}

static void am_apply(int peer, const am_hdr_t *hp, MPI_Win w, uint8_t *p, uint64_t span,
                     const uint8_t *data);

/* Handles one request at the target. */
static void am_handle(int peer, const uint8_t *msg, uint64_t msglen)
{
    am_hdr_t h;
    if (msglen < sizeof(h)) {
        ivc_warn("dropping a short RMA message from rank %d", peer);
        return;
    }
    memcpy(&h, msg, sizeof(h)); /* copied once, then validated */
    const uint8_t *data = msg + sizeof(h);
    if (h.len != msglen - sizeof(h) || h.kind == 0 || h.kind >= AM_KINDS) {
        ivc_warn("dropping a malformed RMA message from rank %d", peer);
        return;
    }
    if (h.kind == AM_ACK) {
        am_ack_in(peer, &h);
        return;
    }
    if (h.kind == AM_DATA || h.kind == AM_LOCKED) {
        am_reply_in(peer, &h, data);
        return;
    }
    MPI_Win w = ivc_rma_win_lookup(h.win);
    if (w == NULL || win_rank_of(w, peer) < 0) {
        ivc_warn("dropping an RMA message from rank %d for unknown window %d", peer, h.win);
        return;
    }
    int accum = h.kind == AM_ACC || h.kind == AM_GACC || h.kind == AM_CAS;
    uint64_t esz = 1;
    if (accum) {
        if (h.op < 0 || h.op >= OP_USER || h.basic < 0 || h.basic >= B_COUNT_KINDS ||
            basic_size[h.basic] == 0) {
            ivc_warn("dropping an RMA accumulate with a bad op or type from rank %d", peer);
            return;
        }
        esz = basic_size[h.basic];
    }
    uint64_t span = h.kind == AM_PUT || h.kind == AM_ACC ? h.len : h.rlen;
    uint8_t *p = NULL;
    if (h.kind != AM_LOCK && h.kind != AM_UNLOCK) {
        p = target_range(w, h.disp, span);
        int bad = p == NULL || span % esz != 0;
        if (h.kind == AM_GACC)
            bad |= h.op != OP_NO_OP && h.len != span;
        if (h.kind == AM_CAS)
            bad |= h.len != 2 * span || span != esz;
        if (h.kind == AM_GET || h.kind == AM_GACC || h.kind == AM_CAS)
            bad |= span > (1u << 30);
        if (bad) {
            /* Refused, not dropped: the origin must not wait forever for the answer. */
            ivc_debug("refusing an RMA access of %llu bytes at %llu from rank %d: outside "
                      "window %d or malformed",
                      (unsigned long long)span, (unsigned long long)h.disp, peer, h.win);
            int put = h.kind == AM_PUT || h.kind == AM_ACC;
            reply_send(peer, put ? AM_ACK : AM_DATA, h.win, h.cookie, 1, NULL, 0);
            return;
        }
    }
    /* Operands are read as their element type: a channel may deliver the payload at any
     * address (the network channel does), so an unaligned one is copied first. */
    void *aligned = NULL;
    if (accum && h.len > 0 && (uintptr_t)data % 16 != 0) {
        aligned = malloc(h.len);
        if (aligned == NULL)
            ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory serving an RMA request");
        memcpy(aligned, data, h.len);
        data = aligned;
    }
    am_apply(peer, &h, w, p, span, data);
    free(aligned);
}

/* Executes a validated request on window memory p (span bytes). */
static void am_apply(int peer, const am_hdr_t *hp, MPI_Win w, uint8_t *p, uint64_t span,
                     const uint8_t *data)
{
    am_hdr_t h = *hp;
    switch (h.kind) {
    case AM_PUT:
        memcpy(p, data, h.len);
        reply_send(peer, AM_ACK, h.win, h.cookie, 0, NULL, 0);
        return;
    case AM_ACC:
        acc_lock(w->ctl, ivc_mpi_world_rank); /* our own block: returns held or ends */
        apply(h.op, data, p, h.len, h.basic);
        acc_unlock(w->ctl);
        reply_send(peer, AM_ACK, h.win, h.cookie, 0, NULL, 0);
        return;
    case AM_GET: reply_send(peer, AM_DATA, h.win, h.cookie, 0, p, h.rlen); return;
    case AM_GACC:
    case AM_CAS: {
        uint8_t *old = malloc(span ? span : 1);
        if (old == NULL)
            ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory serving an RMA request");
        acc_lock(w->ctl, ivc_mpi_world_rank);
        memcpy(old, p, span);
        if (h.kind == AM_GACC)
            apply(h.op, data, p, span, h.basic);
        else if (memcmp(p, data, span) == 0)
            memcpy(p, data + span, span);
        acc_unlock(w->ctl);
        reply_send(peer, AM_DATA, h.win, h.cookie, 0, old, span);
        free(old);
        return;
    }
    case AM_LOCK: {
        int type = h.flags == MPI_LOCK_EXCLUSIVE ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
        int got = lock_try(w->ctl, type, peer);
        if (!got && (!lock_word_sane(ivc_load_relaxed(&w->ctl->lock)) || !shared_sane(w->ctl)))
            ctl_broken(ivc_mpi_world_rank, "passive-target lock word"); /* ends this rank */
        int t = win_rank_of(w, peer);
        if (t >= 0)
            w->peers[t].am_held = got ? type : lock_named(w->ctl, type, peer) ? AM_RESERVING : 0;
        reply_send(peer, AM_LOCKED, h.win, h.cookie, (uint32_t)got, NULL, 0);
        return;
    }
    case AM_UNLOCK: {
        /* Only a held lock can be released: a stray unlock must not free another's. */
        int type = h.flags == MPI_LOCK_EXCLUSIVE ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
        if (!lock_unname(w->ctl, type, peer))
            ivc_warn("rank %d released a lock of window %d it does not hold", peer, h.win);
        int t = win_rank_of(w, peer);
        if (t >= 0)
            w->peers[t].am_held = 0;
        /* Answered: the origin's epoch ends only once the lock is free, so no later
         * synchronization (a barrier through the region, Win_free) can overtake it. */
        reply_send(peer, AM_LOCKED, h.win, h.cookie, 1, NULL, 0);
        return;
    }
    default: return;
    }
}

typedef struct am_in {
    ivc_chan_op_t op;
    int peer;
    uint8_t buf[];
} am_in_t;

static void am_in_done(ivc_chan_op_t *op, int status)
{
    am_in_t *in = (am_in_t *)op;
    if (status == 0)
        am_handle(in->peer, in->buf, op->xfer);
    free(in);
}

void ivc_mpi_rma_on_message(ivc_inmsg_t *m)
{
    if (!m->rndv) {
        am_handle(m->peer, m->data, m->env.len);
        return;
    }
    /* Larger than the eager limit (a channel with a smaller one): pull it, then handle. */
    if (m->env.len > sizeof(am_hdr_t) + (1u << 30)) {
        ivc_warn("dropping an oversized RMA message from rank %d", m->peer);
        return;
    }
    am_in_t *in = malloc(sizeof(*in) + m->env.len);
    if (in == NULL)
        ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory receiving an RMA message");
    memset(&in->op, 0, sizeof(in->op));
    in->peer = m->peer;
    in->op.data.buf = in->buf;
    in->op.data.count = m->env.len;
    in->op.data.bytes = m->env.len;
    in->op.done = am_in_done;
    if (ivc_coord_recv_rndv(m, &in->op) < 0)
        free(in);
}

/* ---- origin side ---- */

/* A wait's ready(): every AM put/accumulate to the peer is acknowledged (the
 * acknowledgements are messages: their senders ring). */
static int flushed_ready(void *arg)
{
    return ((const win_peer_t *)arg)->pending == 0;
}

int ivc_rma_flush_am(MPI_Win w, int t)
{
    win_peer_t *p = &w->peers[t];
    if (p->pending == 0 && p->err == 0)
        return MPI_SUCCESS;
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, flushed_ready, p);
    while (p->pending > 0) {
        if (ivc_mpi_peer_failed(p->world))
            return MPI_ERR_PROC_FAILED;
        ivc_mpi_poll(&b);
    }
    int err = p->err;
    p->err = 0;
    return err;
}

/* What a locker waits for in block c (rma_lock). */
typedef struct lock_wait {
    ivc_win_ctl_t *c;
    int type, who;
} lock_wait_t;

/* A locker's ready() (ivc_wait.h), read before it sleeps and by an AM locker before it asks
 * again: whether an attempt may now succeed (no exclusive holder or reservation for a
 * shared lock; a free word, or this rank's reservation with the shared holders gone, for
 * an exclusive one), or the block holds what the locker's checks must see (damage). */
static int lock_ready(void *arg)
{
    const lock_wait_t *lw = arg;
    ivc_win_ctl_t *c = lw->c;
    uint64_t v = atomic_load_explicit(&c->lock, memory_order_seq_cst);
    if (!lock_word_sane(v) || !shared_sane(c))
        return 1;
    if (lw->type == MPI_LOCK_SHARED)
        return !(v & WIN_LOCK_EXCL);
    return v == 0 || (v == (WIN_LOCK_EXCL | WIN_LOCK_OWNER(lw->who)) && shared_empty(c));
}

/* Sleeps until the lock frees (rma_wait.h: its freers ring) when this rank can read the
 * target's control block: directly, or as an AM origin co-located with a block in the
 * region (then it asks again only once lock_ready() says it may succeed, instead of a
 * request per poll). A block it cannot read (on another host, or in the target's private
 * memory when the region was full) has no count to join: that wait yields and retries,
 * as before (a timed sleep would add up to IVC_WAIT_TIMEOUT to every contended lock). */
static int rma_lock_wait(MPI_Win w, win_peer_t *p, int type, ivc_win_ctl_t *c)
{
    lock_wait_t lw = {c, type, ivc_mpi_world_rank};
    ivc_backoff_t b;
    if (c != NULL)
        ivc_backoff_init_idle(&b, lock_ready, &lw);
    else
        ivc_backoff_init(&b);
    for (uint32_t tries = 0;;) {
        if (__builtin_expect(ivc_mpi_ft_state != 0, 0) && ivc_mpi_peer_failed(p->world))
            return MPI_ERR_PROC_FAILED; /* an epoch with a failed target fails */
        if (p->direct) {
            if (lock_try(p->ctl, type, ivc_mpi_world_rank))
                return MPI_SUCCESS;
            if (__builtin_expect((++tries & 1023) == 0, 0) &&
                (!lock_word_sane(ivc_load_relaxed(&p->ctl->lock)) || !shared_sane(p->ctl)))
                return ctl_broken(p->world, "passive-target lock word");
        } else {
            am_hdr_t h = {.kind = AM_LOCK, .win = w->id, .flags = (uint32_t)type};
            reply.granted = 0;
            int rc = am_call(p->world, &h, NULL, 0, NULL);
            if (rc != MPI_SUCCESS)
                return rc;
            if (reply.granted)
                return MPI_SUCCESS;
            if (c != NULL) {
                /* Refused: wait here for the word to free (the owner decides again). */
                while (!lock_ready(&lw) && !ivc_mpi_peer_failed(p->world))
                    ivc_mpi_poll(&b);
                continue;
            }
        }
        ivc_mpi_poll(&b);
    }
}

static int rma_lock(MPI_Win w, win_peer_t *p, int type)
{
    ivc_win_ctl_t *c = p->direct ? p->ctl : p->seen;
    int counted = c != NULL ? rma_waiters_enter(&c->lock_waiters) : 0;
    int rc = rma_lock_wait(w, p, type, c);
    rma_waiters_leave(c != NULL ? &c->lock_waiters : NULL, counted);
    return rc;
}

int ivc_rma_lock(MPI_Win w, int t, int type)
{
    win_peer_t *p = &w->peers[t];
    p->locking = 1; /* our reservation, not a stray name (ivc_mpi_rma_audit) */
    int rc = rma_lock(w, p, type);
    p->locking = 0;
    if (rc != MPI_SUCCESS && p->direct && type == MPI_LOCK_EXCLUSIVE)
        lock_unname(p->ctl, type, ivc_mpi_world_rank); /* a reservation left behind, if any */
    return rc;
}

int ivc_rma_unlock(MPI_Win w, int t, int type)
{
    win_peer_t *p = &w->peers[t];
    int rc = ivc_rma_flush_am(w, t);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p->direct) {
        lock_release(p->ctl, type, ivc_mpi_world_rank);
        /* The epoch with a target that failed meanwhile fails (the lock is released all the
         * same: its memory stays in the region). */
        if (__builtin_expect(ivc_mpi_ft_state != 0, 0) && ivc_mpi_peer_failed(p->world))
            return MPI_ERR_PROC_FAILED;
        return MPI_SUCCESS;
    }
    am_hdr_t h = {.kind = AM_UNLOCK, .win = w->id, .flags = (uint32_t)type};
    return am_call(p->world, &h, NULL, 0, NULL);
}

void ivc_mpi_rma_on_failure(int rank)
{
    /* This rank's own windows: release what the dead rank held (lockers elsewhere also do
     * it when they find the word held, lock_try). */
    for (int id = 0; id < IVC_MPI_ID_WORDS * 64; id++) {
        MPI_Win w = ivc_rma_win_lookup(id);
        if (w != NULL && w->ctl != NULL)
            lock_recover(w->ctl);
    }
    (void)rank;
}

/* A name of world rank `who` as holder in block c that `who` does not hold (held: the lock
 * type it holds there, or AM_RESERVING / its own locking in progress) was written by
 * another writer and would keep every locker waiting: cleared, with a warning. */
static void audit_names(ivc_win_ctl_t *c, int who, int held, int win)
{
    if (held == AM_RESERVING)
        return;
    static const int types[2] = {MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED};
    for (int i = 0; i < 2; i++) {
        if (held == types[i] || !lock_unname(c, types[i], who))
            continue;
        ivc_warn("a window control block (window %d) named rank %d as a%s lock holder it is "
                 "not (overwritten by another writer); cleared",
                 win, who, types[i] == MPI_LOCK_EXCLUSIVE ? "n exclusive" : " shared");
    }
}

/* The accumulate lock is never held across a poll (acc_lock .. acc_unlock bracket one local
 * update), and a rank on another host never takes it in its own name (its accumulates run
 * in the owner's): a name found while auditing is another writer's. */
static void audit_acc(ivc_win_ctl_t *c, int who, int win)
{
    uint64_t exp = (uint64_t)who + 1;
    if (ivc_load_relaxed(&c->acc) == exp && ivc_cas(&c->acc, &exp, 0)) {
        rma_waiters_kick(&c->acc_waiters);
        ivc_warn("a window control block (window %d) named rank %d as the accumulate lock "
                 "holder it is not (overwritten by another writer); cleared",
                 win, who);
    }
}

void ivc_mpi_rma_audit(void)
{
    for (int id = 0; id < IVC_MPI_ID_WORDS * 64; id++) {
        MPI_Win w = ivc_rma_win_lookup(id);
        if (w == NULL || w->magic != WIN_MAGIC || w->freeing)
            continue;
        for (int t = 0; t < w->comm->size; t++) {
            win_peer_t *p = &w->peers[t];
            /* This rank's name in every block it can read... */
            if (p->seen != NULL) {
                audit_acc(p->seen, ivc_mpi_world_rank, w->id);
                if (!p->locking)
                    audit_names(p->seen, ivc_mpi_world_rank, p->nocheck ? 0 : p->lock, w->id);
            }
            /* ...and, in its own block, the names of origins that cannot read it. */
            if (p->remote && w->ctl != NULL && !w->ctl_private) {
                audit_acc(w->ctl, p->world, w->id);
                audit_names(w->ctl, p->world, p->am_held, w->id);
            }
        }
    }
}

/* ---- the operations ---- */

enum { RMA_PUT, RMA_GET, RMA_ACC, RMA_GACC };

/* One RMA call, checked and resolved. */
typedef struct rma {
    MPI_Win w;
    win_peer_t *p;
    int kind, opid, basic;
    uint64_t bsize;
    uint8_t *src;     /* packed origin data (PUT, ACC, GACC) */
    uint8_t *dst;     /* packed result (GET, GACC) */
    uint64_t base;    /* target byte displacement of the target datatype's origin */
    MPI_Datatype tdt; /* target layout */
    int tcount;
} rma_t;

/* Calls fn for every contiguous piece of the target layout: (target byte displacement,
 * bytes, packed offset). Adjacent elements of a contiguous layout form one piece. */
static int for_each_piece(rma_t *r, int (*fn)(rma_t *, int64_t, uint64_t, uint64_t))
{
    const ivc_typemap_t *m = &r->tdt->map;
    if (r->tcount == 0 || m->size == 0)
        return MPI_SUCCESS;
    if (m->nblocks == 1 && (int64_t)m->blocks[0].len == m->extent)
        return fn(r, m->blocks[0].disp, (uint64_t)r->tcount * m->size, 0);
    uint64_t off = 0;
    for (int i = 0; i < r->tcount; i++) {
        for (uint64_t b = 0; b < m->nblocks; b++) {
            int rc = fn(r, (int64_t)i * m->extent + m->blocks[b].disp, m->blocks[b].len, off);
            if (rc != MPI_SUCCESS)
                return rc;
            off += m->blocks[b].len;
        }
    }
    return MPI_SUCCESS;
}

static int piece_direct(rma_t *r, int64_t d, uint64_t len, uint64_t off)
{
    int64_t at = (int64_t)r->base + d;
    if (r->w->flavor != MPI_WIN_FLAVOR_DYNAMIC &&
        (at < 0 || (uint64_t)at > r->p->size || len > r->p->size - (uint64_t)at))
        return MPI_ERR_RMA_RANGE;
    /* A dynamic window is reached directly only by its own rank: its attached ranges. */
    if (r->w->flavor == MPI_WIN_FLAVOR_DYNAMIC && target_range(r->w, (uint64_t)at, len) == NULL)
        return MPI_ERR_RMA_RANGE;
    uint8_t *t = r->w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (uint8_t *)(intptr_t)at : r->p->base + at;
    switch (r->kind) {
    case RMA_PUT: memcpy(t, r->src + off, len); return MPI_SUCCESS;
    case RMA_GET: memcpy(r->dst + off, t, len); return MPI_SUCCESS;
    case RMA_ACC: return apply(r->opid, r->src + off, t, len, r->basic);
    default:
        memcpy(r->dst + off, t, len);
        return apply(r->opid, r->src ? r->src + off : NULL, t, len, r->basic);
    }
}

static int piece_am(rma_t *r, int64_t d, uint64_t len, uint64_t off)
{
    int64_t at = (int64_t)r->base + d;
    if (r->w->flavor != MPI_WIN_FLAVOR_DYNAMIC &&
        (at < 0 || (uint64_t)at > r->p->size || len > r->p->size - (uint64_t)at))
        return MPI_ERR_RMA_RANGE;
    uint64_t max = ivc_rma_am_max_payload(r->p->world);
    if (r->bsize > 1)
        max = max / r->bsize * r->bsize;
    if (max == 0)
        max = r->bsize;
    static const uint32_t kinds[] = {AM_PUT, AM_GET, AM_ACC, AM_GACC};
    for (uint64_t c = 0; c < len || (len == 0 && c == 0); c += max) {
        uint64_t n = len - c < max ? len - c : max;
        am_hdr_t h = {.kind = kinds[r->kind],
                      .win = r->w->id,
                      .disp = (uint64_t)at + c,
                      .op = r->opid,
                      .basic = r->basic};
        int rc;
        switch (r->kind) {
        case RMA_PUT:
        case RMA_ACC:
            rc = ivc_rma_am_send(r->p->world, &h, r->src + off + c, n);
            if (rc == MPI_SUCCESS)
                r->p->pending++;
            break;
        case RMA_GET:
            h.rlen = n;
            rc = am_call(r->p->world, &h, NULL, 0, r->dst + off + c);
            break;
        default:
            h.rlen = n;
            rc = am_call(r->p->world, &h, r->opid == OP_NO_OP ? NULL : r->src + off + c,
                         r->opid == OP_NO_OP ? 0 : n, r->dst + off + c);
            break;
        }
        if (rc != MPI_SUCCESS)
            return rc;
        if (len == 0)
            break;
    }
    return MPI_SUCCESS;
}

static int check_dt(MPI_Datatype dt)
{
    return ivc_mpi_dt_valid(dt) && dt->committed;
}

/* Common checks: window, epoch-independent arguments, target rank. Sets *p (NULL for
 * MPI_PROC_NULL). Returns MPI_SUCCESS or an error class. */
static int rma_check(MPI_Win w, int target, int ocount, MPI_Datatype odt, int tcount,
                     MPI_Datatype tdt, MPI_Aint tdisp, win_peer_t **p)
{
    if (ocount < 0 || tcount < 0)
        return MPI_ERR_COUNT;
    if ((ocount > 0 && !check_dt(odt)) || (tcount > 0 && !check_dt(tdt)))
        return MPI_ERR_TYPE;
    if (target == MPI_PROC_NULL) {
        *p = NULL;
        return MPI_SUCCESS;
    }
    if (target < 0 || target >= w->comm->size)
        return MPI_ERR_RANK;
    if (tdisp < 0 && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return MPI_ERR_DISP;
    *p = &w->peers[target];
    /* An access needs an epoch that covers the target: its lock (lock_all sets every
     * peer's), a fence epoch, or a PSCW access epoch. */
    if (__builtin_expect(!(*p)->lock && !w->fence && w->start_group == NULL, 0))
        return MPI_ERR_RMA_SYNC;
    /* The byte displacement must not wrap (it would land inside the window by accident). */
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC && (*p)->disp_unit > 0 &&
        (uint64_t)tdisp > (uint64_t)INT64_MAX / (*p)->disp_unit)
        return MPI_ERR_RMA_RANGE;
    return MPI_SUCCESS;
}

/* Runs r over its target: direct pieces under the accumulate lock when needed, or AMs. */
static int rma_run(rma_t *r)
{
    if (!r->p->direct)
        return for_each_piece(r, piece_am);
    int locked = r->kind == RMA_ACC || r->kind == RMA_GACC;
    int rc = locked ? acc_lock(r->p->ctl, r->p->world) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return rc;
    rc = for_each_piece(r, piece_direct);
    if (locked)
        acc_unlock(r->p->ctl);
    return rc;
}

/* ---- (value, index) pairs whose C struct is larger than their packed form ----
 * MPI_DOUBLE_INT packs 12 bytes (the double, then the int) but occupies a 16-byte
 * double_int_t in memory, and MPI_SHORT_INT's int sits 2 bytes after its short: the target
 * type's blocks split such pairs or leave padding, so an accumulate cannot run block by
 * block. Instead the origin spreads its operands into native structs and runs over whole
 * elements of the target layout, grouped into runs of adjacent structs; a target then
 * applies the operation to native structs (basic_size[] is the struct's size), and fetched
 * structs are packed back. */

/* Size of the native struct of a pair kind that needs this (0 for any other kind), the
 * packed bytes of its value and the offset of its index in the struct. */
static uint64_t pair_native(int basic, uint64_t *vsz, uint64_t *ioff)
{
#define PAIR(K, S, V)                                                                              \
    case K: *vsz = sizeof(V), *ioff = offsetof(S, i); return sizeof(S);
    switch (basic) {
        PAIR(B_DOUBLE_INT, double_int_t, double)
        PAIR(B_LONG_INT, long_int_t, long)
        PAIR(B_SHORT_INT, short_int_t, short)
        PAIR(B_LDOUBLE_INT, ldouble_int_t, long double)
    default: return 0;
    }
#undef PAIR
}

/* Displacement in the target layout (tcount elements of map) of packed byte P; `c` is a
 * cursor that only moves forward (P must not decrease between calls). */
typedef struct map_cursor {
    const ivc_typemap_t *m;
    uint64_t elem, block, at; /* `at`: packed offset where (elem, block) starts */
} map_cursor_t;

static int64_t cursor_disp(map_cursor_t *c, uint64_t P)
{
    for (;;) {
        const ivc_block_t *b = &c->m->blocks[c->block];
        if (P < c->at + b->len)
            return (int64_t)c->elem * c->m->extent + b->disp + (int64_t)(P - c->at);
        c->at += b->len;
        if (++c->block == c->m->nblocks) {
            c->block = 0;
            c->elem++;
        }
    }
}

/* rma_run for a pair kind of native size nsz: n elements, packed psz bytes each. */
static int rma_run_pairs(rma_t *r, uint64_t n, uint64_t nsz, uint64_t vsz, uint64_t ioff)
{
    uint64_t psz = vsz + sizeof(int);
    uint8_t *psrc = r->src, *pdst = r->dst, *nsrc = NULL, *ndst = NULL;
    if (psrc != NULL && (nsrc = calloc(n, nsz)) == NULL)
        return MPI_ERR_NO_MEM;
    if (pdst != NULL && (ndst = malloc(n * nsz)) == NULL) {
        free(nsrc);
        return MPI_ERR_NO_MEM;
    }
    for (uint64_t i = 0; nsrc != NULL && i < n; i++) {
        memcpy(nsrc + i * nsz, psrc + i * psz, vsz);
        memcpy(nsrc + i * nsz + ioff, psrc + i * psz + vsz, sizeof(int));
    }
    r->src = nsrc;
    r->dst = ndst;
    int (*fn)(rma_t *, int64_t, uint64_t, uint64_t) = r->p->direct ? piece_direct : piece_am;
    int rc = r->p->direct ? acc_lock(r->p->ctl, r->p->world) : MPI_SUCCESS;
    int locked = r->p->direct && rc == MPI_SUCCESS;
    map_cursor_t c = {&r->tdt->map, 0, 0, 0};
    uint64_t first = 0; /* the run: elements [first, i) from displacement d0 */
    int64_t d0 = cursor_disp(&c, 0);
    for (uint64_t i = 1; i <= n && rc == MPI_SUCCESS; i++) {
        int64_t d = i < n ? cursor_disp(&c, i * psz) : 0;
        if (i < n && d == d0 + (int64_t)((i - first) * nsz))
            continue;
        rc = fn(r, d0, (i - first) * nsz, first * nsz);
        first = i;
        d0 = d;
    }
    if (locked)
        acc_unlock(r->p->ctl);
    for (uint64_t i = 0; rc == MPI_SUCCESS && ndst != NULL && i < n; i++) {
        memcpy(pdst + i * psz, ndst + i * nsz, vsz);
        memcpy(pdst + i * psz + vsz, ndst + i * nsz + ioff, sizeof(int));
    }
    r->src = psrc;
    r->dst = pdst;
    free(nsrc);
    free(ndst);
    return rc;
}

/* Packs count elements of dt at buf, or points at them when contiguous; *tmp gets what to
 * free. Returns NULL without memory. */
static uint8_t *packed(const void *buf, int count, MPI_Datatype dt, void **tmp)
{
    *tmp = NULL;
    if (count == 0 || dt->map.contig)
        return (uint8_t *)buf;
    ivc_data_t d;
    ivc_mpi_data(&d, buf, count, dt);
    *tmp = malloc(d.bytes ? d.bytes : 1);
    if (*tmp != NULL)
        ivc_data_pack(&d, 0, *tmp, d.bytes);
    return *tmp;
}

static int raise_w(MPI_Win w, int rc, const char *fn, int target)
{
    const char *why = rc == MPI_ERR_RMA_RANGE  ? "the access lies outside the target's window"
                      : rc == MPI_ERR_OP       ? "the operation is not defined on this datatype"
                      : rc == MPI_ERR_BUFFER   ? "NULL origin or result buffer with data"
                      : rc == MPI_ERR_RMA_SYNC ? "no access epoch covers the target"
                                               : "invalid argument or failed target";
    return ivc_mpi_raise(w->comm, rc, fn, "target %d: %s", target, why);
}

/* Put and Get: rma_check; a NULL origin buffer with data is MPI_ERR_BUFFER (also to
 * MPI_PROC_NULL; NULL is MPI_BOTTOM too, dtype.h); then origin and target must move the same
 * bytes (*bytes), at byte offset *base of the target's window. *at is the target address
 * when the transfer is the common case (contiguous on both sides, a target in reach, at
 * least one byte) and fits the window, else NULL: the general path. *p is NULL for
 * MPI_PROC_NULL. Returns MPI_SUCCESS or a class. */
static int xfer_check(MPI_Win w, const void *origin, int target, int ocount, MPI_Datatype odt,
                      int tcount, MPI_Datatype tdt, MPI_Aint tdisp, win_peer_t **p, uint64_t *bytes,
                      uint64_t *base, uint8_t **at)
{
    *at = NULL;
    int rc = rma_check(w, target, ocount, odt, tcount, tdt, tdisp, p);
    if (rc == MPI_SUCCESS && ivc_mpi_dt_null_buf(origin, ocount, odt))
        rc = MPI_ERR_BUFFER;
    if (rc != MPI_SUCCESS || *p == NULL)
        return rc;
    uint64_t obytes = ocount ? (uint64_t)ocount * odt->map.size : 0;
    uint64_t tbytes = tcount ? (uint64_t)tcount * tdt->map.size : 0;
    if (obytes != tbytes)
        return MPI_ERR_COUNT;
    int dynamic = w->flavor == MPI_WIN_FLAVOR_DYNAMIC;
    *bytes = obytes;
    *base = dynamic ? (uint64_t)tdisp : (uint64_t)tdisp * (*p)->disp_unit;
    if ((*p)->direct && odt->map.contig && tdt->map.contig && !dynamic) {
        if (*base > (*p)->size || obytes > (*p)->size - *base)
            return MPI_ERR_RMA_RANGE;
        if (obytes > 0) /* (an empty window may have no memory) */
            *at = (*p)->base + *base;
    }
    return MPI_SUCCESS;
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win)
{
    const char *fn = "MPI_Put";
    CHECK_WIN(win, fn);
    win_peer_t *p;
    uint64_t obytes, base;
    uint8_t *at;
    int rc = xfer_check(win, origin_addr, target_rank, origin_count, origin_datatype, target_count,
                        target_datatype, target_disp, &p, &obytes, &base, &at);
    if (rc != MPI_SUCCESS)
        return raise_w(win, rc, fn, target_rank);
    if (p == NULL)
        return MPI_SUCCESS;
    if (at != NULL) {
        memcpy(at, origin_addr, obytes);
        return MPI_SUCCESS;
    }
    if (obytes == 0)
        return MPI_SUCCESS;
    void *tmp;
    rma_t r = {.w = win,
               .p = p,
               .kind = RMA_PUT,
               .base = base,
               .tdt = target_datatype,
               .tcount = target_count,
               .bsize = 1};
    r.src = packed(origin_addr, origin_count, origin_datatype, &tmp);
    if (r.src == NULL)
        return raise_w(win, MPI_ERR_NO_MEM, fn, target_rank);
    rc = rma_run(&r);
    free(tmp);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : raise_w(win, rc, fn, target_rank);
}
IVC_MPI_WEAK(Put)

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    const char *fn = "MPI_Get";
    CHECK_WIN(win, fn);
    win_peer_t *p;
    uint64_t obytes, base;
    uint8_t *at;
    int rc = xfer_check(win, origin_addr, target_rank, origin_count, origin_datatype, target_count,
                        target_datatype, target_disp, &p, &obytes, &base, &at);
    if (rc != MPI_SUCCESS)
        return raise_w(win, rc, fn, target_rank);
    if (p == NULL)
        return MPI_SUCCESS;
    if (at != NULL) {
        memcpy(origin_addr, at, obytes);
        return MPI_SUCCESS;
    }
    if (obytes == 0)
        return MPI_SUCCESS;
    int contig = origin_datatype->map.contig;
    void *tmp = contig ? NULL : malloc(obytes);
    if (!contig && tmp == NULL)
        return raise_w(win, MPI_ERR_NO_MEM, fn, target_rank);
    rma_t r = {.w = win,
               .p = p,
               .kind = RMA_GET,
               .base = base,
               .tdt = target_datatype,
               .tcount = target_count,
               .bsize = 1};
    r.dst = contig ? origin_addr : tmp;
    rc = rma_run(&r);
    if (rc == MPI_SUCCESS && !contig) {
        ivc_data_t d;
        ivc_mpi_data(&d, origin_addr, origin_count, origin_datatype);
        ivc_data_unpack(&d, 0, tmp, obytes);
    }
    free(tmp);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : raise_w(win, rc, fn, target_rank);
}
IVC_MPI_WEAK(Get)

/* Accumulate and Get_accumulate: result_addr NULL for Accumulate. */
static int accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                      void *result_addr, int result_count, MPI_Datatype result_datatype,
                      int target_rank, MPI_Aint target_disp, int target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, const char *fn)
{
    int fetch = result_addr != NULL || result_datatype != NULL;
    if (!ivc_mpi_op_valid(op) || op->id == OP_USER || (!fetch && op->id == OP_NO_OP))
        return raise_w(win, MPI_ERR_OP, fn, target_rank);
    int noop = op->id == OP_NO_OP;
    win_peer_t *p;
    int rc = rma_check(win, target_rank, noop ? 0 : origin_count, origin_datatype, target_count,
                       target_datatype, target_disp, &p);
    if (rc == MPI_SUCCESS && fetch &&
        (result_count < 0 || (result_count > 0 && !check_dt(result_datatype))))
        rc = MPI_ERR_TYPE;
    /* NULL buffers with data (MPI_NO_OP ignores the origin); NULL is MPI_BOTTOM too. */
    if (rc == MPI_SUCCESS &&
        ((!noop && ivc_mpi_dt_null_buf(origin_addr, origin_count, origin_datatype)) ||
         (fetch && ivc_mpi_dt_null_buf(result_addr, result_count, result_datatype))))
        rc = MPI_ERR_BUFFER;
    if (rc != MPI_SUCCESS)
        return raise_w(win, rc, fn, target_rank);
    if (p == NULL)
        return MPI_SUCCESS;
    /* Nothing to move (a count of 0, or a type of size 0): nothing to do, nothing to check
     * about element kinds. */
    uint64_t tbytes = target_count ? (uint64_t)target_count * target_datatype->map.size : 0;
    uint64_t obytes = noop           ? tbytes
                      : origin_count ? (uint64_t)origin_count * origin_datatype->map.size
                                     : 0;
    uint64_t rbytes = !fetch         ? tbytes
                      : result_count ? (uint64_t)result_count * result_datatype->map.size
                                     : 0;
    if (obytes != tbytes || rbytes != tbytes)
        return raise_w(win, MPI_ERR_COUNT, fn, target_rank);
    if (tbytes == 0)
        return MPI_SUCCESS;
    int basic = target_datatype->basic;
    if (basic == B_NONE || basic_size[basic] == 0 ||
        (!noop && origin_count > 0 && origin_datatype->basic != basic))
        return raise_w(win, MPI_ERR_TYPE, fn, target_rank);
    /* Applying to no elements tells whether op is defined on the kind: checked here, so an
     * active message never carries an operation its target cannot apply. */
    if (op->id != OP_REPLACE && !noop && ivc_mpi_op_apply(op, NULL, NULL, 0, basic) != MPI_SUCCESS)
        return raise_w(win, MPI_ERR_OP, fn, target_rank);
    rma_t r = {.w = win,
               .p = p,
               .kind = fetch ? RMA_GACC : RMA_ACC,
               .opid = op->id,
               .basic = basic,
               .bsize = basic_size[basic],
               .tdt = target_datatype,
               .tcount = target_count};
    r.base = win->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (uint64_t)target_disp
                                                   : (uint64_t)target_disp * p->disp_unit;
    void *stmp = NULL, *rtmp = NULL;
    if (!noop && (r.src = packed(origin_addr, origin_count, origin_datatype, &stmp)) == NULL)
        return raise_w(win, MPI_ERR_NO_MEM, fn, target_rank);
    int rcontig = !fetch || result_datatype->map.contig;
    if (fetch) {
        r.dst = rcontig ? result_addr : (rtmp = malloc(tbytes));
        if (r.dst == NULL) {
            free(stmp);
            return raise_w(win, MPI_ERR_NO_MEM, fn, target_rank);
        }
    }
    uint64_t vsz, ioff, nsz = pair_native(basic, &vsz, &ioff);
    if (nsz != 0)
        rc = rma_run_pairs(&r, tbytes / (vsz + sizeof(int)), nsz, vsz, ioff);
    else
        rc = rma_run(&r);
    if (rc == MPI_SUCCESS && !rcontig) {
        ivc_data_t d;
        ivc_mpi_data(&d, result_addr, result_count, result_datatype);
        ivc_data_unpack(&d, 0, rtmp, tbytes);
    }
    free(stmp);
    free(rtmp);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : raise_w(win, rc, fn, target_rank);
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    CHECK_WIN(win, "MPI_Accumulate");
    return accumulate(origin_addr, origin_count, origin_datatype, NULL, 0, NULL, target_rank,
                      target_disp, target_count, target_datatype, op, win, "MPI_Accumulate");
}
IVC_MPI_WEAK(Accumulate)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    CHECK_WIN(win, "MPI_Get_accumulate");
    if (result_datatype == MPI_DATATYPE_NULL)
        return raise_w(win, MPI_ERR_TYPE, "MPI_Get_accumulate", target_rank);
    return accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                      win, "MPI_Get_accumulate");
}
IVC_MPI_WEAK(Get_accumulate)

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    CHECK_WIN(win, "MPI_Fetch_and_op");
    if (!check_dt(datatype))
        return raise_w(win, MPI_ERR_TYPE, "MPI_Fetch_and_op", target_rank);
    return accumulate(origin_addr, 1, datatype, result_addr, 1, datatype, target_rank, target_disp,
                      1, datatype, op, win, "MPI_Fetch_and_op");
}
IVC_MPI_WEAK(Fetch_and_op)

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    const char *fn = "MPI_Compare_and_swap";
    CHECK_WIN(win, fn);
    win_peer_t *p;
    int rc = rma_check(win, target_rank, 1, datatype, 1, datatype, target_disp, &p);
    if (rc == MPI_SUCCESS && (ivc_mpi_dt_null_buf(origin_addr, 1, datatype) ||
                              ivc_mpi_dt_null_buf(compare_addr, 1, datatype) ||
                              ivc_mpi_dt_null_buf(result_addr, 1, datatype)))
        rc = MPI_ERR_BUFFER;
    if (rc != MPI_SUCCESS)
        return raise_w(win, rc, fn, target_rank);
    if (p == NULL)
        return MPI_SUCCESS;
    int basic = datatype->basic;
    uint64_t n = datatype->map.size;
    /* Integer, logical, byte and multi-language types only (MPI-4.1 section 12.3.4): not
     * floating point or complex, which compare by bits here but not by value. */
    if (!datatype->map.contig || basic == B_NONE || n != basic_size[basic] || n > 64 ||
        (basic >= B_FLOAT && basic <= B_LDOUBLE) || (basic >= B_CFLOAT && basic <= B_CLDOUBLE) ||
        basic == B_FLOAT128 || basic == B_CFLOAT128)
        return raise_w(win, MPI_ERR_TYPE, fn, target_rank);
    uint64_t at = win->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (uint64_t)target_disp
                                                        : (uint64_t)target_disp * p->disp_unit;
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC && (at > p->size || n > p->size - at))
        return raise_w(win, MPI_ERR_RMA_RANGE, fn, target_rank);
    if (p->direct) {
        uint8_t *t =
            win->flavor == MPI_WIN_FLAVOR_DYNAMIC ? target_range(win, at, n) : p->base + at;
        if (t == NULL)
            return raise_w(win, MPI_ERR_RMA_RANGE, fn, target_rank);
        int rc = acc_lock(p->ctl, p->world);
        if (rc != MPI_SUCCESS)
            return raise_w(win, rc, fn, target_rank);
        memcpy(result_addr, t, n);
        if (memcmp(t, compare_addr, n) == 0)
            memcpy(t, origin_addr, n);
        acc_unlock(p->ctl);
        return MPI_SUCCESS;
    }
    uint8_t buf[128];
    memcpy(buf, compare_addr, n);
    memcpy(buf + n, origin_addr, n);
    am_hdr_t h = {
        .kind = AM_CAS, .win = win->id, .disp = at, .rlen = n, .op = OP_REPLACE, .basic = basic};
    rc = am_call(p->world, &h, buf, 2 * n, result_addr);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : raise_w(win, rc, fn, target_rank);
}
IVC_MPI_WEAK(Compare_and_swap)

/* ---- request-based operations ----
 * Every operation above is complete at the origin when it returns (a direct copy is done,
 * an active message carries a copy of the data, and replies are awaited), so the request
 * of Rput & co. is born complete; remote completion still needs a flush or epoch end. */

/* Checks the request pointer before the operation runs: MPI_ERR_ARG for NULL (the window's
 * validity is checked first, as the operation would). Returns from the caller on failure. */
#define CHECK_REQUEST_OUT(win, request, fn)                                                        \
    do {                                                                                           \
        CHECK_WIN(win, fn);                                                                        \
        CHECK_NULL_ARG((win)->comm, request, fn, "request pointer");                               \
    } while (0)

/* Returns rc, or MPI_SUCCESS with *request set to a completed request. */
static int rma_request(MPI_Win win, int rc, MPI_Request *request, const char *fn)
{
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Request r = ivc_mpi_req_new_local(REQ_SEND, win->comm, 1);
    if (r == NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_NO_MEM, fn, "out of memory");
    *request = r;
    return MPI_SUCCESS;
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request *request)
{
    CHECK_REQUEST_OUT(win, request, "MPI_Rput");
    int rc = PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win);
    return rma_request(win, rc, request, "MPI_Rput");
}
IVC_MPI_WEAK(Rput)

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    CHECK_REQUEST_OUT(win, request, "MPI_Rget");
    int rc = PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win);
    return rma_request(win, rc, request, "MPI_Rget");
}
IVC_MPI_WEAK(Rget)

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    CHECK_REQUEST_OUT(win, request, "MPI_Raccumulate");
    int rc = PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                             target_count, target_datatype, op, win);
    return rma_request(win, rc, request, "MPI_Raccumulate");
}
IVC_MPI_WEAK(Raccumulate)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    CHECK_REQUEST_OUT(win, request, "MPI_Rget_accumulate");
    int rc = PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                 result_count, result_datatype, target_rank, target_disp,
                                 target_count, target_datatype, op, win);
    return rma_request(win, rc, request, "MPI_Rget_accumulate");
}
IVC_MPI_WEAK(Rget_accumulate)
