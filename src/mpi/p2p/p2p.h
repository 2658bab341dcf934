/* Point-to-point room: requests, matching, progress, matched probes (mpi_p2p.c,
 * mpi_request.c, mpi_match.c, mpi_mprobe.c). */
#ifndef IVC_MPI_P2P_H
#define IVC_MPI_P2P_H

#include <mpi.h>

#include "base/ivc_wait.h"
#include "chan/chan.h"
#include "coord/coord.h"

#include <stdint.h>

#define REQ_MAGIC 0x52455155u
#define MSG_MAGIC 0x4d534750u

enum { REQ_SEND = 1, REQ_RECV = 2, REQ_COLL = 3 /* nonblocking collective (coll_nbc.c) */ };

struct ivc_mpi_req_s {
    ivc_chan_op_t op; /* first: the channel's op is the request */
    uint32_t magic;
    int kind;
    volatile int done;
    int freed;    /* released by the user before completion */
    int on_stack; /* owned by a blocking call, never freed */
    int peer;     /* world rank of the peer, or -1 for MPI_ANY_SOURCE */
    MPI_Comm comm;
    MPI_Datatype dt;  /* retained while in flight */
    uint32_t ctx;     /* receive: context to match */
    int src, tag;     /* receive: source (comm rank or ANY) and tag (or ANY) */
    uint64_t msg_len; /* receive: length of the matched message */
    MPI_Status status;
    struct ivc_mpi_req_s *prev, *next; /* posted-receive queue; free list */
};

/* Upcalls from the coordinator's channels. */
void ivc_mpi_on_message(void *arg, ivc_inmsg_t *m);
void ivc_mpi_on_peer_failed(void *arg, int peer, int err);

MPI_Request ivc_mpi_req_alloc(int kind);
void ivc_mpi_req_free(MPI_Request req);
/* Completion callback installed in every request's op. */
void ivc_mpi_req_op_done(ivc_chan_op_t *op, int status);

/* Starts a send / receive. ctx_off is 0 for point-to-point and 1 for collective traffic.
 * `req` is either a fresh ivc_mpi_req_alloc() request or one on the caller's stack.
 * Returns MPI_SUCCESS or an error class (the request is then not started). */
int ivc_mpi_start_send(MPI_Request req, const void *buf, int count, MPI_Datatype dt, int dest,
                       int tag, MPI_Comm comm, uint32_t ctx_off, uint32_t flags);
int ivc_mpi_start_recv(MPI_Request req, void *buf, int count, MPI_Datatype dt, int src, int tag,
                       MPI_Comm comm, uint32_t ctx_off);

/* Drives progress until req completes; returns its error class (status filled unless
 * MPI_STATUS_IGNORE). Does not free the request. */
int ivc_mpi_wait_done(MPI_Request req, MPI_Status *status);

/* One round of a waiting loop: progress, then backoff if nothing happened; aborts this rank
 * when another rank aborted the job. */
void ivc_mpi_poll(ivc_backoff_t *b);

/* Searches the unexpected queue (after one progress round) for a message that a receive of
 * (src, tag) on comm's ctx + ctx_off would match; fills status. Returns 1 if found. */
int ivc_mpi_iprobe(int src, int tag, MPI_Comm comm, uint32_t ctx_off, MPI_Status *status);

/* Matches a new receive against the unexpected queue, or appends it to the posted queue. */
void ivc_mpi_match_post(MPI_Request r);
/* Removes a receive from the posted queue; returns 1 if it was there. */
int ivc_mpi_match_cancel(MPI_Request r);

void ivc_mpi_status_empty(MPI_Status *s);
void ivc_mpi_status_proc_null(MPI_Status *s);
void ivc_mpi_match_finalize(void);
int ivc_mpi_peer_failed(int world_rank);

/* Blocking internal point-to-point for collectives (ctx_off = 1); return error classes. */
int ivc_mpi_send_x(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   uint32_t ctx_off);
int ivc_mpi_recv_x(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                   uint32_t ctx_off, MPI_Status *status);
int ivc_mpi_sendrecv_x(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                       void *rbuf, int rcount, MPI_Datatype rdt, int src, int rtag, MPI_Comm comm,
                       uint32_t ctx_off, MPI_Status *status);

/* Internal collectives used by communicator management (on ctx + 1). */
int ivc_mpi_coll_barrier(MPI_Comm comm);
int ivc_mpi_coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                           MPI_Comm comm);
int ivc_mpi_coll_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                           MPI_Datatype rdt, MPI_Comm comm);

/* A message taken off the unexpected queue by MPI_Mprobe. */
struct ivc_mpi_msg_s {
    uint32_t magic;
    MPI_Comm comm; /* retained */
    void *umsg;    /* the taken message (mpi_match.c), or NULL for MPI_MESSAGE_NO_PROC */
};

/* Takes the first unexpected message a receive of (src, tag) on ctx would match off the
 * queue (after one progress round); fills status. Returns NULL if there is none. */
void *ivc_mpi_match_take(uint32_t ctx, int src, int tag, MPI_Status *status);
/* Hands a taken message to receive r (which is not posted). */
void ivc_mpi_match_deliver_taken(MPI_Request r, void *umsg);
/* Starts receive r of a taken message, as ivc_mpi_start_recv does for a posted one. */
int ivc_mpi_start_mrecv(MPI_Request r, void *buf, int count, MPI_Datatype dt, MPI_Comm comm,
                        void *umsg);

#endif
