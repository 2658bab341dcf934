/* Rendezvous pipeline of one ordered pair: nchunks chunk buffers in the sender's block (its
 * slot for the receiver), filled by the sender and drained by the receiver in order, so both
 * copies overlap.
 *
 * `filled` (sender, in the sender's slot) and `drained` (receiver, in the receiver's slot
 * for the sender) are free-running chunk counters, each in its writer's own block; chunk k
 * lives at chunk buffer k & (nchunks - 1). Only one message streams through a pipe at
 * a time, in the order the receiver sent clear-to-send records, so both sides derive each
 * chunk's length from the accepted message length alone: nothing but the counters is read
 * from the other side.
 *
 * Check words (IVC_CHECKSUM; the receiver's clear-to-send says whether a message uses
 * them): each chunk then carries chunk_size - 8 message bytes and, in its last 8 bytes, the
 * check word of those bytes seeded with the chunk's counter value (shm_csum.h), written by
 * the sender before R8. The sender checks the bytes it reads from the user's buffer and the
 * receiver the bytes it copies out, so a chunk changed in the region at any moment, or a
 * stale chunk that a forged counter exposes, fails the check instead of being delivered.
 * Non-contiguous data goes through a private bounce buffer of chunk_size bytes for that. */
#ifndef IVC_SHM_PIPE_H
#define IVC_SHM_PIPE_H

#include "../base/ivc_copy.h"
#include "../base/ivc_data.h"
#include "../region/region_layout.h"
#include "shm_csum.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

typedef struct shm_pipe {
    uint8_t *chunks; /* nchunks * chunk_size bytes */
    uint64_t chunk_size;
    uint64_t nchunks;    /* power of two */
    uint64_t mine;       /* sender: chunks filled; receiver: chunks drained */
    uint64_t theirs;     /* the other side's counter, as last read */
    uint64_t stream_min; /* sender: messages at least this long are copied with streaming
                          * stores (base/ivc_copy.h) */
    ivc_inbox_ctl_t *ctl_w; /* this side's counters (in its own block): written here */
    ivc_inbox_ctl_t *ctl_r; /* the other side's counters (in its block): only read here */
} shm_pipe_t;

/* Message bytes one chunk carries. */
static inline uint64_t shm_pipe_chunk_payload(const shm_pipe_t *p, int csum)
{
    return csum ? p->chunk_size - 8 : p->chunk_size;
}

/* Sender: copies message bytes [*off, total) of `data` into free chunks, with check words
 * when `csum` (then `bounce` holds chunk_size bytes for non-contiguous data).
 * Returns the number of chunks filled, or -EPROTO if the receiver's counter is impossible. */
static inline int shm_pipe_fill(shm_pipe_t *p, const ivc_data_t *data, uint64_t *off,
                                uint64_t total, int csum, uint8_t *bounce)
{
    uint64_t cap = shm_pipe_chunk_payload(p, csum);
    int n = 0;
    while (*off < total) {
        if (p->mine - p->theirs >= p->nchunks) {
            /* A7: the receiver is done with drained chunks; pairs with R7 in shm_pipe_drain. */
            uint64_t drained = ivc_load_acquire(&p->ctl_r->pipe_drained);
            if (p->mine - drained > p->nchunks) /* modular: catches drained > mine too */
                return -EPROTO;
            p->theirs = drained;
            if (p->mine - drained >= p->nchunks)
                break;
        }
        uint64_t len = total - *off < cap ? total - *off : cap;
        uint8_t *chunk = p->chunks + (p->mine & (p->nchunks - 1)) * p->chunk_size;
        if (csum) {
            const uint8_t *src = (const uint8_t *)data->buf + *off;
            if (!ivc_data_contig(data)) {
                ivc_data_pack(data, *off, bounce, len);
                src = bounce;
            }
            uint64_t check = ivc_shm_csum_copy(chunk, src, len, p->mine);
            memcpy(chunk + p->chunk_size - 8, &check, 8);
        } else if (total >= p->stream_min && ivc_data_contig(data))
            ivc_copy_stream(chunk, (const uint8_t *)data->buf + *off, len);
        else
            ivc_data_pack(data, *off, chunk, len);
        *off += len;
        p->mine++;
        /* R8: publishes the chunk; pairs with A8 in shm_pipe_drain(). */
        ivc_store_release(&p->ctl_w->pipe_filled, p->mine);
        n++;
    }
    return n;
}

/* Receiver: copies filled chunks into message bytes [*off, total) of `data`, checking
 * their check words when `csum` (then `bounce` holds chunk_size bytes).
 * Returns the number of chunks drained, -EPROTO if the sender's counter is impossible, or
 * -EBADMSG if a chunk fails its check (*off is then the chunk's message offset). */
static inline int shm_pipe_drain(shm_pipe_t *p, const ivc_data_t *data, uint64_t *off,
                                 uint64_t total, int csum, uint8_t *bounce)
{
    uint64_t cap = shm_pipe_chunk_payload(p, csum);
    int n = 0;
    while (*off < total) {
        if (p->mine == p->theirs) {
            /* A8: sees the sender's chunk contents; pairs with R8 in shm_pipe_fill(). */
            uint64_t filled = ivc_load_acquire(&p->ctl_r->pipe_filled);
            if (filled - p->mine > p->nchunks) /* modular: catches filled < mine too */
                return -EPROTO;
            p->theirs = filled;
            if (filled == p->mine)
                break;
        }
        uint64_t len = total - *off < cap ? total - *off : cap;
        const uint8_t *chunk = p->chunks + (p->mine & (p->nchunks - 1)) * p->chunk_size;
        if (csum) {
            int contig = ivc_data_contig(data);
            uint8_t *dst = contig ? (uint8_t *)data->buf + *off : bounce;
            uint64_t check = ivc_shm_csum_copy(dst, chunk, len, p->mine), want;
            memcpy(&want, chunk + p->chunk_size - 8, 8);
            if (check != want)
                return -EBADMSG;
            if (!contig)
                ivc_data_unpack(data, *off, bounce, len);
        } else {
            ivc_data_unpack(data, *off, chunk, len);
        }
        *off += len;
        p->mine++;
        /* R7: hands the chunk back; pairs with A7 in shm_pipe_fill(). */
        ivc_store_release(&p->ctl_w->pipe_drained, p->mine);
        n++;
    }
    return n;
}

#endif
