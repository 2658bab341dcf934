/* libivc channels: socket-style byte streams between two endpoints, poll, and the event fd.
 *
 * A channel is a slot of the channel table (lib_layout.h: ivclib_chan_t) plus a block of
 * two rings (a->b, b->a) that the slot keeps for its whole life, so that connecting and
 * closing channels never exhausts the region's heap. The connector claims a free slot,
 * fills it, and publishes REQUEST; the acceptor CASes it to OPEN; each side closes by
 * setting its flag, and whichever closes second (or finds its peer dead) frees the slot.
 * A slot whose two endpoints are both gone is reclaimed by the next connector that finds
 * no free slot. */
#define _GNU_SOURCE
#include "lib.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define LIVE_LOOK_NS 1000000ull /* an idle channel looks at its peer's liveness every ms */

static IVC_ATOMIC(uint32_t) *my_flags(const ivc_chan_t *ch)
{
    return ch->side == 0 ? &ch->sh->a_flags : &ch->sh->b_flags;
}

static IVC_ATOMIC(uint32_t) *peer_flags(const ivc_chan_t *ch)
{
    return ch->side == 0 ? &ch->sh->b_flags : &ch->sh->a_flags;
}

/* Checks a slot's ring block (read from the region) against the heap and the geometry. */
static int ring_block_ok(const ivc_t *ivc, uint64_t off, uint32_t size)
{
    return off != 0 && off % IVC_CACHE_LINE == 0 && size == ivc->ring_size &&
           ivclib_in_heap(ivc, off, 2 * ivclib_ring_bytes(size));
}

/* Builds the local handle of an OPEN (or REQUEST, for the connector) slot. */
static int chan_make(ivc_t *ivc, uint32_t slot, uint32_t side, uint64_t ring_off,
                     uint64_t peer_who, uint32_t port, ivc_chan_t **out)
{
    ivc_chan_t *ch = calloc(1, sizeof(*ch));
    if (ch == NULL)
        return -ENOMEM;
    ch->ivc = ivc;
    ch->slot = slot;
    ch->side = side;
    ch->sh = ivclib_chan(ivc, slot);
    ch->peer_who = peer_who;
    ch->peer_id = ivclib_who_id(peer_who);
    ch->port = port;
    ivclib_ring_ctl_t *r0 = (ivclib_ring_ctl_t *)(ivc->region.base + ring_off);
    ivclib_ring_ctl_t *r1 =
        (ivclib_ring_ctl_t *)(ivc->region.base + ring_off + ivclib_ring_bytes(ivc->ring_size));
    ivclib_ring_view(&ch->tx, side == 0 ? r0 : r1, ivc->ring_size, 0);
    ivclib_ring_view(&ch->rx, side == 0 ? r1 : r0, ivc->ring_size, 0);
    int rc = ivclib_track(ivc, (void ***)&ivc->chans, &ivc->nchans, &ivc->cap_chans, ch);
    if (rc != 0) {
        free(ch);
        return rc;
    }
    *out = ch;
    return 0;
}

/* Whether a slot may be taken over: every endpoint named in it is gone. */
static int chan_abandoned(ivc_t *ivc, ivclib_chan_t *c, uint32_t st)
{
    if (st == IVCLIB_CH_REQUEST)
        return !ivclib_alive(ivc, c->a_who);
    if (st == IVCLIB_CH_OPEN)
        return !ivclib_alive(ivc, c->a_who) && !ivclib_alive(ivc, c->b_who);
    return 0; /* CLAIMED: a connector is filling it (a few stores) */
}

static int chan_claim(ivc_t *ivc, uint32_t *slot)
{
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = 0; k < ivc->nchannels; k++) {
            ivclib_chan_t *c = ivclib_chan(ivc, k);
            uint32_t st = ivc_load_acquire(&c->state);
            if (st != IVCLIB_CH_FREE && (pass == 0 || !chan_abandoned(ivc, c, st)))
                continue;
            if (ivc_cas(&c->state, &st, IVCLIB_CH_CLAIMED)) {
                *slot = k;
                return 0;
            }
        }
    return -ENFILE;
}

/* Waiters' ready() (lib.h): what a sleeping caller re-checks before it sleeps. */
static int request_answered(void *c)
{
    return ivc_load_acquire(&((ivclib_chan_t *)c)->state) != IVCLIB_CH_REQUEST;
}

static int chan_readable(void *arg)
{
    ivc_chan_t *ch = arg;
    return ivclib_ring_avail(&ch->rx) != 0 || (ivc_load_acquire(peer_flags(ch)) & IVCLIB_CH_CLOSED) ||
           ivc_load_acquire(&ch->sh->state) != IVCLIB_CH_OPEN;
}

static int chan_writable(void *arg)
{
    ivc_chan_t *ch = arg;
    return ivclib_ring_room(&ch->tx, 1) != 0 || (ivc_load_acquire(peer_flags(ch)) & IVCLIB_CH_CLOSED) ||
           ivc_load_acquire(&ch->sh->state) != IVCLIB_CH_OPEN;
}

int ivc_connect(ivc_t *ivc, uint32_t peer, uint32_t port, int timeout_ms, ivc_chan_t **out)
{
    if (peer == ivc->id || port == IVC_PORT_ANY || out == NULL)
        return -EINVAL;
    if (peer >= ivc->nendpoints)
        return -EHOSTUNREACH;
    ivclib_ep_t *ep = ivclib_ep(ivc, peer);
    uint64_t peer_who = ivclib_who(peer, ivc_load_acquire(&ep->gen));
    if (ivc_load_acquire(&ep->state) != IVCLIB_EP_ACTIVE || !ivclib_alive(ivc, peer_who))
        return -EHOSTUNREACH;
    uint32_t slot;
    int rc = chan_claim(ivc, &slot);
    if (rc != 0)
        return rc;
    ivclib_chan_t *c = ivclib_chan(ivc, slot);
    uint64_t ring_off = c->ring_off;
    if (!ring_block_ok(ivc, ring_off, c->ring_size)) {
        /* First use of the slot (or its words were overwritten): a fresh block. */
        rc = ivc_region_alloc(&ivc->region, 2 * ivclib_ring_bytes(ivc->ring_size), 4096,
                              &ring_off);
        if (rc != 0) {
            ivc_store_release(&c->state, IVCLIB_CH_FREE);
            return rc;
        }
        c->ring_off = ring_off;
        c->ring_size = ivc->ring_size;
    }
    for (int r = 0; r < 2; r++) {
        ivclib_ring_ctl_t *ctl = (ivclib_ring_ctl_t *)(ivc->region.base + ring_off +
                                                       r * ivclib_ring_bytes(ivc->ring_size));
        ivc_store_relaxed(&ctl->tail, 0);
        ivc_store_relaxed(&ctl->head, 0);
    }
    c->port = port;
    c->a_who = ivc->who;
    c->b_who = peer_who;
    ivc_store_relaxed(&c->a_flags, 0);
    ivc_store_relaxed(&c->b_flags, 0);
    /* R13: publishes the request; pairs with A13 in ivc_accept(). */
    ivc_store_release(&c->state, IVCLIB_CH_REQUEST);
    ivclib_kick(ivc, ivclib_who_id(peer_who)); /* an acceptor may sleep */

    ivclib_waiter_t w;
    ivclib_waiter_init(&w, ivc, IVC_WAIT_BLOCK, timeout_ms);
    ivclib_waiter_ready(&w, request_answered, c);
    for (;;) {
        /* A13: the acceptor's CAS. */
        uint32_t st = ivc_load_acquire(&c->state);
        if (st == IVCLIB_CH_OPEN)
            break;
        if (st != IVCLIB_CH_REQUEST)
            return -ECONNREFUSED; /* taken from under us: the slot's words were overwritten */
        rc = ivclib_wait_event(&w);
        if (rc == 1 && !ivclib_alive(ivc, peer_who))
            rc = -ECONNREFUSED;
        if (rc < 0) {
            uint32_t expect = IVCLIB_CH_REQUEST;
            if (ivc_cas(&c->state, &expect, IVCLIB_CH_FREE))
                return rc;
            if (expect == IVCLIB_CH_OPEN)
                break; /* accepted just now */
            return rc;
        }
    }
    return chan_make(ivc, slot, 0, ring_off, peer_who, port, out);
}

/* One pass over the table for a request to this endpoint. 0 and *out, or -EAGAIN. */
static int accept_once(ivc_t *ivc, uint32_t port, ivc_chan_t **out)
{
    for (uint32_t k = 0; k < ivc->nchannels; k++) {
        ivclib_chan_t *c = ivclib_chan(ivc, k);
        /* A13: pairs with R13 in ivc_connect(). */
        if (ivc_load_acquire(&c->state) != IVCLIB_CH_REQUEST || c->b_who != ivc->who)
            continue;
        uint32_t cport = c->port;
        uint64_t a_who = c->a_who, ring_off = c->ring_off;
        if (port != IVC_PORT_ANY && cport != port)
            continue;
        if (ivclib_who_id(a_who) >= ivc->nendpoints || !ring_block_ok(ivc, ring_off, c->ring_size))
            continue; /* not a request a live connector made: leave it */
        uint32_t expect = IVCLIB_CH_REQUEST;
        if (!ivc_cas(&c->state, &expect, IVCLIB_CH_OPEN))
            continue;
        ivclib_kick(ivc, ivclib_who_id(a_who)); /* the connector may sleep */
        int rc = chan_make(ivc, k, 1, ring_off, a_who, cport, out);
        if (rc != 0) {
            ivc_store_release(&c->b_flags, IVCLIB_CH_CLOSED);
            return rc;
        }
        return 0;
    }
    return -EAGAIN;
}

typedef struct accept_wait {
    ivc_t *ivc;
    uint32_t port;
} accept_wait_t;

static int accept_pending(ivc_t *ivc, uint32_t port);

static int accept_ready(void *arg)
{
    const accept_wait_t *a = arg;
    return accept_pending(a->ivc, a->port);
}

int ivc_accept(ivc_t *ivc, uint32_t port, int timeout_ms, ivc_chan_t **out)
{
    if (out == NULL)
        return -EINVAL;
    ivclib_waiter_t w;
    accept_wait_t aw = {ivc, port};
    ivclib_waiter_init(&w, ivc, IVC_WAIT_BLOCK, timeout_ms);
    ivclib_waiter_ready(&w, accept_ready, &aw);
    for (;;) {
        int rc = accept_once(ivc, port, out);
        if (rc != -EAGAIN || timeout_ms == 0)
            return rc;
        rc = ivclib_wait_event(&w);
        if (rc < 0)
            return rc;
    }
}

/* The peer is gone: record it (what it wrote stays readable). Returns -ECONNRESET. */
static int chan_peer_dead(ivc_chan_t *ch)
{
    ch->err = -ECONNRESET;
    return -ECONNRESET;
}

/* Whether the peer is alive, looking at most every LIVE_LOOK_NS (or now when `now`). */
static int chan_peer_alive(ivc_chan_t *ch, int now)
{
    uint64_t t = ivc_now_ns();
    if (!now && t < ch->next_live_ns)
        return 1;
    ch->next_live_ns = t + LIVE_LOOK_NS;
    if (ivc_load_acquire(&ch->sh->state) != IVCLIB_CH_OPEN)
        return 0; /* the slot was taken over: nothing of this channel is left */
    return ivclib_alive(ch->ivc, ch->peer_who);
}

ssize_t ivc_write(ivc_chan_t *ch, const void *buf, size_t len)
{
    if (ch == NULL)
        return -EBADF;
    if (ch->err != 0)
        return ch->err;
    if (len == 0)
        return 0;
    /* A14: the peer's close; pairs with R14 in ivc_chan_close(). */
    if (ivc_load_acquire(peer_flags(ch)) & IVCLIB_CH_CLOSED)
        return -EPIPE;
    int64_t n = ivclib_ring_write(&ch->tx, buf, len, 0);
    if (n > 0) {
        ivclib_kick(ch->ivc, ch->peer_id); /* after R15: the reader may sleep */
        return (ssize_t)n;
    }
    if (n == -EPROTO) {
        ivc_error("libivc: channel to endpoint %u: its read position is impossible; the channel "
                  "is closed for writing",
                  ch->peer_id);
        ch->err = -EPROTO;
        return -EPROTO;
    }
    if (!chan_peer_alive(ch, 0))
        return chan_peer_dead(ch);
    return -EAGAIN;
}

ssize_t ivc_read(ivc_chan_t *ch, void *buf, size_t len)
{
    if (ch == NULL)
        return -EBADF;
    if (ch->err == -EPROTO)
        return ch->err;
    /* A14 before the ring: bytes written before the close are seen with it. */
    uint32_t pf = ivc_load_acquire(peer_flags(ch));
    if (len == 0)
        return 0;
    int64_t n = ivclib_ring_read(&ch->rx, buf, len);
    if (n > 0) {
        ivclib_kick(ch->ivc, ch->peer_id); /* after R16: room for a writer that may sleep */
        return (ssize_t)n;
    }
    if (n == -EPROTO) {
        ivc_error("libivc: channel from endpoint %u: its write position is impossible",
                  ch->peer_id);
        ch->err = -EPROTO;
        return -EPROTO;
    }
    if (pf & IVCLIB_CH_CLOSED)
        return 0;
    if (ch->err != 0)
        return ch->err;
    if (!chan_peer_alive(ch, 0)) {
        /* It may have written, then died: what is there is read first. */
        n = ivclib_ring_read(&ch->rx, buf, len);
        if (n > 0)
            return (ssize_t)n;
        return chan_peer_dead(ch);
    }
    return -EAGAIN;
}

ssize_t ivc_write_wait(ivc_chan_t *ch, const void *buf, size_t len, int timeout_ms)
{
    if (ch == NULL)
        return -EBADF;
    size_t done = 0;
    ivclib_waiter_t w;
    ivclib_waiter_init(&w, ch->ivc, IVC_WAIT_BLOCK, timeout_ms);
    ivclib_waiter_ready(&w, chan_writable, ch);
    while (done < len) {
        ssize_t n = ivc_write(ch, (const uint8_t *)buf + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            w.rounds = 0;
            continue;
        }
        if (n != -EAGAIN)
            return done > 0 ? (ssize_t)done : n;
        int rc = ivclib_wait_event(&w);
        if (rc < 0)
            return done > 0 ? (ssize_t)done : rc;
    }
    return (ssize_t)done;
}

ssize_t ivc_read_wait(ivc_chan_t *ch, void *buf, size_t len, int timeout_ms)
{
    if (ch == NULL)
        return -EBADF;
    ivclib_waiter_t w;
    ivclib_waiter_init(&w, ch->ivc, IVC_WAIT_BLOCK, timeout_ms);
    ivclib_waiter_ready(&w, chan_readable, ch);
    for (;;) {
        ssize_t n = ivc_read(ch, buf, len);
        if (n != -EAGAIN)
            return n;
        int rc = ivclib_wait_event(&w);
        if (rc < 0)
            return rc;
    }
}

uint32_t ivc_chan_peer(const ivc_chan_t *ch)
{
    return ch->peer_id;
}

uint32_t ivc_chan_port(const ivc_chan_t *ch)
{
    return ch->port;
}

static void chan_release(ivc_chan_t *ch)
{
    ivc_t *ivc = ch->ivc;
    /* R14: everything written is published with the close; pairs with A14. */
    ivc_store_release(my_flags(ch), IVCLIB_CH_CLOSED);
    ivclib_kick(ivc, ch->peer_id); /* a peer blocked on this channel looks again */
    /* Both sides store their flag, then look at the other's: with a full fence between,
     * at least one of two closing at once sees the other's flag and frees the slot. */
    ivc_fence_seq_cst();
    uint32_t other = ivc_load_acquire(peer_flags(ch));
    if ((other & IVCLIB_CH_CLOSED) || !ivclib_alive(ivc, ch->peer_who)) {
        uint32_t expect = IVCLIB_CH_OPEN;
        ivc_cas(&ch->sh->state, &expect, IVCLIB_CH_FREE);
    }
    free(ch);
}

int ivc_chan_close(ivc_chan_t *ch)
{
    if (ch == NULL)
        return 0;
    ivc_t *ivc = ch->ivc;
    ivclib_untrack(ivc, (void **)ivc->chans, &ivc->nchans, ch);
    chan_release(ch);
    return 0;
}

void ivclib_chan_close_all(ivc_t *ivc)
{
    while (ivc->nchans > 0)
        ivc_chan_close(ivc->chans[ivc->nchans - 1]);
    /* Requests to this endpoint that nobody accepted: their connectors see it leave. */
}

/* ---- readiness ---- */

static int accept_pending(ivc_t *ivc, uint32_t port)
{
    for (uint32_t k = 0; k < ivc->nchannels; k++) {
        ivclib_chan_t *c = ivclib_chan(ivc, k);
        if (ivc_load_acquire(&c->state) == IVCLIB_CH_REQUEST && c->b_who == ivc->who &&
            (port == IVC_PORT_ANY || c->port == port))
            return 1;
    }
    return 0;
}

/* Whether a port has a datagram (lib_port.c). */
int ivclib_port_readable(ivc_port_t *p);

short ivclib_poll_one(ivc_t *ivc, ivc_pollent_t *e, int check_live)
{
    short ev = 0;
    if (e->kind == IVC_POLL_ACCEPT)
        return accept_pending(ivc, e->accept_port) ? IVC_POLLIN : 0;
    if (e->kind == IVC_POLL_PORT)
        return e->port != NULL && ivclib_port_readable(e->port) ? IVC_POLLIN : 0;
    ivc_chan_t *ch = e->chan;
    if (ch == NULL)
        return IVC_POLLERR;
    if (ch->err != 0)
        return IVC_POLLERR | IVC_POLLIN | IVC_POLLHUP;
    uint32_t pf = ivc_load_acquire(peer_flags(ch));
    int64_t avail = ivclib_ring_avail(&ch->rx);
    if (avail < 0)
        return IVC_POLLERR | IVC_POLLIN;
    if (avail > 0)
        ev |= IVC_POLLIN;
    if (pf & IVCLIB_CH_CLOSED)
        return ev | IVC_POLLIN | IVC_POLLHUP;
    if (check_live && !chan_peer_alive(ch, 1))
        return ev | IVC_POLLIN | IVC_POLLERR | IVC_POLLHUP;
    int64_t room = ivclib_ring_room(&ch->tx, 1);
    if (room < 0)
        return ev | IVC_POLLERR;
    if (room > 0)
        ev |= IVC_POLLOUT;
    return ev;
}

typedef struct poll_wait {
    ivc_t *ivc;
    ivc_pollent_t *ents;
    int n;
} poll_wait_t;

static int poll_ready(void *arg)
{
    const poll_wait_t *p = arg;
    for (int i = 0; i < p->n; i++)
        if (ivclib_poll_one(p->ivc, &p->ents[i], 0) &
            (p->ents[i].events | IVC_POLLERR | IVC_POLLHUP))
            return 1;
    return 0;
}

int ivc_poll(ivc_t *ivc, ivc_pollent_t *ents, int n, int timeout_ms)
{
    if (n < 0 || (n > 0 && ents == NULL))
        return -EINVAL;
    for (int i = 0; i < n; i++)
        if (ents[i].kind < IVC_POLL_CHAN || ents[i].kind > IVC_POLL_ACCEPT)
            return -EINVAL;
    ivclib_waiter_t w;
    poll_wait_t pw = {ivc, ents, n};
    ivclib_waiter_init(&w, ivc, IVC_WAIT_BLOCK, timeout_ms);
    ivclib_waiter_ready(&w, poll_ready, &pw);
    int check = 1;
    for (;;) {
        int ready = 0;
        for (int i = 0; i < n; i++) {
            short ev = ivclib_poll_one(ivc, &ents[i], check);
            ents[i].revents = ev & (ents[i].events | IVC_POLLERR | IVC_POLLHUP);
            ready += ents[i].revents != 0;
        }
        if (ready > 0 || timeout_ms == 0)
            return ready;
        int rc = ivclib_wait_event(&w);
        if (rc < 0)
            return 0;
        check = rc == 1;
    }
}

/* ---- the event fd ----
 *
 * A watcher thread looks at the handle's objects every IVC_LIB_EVENT_PERIOD microseconds
 * and signals the eventfd while something is ready (level-triggered, at the period's
 * granularity). It reads only shared words (never the user thread's local positions), so
 * it needs no lock against the user's calls except the object lists (obj_mu). With
 * doorbells it will sleep on them instead of a period. */

static int chan_ready_shared(ivc_chan_t *ch, int look_live)
{
    /* Shared words only: the producer's tail against the consumer's published head. */
    uint64_t tail = ivc_load_acquire(&ch->rx.ctl->tail), head = ivc_load_relaxed(&ch->rx.ctl->head);
    if (tail != head || (ivc_load_acquire(peer_flags(ch)) & IVCLIB_CH_CLOSED))
        return 1;
    return look_live && !ivclib_alive(ch->ivc, ch->peer_who);
}

int ivclib_port_ready_shared(ivc_port_t *p);

int ivclib_any_ready(ivc_t *ivc)
{
    static __thread uint64_t last_live;
    uint64_t now = ivc_now_ns();
    int look_live = now - last_live > 50000000ull;
    if (look_live)
        last_live = now;
    int ready = 0;
    pthread_mutex_lock(&ivc->obj_mu);
    for (uint32_t i = 0; i < ivc->nchans && !ready; i++)
        ready = chan_ready_shared(ivc->chans[i], look_live);
    for (uint32_t i = 0; i < ivc->nports_open && !ready; i++)
        ready = ivclib_port_ready_shared(ivc->ports[i]);
    pthread_mutex_unlock(&ivc->obj_mu);
    return ready || accept_pending(ivc, IVC_PORT_ANY);
}

static void *event_main(void *arg)
{
    ivc_t *ivc = arg;
    while (!ivc_load_relaxed(&ivc->ev_stop)) {
        if (ivclib_any_ready(ivc)) {
            uint64_t one = 1;
            if (write(ivc->efd, &one, sizeof(one)) < 0) {
                /* EAGAIN: the counter is saturated, the fd readable anyway */
            }
        }
        struct timespec ts = {(time_t)(ivc->cfg.event_us / 1000000),
                              (long)(ivc->cfg.event_us % 1000000) * 1000L};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int ivc_event_fd(ivc_t *ivc)
{
    if (ivc->ev_running)
        return ivc->efd;
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0)
        return -errno;
    ivc->efd = fd;
    ivc_store_relaxed(&ivc->ev_stop, 0);
    int rc = pthread_create(&ivc->ev_thread, NULL, event_main, ivc);
    if (rc != 0) {
        close(fd);
        ivc->efd = -1;
        return -rc;
    }
    ivc->ev_running = 1;
    return fd;
}

void ivclib_event_stop(ivc_t *ivc)
{
    if (ivc->ev_running) {
        ivc_store_relaxed(&ivc->ev_stop, 1);
        pthread_join(ivc->ev_thread, NULL);
        ivc->ev_running = 0;
    }
    if (ivc->efd >= 0)
        close(ivc->efd);
    ivc->efd = -1;
}
