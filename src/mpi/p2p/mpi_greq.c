/* Generalized requests (MPI_Grequest_start/complete) and the status accessors: the
 * Status_set_* calls their query functions use, Status_get_*, and MPI_Get_count_c.
 *
 * A generalized request (REQ_GREQ) completes when the user calls MPI_Grequest_complete.
 * The callbacks run as the standard says: query_fn when a completion call (Wait, Test,
 * Request_get_status, ...) reports the request complete, then free_fn when that call frees
 * it; free_fn at MPI_Request_free of a complete request, or at MPI_Grequest_complete of one
 * the user already freed; cancel_fn at MPI_Cancel with complete = whether
 * MPI_Grequest_complete was called. Errors a callback returns are what the call returns. */
#include "mpi_impl.h"

#include <limits.h>

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    const char *fn = "MPI_Grequest_start";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (query_fn == NULL || free_fn == NULL || cancel_fn == NULL || request == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL callback or request");
    /* Errors of completion calls are raised on MPI_COMM_WORLD. */
    MPI_Request r = ivc_mpi_req_new_local(REQ_GREQ, MPI_COMM_WORLD, 0);
    if (r == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    r->u.g.query = query_fn;
    r->u.g.free = free_fn;
    r->u.g.cancel = cancel_fn;
    r->u.g.extra = extra_state;
    *request = r;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request)
{
    const char *fn = "MPI_Grequest_complete";
    if (request == MPI_REQUEST_NULL || request->magic != REQ_MAGIC || request->kind != REQ_GREQ)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "not a generalized request");
    if (request->done)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "already completed");
    request->done = 1;
    if (request->freed) {
        int err = request->u.g.free(request->u.g.extra);
        ivc_mpi_req_free(request);
        if (err != MPI_SUCCESS)
            return ivc_mpi_raise(MPI_COMM_WORLD, err, fn, "the free function failed");
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Grequest_complete)

/* ---- status accessors ---- */

static int check_status(const MPI_Status *status, const char *fn)
{
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "invalid status");
    return MPI_SUCCESS;
}

/* Bytes that `count` elements of dt make: whole elements of dt, then basic elements of a
 * partial one (exact for types of one basic kind; for mixed types the partial element is
 * counted at the average basic element size). */
static int set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count,
                        const char *fn)
{
    int rc = check_status(status, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_dt_valid(datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype");
    if (count < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %lld",
                             (long long)count);
    uint64_t n = (uint64_t)count, bytes;
    if (datatype->basic != B_NONE && datatype->basic_size != 0)
        bytes = n * datatype->basic_size;
    else if (datatype->nbasic != 0)
        bytes = n / datatype->nbasic * datatype->map.size +
                n % datatype->nbasic * (datatype->map.size / datatype->nbasic);
    else
        bytes = 0;
    status->ivc_count = (long long)bytes;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements");
}
IVC_MPI_WEAK(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}
IVC_MPI_WEAK(Status_set_elements_x)

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements_c");
}
IVC_MPI_WEAK(Status_set_elements_c)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    int rc = check_status(status, "MPI_Status_set_cancelled");
    if (rc != MPI_SUCCESS)
        return rc;
    status->ivc_cancelled = flag != 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Status_set_cancelled)

int PMPI_Status_set_source(MPI_Status *status, int source)
{
    int rc = check_status(status, "MPI_Status_set_source");
    if (rc != MPI_SUCCESS)
        return rc;
    status->MPI_SOURCE = source;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Status_set_source)

int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    int rc = check_status(status, "MPI_Status_set_tag");
    if (rc != MPI_SUCCESS)
        return rc;
    status->MPI_TAG = tag;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Status_set_tag)

int PMPI_Status_set_error(MPI_Status *status, int err)
{
    int rc = check_status(status, "MPI_Status_set_error");
    if (rc != MPI_SUCCESS)
        return rc;
    status->MPI_ERROR = err;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Status_set_error)

int PMPI_Status_get_source(const MPI_Status *status, int *source)
{
    int rc = check_status(status, "MPI_Status_get_source");
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_get_source", "NULL source");
    *source = status->MPI_SOURCE;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Status_get_source)

int PMPI_Status_get_tag(const MPI_Status *status, int *tag)
{
    int rc = check_status(status, "MPI_Status_get_tag");
    if (rc != MPI_SUCCESS)
        return rc;
    if (tag == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_get_tag", "NULL tag");
    *tag = status->MPI_TAG;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Status_get_tag)

int PMPI_Status_get_error(const MPI_Status *status, int *err)
{
    int rc = check_status(status, "MPI_Status_get_error");
    if (rc != MPI_SUCCESS)
        return rc;
    if (err == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_get_error", "NULL err");
    *err = status->MPI_ERROR;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Status_get_error)

/* Computed from the byte count without narrowing to int. */
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    const char *fn = "MPI_Get_count_c";
    int rc = check_status(status, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_dt_valid(datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype");
    if (count == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL count");
    uint64_t bytes = (uint64_t)status->ivc_count, size = datatype->map.size;
    if (size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else if (bytes % size != 0)
        *count = MPI_UNDEFINED;
    else
        *count = (MPI_Count)(bytes / size);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Get_count_c)
