/* The network channel: MPI messages to ranks that do not share this rank's region, over
 * UCX's UCP active-message API (TCP everywhere; InfiniBand/RoCE, SR-IOV functions in VMs
 * included, where UCX finds them).
 *
 * Why active messages and not UCP's tag matching: matching must stay in the MPI layer, one
 * queue for every channel, so that MPI_ANY_SOURCE sees messages from shm and network peers
 * in one order and a peer's channel can change under a receive. The AM API hands each
 * arriving header up; UCX picks eager or rendezvous by size and, for rendezvous, pulls the
 * payload only when the MPI layer has matched it (ucp_am_recv_data_nbx), into user memory.
 *
 * Order: every message carries a per-peer sequence number and arrivals are handed up in
 * sequence order, whatever order UCX's protocols deliver them in. The same numbers are what
 * keeps MPI's non-overtaking rule across a change of channel (see coord.h).
 *
 * Everything a peer sends is checked (lengths, kinds, ranks, cookies) before use. */
#ifndef IVC_NET_CHAN_H
#define IVC_NET_CHAN_H

#include "../chan/chan.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ivc_net_chan ivc_net_chan_t;

extern const ivc_chan_ops_t ivc_net_chan_ops;

/* Whether this build has the network channel (UCX found at build time). */
int ivc_net_available(void);

/* Opens UCX and a worker for a job of `world` ranks. Returns 0, -ENOTSUP (no UCX in this
 * build) or -EIO (UCX failed; logged). */
int ivc_net_chan_create(uint32_t my_rank, uint32_t world, const ivc_chan_upcalls_t *up,
                        ivc_net_chan_t **out);

/* This worker's address, to publish for the peers (valid until destroy). */
void ivc_net_chan_address(const ivc_net_chan_t *ch, const void **addr, size_t *len);

/* Connects to `peer`, whose published address is `addr`. Returns 0 or -EIO (logged). */
int ivc_net_chan_connect(ivc_net_chan_t *ch, uint32_t peer, const void *addr, size_t len);

/* The endpoint for `peer` (after connect), or NULL. */
void *ivc_net_chan_endpoint(ivc_net_chan_t *ch, uint32_t peer);

int ivc_net_chan_progress(void *chan);

/* Says BYE to every peer and progresses until everything this rank sent has left (bounded
 * by 10 s). For MPI_Finalize: afterwards a peer that disconnects is not reported as failed,
 * and a peer that disconnects after this rank's BYE reached it does not report this rank. */
void ivc_net_chan_flush(ivc_net_chan_t *ch);

/* Treats `peer` as failed (another rank saw it die): closes its connection, fails every send
 * to it still in flight or waiting for its acknowledgement with `err`, refuses new ones,
 * and reports it through on_peer_failed unless the channel already did. */
void ivc_net_chan_fail_peer(ivc_net_chan_t *ch, uint32_t peer, int err);

/* Flushes and closes every endpoint, then the worker. */
void ivc_net_chan_destroy(ivc_net_chan_t *ch);

#endif
