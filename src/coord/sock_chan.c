/* The socket channel (sock_chan.h). */
#include "sock_chan.h"

#include "../base/ivc_log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { SOCK_MSG = 0x4d435649u, SOCK_ACK = 0x41435649u, SOCK_BYE = 0x42435649u };

/* A message larger than this is a protocol violation (the receiver buffers it whole). */
#define SOCK_MAX_LEN (1ull << 36)

typedef struct sock_hdr {
    uint32_t type;   /* SOCK_* */
    uint32_t flags;  /* unused, 0 */
    ivc_env_t env;   /* SOCK_MSG: the envelope; env.len payload bytes follow */
    uint64_t cookie; /* SOCK_MSG: the sender's handle of a synchronous send (0: none);
                      * SOCK_ACK: the handle acknowledged */
} sock_hdr_t;

typedef struct out_buf {
    struct out_buf *next;
    size_t len, off;
    uint8_t data[];
} out_buf_t;

typedef struct sync_wait {
    struct sync_wait *next;
    ivc_chan_op_t *op;
    uint64_t cookie;
} sync_wait_t;

typedef struct sock_ep {
    struct sock_ep *next;
    ivc_sock_chan_t *chan;
    int fd;   /* -1 once closed */
    int peer; /* world id */
    int bye;  /* the peer said BYE (its EOF is no failure) */
    int saidbye;
    int err; /* a send found the socket broken: failed at the next progress */
    out_buf_t *out_head, *out_tail;
    sync_wait_t *syncs;
    uint64_t next_cookie;
    sock_hdr_t hdr; /* the header being read */
    size_t hdr_got;
    uint8_t *payload; /* the payload being read (hdr complete) */
    uint64_t pay_got;
} sock_ep_t;

struct ivc_sock_chan {
    ivc_chan_upcalls_t up;
    sock_ep_t *eps;
};

ivc_sock_chan_t *ivc_sock_chan_create(const ivc_chan_upcalls_t *up)
{
    ivc_sock_chan_t *s = calloc(1, sizeof(*s));
    if (s != NULL)
        s->up = *up;
    return s;
}

void *ivc_sock_chan_add(ivc_sock_chan_t *s, int fd, int peer)
{
    sock_ep_t *e = calloc(1, sizeof(*e));
    if (e == NULL) {
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    e->chan = s;
    e->fd = fd;
    e->peer = peer;
    e->next_cookie = 1;
    e->next = s->eps;
    s->eps = e;
    return e;
}

/* Fails every operation still waiting on e and closes it. */
static void ep_fail(sock_ep_t *e, int err)
{
    if (e->fd < 0)
        return;
    close(e->fd);
    e->fd = -1;
    while (e->out_head) {
        out_buf_t *b = e->out_head;
        e->out_head = b->next;
        free(b);
    }
    e->out_tail = NULL;
    free(e->payload);
    e->payload = NULL;
    sync_wait_t *w = e->syncs;
    e->syncs = NULL;
    if (!e->bye)
        e->chan->up.on_peer_failed(e->chan->up.arg, e->peer, err);
    while (w) {
        sync_wait_t *n = w->next;
        w->op->done(w->op, err);
        free(w);
        w = n;
    }
}

/* Writes what is queued; returns 1 if something moved. */
static int ep_flush(sock_ep_t *e)
{
    int moved = 0;
    while (e->fd >= 0 && !e->err && e->out_head) {
        out_buf_t *b = e->out_head;
        ssize_t n = send(e->fd, b->data + b->off, b->len - b->off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                break;
            e->err = -ECONNRESET; /* failed from progress, not inside a send */
            return 1;
        }
        moved = 1;
        b->off += (size_t)n;
        if (b->off < b->len)
            break;
        e->out_head = b->next;
        if (e->out_head == NULL)
            e->out_tail = NULL;
        free(b);
    }
    return moved;
}

static int ep_queue(sock_ep_t *e, const sock_hdr_t *h, const ivc_data_t *d)
{
    uint64_t len = d != NULL ? d->bytes : 0;
    out_buf_t *b = malloc(sizeof(*b) + sizeof(*h) + len);
    if (b == NULL)
        return -ENOMEM;
    b->next = NULL;
    b->len = sizeof(*h) + len;
    b->off = 0;
    memcpy(b->data, h, sizeof(*h));
    if (len)
        ivc_data_pack(d, 0, b->data + sizeof(*h), len);
    if (e->out_tail)
        e->out_tail->next = b;
    else
        e->out_head = b;
    e->out_tail = b;
    ep_flush(e);
    return 0;
}

static int sock_send(void *ep, ivc_chan_op_t *op)
{
    sock_ep_t *e = ep;
    if (e->fd < 0 || e->err)
        return -ECONNRESET;
    sock_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.type = SOCK_MSG;
    h.env = op->env;
    h.env.len = op->data.bytes;
    sync_wait_t *w = NULL;
    if (op->env.flags & IVC_ENV_SYNC) {
        w = malloc(sizeof(*w));
        if (w == NULL)
            return -ENOMEM;
        w->op = op;
        w->cookie = h.cookie = e->next_cookie++;
    }
    int rc = ep_queue(e, &h, &op->data);
    if (rc != 0) {
        free(w);
        return rc;
    }
    if (w == NULL)
        return 1; /* copied: complete */
    w->next = e->syncs;
    e->syncs = w;
    return 0;
}

static int sock_recv_rndv(void *ep, const ivc_inmsg_t *m, ivc_chan_op_t *op)
{
    return -EINVAL; /* every message arrives whole */
}

static int sock_send_ack(void *ep, uint64_t cookie)
{
    sock_ep_t *e = ep;
    if (e->fd < 0)
        return -ECONNRESET;
    sock_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.type = SOCK_ACK;
    h.cookie = cookie;
    return ep_queue(e, &h, NULL);
}

void ivc_sock_chan_bye(void *ep)
{
    sock_ep_t *e = ep;
    if (e == NULL || e->fd < 0 || e->saidbye)
        return;
    sock_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.type = SOCK_BYE;
    e->saidbye = 1;
    ep_queue(e, &h, NULL);
}

/* A complete frame arrived: hand it on. Returns 0, or -EPROTO. */
static int ep_deliver(sock_ep_t *e)
{
    sock_hdr_t *h = &e->hdr;
    if (h->type == SOCK_ACK) {
        for (sync_wait_t **p = &e->syncs; *p; p = &(*p)->next)
            if ((*p)->cookie == h->cookie) {
                sync_wait_t *w = *p;
                *p = w->next;
                w->op->done(w->op, 0);
                free(w);
                return 0;
            }
        return -EPROTO;
    }
    if (h->type == SOCK_BYE) {
        e->bye = 1;
        return 0;
    }
    ivc_inmsg_t in = {
        .env = h->env, .peer = e->peer, .data = e->payload, .cookie = h->cookie, .rndv = 0};
    e->chan->up.on_message(e->chan->up.arg, &in);
    return 0;
}

/* Reads what is there; returns the number of frames delivered. */
static int ep_read(sock_ep_t *e)
{
    int n = 0;
    while (e->fd >= 0) {
        ssize_t k;
        if (e->hdr_got < sizeof(e->hdr)) {
            k = recv(e->fd, (uint8_t *)&e->hdr + e->hdr_got, sizeof(e->hdr) - e->hdr_got, 0);
        } else {
            k = recv(e->fd, e->payload + e->pay_got, e->hdr.env.len - e->pay_got, 0);
        }
        if (k == 0) {
            ep_fail(e, -ECONNRESET);
            return n + 1;
        }
        if (k < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return n;
            ep_fail(e, -ECONNRESET);
            return n + 1;
        }
        if (e->hdr_got < sizeof(e->hdr)) {
            e->hdr_got += (size_t)k;
            if (e->hdr_got < sizeof(e->hdr))
                continue;
            sock_hdr_t *h = &e->hdr;
            if (h->type != SOCK_MSG && h->type != SOCK_ACK && h->type != SOCK_BYE)
                goto bad;
            if (h->type != SOCK_MSG)
                h->env.len = 0;
            if (h->env.len > SOCK_MAX_LEN)
                goto bad;
            e->payload = malloc(h->env.len ? h->env.len : 1);
            if (e->payload == NULL) {
                ivc_error("out of memory receiving %llu bytes from rank %d",
                          (unsigned long long)h->env.len, e->peer);
                ep_fail(e, -ENOMEM);
                return n + 1;
            }
            e->pay_got = 0;
        } else {
            e->pay_got += (uint64_t)k;
        }
        if (e->pay_got < e->hdr.env.len)
            continue;
        int rc = ep_deliver(e);
        free(e->payload);
        e->payload = NULL;
        e->hdr_got = 0;
        n++;
        if (rc != 0)
            goto bad;
    }
    return n;
bad:
    ivc_error("rank %d (dynamic-process peer) sent a malformed frame on its socket", e->peer);
    e->bye = 0;
    ep_fail(e, -EPROTO);
    return n + 1;
}

int ivc_sock_chan_progress(void *chan)
{
    ivc_sock_chan_t *s = chan;
    int n = 0;
    for (sock_ep_t *e = s->eps; e; e = e->next) {
        if (e->fd < 0)
            continue;
        if (e->err) {
            /* A write found the peer gone: what it sent before it went (its BYE, above all)
             * is read first, so that a peer that closed on purpose is no failure. */
            n += ep_read(e) + 1;
            ep_fail(e, e->err);
            continue;
        }
        if (e->out_head)
            n += ep_flush(e);
        n += ep_read(e);
    }
    return n;
}

int ivc_sock_chan_fds(const ivc_sock_chan_t *s, struct pollfd *fds, int max)
{
    int n = 0;
    for (const sock_ep_t *e = s->eps; e && n < max; e = e->next)
        if (e->fd >= 0)
            fds[n++] = (struct pollfd){e->fd, (short)(POLLIN | (e->out_head ? POLLOUT : 0)), 0};
    return n;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void ivc_sock_chan_destroy(ivc_sock_chan_t *s, int timeout_ms)
{
    if (s == NULL)
        return;
    for (sock_ep_t *e = s->eps; e; e = e->next) {
        e->bye = 1; /* from here on, nothing is reported */
        ivc_sock_chan_bye(e);
    }
    uint64_t end = now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        int left = 0;
        for (sock_ep_t *e = s->eps; e; e = e->next) {
            ep_flush(e);
            left += e->fd >= 0 && e->out_head != NULL;
        }
        if (!left || now_ms() >= end)
            break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    while (s->eps) {
        sock_ep_t *e = s->eps;
        s->eps = e->next;
        if (e->fd >= 0)
            shutdown(e->fd, SHUT_WR);
        ep_fail(e, 0);
        free(e);
    }
    free(s);
}

const ivc_chan_ops_t ivc_sock_chan_ops = {
    .name = "socket",
    .send = sock_send,
    .recv_rndv = sock_recv_rndv,
    .send_ack = sock_send_ack,
    .progress = ivc_sock_chan_progress,
};
