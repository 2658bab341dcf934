/* Eager ring of one ordered pair: the hot path (reserve, commit, poll, release).
 *
 * A single-producer single-consumer ring of variable-size records in the sender's block (its
 * slot for the receiver); the consumer's head lies in the receiver's block (its slot for the
 * sender), so each side writes only its own block.
 * Positions are free-running 64-bit byte counters, masked on access. A full record starts
 * on a cache line and takes whole lines; a short one (the channel's small eager messages,
 * region_layout.h) starts on 16 bytes and takes its size rounded up to 16, so several share
 * a line and a stream of small messages moves fewer lines between the cores; a pad record
 * fills the rest of a line before a full record (shm_ring_reserve). A record that starts
 * near the end of the ring runs on into the slack area after it instead of wrapping, so
 * every record is contiguous.
 *
 * Publication: the producer writes a record, zeroes the stamp word of the next record
 * position (shm_ring_clear_next), then release-stores the record's stamp = pos + 1 (R1).
 * The consumer polls the stamp at its head position with acquire (A1): one cache line
 * carries both the signal and a small message. Stamps never repeat (positions are
 * free-running), and the zeroing keeps stale bytes of an earlier lap from ever looking like
 * a fresh stamp. The order of the plain stores is free; the channel writes the record's
 * first line last (shm_chan.c, rec_write), right before its stamp.
 *
 * Room: the consumer publishes its head lazily (R6, every quarter ring); the producer keeps
 * one line free beyond a record (for the zeroed stamp), so a record of `bytes` fits when
 * tail + bytes + LINE - head <= size. shm_config.c requires size >= 2 * (max record + LINE),
 * which with a quarter-ring publication lag always leaves room once the consumer drains.
 *
 * Strict stamps: the stamp at the consumer's head is only ever 0 (zeroed by the commit of
 * the record before it, which the consumer acquired) or head + 1 (published; after a pad
 * record it always is, as the record behind the pad was published first). Anything else
 * was written by someone who is not the producer, so shm_ring_poll reports it (-EPROTO)
 * instead of waiting for a record that will never look fresh.
 *
 * Check words (IVC_CHECKSUM): a record whose ivc_rec_t.rsvd has SHM_REC_CSUM set carries
 * an 8-byte check word after its payload, at shm_ring_check_at(paylen) from the record
 * start (the payload padded to 8 bytes): ivc_shm_csum_copy over the 40 header bytes after
 * the stamp, seeded with the record's ring position, then over the payload seeded with that
 * result. The flag word is this channel's framing, written only by the inbox's sender like
 * every other field (region_layout.h names the field `rsvd`, zero without check words). */
#ifndef IVC_SHM_RING_H
#define IVC_SHM_RING_H

#include "../region/region_layout.h"

#include <errno.h>
#include <stdint.h>

typedef struct shm_ring_tx {
    uint8_t *ring;       /* ring data in this rank's own block, its slot for the peer */
    uint64_t size;       /* power of two */
    uint64_t max_record; /* slack bytes after the ring: largest record */
    uint64_t tail;       /* next record position; only this process writes it */
    uint64_t head_cache; /* consumer position last read from ctl->ring_head */
    ivc_inbox_ctl_t *ctl; /* the consumer's counters, in its block: only read here */
    uint64_t pad;         /* reserved: bytes from the tail to the record (a pad record's) */
} shm_ring_tx_t;

typedef struct shm_ring_rx {
    uint8_t *ring; /* ring data in the producer's block: only read here */
    uint64_t size;
    uint64_t max_record;
    uint64_t head;      /* next record position to read */
    uint64_t published; /* last value stored to ctl->ring_head */
    ivc_inbox_ctl_t *ctl; /* this consumer's counters, in its own block: written here */
} shm_ring_rx_t;

/* ivc_rec_t.rsvd: framing flags of this channel. */
#define SHM_REC_CSUM 0x1u /* a check word follows the payload */

/* Bytes a short record (ivc_rec_short_t) with `paylen` payload bytes occupies: short
 * records take multiples of 16 bytes, so several share a line. */
static inline uint64_t shm_ring_short_bytes(uint64_t paylen)
{
    return (sizeof(ivc_rec_short_t) + paylen + 15) & ~(uint64_t)15;
}

/* Bytes a pad record at `pos` occupies: the rest of its line. */
static inline uint64_t shm_ring_pad_bytes(uint64_t pos)
{
    return (0 - pos) & (IVC_CACHE_LINE - 1);
}

/* Bytes a full record with `paylen` payload bytes occupies. */
static inline uint64_t shm_ring_record_bytes(uint64_t paylen)
{
    return (sizeof(ivc_rec_t) + paylen + IVC_CACHE_LINE - 1) & ~(uint64_t)(IVC_CACHE_LINE - 1);
}

/* Offset of the check word in a record with `paylen` payload bytes. */
static inline uint64_t shm_ring_check_at(uint64_t paylen)
{
    return sizeof(ivc_rec_t) + ((paylen + 7) & ~(uint64_t)7);
}

/* Bytes a record occupies, with or without a check word. */
static inline uint64_t shm_ring_record_bytes_x(uint64_t paylen, int csum)
{
    return csum ? shm_ring_record_bytes(shm_ring_check_at(paylen) + 8 - sizeof(ivc_rec_t))
                : shm_ring_record_bytes(paylen);
}

/* The full/empty test: does a record of `bytes` fit between tail and head? */
static inline int shm_ring_fits(uint64_t tail, uint64_t head, uint64_t bytes, uint64_t size)
{
    return tail - head <= size && bytes + IVC_CACHE_LINE <= size - (tail - head);
}

/* Returns a record slot for `bytes` (<= max_record) `pad` bytes after the tail, or NULL
 * when the ring is full, or sets *err = -EPROTO when the consumer published an impossible
 * head. */
static inline ivc_rec_t *shm_ring_reserve_at(shm_ring_tx_t *tx, uint64_t pad, uint64_t bytes,
                                             int *err)
{
    bytes += pad;
    tx->pad = pad;
    if (!shm_ring_fits(tx->tail, tx->head_cache, bytes, tx->size)) {
        /* A6: sees the consumer's progress; pairs with R6 in shm_ring_release(). */
        uint64_t head = ivc_load_acquire(&tx->ctl->ring_head);
        if (tx->tail - head > tx->size) { /* modular: also catches a head ahead of the tail */
            *err = -EPROTO;
            return NULL;
        }
        tx->head_cache = head;
        if (!shm_ring_fits(tx->tail, head, bytes, tx->size))
            return NULL;
    }
    return (ivc_rec_t *)(tx->ring + ((tx->tail + pad) & (tx->size - 1)));
}

/* A full record (ivc_rec_t) starts on a line: after short records the rest of the tail's
 * line becomes a pad record (stamp and kind IVC_REC_PAD; short records take multiples of
 * 16 bytes, so it always has room for both), committed after the record itself. A record
 * that started inside a line would touch one line more than its size needs: streaming
 * 256-512 B messages with the vCPUs far apart took 1.35x as long that way. */
static inline ivc_rec_t *shm_ring_reserve(shm_ring_tx_t *tx, uint64_t bytes, int *err)
{
    return shm_ring_reserve_at(tx, (0 - tx->tail) & (IVC_CACHE_LINE - 1), bytes, err);
}

/* A short record (ivc_rec_short_t) goes right at the tail. */
static inline ivc_rec_t *shm_ring_reserve_short(shm_ring_tx_t *tx, uint64_t bytes, int *err)
{
    return shm_ring_reserve_at(tx, 0, bytes, err);
}

/* Zeroes the stamp word of the record position after a record of `bytes` at the tail;
 * before shm_ring_commit() of that record. */
static inline void shm_ring_clear_next(shm_ring_tx_t *tx, uint64_t bytes)
{
    ivc_rec_t *next = (ivc_rec_t *)(tx->ring + ((tx->tail + tx->pad + bytes) & (tx->size - 1)));
    ivc_store_relaxed(&next->stamp, 0);
}

/* Publishes the record reserved at the tail (its fields and payload already written, the
 * next stamp cleared). */
static inline void shm_ring_commit(shm_ring_tx_t *tx, ivc_rec_t *rec, uint64_t bytes)
{
    uint64_t pos = tx->tail + tx->pad;
    /* R1: publishes the record and the zeroed next stamp; pairs with A1 in shm_ring_poll(). */
    ivc_store_release(&rec->stamp, pos + 1);
    if (tx->pad) {
        /* The pad's stamp only after the record's: the consumer, having taken the pad, finds
         * the record published (no earlier zeroing reached the record's stamp word). */
        ivc_rec_short_t *pad = (ivc_rec_short_t *)(tx->ring + (tx->tail & (tx->size - 1)));
        pad->kind = IVC_REC_PAD;
        ivc_store_release(&pad->stamp, tx->tail + 1); /* R1 */
    }
    tx->tail = pos + bytes;
    tx->pad = 0;
}

/* Returns the record at the head if its producer has published it, else NULL; sets
 * *err = -EPROTO (and returns NULL) when the stamp there is neither fresh nor cleared. */
static inline const ivc_rec_t *shm_ring_poll_strict(const shm_ring_rx_t *rx, int *err)
{
    const ivc_rec_t *rec = (const ivc_rec_t *)(rx->ring + (rx->head & (rx->size - 1)));
    /* A1: pairs with R1 in shm_ring_commit(); the record's fields are read after this. */
    uint64_t stamp = ivc_load_acquire(&rec->stamp);
    if (stamp == rx->head + 1)
        return rec;
    if (stamp != 0)
        *err = -EPROTO;
    return NULL;
}

/* The same without the stamp check (for rings whose head stamp was never cleared). */
static inline const ivc_rec_t *shm_ring_poll(const shm_ring_rx_t *rx)
{
    int err = 0;
    return shm_ring_poll_strict(rx, &err);
}

/* Consumes the record at the head, which occupied `bytes`. Returns 1 when it published the
 * head (a sender waiting for room may need a ring), else 0. */
static inline int shm_ring_release(shm_ring_rx_t *rx, uint64_t bytes)
{
    rx->head += bytes;
    if (rx->head - rx->published >= rx->size / 4) {
        rx->published = rx->head;
        /* R6: hands the space back; pairs with A6 in shm_ring_reserve(). */
        ivc_store_release(&rx->ctl->ring_head, rx->head);
        return 1;
    }
    return 0;
}

#endif
