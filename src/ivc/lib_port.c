/* libivc ports: datagrams to (endpoint, port) addresses, the form the KVM message-passing
 * device offered.
 *
 * Several senders write to one port, but a ring has one producer: so a port has nlanes
 * lanes, each an SPSC ring that one sender owns at a time (CAS on the lane's owner word).
 * A sender keeps its lane while it lives; a lane of a sender that left or died is taken
 * over by the next sender that needs one (unread datagrams in it are still delivered).
 * The receiver reads the lanes round robin. No sender can tear another's datagram, and
 * one that scribbles over its lane only loses that lane's contents (the receiver resets
 * the lane and reports -EPROTO once). */
#define _GNU_SOURCE
#include "lib.h"

#include "../base/ivc_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A lane this endpoint writes to. */
typedef struct ivclib_lane_ref {
    uint32_t peer, port, slot, lane;
    uint64_t owner_who; /* the port's binder when the lane was taken */
    ivclib_lane_t *sh;
    ivclib_ring_t tx;
} ivclib_lane_ref_t;

static uint64_t lane_stride(uint32_t lane_size)
{
    return sizeof(ivclib_lane_t) + lane_size;
}

static ivclib_lane_t *lane_at(const ivc_t *ivc, uint64_t lanes_off, uint32_t lane_size, uint32_t i)
{
    return (ivclib_lane_t *)(ivc->region.base + lanes_off + i * lane_stride(lane_size));
}

static int lanes_ok(const ivc_t *ivc, uint64_t off, uint32_t nlanes, uint32_t lane_size)
{
    return off != 0 && off % IVC_CACHE_LINE == 0 && nlanes == ivc->nlanes &&
           lane_size == ivc->lane_size && ivclib_in_heap(ivc, off, nlanes * lane_stride(lane_size));
}

size_t ivc_port_max_msg(const ivc_t *ivc)
{
    return ivc->lane_size / 4 - sizeof(ivclib_dgram_hdr_t);
}

static uint64_t rec_bytes(uint32_t len)
{
    return sizeof(ivclib_dgram_hdr_t) + (((uint64_t)len + 7) & ~7ull);
}

int ivc_port_open(ivc_t *ivc, uint32_t port, ivc_port_t **out)
{
    if (port == IVC_PORT_ANY || out == NULL)
        return -EINVAL;
    int rc = ivclib_create_lock(ivc);
    if (rc != 0)
        return rc;
    int slot = -1;
    for (uint32_t k = 0; k < ivc->nports; k++) {
        ivclib_port_t *p = ivclib_port(ivc, k);
        /* A17: pairs with R17 below. */
        uint32_t st = ivc_load_acquire(&p->state);
        if (st == IVCLIB_PORT_OPEN && p->owner_who == ivc->who && p->port == port) {
            ivclib_create_unlock(ivc);
            return -EADDRINUSE;
        }
        if (slot < 0 && (st == IVCLIB_PORT_FREE ||
                         (st == IVCLIB_PORT_OPEN && !ivclib_alive(ivc, p->owner_who))))
            slot = (int)k;
    }
    if (slot < 0) {
        ivclib_create_unlock(ivc);
        return -ENFILE;
    }
    ivclib_port_t *p = ivclib_port(ivc, (uint32_t)slot);
    ivc_store_relaxed(&p->state, IVCLIB_PORT_CLAIMED); /* under the creation lock */
    uint64_t lanes_off = p->lanes_off;
    if (!lanes_ok(ivc, lanes_off, p->nlanes, p->lane_size)) {
        rc = ivc_region_alloc(&ivc->region, ivc->nlanes * lane_stride(ivc->lane_size), 4096,
                              &lanes_off);
        if (rc != 0) {
            ivc_store_release(&p->state, IVCLIB_PORT_FREE);
            ivclib_create_unlock(ivc);
            return rc;
        }
        p->lanes_off = lanes_off;
        p->nlanes = ivc->nlanes;
        p->lane_size = ivc->lane_size;
    }
    for (uint32_t i = 0; i < ivc->nlanes; i++) {
        ivclib_lane_t *l = lane_at(ivc, lanes_off, ivc->lane_size, i);
        ivc_store_relaxed(&l->owner, 0);
        ivc_store_relaxed(&l->ring.tail, 0);
        ivc_store_relaxed(&l->ring.head, 0);
    }
    p->port = port;
    p->owner_who = ivc->who;
    /* R17: publishes the port; pairs with A17 in the senders' lookup. */
    ivc_store_release(&p->state, IVCLIB_PORT_OPEN);
    ivclib_create_unlock(ivc);

    ivc_port_t *h = calloc(1, sizeof(*h));
    ivclib_ring_t *rx = calloc(ivc->nlanes, sizeof(*rx));
    if (h == NULL || rx == NULL) {
        free(h);
        free(rx);
        ivc_store_release(&p->state, IVCLIB_PORT_FREE);
        return -ENOMEM;
    }
    h->ivc = ivc;
    h->slot = (uint32_t)slot;
    h->port = port;
    h->sh = p;
    h->lanes_off = lanes_off;
    h->nlanes = ivc->nlanes;
    h->lane_size = ivc->lane_size;
    h->rx = rx;
    for (uint32_t i = 0; i < h->nlanes; i++)
        ivclib_ring_view(&rx[i], &lane_at(ivc, lanes_off, h->lane_size, i)->ring, h->lane_size, 0);
    rc = ivclib_track(ivc, (void ***)&ivc->ports, &ivc->nports_open, &ivc->cap_ports, h);
    if (rc != 0) {
        ivc_port_close(h);
        return rc;
    }
    *out = h;
    return 0;
}

int ivc_port_close(ivc_port_t *p)
{
    if (p == NULL)
        return 0;
    ivc_t *ivc = p->ivc;
    ivclib_untrack(ivc, (void **)ivc->ports, &ivc->nports_open, p);
    if (ivc_load_acquire(&p->sh->state) == IVCLIB_PORT_OPEN && p->sh->owner_who == ivc->who)
        ivc_store_release(&p->sh->state, IVCLIB_PORT_FREE);
    free(p->rx);
    free(p);
    return 0;
}

void ivclib_port_close_all(ivc_t *ivc)
{
    while (ivc->nports_open > 0)
        ivc_port_close(ivc->ports[ivc->nports_open - 1]);
    /* Hand back the lanes this endpoint writes to. */
    for (uint32_t i = 0; i < ivc->nlane_refs; i++) {
        uint64_t me = ivc->who;
        ivc_cas(&ivc->lanes[i].sh->owner, &me, 0);
    }
    ivc->nlane_refs = 0;
}

/* Whether the cached lane still belongs to this sender on the same binding. */
static int lane_valid(ivc_t *ivc, const ivclib_lane_ref_t *r)
{
    ivclib_port_t *p = ivclib_port(ivc, r->slot);
    return ivc_load_acquire(&p->state) == IVCLIB_PORT_OPEN && p->owner_who == r->owner_who &&
           p->port == r->port && ivc_load_relaxed(&r->sh->owner) == ivc->who;
}

/* Finds (or takes) a lane of `peer`'s `port` for this sender. */
static int lane_get(ivc_t *ivc, uint32_t peer, uint32_t port, ivclib_lane_ref_t **out)
{
    for (uint32_t i = 0; i < ivc->nlane_refs; i++) {
        ivclib_lane_ref_t *r = &ivc->lanes[i];
        if (r->peer != peer || r->port != port)
            continue;
        if (lane_valid(ivc, r)) {
            *out = r;
            return 0;
        }
        ivc->lanes[i] = ivc->lanes[--ivc->nlane_refs]; /* stale */
        break;
    }
    for (uint32_t k = 0; k < ivc->nports; k++) {
        ivclib_port_t *p = ivclib_port(ivc, k);
        /* A17: pairs with R17 in ivc_port_open(). */
        if (ivc_load_acquire(&p->state) != IVCLIB_PORT_OPEN || p->port != port)
            continue;
        uint64_t owner = p->owner_who, lanes_off = p->lanes_off;
        if (ivclib_who_id(owner) != peer || !ivclib_alive(ivc, owner))
            continue;
        if (!lanes_ok(ivc, lanes_off, p->nlanes, p->lane_size))
            return -EPROTO;
        ivclib_lane_t *take = NULL;
        for (int pass = 0; pass < 2 && take == NULL; pass++)
            for (uint32_t i = 0; i < ivc->nlanes && take == NULL; i++) {
                ivclib_lane_t *l = lane_at(ivc, lanes_off, ivc->lane_size, i);
                uint64_t cur = ivc_load_acquire(&l->owner);
                if (cur == ivc->who || ((cur == 0 || (pass == 1 && !ivclib_alive(ivc, cur))) &&
                                        ivc_cas(&l->owner, &cur, ivc->who)))
                    take = l;
            }
        if (take == NULL)
            return -EBUSY;
        /* Adopt the lane's producer position (it may hold a previous sender's datagrams). */
        uint64_t tail = ivc_load_acquire(&take->ring.tail), head = ivc_load_acquire(&take->ring.head);
        if (ivclib_ring_used(tail, head, ivc->lane_size) < 0)
            tail = head; /* a damaged lane: start where the receiver is */
        if (ivc->nlane_refs == ivc->cap_lane_refs) {
            uint32_t ncap = ivc->cap_lane_refs ? ivc->cap_lane_refs * 2 : 8;
            void *na = realloc(ivc->lanes, ncap * sizeof(*ivc->lanes));
            if (na == NULL)
                return -ENOMEM;
            ivc->lanes = na;
            ivc->cap_lane_refs = ncap;
        }
        ivclib_lane_ref_t *r = &ivc->lanes[ivc->nlane_refs++];
        r->peer = peer;
        r->port = port;
        r->slot = k;
        r->lane = (uint32_t)(((uint8_t *)take - (ivc->region.base + lanes_off)) /
                             lane_stride(ivc->lane_size));
        r->owner_who = owner;
        r->sh = take;
        ivclib_ring_view(&r->tx, &take->ring, ivc->lane_size, tail);
        r->tx.peer = head;
        *out = r;
        return 0;
    }
    return -EHOSTUNREACH;
}

ssize_t ivc_sendto(ivc_t *ivc, uint32_t peer, uint32_t port, const void *buf, size_t len)
{
    if (len > ivc_port_max_msg(ivc))
        return -EMSGSIZE;
    if (peer >= ivc->nendpoints)
        return -EHOSTUNREACH;
    ivclib_lane_ref_t *r;
    int rc = lane_get(ivc, peer, port, &r);
    if (rc != 0)
        return rc;
    uint64_t need = rec_bytes((uint32_t)len);
    int64_t room = ivclib_ring_room(&r->tx, need);
    if (room < 0) {
        /* The receiver's position is impossible: give the lane up. */
        uint64_t me = ivc->who;
        ivc_cas(&r->sh->owner, &me, 0);
        *r = ivc->lanes[--ivc->nlane_refs];
        return -EPROTO;
    }
    if ((uint64_t)room < need)
        return -EAGAIN;
    ivclib_dgram_hdr_t h = {(uint32_t)len, ivc->id};
    ivclib_ring_put(&r->tx, r->tx.pos, &h, sizeof(h));
    ivclib_ring_put(&r->tx, r->tx.pos + sizeof(h), buf, len);
    ivclib_ring_publish(&r->tx, r->tx.pos + need);
    ivclib_kick(ivc, peer); /* after R15: the port's owner may sleep */
    return (ssize_t)len;
}

/* The receiver's answer to an impossible lane: skip everything in it. */
static int lane_reset(ivc_port_t *p, uint32_t i)
{
    ivclib_ring_t *rx = &p->rx[i];
    uint64_t tail = ivc_load_acquire(&rx->ctl->tail);
    ivc_error("libivc: port %u: lane %u holds an impossible datagram or position; its contents "
              "are dropped",
              p->port, i);
    ivclib_ring_consume(rx, tail);
    return -EPROTO;
}

/* The lane whose ring a receiver's view reads. */
static ivclib_lane_t *lane_of(ivclib_ring_t *rx)
{
    return (ivclib_lane_t *)((uint8_t *)rx->ctl - offsetof(ivclib_lane_t, ring));
}

ssize_t ivc_recvfrom(ivc_port_t *p, void *buf, size_t len, uint32_t *from)
{
    if (p == NULL)
        return -EBADF;
    for (uint32_t k = 0; k < p->nlanes; k++) {
        uint32_t i = (p->next_lane + k) % p->nlanes;
        ivclib_ring_t *rx = &p->rx[i];
        int64_t avail = ivclib_ring_avail(rx);
        if (avail == 0)
            continue;
        if (avail < (int64_t)sizeof(ivclib_dgram_hdr_t))
            return lane_reset(p, i);
        ivclib_dgram_hdr_t h;
        ivclib_ring_get(rx, rx->pos, &h, sizeof(h));
        if (h.len > ivc_port_max_msg(p->ivc) || (int64_t)rec_bytes(h.len) > avail)
            return lane_reset(p, i);
        size_t n = len < h.len ? len : h.len;
        ivclib_ring_get(rx, rx->pos + sizeof(h), buf, n);
        ivclib_ring_consume(rx, rx->pos + rec_bytes(h.len));
        /* After R16: the lane's sender may wait for room (it sleeps only with a doorbell,
         * and it names itself in the lane's owner word). */
        uint64_t sender = ivc_load_relaxed(&lane_of(rx)->owner);
        if (sender != 0)
            ivclib_kick(p->ivc, ivclib_who_id(sender));
        if (from != NULL)
            *from = h.from;
        p->next_lane = i + 1;
        return (ssize_t)n;
    }
    return -EAGAIN;
}

ssize_t ivc_sendto_wait(ivc_t *ivc, uint32_t peer, uint32_t port, const void *buf, size_t len,
                        int timeout_ms)
{
    ivclib_waiter_t w;
    ivclib_waiter_init(&w, ivc, IVC_WAIT_BLOCK, timeout_ms);
    for (;;) {
        ssize_t n = ivc_sendto(ivc, peer, port, buf, len);
        if (n != -EAGAIN && n != -EBUSY)
            return n;
        int rc = ivclib_wait_event(&w);
        if (rc < 0)
            return rc;
    }
}

int ivclib_port_readable(ivc_port_t *p);

static int port_ready(void *p)
{
    return ivclib_port_readable(p);
}

ssize_t ivc_recvfrom_wait(ivc_port_t *p, void *buf, size_t len, uint32_t *from, int timeout_ms)
{
    if (p == NULL)
        return -EBADF;
    ivclib_waiter_t w;
    ivclib_waiter_init(&w, p->ivc, IVC_WAIT_BLOCK, timeout_ms);
    ivclib_waiter_ready(&w, port_ready, p);
    for (;;) {
        ssize_t n = ivc_recvfrom(p, buf, len, from);
        if (n != -EAGAIN)
            return n;
        int rc = ivclib_wait_event(&w);
        if (rc < 0)
            return rc;
    }
}

int ivclib_port_readable(ivc_port_t *p)
{
    for (uint32_t i = 0; i < p->nlanes; i++)
        if (ivclib_ring_avail(&p->rx[i]) != 0)
            return 1;
    return 0;
}

int ivclib_port_ready_shared(ivc_port_t *p)
{
    for (uint32_t i = 0; i < p->nlanes; i++) {
        ivclib_ring_ctl_t *c = p->rx[i].ctl;
        if (ivc_load_acquire(&c->tail) != ivc_load_relaxed(&c->head))
            return 1;
    }
    return 0;
}
