/* The shared-memory channel: eager records through per-pair rings, rendezvous through
 * per-pair pipelines of chunk buffers, both in the receiver's receive block in the region.
 *
 * Why per-pair rings and not one queue per receiver: a ring has exactly one writer, so no
 * atomic read-modify-write sits on the message path, a small message and its signal share
 * one cache line, and a faulty or dead sender can only ever damage its own ring. The cost,
 * polling one ring per co-located peer, is one load of an unchanged cached line each.
 *
 * With IVC_CHECKSUM every record and every rendezvous chunk carries a check word
 * (shm_csum.h; framing in shm_ring.h and shm_pipe.h): data changed in the region between
 * the sender's copy and the receiver's is reported as the sender breaking the protocol
 * (on_peer_failed with -EPROTO, the pending operations failed), never delivered. Off by
 * default outside sanitizer builds: it costs 0.04-0.6 us per eager message and up to
 * 40% of the bandwidth of messages from 512 B to 16 KiB (README "Tunables"). */
#ifndef IVC_SHM_CHAN_H
#define IVC_SHM_CHAN_H

#include "../chan/chan.h"
#include "../region/region.h"
#include "shm_config.h"

#include <stdint.h>

typedef struct ivc_shm_chan ivc_shm_chan_t;

extern const ivc_chan_ops_t ivc_shm_chan_ops;

/* Phase 1 of start-up: allocates this rank's receive block, with one inbox for each other
 * rank of `local` (global ranks sharing the region, ascending, including `my_rank`), and
 * publishes it in the membership slot. Returns 0, -ENOMEM (region too small) or -EINVAL. */
int ivc_shm_chan_create(ivc_region_t *region, const ivc_shm_config_t *cfg, uint32_t my_rank,
                        const uint32_t *local, uint32_t nlocal, const ivc_chan_upcalls_t *up,
                        ivc_shm_chan_t **out);

/* Phase 2, after every local rank finished phase 1 (a barrier): finds and validates every
 * peer's receive block. Returns 0 or -EPROTO naming the peer whose block is invalid. */
int ivc_shm_chan_connect(ivc_shm_chan_t *ch);

/* Treats co-located `rank` as failed (another rank or the liveness monitor saw it die):
 * stops reading its inbox, fails every operation that involves it with `err`, and reports
 * it through on_peer_failed unless the channel already did. */
void ivc_shm_chan_fail_peer(ivc_shm_chan_t *ch, uint32_t rank, int err);

/* Migration (coord/coord_move.h). A sparse channel (cfg->sparse) is created with `local` =
 * every rank of the job, so that every block has an inbox for every rank; its connect binds
 * only the ranks JOINED in the region now and leaves the others closed. */
/* Phase 2 of a sparse channel whose rank arrives in a region (instead of
 * ivc_shm_chan_connect): every pair starts closed. Returns 0 or -errno. */
int ivc_shm_chan_connect_closed(ivc_shm_chan_t *ch);
/* Clears this rank's inbox for `rank` (counters and every ring stamp), before telling it
 * that it may write. Returns 0 or -EINVAL. */
int ivc_shm_chan_inbox_reset(ivc_shm_chan_t *ch, uint32_t rank);
/* Clears this rank's inbox in `rank`'s block (counters and every ring stamp), whose pair
 * with it is closed, before opening the pair: a rank that comes back to a region takes its
 * block of the last visit again and leaves each inbox to its sender, who may still have
 * been finishing with it. Returns 0 or -EINVAL (not closed, or its block is invalid). */
int ivc_shm_chan_outbox_reset(ivc_shm_chan_t *ch, uint32_t rank);
/* Opens the closed pair with `rank`, whose inbox for this rank it reset and whose block it
 * published in its membership slot. Returns 0, -EINVAL (not closed) or -EPROTO. */
int ivc_shm_chan_peer_open(ivc_shm_chan_t *ch, uint32_t rank);
/* Whether anything with `rank` is in flight here: queued records or sends, streams,
 * receives, or sends waiting for its answer (sparse channels count those). */
int ivc_shm_chan_peer_busy(ivc_shm_chan_t *ch, uint32_t rank);
/* Closes the pair with `rank` (not busy): its inbox is no longer read. */
void ivc_shm_chan_peer_close(ivc_shm_chan_t *ch, uint32_t rank);

/* The endpoint for a co-located global rank, or NULL if `rank` is not co-located. */
void *ivc_shm_chan_endpoint(ivc_shm_chan_t *ch, uint32_t rank);

/* The shared heap co-located `rank` published (region offset and bytes, checked at
 * connect against the region and this rank's own blocks): 1, or 0 when it has none (or
 * none this rank may read: a channel of this same process). */
int ivc_shm_chan_peer_heap(ivc_shm_chan_t *ch, uint32_t rank, uint64_t *off, uint64_t *len);

/* Largest message this rank sends eagerly to the endpoint's peer. */
uint64_t ivc_shm_chan_eager_limit(const void *ep);

/* The channel's progress (also in its ops), for direct calls on the hot path. */
int ivc_shm_chan_progress(void *chan);

/* Frees local state; the region block stays (the region goes away with the job). */
void ivc_shm_chan_destroy(ivc_shm_chan_t *ch);

#endif
