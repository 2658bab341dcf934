#include "net_chan.h"

#include "../base/ivc_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef IVC_HAVE_UCX

/* Built without UCX: every rank must share one region. */
const ivc_chan_ops_t ivc_net_chan_ops = {"net (unavailable)", NULL, NULL, NULL, NULL};
int ivc_net_available(void)
{
    return 0;
}
int ivc_net_chan_create(uint32_t my_rank, uint32_t world, const ivc_chan_upcalls_t *up,
                        ivc_net_chan_t **out)
{
    return -ENOTSUP;
}
void ivc_net_chan_address(const ivc_net_chan_t *ch, const void **addr, size_t *len)
{
    *addr = NULL;
    *len = 0;
}
int ivc_net_chan_connect(ivc_net_chan_t *ch, uint32_t peer, const void *addr, size_t len)
{
    return -ENOTSUP;
}
void *ivc_net_chan_endpoint(ivc_net_chan_t *ch, uint32_t peer)
{
    return NULL;
}
int ivc_net_chan_progress(void *chan)
{
    return 0;
}
void ivc_net_chan_destroy(ivc_net_chan_t *ch) {}
void ivc_net_chan_flush(ivc_net_chan_t *ch) {}
void ivc_net_chan_fail_peer(ivc_net_chan_t *ch, uint32_t peer, int err) {}

#else

#include "../base/ivc_wait.h"

#include <ucp/api/ucp.h>

enum { AM_MSG = 7, AM_ACK = 8, AM_BYE = 9 }; /* UCP active-message ids */

/* What travels in front of every message. */
typedef struct net_hdr {
    uint32_t ctx;
    int32_t src;
    int32_t tag;
    uint32_t flags;  /* IVC_ENV_* */
    uint64_t len;    /* payload bytes */
    uint64_t seq;    /* per (sender, receiver) pair, from 0 */
    uint64_t cookie; /* sender's handle of a synchronous send; echoed by the ACK */
    uint32_t sender; /* sender's world rank */
    uint32_t pad;
} net_hdr_t;

typedef struct net_ep net_ep_t;

/* A message that arrived, kept until it is next in its sender's sequence. */
typedef struct net_arrival {
    struct net_arrival *next;
    net_hdr_t h;
    net_ep_t *ep;
    void *data;    /* eager: payload; rendezvous: UCX's descriptor */
    int rndv;      /* pull the payload with ucp_am_recv_data_nbx */
    int ucx_owned; /* eager data held from UCX: ucp_am_data_release() after use */
} net_arrival_t;

struct net_ep {
    ivc_net_chan_t *ch;
    ucp_ep_h ep;
    uint32_t peer;
    uint64_t send_seq, recv_seq;
    int failed;
    int bye; /* the peer said it is finalizing: its disconnecting is no failure */
    ucs_status_ptr_t close_req; /* the forced close of a failed peer's endpoint, in flight */
};

/* A send in flight: keeps the header (UCX reads it until completion) and a packed copy of
 * non-contiguous data. A synchronous send completes when UCX is done and the ACK came. */
typedef struct net_send {
    struct net_send *next; /* in the channel's list of synchronous sends */
    net_hdr_t h;
    ivc_chan_op_t *op;
    net_ep_t *ep;
    void *tmp;
    int pending; /* 1 (UCX) + 1 if waiting for the ACK */
    int status;
} net_send_t;

/* A rendezvous receive in flight. */
typedef struct net_recv {
    ivc_chan_op_t *op;
    net_arrival_t *a;
    void *tmp; /* non-contiguous destination: received here, then unpacked */
} net_recv_t;

typedef struct net_done {
    struct net_done *next;
    ivc_chan_op_t *op;
    int status;
} net_done_t;

struct ivc_net_chan {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_address_t *addr;
    size_t addr_len;
    uint32_t my_rank, world;
    net_ep_t *eps; /* indexed by world rank; ep == NULL: not a network peer */
    ivc_chan_upcalls_t up;
    net_arrival_t *arrivals, *arrivals_tail;
    net_send_t *syncs; /* synchronous sends waiting for their ACK */
    net_send_t *spare; /* freed send contexts, reused: no allocation per message */
    unsigned nspare;
    net_done_t *done; /* completions to report from progress */
    int events;
    int closing; /* finalizing: peers leave too, which is no failure */
};

int ivc_net_available(void)
{
    return 1;
}

#define SPARE_MAX 256

static net_send_t *send_get(ivc_net_chan_t *ch)
{
    net_send_t *s = ch->spare;
    if (s == NULL)
        return calloc(1, sizeof(*s));
    ch->spare = s->next;
    ch->nspare--;
    memset(s, 0, sizeof(*s));
    return s;
}

static void send_put(ivc_net_chan_t *ch, net_send_t *s)
{
    free(s->tmp);
    if (ch->nspare >= SPARE_MAX) {
        free(s);
        return;
    }
    s->next = ch->spare;
    ch->spare = s;
    ch->nspare++;
}

static void finish_later(ivc_net_chan_t *ch, ivc_chan_op_t *op, int status)
{
    net_done_t *d = malloc(sizeof(*d));
    if (d == NULL) {
        op->done(op, status); /* out of memory: report now rather than never */
        return;
    }
    d->op = op;
    d->status = status;
    d->next = ch->done;
    ch->done = d;
}

static void send_release(net_send_t *s)
{
    if (--s->pending > 0)
        return;
    ivc_chan_op_t *op = s->op;
    int status = s->status;
    ivc_net_chan_t *ch = s->ep->ch;
    send_put(ch, s);
    ch->events++;
    op->done(op, status);
}

static void send_cb(void *request, ucs_status_t status, void *user_data)
{
    net_send_t *s = user_data;
    if (status != UCS_OK && s->status == 0)
        s->status = -ECONNRESET;
    ucp_request_free(request);
    send_release(s);
}

static int net_send(void *vep, ivc_chan_op_t *op)
{
    net_ep_t *e = vep;
    if (e->failed)
        return -ECONNRESET;
    net_send_t *s = send_get(e->ch);
    if (s == NULL)
        return -ENOMEM;
    s->op = op;
    s->ep = e;
    s->h = (net_hdr_t){.ctx = op->env.ctx,
                       .src = op->env.src,
                       .tag = op->env.tag,
                       .flags = op->env.flags,
                       .len = op->data.bytes,
                       .seq = e->send_seq++,
                       .cookie = (uint64_t)(uintptr_t)s,
                       .sender = e->ch->my_rank};
    const void *buf = op->data.buf;
    if (!ivc_data_contig(&op->data) && op->data.bytes > 0) {
        s->tmp = malloc(op->data.bytes);
        if (s->tmp == NULL) {
            send_put(e->ch, s);
            return -ENOMEM;
        }
        ivc_data_pack(&op->data, 0, s->tmp, op->data.bytes);
        buf = s->tmp;
    }
    int sync = (op->env.flags & IVC_ENV_SYNC) != 0;
    s->pending = 1 + sync;
    if (sync) {
        s->next = e->ch->syncs;
        e->ch->syncs = s;
    }
    ucp_request_param_t rp = {.op_attr_mask =
                                  UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                              .cb.send = send_cb,
                              .user_data = s};
    ucs_status_ptr_t sp =
        ucp_am_send_nbx(e->ep, AM_MSG, &s->h, sizeof(s->h), buf, op->data.bytes, &rp);
    if (UCS_PTR_IS_ERR(sp)) {
        ivc_error("network send to rank %u failed: %s", e->peer,
                  ucs_status_string(UCS_PTR_STATUS(sp)));
        if (sync) {
            for (net_send_t **p = &e->ch->syncs; *p; p = &(*p)->next)
                if (*p == s) {
                    *p = s->next;
                    break;
                }
        }
        send_put(e->ch, s);
        return -ECONNRESET;
    }
    if (sp != NULL)
        return 0; /* send_cb follows */
    if (!sync) {
        send_put(e->ch, s);
        return 1; /* done at once: no done() call */
    }
    s->pending--; /* UCX's part is done; the ACK remains */
    return 0;
}

/* A rendezvous payload is in: unpack it if it came through a temporary buffer,
 * acknowledge a synchronous send, free the receive. Returns 0 or -errno for done(). */
static int recv_finish(net_recv_t *r, int rc)
{
    net_arrival_t *a = r->a;
    if (rc == 0 && r->tmp != NULL)
        ivc_data_unpack(&r->op->data, 0, r->tmp, r->op->xfer);
    if (rc == 0 && (a->h.flags & IVC_ENV_SYNC))
        rc = ivc_net_chan_ops.send_ack(a->ep, a->h.cookie);
    free(r->tmp);
    free(r);
    free(a);
    return rc;
}

static void recv_cb(void *request, ucs_status_t status, size_t length, void *user_data)
{
    net_recv_t *r = user_data;
    ivc_chan_op_t *op = r->op;
    ivc_net_chan_t *ch = r->a->ep->ch;
    ucp_request_free(request);
    int rc = recv_finish(r, status == UCS_OK ? 0 : -ECONNRESET);
    ch->events++;
    op->done(op, rc);
}

static int net_recv_rndv(void *vep, const ivc_inmsg_t *m, ivc_chan_op_t *op)
{
    net_ep_t *e = vep;
    net_arrival_t *a = (net_arrival_t *)(uintptr_t)m->cookie;
    uint64_t want = a->h.len < op->data.bytes ? a->h.len : op->data.bytes;
    net_recv_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return -ENOMEM;
    r->op = op;
    r->a = a;
    op->xfer = want;
    /* UCX delivers the whole message: a truncated or non-contiguous receive goes through a
     * temporary buffer. */
    void *dst = op->data.buf;
    if (a->h.len > op->data.bytes || !ivc_data_contig(&op->data)) {
        r->tmp = malloc(a->h.len ? a->h.len : 1);
        if (r->tmp == NULL) {
            free(r);
            return -ENOMEM;
        }
        dst = r->tmp;
    }
    ucp_request_param_t rp = {.op_attr_mask =
                                  UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                              .cb.recv_am = recv_cb,
                              .user_data = r};
    ucs_status_ptr_t sp = ucp_am_recv_data_nbx(e->ch->worker, a->data, dst, a->h.len, &rp);
    if (UCS_PTR_IS_ERR(sp)) {
        free(r->tmp);
        free(r);
        return -ECONNRESET;
    }
    if (sp == NULL) /* done at once: report from progress, as the contract says */
        finish_later(e->ch, op, recv_finish(r, 0));
    return 0;
}

static void ack_cb(void *request, ucs_status_t status, void *user_data)
{
    free(user_data);
    ucp_request_free(request);
}

static int net_send_ack(void *vep, uint64_t cookie)
{
    net_ep_t *e = vep;
    if (e->failed)
        return -ECONNRESET;
    uint64_t *c = malloc(sizeof(*c));
    if (c == NULL)
        return -ENOMEM;
    *c = cookie;
    ucp_request_param_t rp = {.op_attr_mask =
                                  UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                              .cb.send = ack_cb,
                              .user_data = c};
    ucs_status_ptr_t sp = ucp_am_send_nbx(e->ep, AM_ACK, c, sizeof(*c), NULL, 0, &rp);
    if (UCS_PTR_IS_ERR(sp)) {
        free(c);
        return -ECONNRESET;
    }
    if (sp == NULL)
        free(c);
    return 0;
}

/* A message header from the wire: checked, then queued until it is next in sequence. */
static ucs_status_t am_msg_cb(void *arg, const void *header, size_t hlen, void *data, size_t len,
                              const ucp_am_recv_param_t *param)
{
    ivc_net_chan_t *ch = arg;
    net_hdr_t h;
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    if (hlen != sizeof(h))
        return UCS_OK; /* not ours: dropped */
    memcpy(&h, header, sizeof(h));
    if (h.sender >= ch->world || ch->eps[h.sender].ep == NULL || h.len != len) {
        ivc_warn("network: dropped a malformed message (sender %u, %llu of %zu bytes)", h.sender,
                 (unsigned long long)h.len, len);
        return UCS_OK;
    }
    net_ep_t *e = &ch->eps[h.sender];
    /* Fast path: the next eager message in sequence, nothing queued before it, no ACK to
     * send: straight up, no copy. (Rendezvous and synchronous messages wait for progress:
     * their handling calls back into UCX.) */
    if (!rndv && !(h.flags & IVC_ENV_SYNC) && ch->arrivals == NULL && h.seq == e->recv_seq) {
        e->recv_seq++;
        ivc_inmsg_t m = {
            .env = {.ctx = h.ctx, .src = h.src, .tag = h.tag, .flags = h.flags, .len = h.len},
            .peer = (int)h.sender,
            .data = data,
            .cookie = h.cookie};
        ch->up.on_message(ch->up.arg, &m);
        ch->events++;
        return UCS_OK;
    }
    net_arrival_t *a = calloc(1, sizeof(*a));
    if (a == NULL)
        return UCS_OK;
    a->h = h;
    a->ep = e;
    a->rndv = rndv;
    ucs_status_t keep = UCS_OK;
    if (rndv || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA)) {
        a->data = data; /* UCX keeps it until recv_data_nbx / am_data_release */
        a->ucx_owned = !rndv;
        keep = UCS_INPROGRESS;
    } else if (len > 0) {
        a->data = malloc(len);
        if (a->data == NULL) {
            free(a);
            return UCS_OK;
        }
        memcpy(a->data, data, len);
    }
    if (ch->arrivals_tail)
        ch->arrivals_tail->next = a;
    else
        ch->arrivals = a;
    ch->arrivals_tail = a;
    return keep;
}

static ucs_status_t am_ack_cb(void *arg, const void *header, size_t hlen, void *data, size_t len,
                              const ucp_am_recv_param_t *param)
{
    ivc_net_chan_t *ch = arg;
    uint64_t cookie;
    if (hlen != sizeof(cookie))
        return UCS_OK;
    memcpy(&cookie, header, sizeof(cookie));
    /* Only a cookie of a send still waiting counts: anything else is stale or forged. */
    for (net_send_t **p = &ch->syncs; *p; p = &(*p)->next) {
        if ((uint64_t)(uintptr_t)*p == cookie) {
            net_send_t *s = *p;
            *p = s->next;
            send_release(s);
            break;
        }
    }
    return UCS_OK;
}

/* BYE: the sender is in MPI_Finalize, done with everything it sent (ivc_net_chan_flush). */
static ucs_status_t am_bye_cb(void *arg, const void *header, size_t hlen, void *data, size_t len,
                              const ucp_am_recv_param_t *param)
{
    ivc_net_chan_t *ch = arg;
    uint32_t sender;
    if (hlen != sizeof(sender))
        return UCS_OK;
    memcpy(&sender, header, sizeof(sender));
    if (sender < ch->world && ch->eps[sender].ep != NULL)
        ch->eps[sender].bye = 1;
    return UCS_OK;
}

/* Hands up every queued arrival that is next in its sender's sequence. */
static int deliver_in_order(ivc_net_chan_t *ch)
{
    int n = 0, moved;
    do {
        moved = 0;
        net_arrival_t *prev = NULL;
        for (net_arrival_t *a = ch->arrivals; a != NULL;) {
            net_arrival_t *next = a->next;
            if (a->h.seq != a->ep->recv_seq) {
                prev = a;
                a = next;
                continue;
            }
            if (prev)
                prev->next = next;
            else
                ch->arrivals = next;
            if (ch->arrivals_tail == a)
                ch->arrivals_tail = prev;
            a->next = NULL;
            a->ep->recv_seq++;
            ivc_inmsg_t m = {.env = {.ctx = a->h.ctx,
                                     .src = a->h.src,
                                     .tag = a->h.tag,
                                     .flags = a->h.flags,
                                     .len = a->h.len},
                             .peer = (int)a->ep->peer,
                             .rndv = a->rndv};
            if (a->rndv) {
                m.cookie = (uint64_t)(uintptr_t)a; /* freed when its receive completes */
                ch->up.on_message(ch->up.arg, &m);
            } else {
                m.data = a->data;
                m.cookie = a->h.cookie;
                ch->up.on_message(ch->up.arg, &m);
                if (a->ucx_owned)
                    ucp_am_data_release(ch->worker, a->data);
                else
                    free(a->data);
                free(a);
            }
            n++;
            moved = 1;
            a = next;
        }
    } while (moved);
    return n;
}

int ivc_net_chan_progress(void *chan)
{
    ivc_net_chan_t *ch = chan;
    ch->events = 0;
    /* Once per call: with TCP every call costs a system call, and the callers poll in a
     * loop anyway; a second call to find nothing more would sit on the critical path. */
    int n = (int)ucp_worker_progress(ch->worker) > 0;
    n += ch->events;
    if (ch->arrivals != NULL)
        n += deliver_in_order(ch);
    while (ch->done != NULL) {
        net_done_t *d = ch->done;
        ch->done = d->next;
        d->op->done(d->op, d->status);
        free(d);
        n++;
    }
    return n;
}

static void ep_fail(net_ep_t *e, int err, int report);

static void ep_err_cb(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    net_ep_t *e = arg;
    if (e->failed || e->ch->closing)
        return;
    /* A peer that said BYE finished MPI_Finalize while this rank goes on (with failed ranks
     * in the job, finalize meets nobody first): its endpoint closes, nothing failed. */
    if (e->bye) {
        ivc_debug("network: rank %u finalized and disconnected", e->peer);
        ep_fail(e, -ECONNRESET, 0);
        return;
    }
    ivc_error("network connection to rank %u failed: %s", e->peer, ucs_status_string(status));
    ep_fail(e, -ECONNRESET, 1);
}

/* The peer failed (UCX saw its connection break, or another rank saw it die): fails the
 * synchronous sends whose acknowledgement can never come, closes the endpoint (a forced
 * close completes UCX's outstanding requests to it with errors: their callbacks fail the
 * sends and rendezvous receives), refuses new sends, reports the peer once (unless it only
 * left: `report` 0). Safe inside a UCX callback: nothing here progresses the worker. */
static void ep_fail(net_ep_t *e, int err, int report)
{
    ivc_net_chan_t *ch = e->ch;
    if (e->failed || e->ep == NULL)
        return;
    e->failed = 1;
    for (net_send_t **p = &ch->syncs; *p;) {
        net_send_t *s = *p;
        if (s->ep != e) {
            p = &s->next;
            continue;
        }
        *p = s->next;
        if (s->status == 0)
            s->status = err;
        send_release(s);
    }
    ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                              .flags = UCP_EP_CLOSE_FLAG_FORCE};
    ucs_status_ptr_t sp = ucp_ep_close_nbx(e->ep, &rp);
    e->close_req = sp != NULL && !UCS_PTR_IS_ERR(sp) ? sp : NULL;
    e->ep = NULL;
    ch->events++;
    if (report)
        ch->up.on_peer_failed(ch->up.arg, (int)e->peer, err);
}

void ivc_net_chan_fail_peer(ivc_net_chan_t *ch, uint32_t peer, int err)
{
    if (ch != NULL && peer < ch->world)
        ep_fail(&ch->eps[peer], err, 1);
}

const ivc_chan_ops_t ivc_net_chan_ops = {"net (UCX)", net_send, net_recv_rndv, net_send_ack,
                                         ivc_net_chan_progress};

int ivc_net_chan_create(uint32_t my_rank, uint32_t world, const ivc_chan_upcalls_t *up,
                        ivc_net_chan_t **out)
{
    ivc_net_chan_t *ch = calloc(1, sizeof(*ch));
    if (ch == NULL || (ch->eps = calloc(world, sizeof(*ch->eps))) == NULL) {
        free(ch);
        return -ENOMEM;
    }
    ch->my_rank = my_rank;
    ch->world = world;
    ch->up = *up;
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    /* A peer that dies quietly (its host or VM gone, no connection reset) is seen by UCX's
     * keepalive: probe every second unless the user chose otherwise. */
    if (st == UCS_OK && getenv("UCX_KEEPALIVE_INTERVAL") == NULL)
        ucp_config_modify(config, "KEEPALIVE_INTERVAL", "1s");
    if (st == UCS_OK) {
        ucp_params_t p = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_AM};
        st = ucp_init(&p, config, &ch->ctx);
        ucp_config_release(config);
    }
    if (st == UCS_OK) {
        ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                                  .thread_mode = UCS_THREAD_MODE_SINGLE};
        st = ucp_worker_create(ch->ctx, &wp, &ch->worker);
    }
    if (st == UCS_OK)
        st = ucp_worker_get_address(ch->worker, &ch->addr, &ch->addr_len);
    for (int id = AM_MSG; st == UCS_OK && id <= AM_BYE; id++) {
        ucp_am_handler_param_t hp = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                                                   UCP_AM_HANDLER_PARAM_FIELD_CB |
                                                   UCP_AM_HANDLER_PARAM_FIELD_ARG,
                                     .id = (unsigned)id,
                                     .cb = id == AM_MSG   ? am_msg_cb
                                           : id == AM_ACK ? am_ack_cb
                                                          : am_bye_cb,
                                     .arg = ch};
        st = ucp_worker_set_am_recv_handler(ch->worker, &hp);
    }
    if (st != UCS_OK) {
        ivc_error("network channel: UCX failed to start: %s", ucs_status_string(st));
        ivc_net_chan_destroy(ch);
        return -EIO;
    }
    *out = ch;
    return 0;
}

void ivc_net_chan_address(const ivc_net_chan_t *ch, const void **addr, size_t *len)
{
    *addr = ch->addr;
    *len = ch->addr_len;
}

int ivc_net_chan_connect(ivc_net_chan_t *ch, uint32_t peer, const void *addr, size_t len)
{
    net_ep_t *e = &ch->eps[peer];
    e->ch = ch;
    e->peer = peer;
    ucp_ep_params_t p = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                                       UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                                       UCP_EP_PARAM_FIELD_ERR_HANDLER,
                         .address = addr,
                         .err_mode = UCP_ERR_HANDLING_MODE_PEER,
                         .err_handler = {.cb = ep_err_cb, .arg = e}};
    ucs_status_t st = ucp_ep_create(ch->worker, &p, &e->ep);
    if (st != UCS_OK) {
        ivc_error("network channel: cannot connect to rank %u: %s", peer, ucs_status_string(st));
        e->ep = NULL;
        return -EIO;
    }
    return 0;
}

void *ivc_net_chan_endpoint(ivc_net_chan_t *ch, uint32_t peer)
{
    return peer < ch->world && ch->eps[peer].ep != NULL ? &ch->eps[peer] : NULL;
}

static void flush_cb(void *request, ucs_status_t status, void *user_data)
{
    *(int *)user_data = 1;
}

void ivc_net_chan_flush(ivc_net_chan_t *ch)
{
    /* BYE to every peer, ahead of the flush that sends it out: a peer still at work sees
     * this rank disconnect after it, and does not take that for a failure. */
    for (uint32_t r = 0; r < ch->world; r++) {
        net_ep_t *e = &ch->eps[r];
        if (e->ep == NULL || e->failed)
            continue;
        ucp_request_param_t rp = {.op_attr_mask = 0};
        ucs_status_ptr_t sp =
            ucp_am_send_nbx(e->ep, AM_BYE, &ch->my_rank, sizeof(ch->my_rank), NULL, 0, &rp);
        if (sp != NULL && !UCS_PTR_IS_ERR(sp))
            ucp_request_free(sp); /* the flush below waits for it; my_rank outlives it */
    }
    int done = 0;
    ucp_request_param_t rp = {.op_attr_mask =
                                  UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
                              .cb.send = flush_cb,
                              .user_data = &done};
    ucs_status_ptr_t sp = ucp_worker_flush_nbx(ch->worker, &rp);
    if (sp != NULL && !UCS_PTR_IS_ERR(sp)) {
        uint64_t end = ivc_now_ns() + 10000000000ull;
        while (!done && ivc_now_ns() < end)
            ivc_net_chan_progress(ch);
        if (done)
            ucp_request_free(sp);
    }
    ch->closing = 1; /* from now on peers leave too: no failure */
}

void ivc_net_chan_destroy(ivc_net_chan_t *ch)
{
    if (ch == NULL)
        return;
    ch->closing = 1;
    for (uint32_t r = 0; ch->eps != NULL && r < ch->world; r++) {
        net_ep_t *e = &ch->eps[r];
        if (e->close_req != NULL) {
            uint64_t end = ivc_now_ns() + 1000000000ull;
            while (ucp_request_check_status(e->close_req) == UCS_INPROGRESS && ivc_now_ns() < end)
                ucp_worker_progress(ch->worker);
            ucp_request_free(e->close_req);
            e->close_req = NULL;
        }
        if (e->ep == NULL)
            continue;
        /* The coordinator flushed and met every peer first: nothing is in flight, and a
         * graceful close would wait for peers that may already be gone. */
        ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                  .flags = UCP_EP_CLOSE_FLAG_FORCE};
        ucs_status_ptr_t sp = ucp_ep_close_nbx(e->ep, &rp);
        uint64_t end = ivc_now_ns() + 10000000000ull;
        if (sp != NULL && !UCS_PTR_IS_ERR(sp)) {
            while (ucp_request_check_status(sp) == UCS_INPROGRESS && ivc_now_ns() < end)
                ucp_worker_progress(ch->worker);
            ucp_request_free(sp);
        }
        e->ep = NULL;
    }
    while (ch->arrivals != NULL) {
        net_arrival_t *a = ch->arrivals;
        ch->arrivals = a->next;
        if (!a->rndv && !a->ucx_owned)
            free(a->data);
        free(a);
    }
    while (ch->spare != NULL) {
        net_send_t *s = ch->spare;
        ch->spare = s->next;
        free(s);
    }
    if (ch->addr != NULL)
        ucp_worker_release_address(ch->worker, ch->addr);
    if (ch->worker != NULL)
        ucp_worker_destroy(ch->worker);
    if (ch->ctx != NULL)
        ucp_cleanup(ch->ctx);
    free(ch->eps);
    free(ch);
}

#endif
