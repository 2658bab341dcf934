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

/* Request kinds. The first three are completed by their `done` flag alone; the others
 * ("extended" kinds, >= REQ_PERSIST) go through ivc_mpi_req_ext_done() (mpi_request.c). */
enum {
    REQ_SEND = 1,
    REQ_RECV = 2,
    REQ_COLL = 3,    /* nonblocking collective (coll_nbc.c) */
    REQ_PERSIST = 4, /* persistent: wraps the inner request that MPI_Start starts (mpi_preq.c) */
    REQ_GREQ = 5,    /* generalized request (mpi_greq.c) */
    REQ_POLL = 6     /* internal compound operation completed by a poll function */
};

/* Starts one round of a persistent operation: begins a nonblocking operation and returns
 * its request (from ivc_mpi_req_alloc, any kind) in *inner. Returns MPI_SUCCESS or an
 * error class (then *inner is not set; the caller raises it on the request's comm). */
typedef int (*ivc_mpi_preq_start_fn)(MPI_Request preq, void *args, MPI_Request *inner);

struct ivc_mpi_req_s {
    ivc_chan_op_t op; /* first: the channel's op is the request */
    uint32_t magic;
    int kind;
    volatile int done;
    int freed;             /* released by the user before completion */
    int on_stack;          /* owned by a blocking call, never freed */
    uint8_t cancel;        /* REQ_SEND: REQ_CANCEL_* (mpi_cancel.c) */
    uint8_t cancel_opdone; /* REQ_SEND, cancel asked: the channel finished the send */
    int peer;              /* world rank of the peer, or -1 for MPI_ANY_SOURCE */
    MPI_Comm comm;
    MPI_Datatype dt;  /* retained while in flight */
    uint32_t ctx;     /* receive: context to match */
    int src, tag;     /* receive: source (comm rank or ANY) and tag (or ANY) */
    uint64_t msg_len; /* receive: length of the matched message */
    MPI_Status status;
    struct ivc_mpi_req_s *prev, *next; /* posted-receive queue; free list; freed-active list */
    union {
        struct { /* REQ_PERSIST */
            ivc_mpi_preq_start_fn start;
            void *args;
            void (*free_args)(void *);
            struct ivc_mpi_req_s *inner; /* the started round, NULL while inactive */
        } p;
        struct { /* REQ_GREQ */
            MPI_Grequest_query_function *query;
            MPI_Grequest_free_function *free;
            MPI_Grequest_cancel_function *cancel;
            void *extra;
        } g;
        struct {                         /* REQ_POLL */
            int (*poll)(MPI_Request r);  /* 1 once complete, with r->status filled */
            void (*drop)(MPI_Request r); /* frees the state (r completed or never started) */
            void *state;
        } x;
    } u;
};

/* ---- persistent requests (mpi_preq.c), the mechanism of every persistent operation ----
 * A persistent request made by ivc_mpi_preq_new() is inactive until MPI_Start/Startall
 * call `start(preq, args, &inner)`. The Wait/Test family and Request_get_status* on it
 * progress the inner request; when that completes they copy its status, free it and leave
 * the persistent request inactive (not freed). Wait/Test on an inactive persistent request
 * return at once with an empty status. MPI_Cancel cancels the inner request.
 * MPI_Request_free of an inactive one calls free_args(args) (if not NULL) and frees it; of
 * an active one, does so once the inner request completes. The request keeps `comm`
 * retained; args belong to the request from a successful call on.
 * Returns MPI_SUCCESS or MPI_ERR_NO_MEM (nothing raised; args stay the caller's). */
int ivc_mpi_preq_new(MPI_Comm comm, ivc_mpi_preq_start_fn start, void *args,
                     void (*free_args)(void *), MPI_Request *out);

/* Whether a (valid, non-null) request has completed; inactive persistent requests count as
 * complete. One branch on the fast path. */
int ivc_mpi_req_ext_done(MPI_Request r);
static inline int ivc_mpi_req_done(MPI_Request r)
{
    return __builtin_expect(r->kind < REQ_PERSIST, 1) ? r->done : ivc_mpi_req_ext_done(r);
}
static inline int ivc_mpi_req_inactive(MPI_Request r)
{
    return r->kind == REQ_PERSIST && r->u.p.inner == NULL;
}

/* Internal compound requests (REQ_POLL): a fresh request on comm (retained) that completes
 * when poll() says so; drop() frees `state` when the request is freed. NULL without memory. */
MPI_Request ivc_mpi_req_poll_new(MPI_Comm comm, int (*poll)(MPI_Request), void (*drop)(MPI_Request),
                                 void *state);
/* Requests freed by the user while still active, finished by ivc_mpi_req_sweep(). */
extern MPI_Request ivc_mpi_req_zombies;
void ivc_mpi_req_sweep(void);
/* Finishes a completed request of any kind without a user handle: its status into *st
 * (unless MPI_STATUS_IGNORE), frees it; returns its error class. */
int ivc_mpi_req_reap(MPI_Request r, MPI_Status *st);

/* ---- buffered mode (mpi_bsend.c) ----
 * A buffer attached to the process, a communicator (comm->bbuf) or a session. Bsend uses
 * the communicator's, else (when sessions exist, their lookup goes in bbuf_for()) the
 * session's, else the process's. The functions return MPI_SUCCESS or an error class and
 * raise nothing, so that MPI_Session_attach_buffer & co. can raise on their session:
 *   attach: MPI_ERR_BUFFER if *slot already holds a buffer, MPI_ERR_COUNT for size < 0,
 *           MPI_ERR_NO_MEM; buf may be MPI_BUFFER_AUTOMATIC (size is then ignored).
 *   detach: waits until every message buffered through *slot has been delivered, then
 *           stores the buffer's address at buffer_addr (a void **) and its size at *size;
 *           MPI_ERR_BUFFER if none is attached.
 *   flush:  waits for delivery, keeps the buffer attached.
 *   iflush: a request that completes once what is buffered now has been delivered. */
struct ivc_mpi_bbuf;
int ivc_mpi_bbuf_attach(struct ivc_mpi_bbuf **slot, void *buf, MPI_Count size);
int ivc_mpi_bbuf_detach(struct ivc_mpi_bbuf **slot, void *buffer_addr, MPI_Count *size);
int ivc_mpi_bbuf_flush(struct ivc_mpi_bbuf *b);
int ivc_mpi_bbuf_iflush(struct ivc_mpi_bbuf *b, MPI_Comm comm, MPI_Request *request);
/* Frees a communicator's buffer state (from ivc_mpi_comm_release); the process's, WORLD's
 * and SELF's at MPI_Finalize (from ivc_mpi_match_finalize). */
void ivc_mpi_bbuf_comm_free(MPI_Comm comm);
void ivc_mpi_bsend_finalize(void);
/* Starts a buffered send into `req` (fresh from ivc_mpi_req_alloc): packs the message
 * into comm's buffer and sends it from there; req completes at once. MPI_ERR_BUFFER when
 * no buffer is attached or it has no room. */
int ivc_mpi_start_bsend(MPI_Request req, const void *buf, int count, MPI_Datatype dt, int dest,
                        int tag, MPI_Comm comm);

/* Whether n received bytes end inside a basic element of receive r's derived datatype (one
 * kind of basic element): the sender's type signature cannot match the receive's (MPI-4.1
 * section 3.3.1), so the receive completes with MPI_ERR_TYPE. Asked only when a message is
 * shorter than its receive buffer, never on the common path. */
int ivc_mpi_recv_split_elem(MPI_Request r, uint64_t n);

/* Context offset of partitioned point-to-point traffic (mpi_part.c): comm->ctx + this never
 * equals another communicator's context (those are below 2^13) nor IVC_RMA_CTX. The
 * operation's init sequence number (mod 2^16) rides in bits 13..28 above it, so partitioned
 * contexts lie in [IVC_PART_CTX_OFF, IVC_PART_CTX_OFF + 2^29). */
#define IVC_PART_CTX_OFF   0x40000000u
#define IVC_PART_SEQ_SHIFT 13
/* Frees comm's partitioned init counters (from ivc_mpi_comm_release; WORLD's and SELF's
 * from ivc_mpi_match_finalize). */
void ivc_mpi_part_comm_free(MPI_Comm comm);

/* Checks of a point-to-point call's arguments (dir: PEER_SEND or PEER_RECV, which allows
 * the wildcards); raises on comm (or WORLD) and returns the class, or MPI_SUCCESS. Turns
 * *dtp from MPI_DATATYPE_NULL into MPI_BYTE when count is 0. */
enum { PEER_SEND, PEER_RECV };
int ivc_mpi_check_p2p(const void *buf, MPI_Comm comm, int count, MPI_Datatype *dtp, int rank,
                      int tag, int dir, const char *fn);

/* ---- fault tolerance (src/mpi/ft; the ULFM calls in include/mpi-ext.h) ----
 * ivc_mpi_ft_state is 0 until this process hears of a failed peer or a revoked
 * communicator; every check on a hot path tests it first (one predictable branch on a
 * global) and only then calls the slow function. */
extern uint32_t ivc_mpi_ft_state;
/* Context offset of fault-tolerance traffic (agreements, revocation notices): comm->ctx +
 * this is below IVC_PART_CTX_OFF and never another communicator's context. Messages on it
 * are never failed by a revocation or by a failure of another member. */
#define IVC_FT_CTX_OFF 0x20000000u
/* The error class an operation on comm must fail with now, or MPI_SUCCESS: `peer` is the
 * world rank involved (-1: MPI_ANY_SOURCE, -2: none in particular), ctx_off the context
 * offset (0 point-to-point, 1 collective, IVC_FT_CTX_OFF). For a start of a send or a
 * receive (and probes), so that operations fail at once instead of after matching. */
int ivc_mpi_ft_check_slow(MPI_Comm comm, int peer, uint32_t ctx_off);
static inline int ivc_mpi_ft_check(MPI_Comm comm, int peer, uint32_t ctx_off)
{
    if (__builtin_expect(ivc_mpi_ft_state == 0, 1))
        return MPI_SUCCESS;
    return ivc_mpi_ft_check_slow(comm, peer, ctx_off);
}
/* A nonblocking MPI_ANY_SOURCE receive r (not complete) on a communicator with failed
 * members not acknowledged: MPI_ERR_PROC_FAILED_PENDING for Wait/Test; else MPI_SUCCESS. */
int ivc_mpi_ft_pending(MPI_Request r);
/* Error class a completed request reports: a send on a revoked communicator reports
 * MPIX_ERR_REVOKED (its message was discarded); otherwise its own status. */
int ivc_mpi_ft_req_error(MPI_Request r);
/* Communicator hooks (mpi_comm.c): a communicator got its context id; one is being freed
 * (returns 1 when its id must never be reused). */
void ivc_mpi_ft_comm_new(MPI_Comm c);
int ivc_mpi_ft_comm_release(MPI_Comm c);
/* Matching hooks (mpi_match.c, called from ft): complete every posted receive that can no
 * longer complete, and drop queued messages no receive may match any more. */
void ivc_mpi_match_ft_sweep(void);
/* Discards an arrived message (the sender's send completes; a rendezvous payload is pulled
 * into nothing). */
void ivc_mpi_match_discard(const ivc_inmsg_t *m);

/* Upcalls from the coordinator's channels. */
void ivc_mpi_on_message(void *arg, ivc_inmsg_t *m);
void ivc_mpi_on_peer_failed(void *arg, int peer, int err);

MPI_Request ivc_mpi_req_alloc(int kind);
/* Sets up r (from ivc_mpi_req_alloc, or a caller's) for an operation that does not go
 * through ivc_mpi_start_send/recv: `done` as given, not freed, no peer, empty status, comm
 * retained (MPI_COMM_NULL: none). ivc_mpi_req_new_local allocates it first; NULL without
 * memory. */
void ivc_mpi_req_init_local(MPI_Request r, int kind, MPI_Comm comm, int done);
MPI_Request ivc_mpi_req_new_local(int kind, MPI_Comm comm, int done);
void ivc_mpi_req_free(MPI_Request req);
/* Marks r complete; a request the user already freed (MPI_Request_free while active) goes
 * now. */
static inline void ivc_mpi_req_complete(MPI_Request r)
{
    r->done = 1;
    if (r->freed)
        ivc_mpi_req_free(r);
}
/* Completion callback installed in every request's op. */
void ivc_mpi_req_op_done(ivc_chan_op_t *op, int status);

/* Starts a send / receive. ctx_off is 0 for point-to-point and 1 for collective traffic.
 * `req` is either a fresh ivc_mpi_req_alloc() request or one on the caller's stack.
 * Returns MPI_SUCCESS or an error class (the request is then not started). */
int ivc_mpi_start_send(MPI_Request req, const void *buf, int count, MPI_Datatype dt, int dest,
                       int tag, MPI_Comm comm, uint32_t ctx_off, uint32_t flags);
int ivc_mpi_start_recv(MPI_Request req, void *buf, int count, MPI_Datatype dt, int src, int tag,
                       MPI_Comm comm, uint32_t ctx_off);

/* Fire and forget: sends a copy of `len` bytes at `payload` to world rank `peer` with the
 * envelope (ctx, src, tag); the copy is freed when the channel is done with it, whatever
 * happens to the peer. For the library's own notices on reserved contexts (revocations,
 * send cancellation). Returns 0 or -errno (nothing sent). */
int ivc_mpi_send_notice(int peer, uint32_t ctx, int src, int tag, const void *payload,
                        size_t len);

/* Drives progress until req completes; returns its error class (status filled unless
 * MPI_STATUS_IGNORE). Does not free the request. */
int ivc_mpi_wait_done(MPI_Request req, MPI_Status *status);

/* One round of a waiting loop: progress, then backoff if nothing happened; aborts this rank
 * when another rank aborted the job. */
void ivc_mpi_poll(ivc_backoff_t *b);

/* A call with which the program polls in a loop of its own (MPI_Test and its kin,
 * MPI_Iprobe, MPI_Improbe, MPI_Win_sync) found `n` things (progress made, a message). Once
 * such calls found nothing ivc_wait_spin times in a row (20 when this host's ranks
 * outnumber its cores, else 2000: coord.c) and for IVC_MPI_POLL_YIELD_NS since, each
 * further one yields the core, except with IVC_WAIT=spin: a tester spinning through its
 * time slice keeps a descheduled peer from answering it. The delay spares programs that
 * find work every few microseconds. HPCC's MPIRandomAccess at 4 ranks on 2 cores (senders
 * testing rendezvous sends in a loop, 4 KiB eager limit; 2 vCPUs): 0.7 MUP/s with no
 * yield, 2.2 yielding at once, 5.2 after 20 us, 14.5 after 100 us. */
#define IVC_MPI_POLL_YIELD_NS 100000ull
extern uint32_t ivc_mpi_idle_polls;
extern uint64_t ivc_mpi_idle_since, ivc_mpi_poll_yields;
static inline void ivc_mpi_polled(int n)
{
    if (n > 0) {
        ivc_mpi_idle_polls = 0;
        return;
    }
    if (ivc_mpi_idle_polls < ivc_wait_spin) {
        ivc_mpi_idle_polls++;
        return;
    }
    if (ivc_wait_mode == IVC_WAITING_SPIN)
        return;
    uint64_t now = ivc_now_ns();
    if (ivc_mpi_idle_polls == ivc_wait_spin) { /* past the spins: the clock starts */
        ivc_mpi_idle_polls++;
        ivc_mpi_idle_since = now;
    } else if (now - ivc_mpi_idle_since >= IVC_MPI_POLL_YIELD_NS) {
        ivc_mpi_poll_yields++;
        if (!(__builtin_expect(ivc_biglock.on, 0) && ivc_biglock_handover()))
            sched_yield();
    }
}

/* Searches the unexpected queue (after one progress round) for a message that a receive of
 * (src, tag) on comm's ctx + ctx_off would match; fills status. Returns 1 if found. */
int ivc_mpi_iprobe(int src, int tag, MPI_Comm comm, uint32_t ctx_off, MPI_Status *status);

/* Matches a new receive against the unexpected queue, or appends it to the posted queue. */
void ivc_mpi_match_post(MPI_Request r);
/* Removes a receive from the posted queue; returns 1 if it was there. */
int ivc_mpi_match_cancel(MPI_Request r);

/* ---- cancelling a send (mpi_cancel.c) ----
 * The sender asks the receiver to withdraw the message (named by its number, see
 * ivc_chan_op_t.serial) on the reserved context IVC_CANCEL_CTX; the request completes when
 * the answer has come and the channel has finished the send. */
#define IVC_CANCEL_CTX 0xfffffff1u
enum {
    REQ_CANCEL_NONE = 0,     /* never asked */
    REQ_CANCEL_ASKED = 1,    /* waiting for the receiver's answer (not done meanwhile) */
    REQ_CANCEL_ANSWERED = 2, /* answered (status.ivc_cancelled says how) or given up */
};
/* MPI_Cancel of send request r (not yet waited for): asks its receiver, unless the send
 * cannot be named or has nothing to take back (it then completes normally). */
void ivc_mpi_cancel_send(MPI_Request r);
/* A message on IVC_CANCEL_CTX (from ivc_mpi_on_message). */
void ivc_mpi_cancel_on_message(const ivc_inmsg_t *m);
/* World rank `peer` failed: requests waiting for its answer are not cancelled. */
void ivc_mpi_cancel_peer_failed(int peer);
/* The receiver's side: removes the message number `serial` from world rank `peer` from the
 * unexpected queue if it is still there with envelope *env (ctx, src, tag, len), and
 * discards it (ivc_mpi_match_discard). Returns 1 if it did. */
int ivc_mpi_match_withdraw(int peer, uint64_t serial, const ivc_env_t *env);

/* Copies a request's status into the user's, all but MPI_ERROR: calls that complete one
 * request leave that field as the user had it (MPI 4.0 3.2.5: it is set only where an
 * array of statuses reports MPI_ERR_IN_STATUS, and the array calls set it themselves). */
static inline void ivc_mpi_status_out(MPI_Status *dst, const MPI_Status *src)
{
    if (dst == MPI_STATUS_IGNORE)
        return;
    int keep = dst->MPI_ERROR;
    *dst = *src;
    dst->MPI_ERROR = keep;
}
void ivc_mpi_status_empty(MPI_Status *s);
void ivc_mpi_status_proc_null(MPI_Status *s);
/* The same into a status the user passed to a call that completes one operation (a probe):
 * its MPI_ERROR stays (ivc_mpi_status_out). */
void ivc_mpi_status_proc_null_out(MPI_Status *s);
void ivc_mpi_match_finalize(void);
int ivc_mpi_peer_failed(int world_rank);
/* MPI_SUCCESS, or raises on comm and returns the class a probe of `source` (comm rank or
 * MPI_ANY_SOURCE) must fail with now (ivc_mpi_ft_check); mpi_p2p.c. */
int ivc_mpi_probe_ft_check(MPI_Comm comm, int source, const char *fn);

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
