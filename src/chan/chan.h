/* The channel contract: what every transport (the shm channel now, the network channel
 * later) offers the coordinator, so that the MPI layer never branches on which transport
 * carries a message.
 *
 * A channel moves whole messages. The sender gives an envelope (what matching needs) and a
 * byte stream (ivc_data_t); the channel chooses eager or rendezvous by itself. On the
 * receiving side the channel hands every arriving envelope up through on_message(); the MPI
 * layer matches it and, for a rendezvous message, later asks the channel to pull the data
 * into the matched receive. */
#ifndef IVC_CHAN_H
#define IVC_CHAN_H

#include "../base/ivc_data.h"

#include <stdint.h>

/* ivc_env_t.flags */
#define IVC_ENV_SYNC 0x1u /* synchronous send: the receiver acknowledges the match */

typedef struct ivc_env {
    uint32_t ctx; /* context id of the communicator (and of pt2pt vs collective traffic) */
    int32_t src;  /* sender's rank in that communicator */
    int32_t tag;
    uint32_t flags; /* IVC_ENV_* */
    uint64_t len;   /* message bytes */
} ivc_env_t;

typedef struct ivc_chan_op ivc_chan_op_t;

/* A send or a rendezvous receive in flight. The MPI layer embeds one in each request and
 * owns its memory; the channel owns the fields marked private until done() is called. */
struct ivc_chan_op {
    /* Filled by the caller. */
    ivc_env_t env;   /* send: the envelope */
    ivc_data_t data; /* send: the source; receive: the destination (capacity = bytes) */
    void (*done)(ivc_chan_op_t *op, int status); /* 0 or -errno; called from progress */
    /* Set by the channel before done(): receive: bytes delivered (<= data.bytes; the
     * message was longer if env.len > xfer). */
    uint64_t xfer;
    /* Set by the coordinator (ivc_coord_send): the message's number among those this rank
     * sent to the peer, from 1; the receiver counts arrivals the same way, so the pair can
     * name one message (send cancellation, mpi/p2p/mpi_cancel.c). */
    uint64_t serial;
    /* Private to the channel. */
    ivc_chan_op_t *next;
    uint64_t off;      /* bytes moved so far */
    uint64_t total;    /* bytes to move */
    uint64_t cookie;   /* sender's handle, as carried on the wire */
    uint64_t chan_off; /* one copy: region offset of the peer's buffer */
    int state;
};

/* An arriving message as the channel presents it to the MPI layer. */
typedef struct ivc_inmsg {
    ivc_env_t env;
    int peer;          /* world rank of the sender */
    const void *data;  /* eager: the payload, valid only during on_message(); NULL otherwise */
    uint64_t cookie;   /* sender's handle: for recv_rndv() and send_ack(); opaque */
    int rndv;          /* 1: the payload must be pulled with recv_rndv() */
    uint64_t chan_arg; /* private to the channel, handed back to recv_rndv() (shm: the
                        * region offset of a sender's buffer it may copy from; 0 = none) */
    int via;           /* set by the coordinator when VMs may migrate: the channel that brought it,
                        * which recv_rndv() and send_ack() must use (coord/coord_move.h) */
} ivc_inmsg_t;

/* Calls from a channel up to the layer above, registered once at start-up. */
typedef struct ivc_chan_upcalls {
    void (*on_message)(void *arg, ivc_inmsg_t *m);
    /* The peer broke the protocol (corrupt record) or died: fail what involves it. */
    void (*on_peer_failed)(void *arg, int peer, int err);
    void *arg;
} ivc_chan_upcalls_t;

/* Operations of one transport. `ep` is the channel's endpoint for one peer (the coordinator
 * keeps it in the peer's virtual connection); `chan` is the channel itself. */
typedef struct ivc_chan_ops {
    const char *name;
    /* Starts sending op to the peer. Returns 1 if the send completed at once (done() is not
     * called), 0 if it is in flight (done() follows from progress), or -errno. */
    int (*send)(void *ep, ivc_chan_op_t *op);
    /* Starts pulling the payload of rendezvous message m, which arrived from this peer,
     * into op->data. done() follows from progress. Returns 0 or -errno. */
    int (*recv_rndv)(void *ep, const ivc_inmsg_t *m, ivc_chan_op_t *op);
    /* Acknowledges the match of a synchronous eager message from this peer.
     * Returns 0 or -errno. */
    int (*send_ack)(void *ep, uint64_t cookie);
    /* Moves whatever can move without waiting; returns the number of events (> 0 means
     * something happened) or -errno. */
    int (*progress)(void *chan);
} ivc_chan_ops_t;

#endif
