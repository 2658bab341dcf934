/* Persistent requests: the generic mechanism (ivc_mpi_preq_new, MPI_Start, MPI_Startall)
 * and the persistent point-to-point operations built on it (Send/Bsend/Ssend/Rsend/
 * Recv_init).
 *
 * A persistent request (REQ_PERSIST) holds a start function and its arguments. Each
 * MPI_Start calls the function, which starts an ordinary nonblocking operation and hands
 * back its request as the "inner" request; completion calls (mpi_request.c) finish the
 * inner request and leave the persistent one inactive. Persistent collectives (coll room)
 * and partitioned communication (mpi_part.c) use the same mechanism. */
#include "mpi_impl.h"

#include <stdlib.h>

int ivc_mpi_preq_new(MPI_Comm comm, ivc_mpi_preq_start_fn start, void *args,
                     void (*free_args)(void *), MPI_Request *out)
{
    if (ivc_mpi_req_zombies != NULL)
        ivc_mpi_req_sweep();
    MPI_Request r = ivc_mpi_req_new_local(REQ_PERSIST, comm, 0);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    r->u.p.start = start;
    r->u.p.args = args;
    r->u.p.free_args = free_args;
    r->u.p.inner = NULL;
    *out = r;
    return MPI_SUCCESS;
}

/* MPI_ERR_REQUEST unless r is an inactive persistent request. */
static int check_startable(MPI_Request r, int i, const char *fn)
{
    if (r == MPI_REQUEST_NULL || r->magic != REQ_MAGIC || r->kind != REQ_PERSIST)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn,
                             "request %d is not a persistent request", i);
    if (r->u.p.inner != NULL)
        return ivc_mpi_raise(r->comm, MPI_ERR_REQUEST, fn, "request %d is already active", i);
    return MPI_SUCCESS;
}

static int start_one(MPI_Request r, const char *fn)
{
    MPI_Request inner = NULL;
    int rc = r->u.p.start(r, r->u.p.args, &inner);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(r->comm, rc, fn, "starting the persistent operation failed");
    r->u.p.inner = inner;
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *request)
{
    const char *fn = "MPI_Start";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL request pointer");
    rc = check_startable(*request, 0, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    return start_one(*request, fn);
}
IVC_MPI_WEAK(Start)

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    const char *fn = "MPI_Startall";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (count > 0 && array_of_requests == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL request array");
    /* All are checked before any starts, so a bad entry starts nothing. */
    for (int i = 0; i < count; i++) {
        rc = check_startable(array_of_requests[i], i, fn);
        if (rc != MPI_SUCCESS)
            return rc;
        for (int j = 0; j < i; j++)
            if (array_of_requests[j] == array_of_requests[i])
                return ivc_mpi_raise(array_of_requests[i]->comm, MPI_ERR_REQUEST, fn,
                                     "request %d appears twice", i);
    }
    for (int i = 0; i < count; i++) {
        rc = start_one(array_of_requests[i], fn);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Startall)

/* ---- persistent point-to-point ---- */

enum { P_SEND, P_BSEND, P_RECV };

typedef struct {
    void *buf;
    int count;
    MPI_Datatype dt; /* retained */
    int peer;        /* comm rank, MPI_ANY_SOURCE or MPI_PROC_NULL */
    int tag;
    int mode;
    uint32_t flags; /* IVC_ENV_SYNC for Ssend_init */
} p2p_args_t;

static void p2p_free(void *args)
{
    p2p_args_t *a = args;
    ivc_mpi_dt_release(a->dt);
    free(a);
}

static int p2p_start(MPI_Request preq, void *args, MPI_Request *inner)
{
    p2p_args_t *a = args;
    MPI_Request r = ivc_mpi_req_alloc(a->mode == P_RECV ? REQ_RECV : REQ_SEND);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    int rc;
    if (a->mode == P_RECV)
        rc = ivc_mpi_start_recv(r, a->buf, a->count, a->dt, a->peer, a->tag, preq->comm, 0);
    else if (a->mode == P_BSEND)
        rc = ivc_mpi_start_bsend(r, a->buf, a->count, a->dt, a->peer, a->tag, preq->comm);
    else
        rc = ivc_mpi_start_send(r, a->buf, a->count, a->dt, a->peer, a->tag, preq->comm, 0,
                                a->flags);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_req_free(r);
        return rc;
    }
    *inner = r;
    return MPI_SUCCESS;
}

static int p2p_init(const void *buf, int count, MPI_Datatype dt, int peer, int tag,
                    MPI_Comm comm, int mode, uint32_t flags, MPI_Request *request,
                    const char *fn)
{
    int rc = ivc_mpi_check_p2p(buf, comm, count, &dt, peer, tag,
                               mode == P_RECV ? PEER_RECV : PEER_SEND, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL request pointer");
    p2p_args_t *a = malloc(sizeof(*a));
    if (a == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    *a = (p2p_args_t){.buf = (void *)buf, .count = count, .dt = dt, .peer = peer, .tag = tag,
                      .mode = mode, .flags = flags};
    ivc_mpi_dt_retain(dt);
    rc = ivc_mpi_preq_new(comm, p2p_start, a, p2p_free, request);
    if (rc != MPI_SUCCESS) {
        p2p_free(a);
        return ivc_mpi_raise(comm, rc, fn, "out of memory");
    }
    return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return p2p_init(buf, count, datatype, dest, tag, comm, P_SEND, 0, request, "MPI_Send_init");
}
IVC_MPI_WEAK(Send_init)

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return p2p_init(buf, count, datatype, dest, tag, comm, P_SEND, IVC_ENV_SYNC, request,
                    "MPI_Ssend_init");
}
IVC_MPI_WEAK(Ssend_init)

/* A ready send may be a standard send (see MPI_Rsend). */
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return p2p_init(buf, count, datatype, dest, tag, comm, P_SEND, 0, request, "MPI_Rsend_init");
}
IVC_MPI_WEAK(Rsend_init)

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return p2p_init(buf, count, datatype, dest, tag, comm, P_BSEND, 0, request, "MPI_Bsend_init");
}
IVC_MPI_WEAK(Bsend_init)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return p2p_init(buf, count, datatype, source, tag, comm, P_RECV, 0, request, "MPI_Recv_init");
}
IVC_MPI_WEAK(Recv_init)
