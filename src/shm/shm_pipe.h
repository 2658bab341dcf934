/* Rendezvous pipeline of one ordered pair: nchunks chunk buffers in the receiver's inbox,
 * filled by the sender and drained by the receiver in order, so both copies overlap.
 *
 * `filled` (sender) and `drained` (receiver) are free-running chunk counters on separate
 * lines; chunk k lives at slot k & (nchunks - 1). Only one message streams through a pipe at
 * a time, in the order the receiver sent clear-to-send records, so both sides derive each
 * chunk's length from the accepted message length alone: nothing but the counters is read
 * from the other side. */
#ifndef IVC_SHM_PIPE_H
#define IVC_SHM_PIPE_H

#include "../base/ivc_copy.h"
#include "../base/ivc_data.h"
#include "../region/region_layout.h"

#include <errno.h>
#include <stdint.h>

typedef struct shm_pipe {
    uint8_t *chunks; /* nchunks * chunk_size bytes */
    uint64_t chunk_size;
    uint64_t nchunks;    /* power of two */
    uint64_t mine;       /* sender: chunks filled; receiver: chunks drained */
    uint64_t theirs;     /* the other side's counter, as last read */
    uint64_t stream_min; /* sender: messages at least this long are copied with streaming
                          * stores (base/ivc_copy.h) */
    ivc_inbox_ctl_t *ctl;
} shm_pipe_t;

/* Sender: copies message bytes [*off, total) of `data` into free chunks.
 * Returns the number of chunks filled, or -EPROTO if the receiver's counter is impossible. */
static inline int shm_pipe_fill(shm_pipe_t *p, const ivc_data_t *data, uint64_t *off,
                                uint64_t total)
{
    int n = 0;
    while (*off < total) {
        if (p->mine - p->theirs >= p->nchunks) {
            /* A7: the receiver is done with drained chunks; pairs with R7 in shm_pipe_drain. */
            uint64_t drained = ivc_load_acquire(&p->ctl->pipe_drained);
            if (p->mine - drained > p->nchunks) /* modular: catches drained > mine too */
                return -EPROTO;
            p->theirs = drained;
            if (p->mine - drained >= p->nchunks)
                break;
        }
        uint64_t len = total - *off < p->chunk_size ? total - *off : p->chunk_size;
        uint8_t *chunk = p->chunks + (p->mine & (p->nchunks - 1)) * p->chunk_size;
        if (total >= p->stream_min && ivc_data_contig(data))
            ivc_copy_stream(chunk, (const uint8_t *)data->buf + *off, len);
        else
            ivc_data_pack(data, *off, chunk, len);
        *off += len;
        p->mine++;
        /* R8: publishes the chunk; pairs with A8 in shm_pipe_drain(). */
        ivc_store_release(&p->ctl->pipe_filled, p->mine);
        n++;
    }
    return n;
}

/* Receiver: copies filled chunks into message bytes [*off, total) of `data`.
 * Returns the number of chunks drained, or -EPROTO if the sender's counter is impossible. */
static inline int shm_pipe_drain(shm_pipe_t *p, const ivc_data_t *data, uint64_t *off,
                                 uint64_t total)
{
    int n = 0;
    while (*off < total) {
        if (p->mine == p->theirs) {
            /* A8: sees the sender's chunk contents; pairs with R8 in shm_pipe_fill(). */
            uint64_t filled = ivc_load_acquire(&p->ctl->pipe_filled);
            if (filled - p->mine > p->nchunks) /* modular: catches filled < mine too */
                return -EPROTO;
            p->theirs = filled;
            if (filled == p->mine)
                break;
        }
        uint64_t len = total - *off < p->chunk_size ? total - *off : p->chunk_size;
        const uint8_t *chunk = p->chunks + (p->mine & (p->nchunks - 1)) * p->chunk_size;
        ivc_data_unpack(data, *off, chunk, len);
        *off += len;
        p->mine++;
        /* R7: hands the chunk back; pairs with A7 in shm_pipe_fill(). */
        ivc_store_release(&p->ctl->pipe_drained, p->mine);
        n++;
    }
    return n;
}

#endif
