/* libivc's single-producer single-consumer byte ring (lib_layout.h: ivclib_ring_ctl_t):
 * channel directions and port lanes. Hot path, so static inline (STYLE.md).
 *
 * Each side keeps its own position in process memory and never reads it back from the
 * region (a scribbled word cannot move it); the other side's position is read with an
 * acquire load and checked with ivclib_ring_used() before any byte is touched. */
#ifndef IVC_LIB_RING_H
#define IVC_LIB_RING_H

#include "lib_layout.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

typedef struct ivclib_ring {
    ivclib_ring_ctl_t *ctl;
    uint8_t *data;
    uint32_t size; /* power of two */
    uint64_t pos;  /* own position: tail for the producer, head for the consumer */
    uint64_t peer; /* the other side's position as last read */
} ivclib_ring_t;

/* Bytes in the ring between consumer position `head` and producer position `tail`, or
 * -EPROTO when the pair is impossible (head ahead of tail, or more than `size` apart):
 * the one full/empty test, shared by both sides. Free-running 64-bit positions: the
 * subtraction is right across the wrap of the counters. */
static inline int64_t ivclib_ring_used(uint64_t tail, uint64_t head, uint32_t size)
{
    uint64_t used = tail - head;
    return used <= size ? (int64_t)used : -EPROTO;
}

/* Attaches a view; `pos` is the position to start from (0 for a fresh ring). */
static inline void ivclib_ring_view(ivclib_ring_t *r, ivclib_ring_ctl_t *ctl, uint32_t size,
                                    uint64_t pos)
{
    r->ctl = ctl;
    r->data = (uint8_t *)ctl + sizeof(*ctl);
    r->size = size;
    r->pos = pos;
    r->peer = pos;
}

/* Producer: room for more bytes, re-reading the consumer's position only when the cached
 * one does not show `want` bytes free. Returns the room or -EPROTO. */
static inline int64_t ivclib_ring_room(ivclib_ring_t *r, uint64_t want)
{
    int64_t used = ivclib_ring_used(r->pos, r->peer, r->size);
    if (used >= 0 && r->size - (uint64_t)used >= want)
        return (int64_t)(r->size - (uint64_t)used);
    /* A16: sees the consumer done with the bytes it released; pairs with R16 in
     * ivclib_ring_consume(). */
    r->peer = ivc_load_acquire(&r->ctl->head);
    used = ivclib_ring_used(r->pos, r->peer, r->size);
    return used < 0 ? used : (int64_t)(r->size - (uint64_t)used);
}

/* Copies len bytes to ring position pos (wrapping). */
static inline void ivclib_ring_put(ivclib_ring_t *r, uint64_t pos, const void *buf, uint64_t len)
{
    uint64_t at = pos & (r->size - 1), first = r->size - at;
    if (first > len)
        first = len;
    memcpy(r->data + at, buf, first);
    if (len > first)
        memcpy(r->data, (const uint8_t *)buf + first, len - first);
}

/* Copies len bytes from ring position pos (wrapping). */
static inline void ivclib_ring_get(const ivclib_ring_t *r, uint64_t pos, void *buf, uint64_t len)
{
    uint64_t at = pos & (r->size - 1), first = r->size - at;
    if (first > len)
        first = len;
    memcpy(buf, r->data + at, first);
    if (len > first)
        memcpy((uint8_t *)buf + first, r->data, len - first);
}

/* Producer: publishes the bytes put since the last publish, up to position pos. */
static inline void ivclib_ring_publish(ivclib_ring_t *r, uint64_t pos)
{
    r->pos = pos;
    /* R15: publishes the bytes; pairs with A15 in ivclib_ring_avail(). */
    ivc_store_release(&r->ctl->tail, pos);
}

/* Consumer: bytes available, or -EPROTO. */
static inline int64_t ivclib_ring_avail(ivclib_ring_t *r)
{
    /* A15: sees the bytes the producer published; pairs with R15 above. */
    r->peer = ivc_load_acquire(&r->ctl->tail);
    return ivclib_ring_used(r->peer, r->pos, r->size);
}

/* Consumer: releases bytes up to position pos to the producer. */
static inline void ivclib_ring_consume(ivclib_ring_t *r, uint64_t pos)
{
    r->pos = pos;
    /* R16: hands the space back; pairs with A16 in ivclib_ring_room(). */
    ivc_store_release(&r->ctl->head, pos);
}

/* Producer: writes up to len bytes (all or nothing when `whole`). Returns the count,
 * -EAGAIN (no room) or -EPROTO. */
static inline int64_t ivclib_ring_write(ivclib_ring_t *r, const void *buf, uint64_t len, int whole)
{
    int64_t room = ivclib_ring_room(r, whole ? len : 1);
    if (room < 0)
        return room;
    if (room == 0 || (whole && (uint64_t)room < len))
        return -EAGAIN;
    uint64_t n = len < (uint64_t)room ? len : (uint64_t)room;
    ivclib_ring_put(r, r->pos, buf, n);
    ivclib_ring_publish(r, r->pos + n);
    return (int64_t)n;
}

/* Consumer: reads up to len bytes. Returns the count, -EAGAIN (empty) or -EPROTO. */
static inline int64_t ivclib_ring_read(ivclib_ring_t *r, void *buf, uint64_t len)
{
    int64_t avail = ivclib_ring_avail(r);
    if (avail <= 0)
        return avail < 0 ? avail : -EAGAIN;
    uint64_t n = len < (uint64_t)avail ? len : (uint64_t)avail;
    ivclib_ring_get(r, r->pos, buf, n);
    ivclib_ring_consume(r, r->pos + n);
    return (int64_t)n;
}

#endif
