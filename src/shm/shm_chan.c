/* One copy. A rendezvous whose sender's buffer lies in the sender's shared heap
 * (shm_heap.h) goes out as IVC_REC_RTS_HEAP, naming the buffer's region offset; the
 * receiver, once it matches, checks the offset against the heap the sender published at
 * connect, copies straight out of the buffer into its receive (any datatype), and answers
 * IVC_REC_RDONE, which completes the send. Otherwise, when the receiver's buffer lies in its
 * own heap and is contiguous, its clear-to-send is IVC_REC_CTS_HEAP, naming that buffer; the
 * sender checks it the same way, copies (packs) straight into it and answers IVC_REC_WDONE,
 * which completes the receive. Both take as many records as the pipeline (RTS, CTS or
 * RDONE, then the data) and move the data once. WDONEs are matched to receives by order:
 * the sender serves clear-to-sends in the order they came, as the pipeline does.
 *
 * What a peer names is only ever an offset checked against bounds read once: a forged one
 * is reported as the peer breaking the protocol, never followed. Check words
 * (IVC_CHECKSUM) do not cover these copies: the data never rests in a buffer of the
 * channel, only in the user's own memory, which a writer of the region could change before
 * any copy anyway. A peer that dies mid-copy leaves its heap mapped (it is region memory),
 * so the copy ends and its operation fails with the peer, as any other. */
#include "shm_chan.h"

#include "shm_csum.h"
#include "shm_heap.h"
#include "shm_pipe.h"
#include "shm_ring.h"
#include "shm_coll_config.h"
#include "shm_rma_config.h"

#include "../region/door.h"
#include "../region/region_sect.h"

#include "../base/ivc_copy.h"
#include "../base/ivc_log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Send op states (ivc_chan_op_t.state). */
enum {
    OP_QUEUED = 1, /* waiting for ring room */
    OP_SYNC_WAIT,  /* eager synchronous send written; waiting for the ACK */
    OP_RTS_WAIT,   /* request-to-send written; waiting for clear-to-send */
    OP_STREAM,     /* clear to send: streaming through the pipeline */
    OP_PUSH,       /* one copy: writing straight into the receiver's buffer (chan_off) */
};
/* Receive op states (rendezvous; 0 = draining the pipeline). */
enum {
    OP_WAIT_WDONE = 16, /* one copy: the sender writes our buffer; waiting for WDONE */
    OP_PULL,            /* one copy: to copy out of the sender's buffer (chan_off) */
};
/* Flag in the state of a streaming send or a rendezvous receive: its chunks carry check
 * words (the receiver's clear-to-send decided). */
#define OP_CSUM 0x100
/* Flag in the state of a send waiting for clear-to-send: its RTS offered its buffer
 * (IVC_REC_RTS_HEAP), so an RDONE may complete it. */
#define OP_OFFER 0x200
#define OP_FLAGS (OP_CSUM | OP_OFFER)

/* Rendezvous paths, for IVC_REPORT_PATH. */
enum { PATH_PIPE, PATH_READ, PATH_WRITE, PATH_N };
#define PATH_BUCKETS 64 /* floor(log2(bytes)) */

/* Records handled per inbox per progress call: one. Looking for the next record right after
 * delivering one stalls on a line the sender has just written (the next record's zeroed
 * stamp, shm_ring.h): a transfer from the other core on the way to the program, which then
 * usually answers first. The caller's progress loop comes back for the next record.
 * Ping-pong latency 0-16 B 0.30 against 0.41-0.44 µs with the vCPUs far apart and 0.10-0.11
 * against 0.12-0.13 close together (AMD development VM, 2 ranks, best of 3-4); message rate
 * unchanged, bidirectional bandwidth of 4 KiB messages 0.81x, of 8-16 KiB 1.4-2.0x. */
#define POLL_BUDGET 1

typedef struct op_queue {
    ivc_chan_op_t *head, *tail;
} op_queue_t;

typedef struct shm_ctl {
    uint8_t kind;
    uint64_t cookie;
    uint64_t arg;
    uint64_t off; /* IVC_REC_CTS_HEAP: the 8-byte payload */
} shm_ctl_t;

typedef struct shm_peer {
    ivc_shm_chan_t *ch;
    uint32_t rank; /* global rank */
    int failed;    /* -errno once the peer broke the protocol */
    uint64_t eager_limit;
    shm_ring_tx_t tx; /* records to the peer, in our slot for it */
    shm_pipe_t txpipe;
    shm_ring_rx_t rx; /* records from the peer, in its slot for us */
    shm_pipe_t rxpipe;
    uint32_t tx_seq, rx_seq;
    op_queue_t sendq;   /* sends waiting for ring room, in send order */
    op_queue_t streamq; /* cleared sends, streaming in clear-to-send order */
    op_queue_t drainq;  /* rendezvous receives, in clear-to-send order */
    op_queue_t pullq;   /* one-copy receives to copy out of the peer's heap */
    uint64_t heap_off, heap_len; /* the peer's shared heap, checked at connect; 0 = none */
    uint32_t wdone_due;  /* WDONEs received, not yet given to a receive in drainq */
    uint32_t wdone_wait; /* receives in drainq waiting for a WDONE */
    int no_offer;        /* the peer shares this process's heap: no one copy with it */
    shm_ctl_t *ctlq;    /* control records waiting for ring room (FIFO) */
    uint32_t ctl_head, ctl_tail, ctl_cap;
} shm_peer_t;

/* Sender-side handles: the cookie in an RTS or a synchronous eager record names a slot
 * here, with a generation, so an ACK or CTS from the peer is checked before use. */
typedef struct shm_handle {
    ivc_chan_op_t *op;
    shm_peer_t *peer;
    uint32_t gen;
    uint32_t next_free;
} shm_handle_t;

struct ivc_shm_chan {
    ivc_region_t *region;
    ivc_shm_config_t cfg;
    uint32_t my_rank, my_local, nlocal;
    uint32_t *local;   /* global ranks sharing the region, ascending */
    shm_peer_t *peers; /* nlocal - 1 entries, in local order without this rank */
    int32_t *peer_of;  /* global rank -> index in peers, or -1 */
    uint32_t world;
    uint64_t rx_off; /* this rank's receive block */
    ivc_chan_upcalls_t up;
    shm_handle_t *handles;
    uint32_t nhandles, free_handle;
    uint32_t tx_work; /* peers with queued control records, sends or streams */
    /* Private copies for check words (shm_ring.h, shm_pipe.h): what is checked is what is
     * delivered or sent, whatever the region says meanwhile. rx: a record's payload or a
     * chunk of this rank's block; tx: non-contiguous data packed for a peer's block. */
    uint8_t *rx_bounce, *tx_bounce;
    uint64_t heap_off, heap_len; /* this rank's shared heap (as published) */
    uint64_t rx_bytes;           /* size of this rank's receive block */
    int sparse; /* migration: an inbox for every rank of the job; pairs open and close */
    uint32_t *inflight; /* sparse: per peer index, handles (RTS, SYNC) not yet answered */
    /* IVC_REPORT_PATH: rendezvous messages [sent, received][path][log2 bytes]. */
    uint64_t paths[2][PATH_N][PATH_BUCKETS];
};

#define HANDLE_NONE UINT32_MAX

static int is_pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

static void q_push(op_queue_t *q, ivc_chan_op_t *op)
{
    op->next = NULL;
    if (q->tail)
        q->tail->next = op;
    else
        q->head = op;
    q->tail = op;
}

static ivc_chan_op_t *q_pop(op_queue_t *q)
{
    ivc_chan_op_t *op = q->head;
    if (op) {
        q->head = op->next;
        if (q->head == NULL)
            q->tail = NULL;
    }
    return op;
}

static void path_count(ivc_shm_chan_t *ch, int recv, int path, uint64_t bytes)
{
    int b = bytes ? 63 - __builtin_clzll(bytes) : 0;
    ch->paths[recv][path][b]++;
}

static int peer_has_tx_work(const shm_peer_t *p)
{
    return p->ctl_head != p->ctl_tail || p->sendq.head || p->streamq.head;
}

/* ---- handles ---- */

static int handle_alloc(ivc_shm_chan_t *ch, shm_peer_t *p, ivc_chan_op_t *op, uint64_t *cookie)
{
    if (ch->free_handle == HANDLE_NONE) {
        uint32_t n = ch->nhandles ? ch->nhandles * 2 : 64;
        shm_handle_t *h = realloc(ch->handles, n * sizeof(*h));
        if (h == NULL)
            return -ENOMEM;
        for (uint32_t i = ch->nhandles; i < n; i++) {
            h[i].op = NULL;
            h[i].peer = NULL;
            h[i].gen = 1;
            h[i].next_free = i + 1 < n ? i + 1 : HANDLE_NONE;
        }
        ch->handles = h;
        ch->free_handle = ch->nhandles;
        ch->nhandles = n;
    }
    uint32_t slot = ch->free_handle;
    shm_handle_t *h = &ch->handles[slot];
    ch->free_handle = h->next_free;
    h->op = op;
    h->peer = p;
    if (ch->inflight != NULL)
        ch->inflight[p - ch->peers]++;
    *cookie = ((uint64_t)h->gen << 32) | slot;
    op->cookie = *cookie;
    return 0;
}

/* Takes the op a cookie from peer p names, if it is one of p's and in `state`. */
static ivc_chan_op_t *handle_take(ivc_shm_chan_t *ch, shm_peer_t *p, uint64_t cookie, int state)
{
    uint32_t slot = (uint32_t)cookie, gen = (uint32_t)(cookie >> 32);
    if (slot >= ch->nhandles)
        return NULL;
    shm_handle_t *h = &ch->handles[slot];
    if (h->op == NULL || h->gen != gen || h->peer != p || (h->op->state & ~OP_FLAGS) != state)
        return NULL;
    ivc_chan_op_t *op = h->op;
    if (ch->inflight != NULL)
        ch->inflight[p - ch->peers]--;
    h->op = NULL;
    h->peer = NULL;
    h->gen = h->gen + 1 ? h->gen + 1 : 1;
    h->next_free = ch->free_handle;
    ch->free_handle = slot;
    return op;
}

/* ---- failure ---- */

static void fail_queue(op_queue_t *q, int err)
{
    ivc_chan_op_t *op;
    while ((op = q_pop(q)) != NULL)
        op->done(op, err);
}

/* The peer broke the protocol: stop reading its inbox and fail everything that involves
 * it. Only this rank's view of the peer changes; the region is left as it is. */
static void peer_fail(shm_peer_t *p, int err, const char *why)
{
    ivc_shm_chan_t *ch = p->ch;
    if (p->failed)
        return;
    p->failed = err;
    if (why != NULL)
        ivc_error("rank %u broke the shared-memory protocol (%s); no longer talking to it", p->rank,
                  why);
    if (peer_has_tx_work(p))
        ch->tx_work--;
    p->ctl_head = p->ctl_tail = 0;
    fail_queue(&p->sendq, err);
    fail_queue(&p->streamq, err);
    fail_queue(&p->drainq, err);
    fail_queue(&p->pullq, err);
    p->wdone_due = p->wdone_wait = 0;
    for (uint32_t i = 0; i < ch->nhandles; i++) {
        shm_handle_t *h = &ch->handles[i];
        if (h->op != NULL && h->peer == p) {
            ivc_chan_op_t *op = h->op;
            handle_take(ch, p, ((uint64_t)h->gen << 32) | i, op->state & ~OP_FLAGS);
            op->done(op, err);
        }
    }
    if (ch->up.on_peer_failed)
        ch->up.on_peer_failed(ch->up.arg, (int)p->rank, err);
}

/* ---- writing records ---- */

/* Copies n payload bytes from src into the ring at dst, by the payload's size `paylen`:
 * small payloads with stores that stay within a line (shm_config.h); from
 * IVC_SHM_EAGER_STREAM_MIN streaming stores as for rendezvous chunks (IVC_STREAM_MIN): the
 * reader then fetches the record from memory. */
static void payload_put(const shm_peer_t *p, void *dst, const void *src, uint64_t n,
                        uint64_t paylen)
{
    if (paylen <= IVC_SHM_EAGER_WORDS_MAX)
        ivc_copy_words(dst, src, n);
    else if (paylen >= IVC_SHM_EAGER_STREAM_MIN && paylen >= p->ch->cfg.stream_min)
        ivc_copy_stream(dst, src, n);
    else if (n)
        memcpy(dst, src, n);
}

/* Writes a record without a check word where it was reserved: its `hlen`-byte header
 * (built in private memory; the stamp is left for shm_ring_commit) and `paylen` payload
 * bytes from `src`, and clears the next record's stamp (after the record's `bytes`).
 *
 * The part of the record in its stamp's line (header and the payload's first bytes) is
 * written last, after the rest of the payload and the next stamp: the receiver polls that
 * line, so it then moves to our core once, right before the stamp, instead of once for the header
 * and again for the stamp while the later lines wait for their own transfers. Ping-pong
 * latency on the AMD development VM, A/B against the old order in the same rounds: the
 * two vCPUs far apart (4 rounds), 160-256 B 0.63-0.66x (256 B 0.641 -> 0.423 µs), 384-512 B
 * 0.81-0.91x, 8 KiB (streamed) 0.86x, 8-144 B 0.96-0.99x, 1-4 KiB 0.97-1.00x; close
 * together (2 rounds) 64-256 B 0.76-0.85x, 8 B and 384 B-8 KiB 0.84-0.99x. Streaming
 * bandwidth far apart (3 rounds): 8 B-64 KiB 0.93-1.22x of the old figures. */
static void rec_put(shm_peer_t *p, uint8_t *rec, const void *hdr, uint64_t hlen, const void *src,
                    uint64_t paylen, uint64_t bytes)
{
    const uint8_t *h = hdr, *s = src;
    /* The record's bytes in the line of its stamp (a short record starts anywhere on 16
     * bytes; its header may run on into the next line). */
    uint64_t first = IVC_CACHE_LINE - ((uintptr_t)rec & (IVC_CACHE_LINE - 1));
    uint64_t in0 = first > hlen ? first - hlen : 0; /* payload bytes in that line */
    if (in0 > paylen)
        in0 = paylen;
    if (paylen > in0)
        payload_put(p, rec + hlen + in0, s + in0, paylen - in0, paylen);
    if (first < hlen)
        memcpy(rec + first, h + first, hlen - first);
    shm_ring_clear_next(&p->tx, bytes);
    /* Every field in the first line but the stamp, which shm_ring_commit publishes. */
    memcpy(rec + 8, h + 8, (first < hlen ? first : hlen) - 8);
    if (in0)
        ivc_copy_words(rec + hlen, s, in0);
}

/* Writes a full record's header (and with check words, its check word) at the tail and
 * clears the next record's stamp; `src` holds the payload when paylen > 0. The header is
 * built in private memory and the check word computed from it and from the bytes read out
 * of `src`, so nothing the region says after our stores can make a corrupt record verify. */
static void rec_write(shm_peer_t *p, ivc_rec_t *rec, uint64_t bytes, uint8_t kind,
                      uint32_t paylen, const ivc_env_t *env, uint64_t arg, uint64_t cookie,
                      const void *src)
{
    ivc_rec_t h;
    memset(&h, 0, sizeof(h));
    h.kind = kind;
    h.flags = env ? (uint8_t)env->flags : 0;
    h.rsvd = p->ch->cfg.checksum ? SHM_REC_CSUM : 0;
    h.paylen = paylen;
    h.ctx = env ? env->ctx : 0;
    h.src = env ? env->src : 0;
    h.tag = env ? env->tag : 0;
    h.seq = p->tx_seq++;
    h.arg = arg;
    h.cookie = cookie;
    if (!p->ch->cfg.checksum) {
        rec_put(p, (uint8_t *)rec, &h, sizeof(h), src, paylen, bytes);
        return;
    }
    shm_ring_clear_next(&p->tx, bytes);
    memcpy((uint8_t *)rec + 8, (const uint8_t *)&h + 8, sizeof(h) - 8);
    uint64_t seed = ivc_shm_csum_copy(NULL, (const uint8_t *)&h + 8, sizeof(h) - 8, p->tx.tail);
    uint64_t check = ivc_shm_csum_copy(paylen ? rec + 1 : NULL, src, paylen, seed);
    memcpy((uint8_t *)rec + shm_ring_check_at(paylen), &check, 8);
}

/* Writes op's eager record or request-to-send. Returns 1 (complete), 0 (waiting for ACK or
 * CTS), -EAGAIN (ring full) or -errno. */
static int peer_write_send(shm_peer_t *p, ivc_chan_op_t *op)
{
    uint64_t len = op->data.bytes;
    int eager = len <= p->eager_limit;
    /* One copy: a contiguous buffer in our heap is offered to the receiver, also below the
     * eager limit from IVC_SHM_ONE_COPY_MIN (one copy beats the ring's two). */
    uint64_t heap_at = 0;
    int offer = (!eager || len > IVC_SHM_ONE_COPY_MIN) && p->ch->cfg.one_copy && !p->no_offer &&
                ivc_data_contig(&op->data) && ivc_shm_heap_offset(op->data.buf, len, &heap_at);
    eager = eager && !offer;
    /* Short records: small eager messages that need no acknowledgement (region_layout.h). */
    int brief = eager && len <= IVC_REC_SHORT_MAX && !(op->env.flags & IVC_ENV_SYNC) &&
                !p->ch->cfg.checksum;
    uint64_t paylen = eager ? len : offer ? 8 : 0;
    uint64_t bytes =
        brief ? shm_ring_short_bytes(len) : shm_ring_record_bytes_x(paylen, p->ch->cfg.checksum);
    int err = 0;
    ivc_rec_t *rec =
        brief ? shm_ring_reserve_short(&p->tx, bytes, &err) : shm_ring_reserve(&p->tx, bytes, &err);
    if (rec == NULL)
        return err ? err : -EAGAIN;
    uint64_t cookie = 0;
    int wait = !eager || (op->env.flags & IVC_ENV_SYNC);
    if (wait && handle_alloc(p->ch, p, op, &cookie) != 0)
        return -ENOMEM;
    const void *src = NULL;
    if (eager && len > 0) {
        if (ivc_data_contig(&op->data)) {
            src = op->data.buf;
        } else {
            /* Packed privately, then copied with its check word (or copied again). */
            ivc_data_pack(&op->data, 0, p->ch->tx_bounce, len);
            src = p->ch->tx_bounce;
        }
    }
    if (offer)
        src = &heap_at;
    if (brief) {
        ivc_rec_short_t h;
        memset(&h, 0, sizeof(h));
        h.kind = IVC_REC_SHORT;
        h.flags = (uint8_t)op->env.flags;
        h.paylen = (uint16_t)len;
        h.ctx = op->env.ctx;
        h.src = op->env.src;
        h.tag = op->env.tag;
        p->tx_seq++; /* counted as every record is; the short form does not carry it */
        rec_put(p, (uint8_t *)rec, &h, sizeof(h), src, len, bytes);
    } else {
        uint8_t kind = eager ? IVC_REC_EAGER : offer ? IVC_REC_RTS_HEAP : IVC_REC_RTS;
        rec_write(p, rec, bytes, kind, (uint32_t)paylen, &op->env, len, cookie, src);
    }
    shm_ring_commit(&p->tx, rec, bytes);
    ivc_door_kick(p->rank); /* after R1: the receiver may be asleep (door.h) */
    if (!wait)
        return 1;
    op->state = eager ? OP_SYNC_WAIT : OP_RTS_WAIT | (offer ? OP_OFFER : 0);
    return 0;
}

static int peer_write_ctl(shm_peer_t *p, const shm_ctl_t *c)
{
    uint32_t paylen = c->kind == IVC_REC_CTS_HEAP ? 8 : 0;
    uint64_t bytes = shm_ring_record_bytes_x(paylen, p->ch->cfg.checksum);
    int err = 0;
    ivc_rec_t *rec = shm_ring_reserve(&p->tx, bytes, &err);
    if (rec == NULL)
        return err ? err : -EAGAIN;
    rec_write(p, rec, bytes, c->kind, paylen, NULL, c->arg, c->cookie, paylen ? &c->off : NULL);
    shm_ring_commit(&p->tx, rec, bytes);
    ivc_door_kick(p->rank); /* after R1 */
    return 0;
}

/* Sends a control record now, or queues it behind earlier ones. */
static int peer_send_ctl(shm_peer_t *p, uint8_t kind, uint64_t cookie, uint64_t arg,
                         uint64_t off)
{
    shm_ctl_t c = {kind, cookie, arg, off};
    if (p->ctl_head == p->ctl_tail) {
        int rc = peer_write_ctl(p, &c);
        if (rc != -EAGAIN)
            return rc;
    }
    if (p->ctl_tail - p->ctl_head == p->ctl_cap) {
        uint32_t n = p->ctl_cap ? p->ctl_cap * 2 : 16;
        shm_ctl_t *q = malloc(n * sizeof(*q));
        if (q == NULL)
            return -ENOMEM;
        for (uint32_t i = 0; i < p->ctl_tail - p->ctl_head; i++)
            q[i] = p->ctlq[(p->ctl_head + i) % p->ctl_cap];
        p->ctl_tail -= p->ctl_head;
        p->ctl_head = 0;
        free(p->ctlq);
        p->ctlq = q;
        p->ctl_cap = n;
    }
    int had_work = peer_has_tx_work(p);
    p->ctlq[p->ctl_tail++ % p->ctl_cap] = c;
    if (!had_work)
        p->ch->tx_work++;
    return 0;
}

/* ---- channel operations ---- */

static int shm_send(void *ep, ivc_chan_op_t *op)
{
    shm_peer_t *p = ep;
    if (p->failed)
        return p->failed;
    op->off = 0;
    op->total = 0;
    if (p->sendq.head == NULL) {
        int rc = peer_write_send(p, op);
        if (rc != -EAGAIN) {
            if (rc == -EPROTO)
                peer_fail(p, rc, "impossible ring head");
            return rc;
        }
    }
    int had_work = peer_has_tx_work(p);
    op->state = OP_QUEUED;
    q_push(&p->sendq, op);
    if (!had_work)
        p->ch->tx_work++;
    return 0;
}

static int shm_recv_rndv(void *ep, const ivc_inmsg_t *m, ivc_chan_op_t *op)
{
    shm_peer_t *p = ep;
    if (p->failed)
        return p->failed;
    uint64_t accept = m->env.len < op->data.bytes ? m->env.len : op->data.bytes;
    op->total = accept;
    op->off = 0;
    op->xfer = 0;
    if (m->chan_arg != 0 && p->ch->cfg.one_copy) {
        /* One copy out of the sender's buffer (checked on arrival, in peer_poll). */
        op->state = OP_PULL;
        op->chan_off = m->chan_arg;
        op->cookie = m->cookie;
        q_push(&p->pullq, op);
        return 0;
    }
    uint64_t heap_at = 0;
    if (accept > 0 && p->ch->cfg.one_copy && !p->no_offer && ivc_data_contig(&op->data) &&
        ivc_shm_heap_offset(op->data.buf, accept, &heap_at)) {
        /* One copy into our buffer, by the sender. */
        int rc = peer_send_ctl(p, IVC_REC_CTS_HEAP, m->cookie, accept, heap_at);
        if (rc != 0)
            return rc;
        op->state = OP_WAIT_WDONE;
        p->wdone_wait++;
        q_push(&p->drainq, op);
        return 0;
    }
    /* The receiver decides whether the chunks carry check words: the flag of its CTS. */
    op->state = p->ch->cfg.checksum ? OP_CSUM : 0;
    int rc = peer_send_ctl(p, IVC_REC_CTS, m->cookie, accept, 0);
    if (rc != 0)
        return rc;
    q_push(&p->drainq, op);
    return 0;
}

static int shm_send_ack(void *ep, uint64_t cookie)
{
    shm_peer_t *p = ep;
    if (p->failed)
        return p->failed;
    return peer_send_ctl(p, IVC_REC_ACK, cookie, 0, 0);
}

/* Queued control records, then queued sends, then streams: as far as room allows. */
static int peer_tx_work(shm_peer_t *p)
{
    int n = 0, rc;
    while (p->ctl_head != p->ctl_tail) {
        rc = peer_write_ctl(p, &p->ctlq[p->ctl_head % p->ctl_cap]);
        if (rc == -EAGAIN)
            return n;
        if (rc < 0)
            return rc;
        p->ctl_head++;
        n++;
    }
    ivc_chan_op_t *op;
    while ((op = p->sendq.head) != NULL) {
        rc = peer_write_send(p, op);
        if (rc == -EAGAIN)
            return n;
        if (rc < 0)
            return rc;
        q_pop(&p->sendq);
        n++;
        if (rc == 1)
            op->done(op, 0);
    }
    while ((op = p->streamq.head) != NULL) {
        if (op->state == OP_PUSH) {
            /* One copy into the receiver's buffer, checked in on_cts(). */
            ivc_data_pack(&op->data, 0, p->ch->region->base + op->chan_off, op->total);
            rc = peer_send_ctl(p, IVC_REC_WDONE, 0, op->total, 0);
            q_pop(&p->streamq);
            n++;
            path_count(p->ch, 0, PATH_WRITE, op->total);
            op->done(op, rc);
            continue;
        }
        rc = shm_pipe_fill(&p->txpipe, &op->data, &op->off, op->total, op->state & OP_CSUM,
                           p->ch->tx_bounce);
        if (rc < 0)
            return rc;
        if (rc > 0)
            ivc_door_kick(p->rank); /* after R8: chunks for a receiver that may sleep */
        n += rc;
        if (op->off < op->total)
            break;
        q_pop(&p->streamq);
        n++;
        path_count(p->ch, 0, PATH_PIPE, op->total);
        op->done(op, 0);
    }
    return n;
}

/* Whether [off, off + len) lies inside the peer's heap (bounds checked at connect). */
static int peer_heap_has(const shm_peer_t *p, uint64_t off, uint64_t len)
{
    return p->heap_len != 0 && off >= p->heap_off && len <= p->heap_len &&
           off - p->heap_off <= p->heap_len - len;
}

/* A clear-to-send; `heap` with the region offset of the receiver's buffer (CTS_HEAP). */
static void on_cts(shm_peer_t *p, uint64_t cookie, uint64_t accept, int csum, int heap,
                   uint64_t dst)
{
    ivc_chan_op_t *op = handle_take(p->ch, p, cookie, OP_RTS_WAIT);
    if (op == NULL) {
        peer_fail(p, -EPROTO, "clear-to-send for an unknown send");
        return;
    }
    if (accept > op->data.bytes) {
        op->done(op, -EPROTO);
        peer_fail(p, -EPROTO, "clear-to-send for more bytes than the message has");
        return;
    }
    if (heap && !peer_heap_has(p, dst, accept)) {
        op->done(op, -EPROTO);
        peer_fail(p, -EPROTO, "clear-to-send naming memory outside its shared heap");
        return;
    }
    int had_work = peer_has_tx_work(p);
    op->chan_off = dst;
    op->state = heap ? OP_PUSH : OP_STREAM | (csum ? OP_CSUM : 0);
    op->total = accept;
    op->off = 0;
    q_push(&p->streamq, op);
    if (!had_work)
        p->ch->tx_work++;
}

/* The receiver copied `bytes` out of the buffer the send offered. */
static void on_rdone(shm_peer_t *p, uint64_t cookie, uint64_t bytes)
{
    ivc_chan_op_t *op = handle_take(p->ch, p, cookie, OP_RTS_WAIT);
    if (op == NULL || !(op->state & OP_OFFER) || bytes > op->data.bytes) {
        if (op != NULL)
            op->done(op, -EPROTO);
        peer_fail(p, -EPROTO, "read-done for a send that offered no such buffer");
        return;
    }
    path_count(p->ch, 0, PATH_READ, bytes);
    op->done(op, 0);
}

static void on_ack(shm_peer_t *p, uint64_t cookie)
{
    ivc_chan_op_t *op = handle_take(p->ch, p, cookie, OP_SYNC_WAIT);
    if (op == NULL) {
        peer_fail(p, -EPROTO, "acknowledgement for an unknown send");
        return;
    }
    op->done(op, 0);
}

/* Copies the header of the record at the head into private memory (a short record as
 * the eager record it stands for, with the sequence number it is counted under; of a pad
 * record only its kind) and checks its framing; sets *bytes (what the record occupies,
 * within the slack) and *payload (in the ring, or with a check word in rx_bounce once
 * checked). Returns NULL, or why the record cannot be taken. */
static const char *rec_read(shm_peer_t *p, const ivc_rec_t *rec, ivc_rec_t *h, uint64_t *bytes,
                            const void **payload)
{
    ivc_shm_chan_t *ch = p->ch;
    ivc_rec_short_t s;
    memcpy((uint8_t *)&s + 8, (const uint8_t *)rec + 8, sizeof(s) - 8);
    if (s.kind == IVC_REC_PAD) {
        h->kind = IVC_REC_PAD;
        *bytes = shm_ring_pad_bytes(p->rx.head);
        return *bytes == 0 ? "pad record at the start of a line" : NULL;
    }
    if (s.kind == IVC_REC_SHORT) {
        if (ch->cfg.checksum)
            return "short record, but IVC_CHECKSUM is on here: it must be set alike on every "
                   "rank";
        if (s.paylen > IVC_REC_SHORT_MAX || (s.flags & IVC_ENV_SYNC))
            return "short record too long or synchronous";
        memset(h, 0, sizeof(*h));
        h->kind = IVC_REC_EAGER;
        h->flags = s.flags;
        h->paylen = s.paylen;
        h->ctx = s.ctx;
        h->src = s.src;
        h->tag = s.tag;
        h->seq = p->rx_seq;
        h->arg = s.paylen;
        *bytes = shm_ring_short_bytes(s.paylen);
        *payload = (const uint8_t *)rec + sizeof(s);
        return *bytes > p->rx.max_record ? "record length beyond the largest record" : NULL;
    }
    memcpy((uint8_t *)h + 8, (const uint8_t *)rec + 8, sizeof(*h) - 8);
    int csum = h->rsvd & SHM_REC_CSUM;
    if (h->rsvd & ~SHM_REC_CSUM)
        return "record with unknown framing flags";
    if (!csum && ch->cfg.checksum)
        return "record without a check word, but IVC_CHECKSUM is on here: it must be set alike "
               "on every rank";
    *bytes = shm_ring_record_bytes_x(h->paylen, csum);
    if (*bytes > p->rx.max_record)
        return "record length beyond the largest record";
    *payload = rec + 1;
    if (csum) {
        uint64_t seed = ivc_shm_csum_copy(NULL, (const uint8_t *)h + 8, sizeof(*h) - 8, p->rx.head);
        uint8_t *copy = h->paylen ? ch->rx_bounce : NULL;
        uint64_t check = ivc_shm_csum_copy(copy, rec + 1, h->paylen, seed), want;
        memcpy(&want, (const uint8_t *)rec + shm_ring_check_at(h->paylen), 8);
        if (check != want)
            return "checksum mismatch in an eager record";
        *payload = ch->rx_bounce;
    }
    return NULL;
}

/* Reads up to POLL_BUDGET records from the peer's inbox. The header is copied once into
 * private memory and checked there before use: the length bounds every access to the
 * payload, and with a check word the payload is copied out and checked before it is
 * handed up. */
static int peer_poll(shm_peer_t *p)
{
    ivc_shm_chan_t *ch = p->ch;
    const ivc_rec_t *rec;
    int n = 0, err = 0, pads = 0;
    while (n < POLL_BUDGET && (rec = shm_ring_poll_strict(&p->rx, &err)) != NULL) {
        ivc_rec_t h;
        uint64_t bytes;
        const void *payload = NULL;
        const char *why = rec_read(p, rec, &h, &bytes, &payload);
        if (why != NULL) {
            peer_fail(p, -EPROTO, why);
            return n;
        }
        if (h.kind == IVC_REC_PAD) {
            /* The record after it is already published (shm_ring_commit): take it now,
             * but only one pad per call, so a peer writing nothing but pads cannot keep
             * us here. */
            if (shm_ring_release(&p->rx, bytes))
                ivc_door_kick(p->rank); /* after R6 */
            if (++pads > POLL_BUDGET)
                break;
            continue;
        }
        if (h.seq != p->rx_seq) {
            peer_fail(p, -EPROTO, "record out of sequence");
            return n;
        }
        p->rx_seq++;
        /* The 8-byte payload of RTS_HEAP and CTS_HEAP: a region offset. */
        uint64_t at = 0;
        if (h.kind == IVC_REC_RTS_HEAP || h.kind == IVC_REC_CTS_HEAP) {
            if (h.paylen != 8) {
                peer_fail(p, -EPROTO, "one-copy record without its offset");
                return n;
            }
            memcpy(&at, payload, 8);
        }
        if (h.kind == IVC_REC_EAGER || h.kind == IVC_REC_RTS || h.kind == IVC_REC_RTS_HEAP) {
            ivc_inmsg_t m;
            m.env.ctx = h.ctx;
            m.env.src = h.src;
            m.env.tag = h.tag;
            m.env.flags = h.flags;
            m.env.len = h.arg;
            m.peer = (int)p->rank;
            m.cookie = h.cookie;
            m.chan_arg = 0;
            if (h.kind == IVC_REC_RTS_HEAP) {
                if (!peer_heap_has(p, at, h.arg) || at == 0) {
                    peer_fail(p, -EPROTO, "request-to-send naming memory outside its shared heap");
                    return n;
                }
                m.rndv = 1;
                m.data = NULL;
                m.chan_arg = at;
            } else if (h.kind == IVC_REC_EAGER) {
                if (h.arg != h.paylen) {
                    peer_fail(p, -EPROTO, "eager record whose length disagrees with itself");
                    return n;
                }
                m.rndv = 0;
                m.data = payload;
            } else {
                if (h.paylen != 0) {
                    peer_fail(p, -EPROTO, "request-to-send with a payload");
                    return n;
                }
                m.rndv = 1;
                m.data = NULL;
            }
            ch->up.on_message(ch->up.arg, &m);
        } else if (h.kind == IVC_REC_CTS && h.paylen == 0) {
            on_cts(p, h.cookie, h.arg, h.rsvd & SHM_REC_CSUM, 0, 0);
        } else if (h.kind == IVC_REC_CTS_HEAP) {
            on_cts(p, h.cookie, h.arg, 0, 1, at);
        } else if (h.kind == IVC_REC_RDONE && h.paylen == 0) {
            on_rdone(p, h.cookie, h.arg);
        } else if (h.kind == IVC_REC_WDONE && h.paylen == 0) {
            if (p->wdone_due >= p->wdone_wait) {
                peer_fail(p, -EPROTO, "write-done for no receive");
                return n;
            }
            p->wdone_due++;
        } else if (h.kind == IVC_REC_ACK && h.paylen == 0) {
            on_ack(p, h.cookie);
        } else {
            peer_fail(p, -EPROTO, "unknown record kind");
            return n;
        }
        if (p->failed)
            return n;
        if (shm_ring_release(&p->rx, bytes))
            ivc_door_kick(p->rank); /* after R6: room for a sender that may sleep */
        n++;
    }
    if (err != 0)
        peer_fail(p, err, "a record stamp neither fresh nor cleared: its ring was overwritten");
    return n;
}

static int peer_drain(shm_peer_t *p)
{
    int n = 0;
    ivc_chan_op_t *op;
    while ((op = p->drainq.head) != NULL) {
        if (op->state == OP_WAIT_WDONE) {
            if (p->wdone_due == 0)
                break;
            p->wdone_due--;
            p->wdone_wait--;
            q_pop(&p->drainq);
            op->xfer = op->total;
            path_count(p->ch, 1, PATH_WRITE, op->total);
            op->done(op, 0);
            n++;
            continue;
        }
        int rc = shm_pipe_drain(&p->rxpipe, &op->data, &op->off, op->total, op->state & OP_CSUM,
                                p->ch->rx_bounce);
        if (rc == -EBADMSG) {
            char why[128];
            snprintf(why, sizeof(why),
                     "checksum mismatch in a rendezvous chunk at byte %" PRIu64 " of a %" PRIu64
                     "-byte message",
                     op->off, op->total);
            peer_fail(p, -EPROTO, why);
            return n;
        }
        if (rc < 0) {
            peer_fail(p, rc, "impossible pipeline counter");
            return n;
        }
        if (rc > 0)
            ivc_door_kick(p->rank); /* after R7: free chunks for a sender that may sleep */
        n += rc;
        if (op->off < op->total)
            break;
        q_pop(&p->drainq);
        op->xfer = op->total;
        path_count(p->ch, 1, PATH_PIPE, op->total);
        op->done(op, 0);
        n++;
    }
    return n;
}

/* One-copy receives: copy out of the sender's buffer (checked in peer_poll), then RDONE. */
static int peer_pull(shm_peer_t *p)
{
    int n = 0;
    ivc_chan_op_t *op;
    while ((op = q_pop(&p->pullq)) != NULL) {
        ivc_data_unpack(&op->data, 0, p->ch->region->base + op->chan_off, op->total);
        int rc = peer_send_ctl(p, IVC_REC_RDONE, op->cookie, op->total, 0);
        op->xfer = op->total;
        path_count(p->ch, 1, PATH_READ, op->total);
        op->done(op, rc);
        n++;
    }
    return n;
}

int ivc_shm_chan_progress(void *c)
{
    ivc_shm_chan_t *ch = c;
    int events = 0;
    uint32_t npeers = ch->nlocal - 1;
    for (uint32_t i = 0; i < npeers; i++) {
        shm_peer_t *p = &ch->peers[i];
        if (p->failed)
            continue;
        events += peer_poll(p);
        if (p->pullq.head && !p->failed)
            events += peer_pull(p);
        if (p->drainq.head && !p->failed)
            events += peer_drain(p);
    }
    if (ch->tx_work) {
        for (uint32_t i = 0; i < npeers; i++) {
            shm_peer_t *p = &ch->peers[i];
            if (p->failed || !peer_has_tx_work(p))
                continue;
            int rc = peer_tx_work(p);
            if (rc < 0) {
                peer_fail(p, rc, "impossible ring or pipeline counter");
                continue;
            }
            events += rc;
            if (!peer_has_tx_work(p))
                ch->tx_work--;
        }
    }
    return events;
}

const ivc_chan_ops_t ivc_shm_chan_ops = {
    .name = "shm",
    .send = shm_send,
    .recv_rndv = shm_recv_rndv,
    .send_ack = shm_send_ack,
    .progress = ivc_shm_chan_progress,
};

/* ---- start-up ---- */

/* A rank's fair share of the region for its heap: what is left of the region's heap area
 * once every co-located rank has its receive block and collective area (allocated before or
 * after ours, in any order), divided among them, less a little slack. */
static uint64_t heap_share(const ivc_region_t *r, const ivc_shm_geometry_t *geo, uint32_t nlocal)
{
    ivc_coll_config_t ccfg;
    uint64_t coll = 0;
    if (ivc_coll_config_load(&ccfg) == 0 && ccfg.shm)
        coll = ivc_coll_area_bytes(&ccfg, r->world_size) + 4096;
    uint64_t others = (uint64_t)nlocal * (geo->block_bytes + 4096 + coll) + (1u << 20);
    uint64_t area = r->heap_end - r->heap_off;
    return area > others ? (area - others) / nlocal : 1; /* 1: no room (below 1 MiB) */
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return alen != 0 && blen != 0 && a < b + blen && b < a + alen;
}

/* Migration: a rank that comes back to a region it left takes its receive block of that
 * visit again (the region's allocator never frees, so a VM that moves back and forth would
 * use the region up, one block per visit). Its slot still names the block; it is taken
 * only with this geometry, aligned, in the heap and clear of every other rank's block (a
 * slot is shared memory: believe nothing). Returns its offset, or 0 for a new block. */
static uint64_t block_again(const ivc_region_t *r, uint32_t me, const ivc_shm_geometry_t *geo,
                            uint32_t nlocal)
{
    uint64_t off = ivc_load_acquire(&ivc_region_member(r, me)->rx_off);
    const ivc_rxblock_t *blk = ivc_region_at(r, off, geo->block_bytes);
    if (off == 0 || blk == NULL || off % 4096 || off < r->heap_off || off > r->heap_end ||
        geo->block_bytes > r->heap_end - off)
        return 0;
    if (blk->magic != IVC_RXBLOCK_MAGIC || blk->nsenders != nlocal - 1 ||
        blk->ring_size != geo->ring_size || blk->ring_slack != geo->max_record ||
        blk->chunk_size != geo->chunk_size || blk->nchunks != geo->nchunks ||
        blk->inbox_stride != geo->inbox_stride || blk->block_size != geo->block_bytes)
        return 0;
    for (uint32_t k = 0; k < r->world_size; k++) {
        uint64_t o = k == me ? 0 : ivc_load_acquire(&ivc_region_member(r, k)->rx_off);
        if (o != 0 && overlaps(off, geo->block_bytes, o, geo->block_bytes))
            return 0;
    }
    return off;
}

int ivc_shm_chan_create(ivc_region_t *region, const ivc_shm_config_t *cfg, uint32_t my_rank,
                        const uint32_t *local, uint32_t nlocal, const ivc_chan_upcalls_t *up,
                        ivc_shm_chan_t **out)
{
    ivc_shm_chan_t *ch = calloc(1, sizeof(*ch));
    if (ch == NULL)
        return -ENOMEM;
    ch->region = region;
    ch->cfg = *cfg;
    ch->my_rank = my_rank;
    ch->nlocal = nlocal;
    ch->world = region->world_size;
    ch->up = *up;
    ch->free_handle = HANDLE_NONE;
    ivc_shm_csum_select(0);
    ch->local = malloc(nlocal * sizeof(*ch->local));
    ch->peers = calloc(nlocal > 1 ? nlocal - 1 : 1, sizeof(*ch->peers));
    ch->peer_of = malloc(ch->world * sizeof(*ch->peer_of));
    if (ch->local == NULL || ch->peers == NULL || ch->peer_of == NULL)
        goto err_nomem;
    memcpy(ch->local, local, nlocal * sizeof(*local));
    for (uint32_t r = 0; r < ch->world; r++)
        ch->peer_of[r] = -1;
    ch->my_local = UINT32_MAX;
    for (uint32_t i = 0, k = 0; i < nlocal; i++) {
        if (local[i] == my_rank) {
            ch->my_local = i;
            continue;
        }
        ch->peers[k].ch = ch;
        ch->peers[k].rank = local[i];
        ch->peer_of[local[i]] = (int32_t)k;
        k++;
    }
    if (ch->my_local == UINT32_MAX) {
        ivc_error("internal: rank %u is not in its own local set", my_rank);
        free(ch->local);
        free(ch->peers);
        free(ch->peer_of);
        free(ch);
        return -EINVAL;
    }

    ivc_shm_geometry_t geo;
    ivc_shm_geometry(cfg, nlocal, &geo);
    /* A block used before keeps its slots as they are: a rank of the last visit may still
     * be draining what this rank left there, and clears it once it has let go, on this
     * rank's HELLO (ivc_shm_chan_outbox_reset). */
    uint64_t again = cfg->sparse ? block_again(region, my_rank, &geo, nlocal) : 0;
    int rc = 0;
    if (again != 0)
        ch->rx_off = again;
    else
        rc = ivc_region_own_alloc(region, geo.block_bytes, 4096, &ch->rx_off);
    if (rc != 0) {
        free(ch->local);
        free(ch->peers);
        free(ch->peer_of);
        free(ch);
        return rc;
    }
    /* In this rank's write-exclusive section when the region has them (region_sect.h). */
    ivc_rxblock_t *blk = ivc_region_owned_at(region, my_rank, ch->rx_off, geo.block_bytes);
    if (blk == NULL) {
        free(ch->local);
        free(ch->peers);
        free(ch->peer_of);
        free(ch);
        return -ENOMEM;
    }
    ch->rx_bytes = geo.block_bytes;
    blk->magic = IVC_RXBLOCK_MAGIC;
    blk->nsenders = nlocal - 1;
    blk->ring_size = (uint32_t)geo.ring_size;
    blk->ring_slack = (uint32_t)geo.max_record;
    blk->chunk_size = (uint32_t)geo.chunk_size;
    blk->nchunks = (uint32_t)geo.nchunks;
    blk->inbox_stride = geo.inbox_stride;
    blk->block_size = geo.block_bytes;
    ch->sparse = cfg->sparse;
    if (ch->sparse && (ch->inflight = calloc(nlocal, sizeof(*ch->inflight))) == NULL) {
        ivc_shm_chan_destroy(ch);
        return -ENOMEM;
    }
    /* This rank's shared heap, before R5 publishes it with the block (none when the rank
     * may migrate: user memory must not live in a region it will leave). */
    ivc_rma_config_t rcfg;
    if (ch->sparse) {
        ch->heap_off = ch->heap_len = 0;
    } else if ((rc = ivc_rma_config_load(&rcfg)) != 0 ||
        (rc = ivc_shm_heap_init(region, ivc_rma_arena_bytes(&rcfg),
                                heap_share(region, &geo, nlocal))) != 0) {
        ivc_shm_chan_destroy(ch);
        return rc;
    } else {
        ivc_shm_heap_bounds(&ch->heap_off, &ch->heap_len);
    }
    blk->heap_off = ch->heap_off;
    blk->heap_len = ch->heap_len;
    /* With sections each slot is private to its peer (region_sect.h): no third rank can
     * read the messages of a pair. */
    for (uint32_t i = 0, k = 0; i + 1 < nlocal && ivc_region_has_sections(region); i++, k++) {
        if (k == ch->my_local)
            k++;
        if ((rc = ivc_region_sect_private(region, ch->rx_off + 4096 + i * geo.inbox_stride,
                                          geo.inbox_stride, local[k])) != 0) {
            ivc_shm_chan_destroy(ch);
            return rc;
        }
    }
    for (uint32_t i = 0; i + 1 < nlocal && again == 0; i++) {
        uint8_t *inbox = (uint8_t *)blk + 4096 + i * geo.inbox_stride;
        ivc_inbox_ctl_t *ctl = (ivc_inbox_ctl_t *)inbox;
        ivc_store_relaxed(&ctl->ring_head, 0);
        ivc_store_relaxed(&ctl->pipe_drained, 0);
        ivc_store_relaxed(&ctl->pipe_filled, 0);
        /* Position 0's stamp; every later position is zeroed by the producer (shm_ring.h). */
        ivc_store_relaxed(&((ivc_rec_t *)(inbox + sizeof(*ctl)))->stamp, 0);
    }
    /* R5: publishes the block; pairs with A5 in ivc_shm_chan_connect(). */
    ivc_store_release(&ivc_region_member(region, my_rank)->rx_off, ch->rx_off);
    *out = ch;
    return 0;

err_nomem:
    free(ch->local);
    free(ch->peers);
    free(ch->peer_of);
    free(ch);
    return -ENOMEM;
}

/* A peer that publishes exactly this rank's heap is a channel of this process (unit tests
 * drive two in one): neither offers the other its buffers. */
static int same_heap(const ivc_shm_chan_t *ch, const ivc_rxblock_t *geo)
{
    return geo->heap_len != 0 && geo->heap_off == ch->heap_off && geo->heap_len == ch->heap_len;
}

/* Copies a peer's block geometry once and checks it against the region and sane limits. */
static int peer_block(ivc_shm_chan_t *ch, uint32_t rank, ivc_rxblock_t *geo, uint8_t **base)
{
    /* A5: pairs with R5 in ivc_shm_chan_create() of the peer. */
    uint64_t off = ivc_load_acquire(&ivc_region_member(ch->region, rank)->rx_off);
    /* A block must lie in its owner's section when the region has sections. */
    const ivc_rxblock_t *blk = ivc_region_owned_at(ch->region, rank, off, sizeof(*blk));
    if (off == 0 || blk == NULL) {
        ivc_error("rank %u published no valid receive block (offset %" PRIu64 ")", rank, off);
        return -EPROTO;
    }
    memcpy(geo, blk, sizeof(*geo));
    const char *bad = NULL;
    if (geo->magic != IVC_RXBLOCK_MAGIC)
        bad = "magic";
    else if (geo->nsenders != ch->nlocal - 1)
        bad = "number of inboxes";
    else if (!is_pow2(geo->ring_size) || geo->ring_size < 4096 || geo->ring_size > (1u << 30))
        bad = "ring size";
    else if (geo->ring_slack % IVC_CACHE_LINE || geo->ring_slack < 2 * IVC_CACHE_LINE ||
             2 * ((uint64_t)geo->ring_slack + IVC_CACHE_LINE) > geo->ring_size)
        bad = "largest record";
    else if (geo->chunk_size == 0 || geo->chunk_size % IVC_CACHE_LINE ||
             geo->chunk_size > (1u << 30) || !is_pow2(geo->nchunks) || geo->nchunks > 1024)
        bad = "pipeline geometry";
    else if (geo->inbox_stride < sizeof(ivc_inbox_ctl_t) + (uint64_t)geo->ring_size +
                                     geo->ring_slack + (uint64_t)geo->nchunks * geo->chunk_size ||
             geo->inbox_stride % IVC_CACHE_LINE || geo->inbox_stride > (1ull << 42))
        bad = "inbox stride";
    else if (geo->block_size != 4096 + (uint64_t)geo->nsenders * geo->inbox_stride ||
             ivc_region_owned_at(ch->region, rank, off, geo->block_size) == NULL)
        bad = "block size";
    else if (geo->heap_len != 0 &&
             (geo->heap_off % 4096 || geo->heap_off < ch->region->heap_off ||
              geo->heap_off > ch->region->heap_end ||
              geo->heap_len > ch->region->heap_end - geo->heap_off ||
              (rank != ch->my_rank && !same_heap(ch, geo) &&
               (overlaps(geo->heap_off, geo->heap_len, ch->rx_off, ch->rx_bytes) ||
                overlaps(geo->heap_off, geo->heap_len, ch->heap_off, ch->heap_len)))))
        bad = "shared heap";
    if (bad != NULL) {
        ivc_error("rank %u's receive block at offset %" PRIu64 " has an invalid %s", rank, off,
                  bad);
        return -EPROTO;
    }
    *base = ch->region->base + off;
    return 0;
}

/* Points a pipeline at the chunks of the slot at `slot` of a block laid out as `geo` says
 * (the sender's slot for the receiver); returns that slot's ring. */
static uint8_t *slot_bind(const ivc_rxblock_t *geo, uint8_t *slot, shm_pipe_t *pipe)
{
    uint8_t *ring = slot + sizeof(ivc_inbox_ctl_t);
    pipe->chunks = ring + geo->ring_size + geo->ring_slack;
    pipe->chunk_size = geo->chunk_size;
    pipe->nchunks = geo->nchunks;
    return ring;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The slot for the rank with local index `peer` in the block of the rank with local index
 * `owner` (a block has a slot for every local rank but its owner, in local order). */
static uint8_t *inbox_at(uint8_t *base, const ivc_rxblock_t *geo, uint32_t owner, uint32_t peer)
{
    return base + 4096 + (uint64_t)(peer < owner ? peer : peer - 1) * geo->inbox_stride;
}

/* Peer p's local index (the peers array leaves this rank's own index out). */
static uint32_t local_index(const ivc_shm_chan_t *ch, const shm_peer_t *p)
{
    uint32_t k = (uint32_t)(p - ch->peers);
    return k < ch->my_local ? k : k + 1;
}

/* Binds peer p (local index i) to the pair's two slots, with fresh private ring and pipeline
 * state: this rank's slot for p (in its own block) holds what this rank writes for p (its
 * records and chunks to p, the filled counter) and its consumer counters of p's ring and
 * pipe; p's slot for this rank (in p's block) the same the other way. Each rank writes only
 * its own block. Returns 0 or -EPROTO (p's block is invalid). */
static int peer_bind(ivc_shm_chan_t *ch, shm_peer_t *p, uint32_t i, const ivc_rxblock_t *mine,
                     uint8_t *mybase, uint64_t *rx_bounce)
{
    ivc_rxblock_t geo;
    uint8_t *base;
    int rc = peer_block(ch, p->rank, &geo, &base);
    if (rc != 0)
        return rc;
    uint8_t *own = inbox_at(mybase, mine, ch->my_local, i);
    uint8_t *theirs = inbox_at(base, &geo, i, ch->my_local);
    /* With sections, p's slot for this rank is a part of p's section private to the pair:
     * wait until it is mapped here. */
    if (ivc_region_has_sections(ch->region) &&
        ivc_region_sect_private_at(ch->region, p->rank, (uint64_t)(theirs - ch->region->base),
                                   geo.inbox_stride) == NULL)
        return -EPROTO;

    memset(&p->tx, 0, sizeof(p->tx));
    memset(&p->rx, 0, sizeof(p->rx));
    memset(&p->txpipe, 0, sizeof(p->txpipe));
    memset(&p->rxpipe, 0, sizeof(p->rxpipe));
    p->tx_seq = p->rx_seq = 0;
    /* Sending: records and chunks in our slot, laid out as our block says; the room is
     * what p consumed, published in its slot for us. */
    p->tx.ring = slot_bind(mine, own, &p->txpipe);
    p->txpipe.stream_min = ch->cfg.stream_min;
    p->txpipe.ctl_w = (ivc_inbox_ctl_t *)own;
    p->txpipe.ctl_r = (ivc_inbox_ctl_t *)theirs;
    p->tx.ctl = (ivc_inbox_ctl_t *)theirs;
    p->tx.size = mine->ring_size;
    p->tx.max_record = mine->ring_slack;
    /* The largest payload whose record (with its check word) fits our slack. */
    p->eager_limit = mine->ring_slack - sizeof(ivc_rec_t) - (ch->cfg.checksum ? 8 : 0);
    if (p->eager_limit > ch->cfg.eager_limit)
        p->eager_limit = ch->cfg.eager_limit;
    /* Receiving: p's records and chunks in its slot for us, laid out as its block says; our
     * consumer counters in our slot. */
    p->rx.ring = slot_bind(&geo, theirs, &p->rxpipe);
    p->rxpipe.ctl_w = (ivc_inbox_ctl_t *)own;
    p->rxpipe.ctl_r = (ivc_inbox_ctl_t *)theirs;
    p->rx.ctl = (ivc_inbox_ctl_t *)own;
    p->rx.size = geo.ring_size;
    p->rx.max_record = geo.ring_slack;
    p->heap_off = geo.heap_off;
    p->heap_len = geo.heap_len;
    p->no_offer = same_heap(ch, &geo);
    if (p->no_offer)
        p->heap_off = p->heap_len = 0;
    *rx_bounce = max_u64(*rx_bounce, max_u64(geo.ring_slack, geo.chunk_size));
    return 0;
}

#ifndef MADV_POPULATE_READ /* Linux 5.14; older C libraries lack the names */
#define MADV_POPULATE_READ  22
#define MADV_POPULATE_WRITE 23
#endif

/* Maps the pages of [at, at + len) into this process now (advice: writable, else readable),
 * without changing a byte: the first records through a pair's rings otherwise take a page
 * fault per page on each side (the tmpfs page allocated, then mapped): 0.1 us per message
 * over the first ring's worth of small messages (ping-pong 0 B 0.48 against 0.38 us on the
 * 2-vCPU development machine, best of 6). Only rings, and only up to RING_PREFAULT_MAX
 * co-located ranks (15 x 128 KiB per rank): committing every pipeline, or the rings of many
 * ranks, would give up the sparse region's economy. Failure (an older kernel, device memory
 * in a guest) only leaves the faults to the first use. */
#define RING_PREFAULT_MAX 16
static void prefault(void *at, uint64_t len, int advice)
{
    uintptr_t start = (uintptr_t)at & ~(uintptr_t)4095, end = (uintptr_t)at + len;
    (void)madvise((void *)start, end - start, advice);
}

/* Copy buffers: tx for what this rank writes into its own block (its geometry), rx for
 * what it reads out of its peers' (the largest of theirs). */
static int bounce_alloc(ivc_shm_chan_t *ch, const ivc_rxblock_t *mine, uint64_t rx_bounce)
{
    free(ch->rx_bounce);
    free(ch->tx_bounce);
    ch->rx_bounce = malloc(rx_bounce ? rx_bounce : 1);
    ch->tx_bounce = malloc(max_u64(mine->ring_slack, mine->chunk_size));
    if (ch->rx_bounce == NULL || ch->tx_bounce == NULL) {
        ivc_error("out of memory for the shared-memory channel's copy buffers");
        return -ENOMEM;
    }
    return 0;
}

int ivc_shm_chan_connect(ivc_shm_chan_t *ch)
{
    ivc_rxblock_t mine;
    uint8_t *mybase;
    int rc = peer_block(ch, ch->my_rank, &mine, &mybase);
    if (rc != 0)
        return rc;
    uint64_t rx_bounce = 0;
    for (uint32_t i = 0, k = 0; i < ch->nlocal; i++) {
        if (i == ch->my_local)
            continue;
        shm_peer_t *p = &ch->peers[k++];
        /* Sparse: only the ranks in this region now; the others open when they come. */
        if (ch->sparse && ivc_region_member_get(ch->region, p->rank) != IVC_MEMBER_JOINED) {
            p->failed = -ENOTCONN;
            continue;
        }
        if ((rc = peer_bind(ch, p, i, &mine, mybase, &rx_bounce)) != 0)
            return rc;
        if (!ch->sparse && ch->nlocal <= RING_PREFAULT_MAX) {
            prefault(p->tx.ring, p->tx.size + p->tx.max_record, MADV_POPULATE_WRITE);
            prefault(p->rx.ring, p->rx.size + p->rx.max_record, MADV_POPULATE_READ);
        }
    }
    /* Sparse: peers that open later may need larger copy buffers than those here now. */
    if (ch->sparse)
        rx_bounce = max_u64(rx_bounce, max_u64(mine.ring_slack, mine.chunk_size));
    return bounce_alloc(ch, &mine, rx_bounce);
}

int ivc_shm_chan_connect_closed(ivc_shm_chan_t *ch)
{
    ivc_rxblock_t mine;
    uint8_t *mybase;
    int rc = peer_block(ch, ch->my_rank, &mine, &mybase);
    if (rc != 0)
        return rc;
    for (uint32_t k = 0; k + 1 < ch->nlocal; k++)
        ch->peers[k].failed = -ENOTCONN;
    return bounce_alloc(ch, &mine, max_u64(mine.ring_slack, mine.chunk_size));
}

/* ---- migration (coord/coord_move.h) ----
 * In a sparse channel every block has a slot for every rank of the job, so a rank that
 * arrives in this region needs no new slot from anyone. The resident clears both slots of
 * the pair before it says so over the network: its own slot for the newcomer
 * (ivc_shm_chan_inbox_reset) and the newcomer's slot for it (ivc_shm_chan_outbox_reset),
 * and the newcomer binds (ivc_shm_chan_peer_open) only after hearing that. A rank that
 * comes back takes its block of the last visit again (block_again) without touching its
 * slots: a resident may still be draining what it left there, and clears it once its pair
 * of the last visit is closed. That clearing is the one store a rank makes into another's
 * block, and only in migration mode, which has no write-exclusive sections
 * (region/region_sect.h). A closed pair is marked -ENOTCONN in `failed`, which every path
 * already skips. */

/* Clears a slot laid out as `geo` says: counters and every ring stamp. */
static void inbox_clear(uint8_t *in, const ivc_rxblock_t *geo)
{
    ivc_inbox_ctl_t *ctl = (ivc_inbox_ctl_t *)in;
    ivc_store_relaxed(&ctl->ring_head, 0);
    ivc_store_relaxed(&ctl->pipe_drained, 0);
    ivc_store_relaxed(&ctl->pipe_filled, 0);
    /* Every stamp: a record of the slot's last use must not look fresh at its position. */
    memset(in + sizeof(*ctl), 0, (size_t)geo->ring_size + geo->ring_slack);
    ivc_fence_seq_cst();
}

int ivc_shm_chan_inbox_reset(ivc_shm_chan_t *ch, uint32_t rank)
{
    shm_peer_t *p = ivc_shm_chan_endpoint(ch, rank);
    ivc_rxblock_t mine;
    uint8_t *mybase;
    if (p == NULL || peer_block(ch, ch->my_rank, &mine, &mybase) != 0)
        return -EINVAL;
    inbox_clear(inbox_at(mybase, &mine, ch->my_local, local_index(ch, p)), &mine);
    return 0;
}

int ivc_shm_chan_outbox_reset(ivc_shm_chan_t *ch, uint32_t rank)
{
    shm_peer_t *p = ivc_shm_chan_endpoint(ch, rank);
    ivc_rxblock_t geo;
    uint8_t *base;
    if (p == NULL || !ch->sparse || p->failed != -ENOTCONN ||
        peer_block(ch, rank, &geo, &base) != 0)
        return -EINVAL;
    /* The peer's slot for this rank, in the peer's block (migration mode only). */
    inbox_clear(inbox_at(base, &geo, local_index(ch, p), ch->my_local), &geo);
    return 0;
}

int ivc_shm_chan_peer_open(ivc_shm_chan_t *ch, uint32_t rank)
{
    shm_peer_t *p = ivc_shm_chan_endpoint(ch, rank);
    ivc_rxblock_t mine;
    uint8_t *mybase;
    if (p == NULL || !ch->sparse || p->failed != -ENOTCONN)
        return -EINVAL;
    int rc = peer_block(ch, ch->my_rank, &mine, &mybase);
    uint64_t rx_bounce = 0;
    if (rc == 0)
        rc = peer_bind(ch, p, local_index(ch, p), &mine, mybase, &rx_bounce);
    /* The copy buffers of a sparse channel were sized by this rank's geometry. */
    if (rc == 0 && rx_bounce > max_u64(mine.ring_slack, mine.chunk_size)) {
        ivc_error("rank %u's receive block has larger records or chunks than this rank's", rank);
        rc = -EPROTO;
    }
    if (rc == 0)
        p->failed = 0;
    return rc;
}

int ivc_shm_chan_peer_busy(ivc_shm_chan_t *ch, uint32_t rank)
{
    shm_peer_t *p = ivc_shm_chan_endpoint(ch, rank);
    if (p == NULL || p->failed)
        return 0;
    return peer_has_tx_work(p) || p->drainq.head || p->pullq.head ||
           (ch->inflight != NULL && ch->inflight[p - ch->peers] != 0);
}

void ivc_shm_chan_peer_close(ivc_shm_chan_t *ch, uint32_t rank)
{
    shm_peer_t *p = ivc_shm_chan_endpoint(ch, rank);
    if (p != NULL && !p->failed)
        p->failed = -ENOTCONN;
}

void *ivc_shm_chan_endpoint(ivc_shm_chan_t *ch, uint32_t rank)
{
    if (rank >= ch->world || ch->peer_of[rank] < 0)
        return NULL;
    return &ch->peers[ch->peer_of[rank]];
}

void ivc_shm_chan_fail_peer(ivc_shm_chan_t *ch, uint32_t rank, int err)
{
    shm_peer_t *p = ch != NULL ? ivc_shm_chan_endpoint(ch, rank) : NULL;
    if (p != NULL)
        peer_fail(p, err, NULL);
}

int ivc_shm_chan_peer_heap(ivc_shm_chan_t *ch, uint32_t rank, uint64_t *off, uint64_t *len)
{
    shm_peer_t *p = ch != NULL ? ivc_shm_chan_endpoint(ch, rank) : NULL;
    if (p == NULL || p->heap_len == 0)
        return 0;
    *off = p->heap_off;
    *len = p->heap_len;
    return 1;
}

uint64_t ivc_shm_chan_eager_limit(const void *ep)
{
    return ((const shm_peer_t *)ep)->eager_limit;
}

/* IVC_REPORT_PATH: one line per size class in which rendezvous messages moved. */
static void report_paths(const ivc_shm_chan_t *ch)
{
    static const char *const unit[] = {"", "K", "M", "G", "T", "P", "E"};
    uint64_t hlive, hpeak, hrefused;
    ivc_shm_heap_stats(&hlive, &hpeak, &hrefused);
    fprintf(stderr,
            "ivc: rank %u rendezvous paths (messages sent/received: one-copy read, one-copy "
            "write, pipeline); shared heap %llu bytes, peak use %llu, refused %llu\n",
            ch->my_rank, (unsigned long long)ch->heap_len, (unsigned long long)hpeak,
            (unsigned long long)hrefused);
    for (int b = 0; b < PATH_BUCKETS; b++) {
        const uint64_t(*s)[PATH_BUCKETS] = ch->paths[0], (*r)[PATH_BUCKETS] = ch->paths[1];
        if (!(s[0][b] | s[1][b] | s[2][b] | r[0][b] | r[1][b] | r[2][b]))
            continue;
        fprintf(stderr,
                "ivc: rank %u path %llu%s: sent %llu/%llu/%llu received %llu/%llu/%llu\n",
                ch->my_rank, 1ull << (b % 10), unit[b / 10], (unsigned long long)s[PATH_READ][b],
                (unsigned long long)s[PATH_WRITE][b], (unsigned long long)s[PATH_PIPE][b],
                (unsigned long long)r[PATH_READ][b], (unsigned long long)r[PATH_WRITE][b],
                (unsigned long long)r[PATH_PIPE][b]);
    }
}

void ivc_shm_chan_destroy(ivc_shm_chan_t *ch)
{
    if (ch == NULL)
        return;
    if (ch->cfg.report_path)
        report_paths(ch);
    for (uint32_t i = 0; i + 1 < ch->nlocal; i++)
        free(ch->peers[i].ctlq);
    free(ch->handles);
    free(ch->inflight);
    free(ch->rx_bounce);
    free(ch->tx_bounce);
    free(ch->local);
    free(ch->peers);
    free(ch->peer_of);
    free(ch);
}
