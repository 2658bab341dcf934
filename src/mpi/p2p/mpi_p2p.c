/* Point-to-point: argument checks, starting sends and receives through the coordinator,
 * the blocking and nonblocking calls, Sendrecv, Probe, Get_count. */
#include "mpi_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Checks what every point-to-point call takes; raises on comm (or WORLD) and returns the
 * class, or returns MPI_SUCCESS. MPI_DATATYPE_NULL with count 0 becomes MPI_BYTE in *dtp:
 * nothing moves, and codes written for MPICH pass it for empty messages (ParallelIO, ESMF
 * do; MPICH accepts it since 4.0.1). Inlined always: the send path paid 32 instructions
 * per message when the pointer argument made GCC call it out of line. */
static inline __attribute__((always_inline)) int check_p2p(const void *buf, MPI_Comm comm,
                                                           int count, MPI_Datatype *dtp,
                                                           int rank, int tag, int dir,
                                                           const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    if (count < 0)
        return ivc_mpi_raise(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (*dtp == MPI_DATATYPE_NULL && count == 0)
        *dtp = MPI_BYTE;
    MPI_Datatype dt = *dtp;
    if (!ivc_mpi_dt_valid(dt))
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn, "invalid datatype");
    if (!dt->committed)
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn, "datatype is not committed");
    /* NULL is also MPI_BOTTOM, which types of absolute addresses use (dtype.h). */
    if (ivc_mpi_dt_null_buf(buf, count, dt))
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn, "NULL buffer for %d elements", count);
    int any = dir == PEER_RECV ? MPI_ANY_SOURCE : MPI_PROC_NULL;
    if (rank != MPI_PROC_NULL && rank != any && (rank < 0 || rank >= comm->size))
        return ivc_mpi_raise(comm, MPI_ERR_RANK, fn,
                             "rank %d is not in the communicator (%d ranks)", rank, comm->size);
    if (tag < 0 && !(dir == PEER_RECV && tag == MPI_ANY_TAG))
        return ivc_mpi_raise(comm, MPI_ERR_TAG, fn, "tag %d is invalid", tag);
    return MPI_SUCCESS;
}

int ivc_mpi_check_p2p(const void *buf, MPI_Comm comm, int count, MPI_Datatype *dtp, int rank,
                      int tag, int dir, const char *fn)
{
    return check_p2p(buf, comm, count, dtp, rank, tag, dir, fn);
}

static void req_begin(MPI_Request r, int kind, MPI_Comm comm)
{
    r->magic = REQ_MAGIC;
    r->kind = kind;
    r->done = 0;
    r->freed = 0;
    r->comm = comm;
    ivc_mpi_comm_retain(comm);
    r->dt = NULL;
    r->msg_len = 0;
    r->status.MPI_ERROR = MPI_SUCCESS;
    r->status.ivc_count = 0;
    r->status.ivc_cancelled = 0;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    r->op.done = ivc_mpi_req_op_done;
    r->op.xfer = 0;
    r->op.serial = 0;
    r->cancel = REQ_CANCEL_NONE;
}

int ivc_mpi_start_send(MPI_Request r, const void *buf, int count, MPI_Datatype dt, int dest,
                       int tag, MPI_Comm comm, uint32_t ctx_off, uint32_t flags)
{
    req_begin(r, REQ_SEND, comm);
    if (dest == MPI_PROC_NULL) {
        ivc_mpi_status_proc_null(&r->status);
        r->done = 1;
        return MPI_SUCCESS;
    }
    int peer = comm->world[dest];
    r->peer = peer;
    /* A failed peer, a revoked communicator, a collective on a broken one (ft.h). */
    int rc = ivc_mpi_ft_check(comm, peer, ctx_off);
    if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
        r->done = 1;
        return r->status.MPI_ERROR = rc;
    }
    ivc_mpi_data(&r->op.data, buf, count, dt);
    r->op.env.ctx = comm->ctx + ctx_off;
    r->op.env.src = __builtin_expect(comm->standin, 0) ? comm->world[comm->rank] : comm->rank;
    r->op.env.tag = tag;
    r->op.env.flags = flags;
    r->op.env.len = r->op.data.bytes;
    if (!dt->predefined) {
        ivc_mpi_dt_retain(dt);
        r->dt = dt;
    }
    rc = ivc_coord_send((uint32_t)peer, &r->op);
    if (rc == 1) {
        r->done = 1;
    } else if (rc < 0) {
        r->done = 1;
        r->status.MPI_ERROR = ivc_mpi_errno_class(rc);
        return r->status.MPI_ERROR;
    }
    return MPI_SUCCESS;
}

/* A notice and its payload, in one block freed when the channel is done with it. */
typedef struct notice {
    ivc_chan_op_t op;
    uint64_t payload[]; /* 8-byte aligned, as any payload may need */
} notice_t;

static void notice_done(ivc_chan_op_t *op, int status)
{
    (void)status; /* a failed peer is reported through on_peer_failed */
    free(op);
}

int ivc_mpi_send_notice(int peer, uint32_t ctx, int src, int tag, const void *payload,
                        size_t len)
{
    notice_t *n = calloc(1, sizeof(*n) + len);
    if (n == NULL)
        return -ENOMEM;
    memcpy(n->payload, payload, len);
    n->op.env = (ivc_env_t){.ctx = ctx, .src = src, .tag = tag, .len = len};
    n->op.data.buf = n->payload;
    n->op.data.count = len;
    n->op.data.bytes = len;
    n->op.done = notice_done;
    int rc = ivc_coord_send((uint32_t)peer, &n->op);
    if (rc != 0) /* 1: sent at once; < 0: failed */
        free(n);
    return rc < 0 ? rc : 0;
}

int ivc_mpi_start_recv(MPI_Request r, void *buf, int count, MPI_Datatype dt, int src, int tag,
                       MPI_Comm comm, uint32_t ctx_off)
{
    req_begin(r, REQ_RECV, comm);
    if (src == MPI_PROC_NULL) {
        ivc_mpi_status_proc_null(&r->status);
        r->done = 1;
        return MPI_SUCCESS;
    }
    r->peer = src == MPI_ANY_SOURCE ? -1 : comm->world[src];
    /* The same, and a blocking MPI_ANY_SOURCE receive with a failed member not
     * acknowledged (ft.h); a nonblocking one starts and stays pending (the waits report
     * MPIX_ERR_PROC_FAILED_PENDING), as ULFM has it. */
    int rc = ivc_mpi_ft_check(comm, r->peer >= 0 || r->on_stack ? r->peer : -2, ctx_off);
    if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
        r->done = 1;
        return r->status.MPI_ERROR = rc;
    }
    ivc_mpi_data(&r->op.data, buf, count, dt);
    r->ctx = comm->ctx + ctx_off;
    r->src = __builtin_expect(comm->standin, 0) && src >= 0 ? comm->world[src] : src;
    r->tag = tag;
    if (!dt->predefined) {
        ivc_mpi_dt_retain(dt);
        r->dt = dt;
    }
    ivc_mpi_match_post(r);
    return MPI_SUCCESS;
}

int ivc_mpi_start_mrecv(MPI_Request r, void *buf, int count, MPI_Datatype dt, MPI_Comm comm,
                        void *umsg)
{
    req_begin(r, REQ_RECV, comm);
    if (umsg == NULL) { /* MPI_MESSAGE_NO_PROC */
        ivc_mpi_status_proc_null(&r->status);
        r->done = 1;
        return MPI_SUCCESS;
    }
    r->peer = -1;
    ivc_mpi_data(&r->op.data, buf, count, dt);
    if (!dt->predefined) {
        ivc_mpi_dt_retain(dt);
        r->dt = dt;
    }
    ivc_mpi_match_deliver_taken(r, umsg);
    return MPI_SUCCESS;
}

/* ---- blocking calls: the request lives on the caller's stack ---- */

static int blocking_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                         MPI_Comm comm, uint32_t flags, const char *fn)
{
    int rc = check_p2p(buf, comm, count, &dt, dest, tag, PEER_SEND, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ivc_mpi_req_s r;
    r.on_stack = 1;
    rc = ivc_mpi_start_send(&r, buf, count, dt, dest, tag, comm, 0, flags);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_wait_done(&r, MPI_STATUS_IGNORE);
    ivc_mpi_req_free(&r);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "sending to rank %d failed", dest);
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return blocking_send(buf, count, datatype, dest, tag, comm, 0, "MPI_Send");
}
IVC_MPI_WEAK(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return blocking_send(buf, count, datatype, dest, tag, comm, IVC_ENV_SYNC, "MPI_Ssend");
}
IVC_MPI_WEAK(Ssend)

/* A ready send may be a standard send: the receive is posted, so it completes as one. */
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return blocking_send(buf, count, datatype, dest, tag, comm, 0, "MPI_Rsend");
}
IVC_MPI_WEAK(Rsend)

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    const char *fn = "MPI_Recv";
    int rc = check_p2p(buf, comm, count, &datatype, source, tag, PEER_RECV, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (__builtin_expect(status == NULL, 0))
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL status (MPI_STATUS_IGNORE ignores it)");
    struct ivc_mpi_req_s r;
    r.on_stack = 1;
    rc = ivc_mpi_start_recv(&r, buf, count, datatype, source, tag, comm, 0);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_wait_done(&r, status);
    else if (status != MPI_STATUS_IGNORE)
        *status = r.status;
    ivc_mpi_req_free(&r);
    if (rc == MPI_ERR_TRUNCATE)
        return ivc_mpi_raise(comm, rc, fn,
                             "a message of %llu bytes from rank %d (tag %d) does not fit the "
                             "%llu-byte buffer",
                             (unsigned long long)r.msg_len, r.status.MPI_SOURCE, r.status.MPI_TAG,
                             (unsigned long long)r.op.data.bytes);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "receiving from rank %d failed", source);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Recv)

/* ---- nonblocking calls ---- */

static int nonblocking_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                            MPI_Comm comm, uint32_t flags, MPI_Request *request, const char *fn)
{
    int rc = check_p2p(buf, comm, count, &dt, dest, tag, PEER_SEND, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (__builtin_expect(request == NULL, 0))
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL request pointer");
    MPI_Request r = ivc_mpi_req_alloc(REQ_SEND);
    if (r == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    rc = ivc_mpi_start_send(r, buf, count, dt, dest, tag, comm, 0, flags);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_req_free(r);
        return ivc_mpi_raise(comm, rc, fn, "sending to rank %d failed", dest);
    }
    *request = r;
    return MPI_SUCCESS;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return nonblocking_send(buf, count, datatype, dest, tag, comm, 0, request, "MPI_Isend");
}
IVC_MPI_WEAK(Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return nonblocking_send(buf, count, datatype, dest, tag, comm, IVC_ENV_SYNC, request,
                            "MPI_Issend");
}
IVC_MPI_WEAK(Issend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return nonblocking_send(buf, count, datatype, dest, tag, comm, 0, request, "MPI_Irsend");
}
IVC_MPI_WEAK(Irsend)

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    const char *fn = "MPI_Irecv";
    int rc = check_p2p(buf, comm, count, &datatype, source, tag, PEER_RECV, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (__builtin_expect(request == NULL, 0))
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL request pointer");
    MPI_Request r = ivc_mpi_req_alloc(REQ_RECV);
    if (r == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    rc = ivc_mpi_start_recv(r, buf, count, datatype, source, tag, comm, 0);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_req_free(r);
        return ivc_mpi_raise(comm, rc, fn, "receiving from rank %d failed", source);
    }
    *request = r;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Irecv)

/* ---- combined calls ---- */

int ivc_mpi_sendrecv_x(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                       void *rbuf, int rcount, MPI_Datatype rdt, int src, int rtag, MPI_Comm comm,
                       uint32_t ctx_off, MPI_Status *status)
{
    struct ivc_mpi_req_s rr, sr;
    rr.on_stack = sr.on_stack = 1;
    int rc = ivc_mpi_start_recv(&rr, rbuf, rcount, rdt, src, rtag, comm, ctx_off);
    int sc = ivc_mpi_start_send(&sr, sbuf, scount, sdt, dest, stag, comm, ctx_off, 0);
    if (sc == MPI_SUCCESS)
        sc = ivc_mpi_wait_done(&sr, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_wait_done(&rr, status);
    else if (status != MPI_STATUS_IGNORE)
        *status = rr.status;
    ivc_mpi_req_free(&sr);
    ivc_mpi_req_free(&rr);
    return rc != MPI_SUCCESS ? rc : sc;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    const char *fn = "MPI_Sendrecv";
    int rc = check_p2p(sendbuf, comm, sendcount, &sendtype, dest, sendtag, PEER_SEND, fn);
    if (rc == MPI_SUCCESS)
        rc = check_p2p(recvbuf, comm, recvcount, &recvtype, source, recvtag, PEER_RECV, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (status == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL status (MPI_STATUS_IGNORE ignores it)");
    rc = ivc_mpi_sendrecv_x(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                            recvtype, source, recvtag, comm, 0, status);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "exchange with ranks %d/%d failed", dest, source);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Sendrecv)

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    const char *fn = "MPI_Sendrecv_replace";
    int rc = check_p2p(buf, comm, count, &datatype, dest, sendtag, PEER_SEND, fn);
    if (rc == MPI_SUCCESS)
        rc = check_p2p(buf, comm, count, &datatype, source, recvtag, PEER_RECV, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (status == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL status (MPI_STATUS_IGNORE ignores it)");
    /* The outgoing data is packed aside so the receive can land in buf. */
    ivc_data_t d;
    ivc_mpi_data(&d, buf, count, datatype);
    void *tmp = malloc(d.bytes ? d.bytes : 1);
    if (tmp == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    ivc_data_pack(&d, 0, tmp, d.bytes);
    rc = ivc_mpi_sendrecv_x(tmp, (int)d.bytes, MPI_BYTE, dest, sendtag, buf, count, datatype,
                            source, recvtag, comm, 0, status);
    free(tmp);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "exchange with ranks %d/%d failed", dest, source);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Sendrecv_replace)

/* ---- nonblocking combined calls: a compound request over a send and a receive ---- */

typedef struct {
    MPI_Request s, r;
    void *tmp; /* Isendrecv_replace: the packed outgoing data */
} srx_t;

static int srx_poll(MPI_Request x)
{
    srx_t *st = x->u.x.state;
    if (!st->s->done || !st->r->done)
        return 0;
    x->status = st->r->status;
    if (x->status.MPI_ERROR == MPI_SUCCESS)
        x->status.MPI_ERROR = st->s->status.MPI_ERROR;
    return 1;
}

static void srx_drop(MPI_Request x)
{
    srx_t *st = x->u.x.state;
    /* Called once both are complete (or never started). */
    ivc_mpi_req_free(st->s);
    ivc_mpi_req_free(st->r);
    free(st->tmp);
    free(st);
}

/* Starts the pair; a failure of either start is reported when the request completes. */
static int isendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf,
                     int rcount, MPI_Datatype rdt, int src, int rtag, MPI_Comm comm, void *tmp,
                     MPI_Request *request, const char *fn)
{
    srx_t *st = malloc(sizeof(*st));
    MPI_Request s = ivc_mpi_req_alloc(REQ_SEND), r = ivc_mpi_req_alloc(REQ_RECV), x = NULL;
    if (st != NULL && s != NULL && r != NULL) {
        *st = (srx_t){.s = s, .r = r, .tmp = tmp};
        x = ivc_mpi_req_poll_new(comm, srx_poll, srx_drop, st);
    }
    if (x == NULL) {
        if (s != NULL)
            ivc_mpi_req_free(s);
        if (r != NULL)
            ivc_mpi_req_free(r);
        free(st);
        free(tmp);
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    ivc_mpi_start_recv(r, rbuf, rcount, rdt, src, rtag, comm, 0);
    ivc_mpi_start_send(s, sbuf, scount, sdt, dest, stag, comm, 0, 0);
    *request = x;
    return MPI_SUCCESS;
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Isendrecv";
    int rc = check_p2p(sendbuf, comm, sendcount, &sendtype, dest, sendtag, PEER_SEND, fn);
    if (rc == MPI_SUCCESS)
        rc = check_p2p(recvbuf, comm, recvcount, &recvtype, source, recvtag, PEER_RECV, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL request pointer");
    return isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                     source, recvtag, comm, NULL, request, fn);
}
IVC_MPI_WEAK(Isendrecv)

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Isendrecv_replace";
    int rc = check_p2p(buf, comm, count, &datatype, dest, sendtag, PEER_SEND, fn);
    if (rc == MPI_SUCCESS)
        rc = check_p2p(buf, comm, count, &datatype, source, recvtag, PEER_RECV, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL request pointer");
    ivc_data_t d;
    ivc_mpi_data(&d, buf, count, datatype);
    if (d.bytes > INT_MAX)
        return ivc_mpi_raise(comm, MPI_ERR_COUNT, fn, "more than 2 GiB to exchange in place");
    void *tmp = malloc(d.bytes ? d.bytes : 1);
    if (tmp == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    ivc_data_pack(&d, 0, tmp, d.bytes);
    return isendrecv(tmp, (int)d.bytes, MPI_BYTE, dest, sendtag, buf, count, datatype, source,
                     recvtag, comm, tmp, request, fn);
}
IVC_MPI_WEAK(Isendrecv_replace)

/* ---- internal blocking point-to-point for collectives ---- */

int ivc_mpi_send_x(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   uint32_t ctx_off)
{
    struct ivc_mpi_req_s r;
    r.on_stack = 1;
    int rc = ivc_mpi_start_send(&r, buf, count, dt, dest, tag, comm, ctx_off, 0);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_wait_done(&r, MPI_STATUS_IGNORE);
    ivc_mpi_req_free(&r);
    return rc;
}

int ivc_mpi_recv_x(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                   uint32_t ctx_off, MPI_Status *status)
{
    struct ivc_mpi_req_s r;
    r.on_stack = 1;
    int rc = ivc_mpi_start_recv(&r, buf, count, dt, src, tag, comm, ctx_off);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_wait_done(&r, status);
    ivc_mpi_req_free(&r);
    return rc;
}

/* ---- probe and counts ---- */

static int check_probe(int source, int tag, MPI_Comm comm, const MPI_Status *status, const char *fn)
{
    MPI_Datatype byte = MPI_BYTE;
    int rc = check_p2p(NULL, comm, 0, &byte, source, tag, PEER_RECV, fn);
    if (rc == MPI_SUCCESS && status == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL status (MPI_STATUS_IGNORE ignores it)");
    return rc;
}

/* MPI_SUCCESS, or raises on comm and returns the class a probe of `source` (a comm rank or
 * MPI_ANY_SOURCE) must fail with now (ivc_mpi_ft_check: a failed source, a revoked
 * communicator, MPI_ANY_SOURCE with a failure not acknowledged); so a probe never waits
 * forever for a message that cannot come. Also used by mpi_mprobe.c, which declares it
 * until p2p.h does. */
int ivc_mpi_probe_ft_check(MPI_Comm comm, int source, const char *fn)
{
    int rc = ivc_mpi_ft_check(comm, source >= 0 ? comm->world[source] : -1, 0);
    if (__builtin_expect(rc == MPI_SUCCESS, 1))
        return MPI_SUCCESS;
    if (rc != MPI_ERR_PROC_FAILED)
        return ivc_mpi_raise(comm, rc, fn, "the communicator was revoked");
    if (source >= 0)
        return ivc_mpi_raise(comm, rc, fn, "rank %d failed", source);
    return ivc_mpi_raise(comm, rc, fn,
                         "MPI_ANY_SOURCE with a failed member not acknowledged "
                         "(MPIX_Comm_failure_ack)");
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    int rc = check_probe(source, tag, comm, status, "MPI_Iprobe");
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, "MPI_Iprobe", "NULL flag");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        ivc_mpi_status_proc_null_out(status);
        return MPI_SUCCESS;
    }
    rc = ivc_mpi_probe_ft_check(comm, source, "MPI_Iprobe");
    if (rc != MPI_SUCCESS)
        return rc;
    *flag = ivc_mpi_iprobe(source, tag, comm, 0, status);
    ivc_mpi_polled(*flag);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Iprobe)

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int rc = check_probe(source, tag, comm, status, "MPI_Probe");
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        ivc_mpi_status_proc_null_out(status);
        return MPI_SUCCESS;
    }
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, NULL, NULL);
    for (;;) {
        /* Checked before each look, as a receive is when it is posted (mpi_match.c). */
        rc = ivc_mpi_probe_ft_check(comm, source, "MPI_Probe");
        if (rc != MPI_SUCCESS)
            return rc;
        if (ivc_mpi_iprobe(source, tag, comm, 0, status))
            return MPI_SUCCESS;
        ivc_mpi_poll(&b);
    }
}
IVC_MPI_WEAK(Probe)

/* Get_count and Get_elements read a status the caller has: neither NULL nor
 * MPI_STATUS_IGNORE (there is none to read). */
static int check_count_args(const MPI_Status *status, MPI_Datatype datatype, const void *count,
                            const char *fn)
{
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                             "status is %s: there is no status to read",
                             status == NULL ? "NULL" : "MPI_STATUS_IGNORE");
    if (!ivc_mpi_dt_valid(datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype");
    if (count == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL count");
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    int rc = check_count_args(status, datatype, count, "MPI_Get_count");
    if (rc != MPI_SUCCESS)
        return rc;
    uint64_t bytes = (uint64_t)status->ivc_count, size = datatype->map.size;
    if (size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else if (bytes % size != 0 || bytes / size > INT_MAX)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / size);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_count)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    int rc = check_count_args(status, datatype, count, "MPI_Get_elements");
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t n = ivc_mpi_dt_elements(datatype, (uint64_t)status->ivc_count); /* dtype room */
    *count = n < 0 || n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_elements)
