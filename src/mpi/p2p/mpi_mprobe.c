/* Matched probes: MPI_Mprobe/Improbe take the matched message off the unexpected queue into
 * an MPI_Message, so that no other receive can take it; MPI_Mrecv/Imrecv receive exactly it. */
#include "mpi_impl.h"

#include <stdlib.h>

struct ivc_mpi_msg_s ivc_obj_message_no_proc = {MSG_MAGIC, NULL, NULL};

/* mpi_p2p.c (its declaration belongs in p2p.h): MPI_SUCCESS, or raises on comm and returns
 * the class a probe of `source` (a comm rank or MPI_ANY_SOURCE) must fail with now: a failed
 * source, a revoked communicator, MPI_ANY_SOURCE with a failure not acknowledged. */

/* Also refuses NULL for the flag (Improbe only: flag_needed), message and status outputs. */
static int check_probe(int source, int tag, MPI_Comm comm, const int *flag, int flag_needed,
                       const MPI_Message *message, const MPI_Status *status, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    if (source != MPI_ANY_SOURCE && source != MPI_PROC_NULL && (source < 0 || source >= comm->size))
        return ivc_mpi_raise(comm, MPI_ERR_RANK, fn, "rank %d is not in the communicator", source);
    if (tag < 0 && tag != MPI_ANY_TAG)
        return ivc_mpi_raise(comm, MPI_ERR_TAG, fn, "tag %d is invalid", tag);
    if (flag_needed && flag == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL flag");
    if (message == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL message");
    if (status == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL status (MPI_STATUS_IGNORE ignores it)");
    return MPI_SUCCESS;
}

/* Tries once; returns 1 with *message set when a message matched. */
static int try_take(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    void *u = ivc_mpi_match_take(comm->ctx, source, tag, status);
    if (u == NULL)
        return 0;
    MPI_Message m = malloc(sizeof(*m));
    if (m == NULL)
        ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory in MPI_Mprobe");
    m->magic = MSG_MAGIC;
    m->comm = comm;
    ivc_mpi_comm_retain(comm);
    m->umsg = u;
    *message = m;
    return 1;
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    int rc = check_probe(source, tag, comm, flag, 1, message, status, "MPI_Improbe");
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        ivc_mpi_status_proc_null_out(status);
        return MPI_SUCCESS;
    }
    rc = ivc_mpi_probe_ft_check(comm, source, "MPI_Improbe");
    if (rc != MPI_SUCCESS)
        return rc;
    *flag = try_take(source, tag, comm, message, status);
    ivc_mpi_polled(*flag);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Improbe)

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    const char *fn = "MPI_Mprobe";
    int rc = check_probe(source, tag, comm, NULL, 0, message, status, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        ivc_mpi_status_proc_null_out(status);
        return MPI_SUCCESS;
    }
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, NULL, NULL);
    for (;;) {
        /* Checked before each look, as a receive is when it is posted (mpi_match.c). */
        rc = ivc_mpi_probe_ft_check(comm, source, fn);
        if (rc != MPI_SUCCESS)
            return rc;
        if (try_take(source, tag, comm, message, status))
            return MPI_SUCCESS;
        ivc_mpi_poll(&b);
    }
}
IVC_MPI_WEAK(Mprobe)

/* Checks the arguments of Mrecv/Imrecv: out is the status (Mrecv) or the request pointer
 * (Imrecv), which may not be NULL; out_name names it. A refused call leaves *message to a
 * correct one. Errors are raised on the message's communicator (WORLD's for
 * MPI_MESSAGE_NO_PROC). */
static int check_mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
                       const void *out, const char *out_name, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (message == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL message");
    if (*message == MPI_MESSAGE_NULL || (*message)->magic != MSG_MAGIC)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "invalid message handle");
    MPI_Comm comm = (*message)->umsg != NULL ? (*message)->comm : MPI_COMM_WORLD;
    if (count < 0)
        return ivc_mpi_raise(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (!ivc_mpi_dt_valid(dt) || !dt->committed)
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn, "invalid datatype");
    if (ivc_mpi_dt_null_buf(buf, count, dt))
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn, "NULL buffer for %d elements", count);
    if (out == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL %s", out_name);
    return MPI_SUCCESS;
}

/* Starts the receive of *message (checked by check_mrecv) into r and consumes the message
 * handle. */
static int start(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request r)
{
    int rc;
    MPI_Message m = *message;
    MPI_Comm comm = m->umsg != NULL ? m->comm : MPI_COMM_SELF;
    rc = ivc_mpi_start_mrecv(r, buf, count, dt, comm, m->umsg);
    if (m != MPI_MESSAGE_NO_PROC) {
        ivc_mpi_comm_release(m->comm);
        m->magic = 0;
        free(m);
    }
    *message = MPI_MESSAGE_NULL;
    return rc;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    const char *fn = "MPI_Mrecv";
    struct ivc_mpi_req_s r;
    r.on_stack = 1;
    r.comm = NULL;
    r.dt = NULL;
    int rc = check_mrecv(buf, count, datatype, message, status,
                         "status (MPI_STATUS_IGNORE ignores it)", fn);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = start(buf, count, datatype, message, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm comm = r.comm;
    ivc_mpi_comm_retain(comm);
    rc = ivc_mpi_wait_done(&r, status);
    ivc_mpi_req_free(&r);
    if (rc != MPI_SUCCESS)
        rc = ivc_mpi_raise(comm, rc, fn, "receiving the matched message failed");
    ivc_mpi_comm_release(comm);
    return rc;
}
IVC_MPI_WEAK(Mrecv)

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    const char *fn = "MPI_Imrecv";
    int rc = check_mrecv(buf, count, datatype, message, request, "request pointer", fn);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Request r = ivc_mpi_req_alloc(REQ_RECV);
    if (r == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    rc = start(buf, count, datatype, message, r);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_req_free(r);
        return rc;
    }
    *request = r;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Imrecv)
