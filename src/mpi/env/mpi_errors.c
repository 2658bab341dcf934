/* Error classes, their strings, error handlers, and the errno mapping. */
#include "mpi_impl.h"

#include "base/ivc_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ivc_mpi_errh_s ivc_obj_errors_are_fatal = {ERRH_MAGIC, ERRH_FATAL, NULL, 1, 1};
struct ivc_mpi_errh_s ivc_obj_errors_return = {ERRH_MAGIC, ERRH_RETURN, NULL, 1, 1};
struct ivc_mpi_errh_s ivc_obj_errors_abort = {ERRH_MAGIC, ERRH_ABORT, NULL, 1, 1};

static const char *const class_text[MPI_ERR_LASTCODE] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated: the receive buffer is too small",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code is in the status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_INFO_KEY] = "invalid info key",
    [MPI_ERR_INFO_VALUE] = "invalid info value",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_SPAWN] = "spawn error",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_SERVICE] = "invalid service name",
    [MPI_ERR_NAME] = "invalid name",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_ASSERT] = "invalid assertion",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "wrong synchronization of RMA calls",
    [MPI_ERR_RMA_RANGE] = "target memory is not part of the window",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_NOT_SAME] = "collective argument not identical on all processes",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "unsupported operation",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_NO_SPACE] = "not enough space",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file or file system",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_CONVERSION] = "data conversion error",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_PROC_FAILED] = "a peer process failed or broke the shared-memory protocol",
};

int ivc_mpi_errno_class(int err)
{
    switch (err) {
    case 0: return MPI_SUCCESS;
    case -ENOMEM: return MPI_ERR_NO_MEM;
    case -EMSGSIZE: return MPI_ERR_TRUNCATE;
    case -EINVAL: return MPI_ERR_ARG;
    case -EPROTO:
    case -EPIPE:
    case -ECONNRESET:
    case -EHOSTUNREACH: return MPI_ERR_PROC_FAILED;
    case -ECANCELED: return MPI_ERR_OTHER;
    default: return MPI_ERR_OTHER;
    }
}

void ivc_mpi_die(int code, const char *why)
{
    if (why != NULL)
        ivc_error("%s", why);
    ivc_coord_abort(code);
    fflush(stdout);
    fflush(stderr);
    _exit(code != 0 ? code : 1);
}

int ivc_mpi_raise(MPI_Comm comm, int cls, const char *fn, const char *fmt, ...)
{
    char detail[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (!ivc_mpi_comm_valid(comm))
        comm = MPI_COMM_WORLD;
    MPI_Errhandler h = comm->errh;
    if (h == NULL || h->magic != ERRH_MAGIC)
        h = MPI_ERRORS_ARE_FATAL;
    if (h->kind == ERRH_RETURN)
        return cls;
    if (h->kind == ERRH_USER) {
        int code = cls;
        h->fn(&comm, &code, fn, detail);
        return cls;
    }
    char msg[600];
    snprintf(msg, sizeof(msg), "%s: %s (%s); aborting the job", fn, detail,
             cls >= 0 && cls < MPI_ERR_LASTCODE && class_text[cls] ? class_text[cls]
                                                                   : "unknown error");
    ivc_mpi_die(cls, msg);
}

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *s = errorcode >= 0 && errorcode < MPI_ERR_LASTCODE ? class_text[errorcode] : NULL;
    if (s == NULL)
        s = "unknown error code";
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
    *resultlen = (int)strlen(string);
    return errorcode >= 0 && errorcode < MPI_ERR_LASTCODE ? MPI_SUCCESS : MPI_ERR_ARG;
}
IVC_MPI_WEAK(Error_string)

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (errorcode < 0 || errorcode >= MPI_ERR_LASTCODE)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class",
                             "error code %d is not one of this library's", errorcode);
    *errorclass = errorcode;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Error_class)

static int check_errh(MPI_Comm comm, MPI_Errhandler h, const char *fn)
{
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    if (h == NULL || h->magic != ERRH_MAGIC)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "invalid error handler");
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    int rc = check_errh(comm, errhandler, "MPI_Comm_set_errhandler");
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Errhandler old = comm->errh;
    errhandler->refcount++;
    comm->errh = errhandler;
    if (old != NULL && !old->predefined && --old->refcount == 0)
        free(old);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_get_errhandler",
                             "invalid communicator");
    comm->errh->refcount++;
    *errhandler = comm->errh;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_get_errhandler)

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    if (function == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_create_errhandler",
                             "NULL function");
    MPI_Errhandler h = calloc(1, sizeof(*h));
    if (h == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler",
                             "out of memory");
    h->magic = ERRH_MAGIC;
    h->kind = ERRH_USER;
    h->fn = function;
    h->refcount = 1;
    *errhandler = h;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_create_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_call_errhandler",
                             "invalid communicator");
    ivc_mpi_raise(comm, errorcode, "MPI_Comm_call_errhandler", "error raised by the program");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_call_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPI_Errhandler h = errhandler ? *errhandler : NULL;
    if (h == NULL || h->magic != ERRH_MAGIC)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free",
                             "invalid error handler");
    if (!h->predefined && --h->refcount == 0) {
        h->magic = 0;
        free(h);
    }
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Errhandler_free)
