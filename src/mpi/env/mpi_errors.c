/* Error classes and codes, their strings, error handlers, and the errno mapping.
 *
 * Codes: every predefined class is its own code, 0 .. MPI_ERR_LASTCODE - 1 (the MPI_T_ERR_*
 * return codes among them). Classes and codes the program adds (MPI_Add_error_class/code)
 * take values from MPI_ERR_LASTCODE + 1 up, one table for both: a new value is one above
 * the highest in use, so removing the highest ones makes their values free again.
 *
 * Error handlers: each user handler remembers the kind of object it was created for
 * (communicator, window, session) and is only attached to objects of that kind, so it is
 * always called with the handle type it expects. A window raises its errors on a private
 * communicator; ivc_mpi_errh_bind_win() tells this file which window that communicator
 * stands for. */
#include "mpi_impl.h"

#include "base/ivc_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ivc_mpi_errh_s ivc_obj_errors_are_fatal = {
    .magic = ERRH_MAGIC, .kind = ERRH_FATAL, .refcount = 1, .predefined = 1};
struct ivc_mpi_errh_s ivc_obj_errors_return = {
    .magic = ERRH_MAGIC, .kind = ERRH_RETURN, .refcount = 1, .predefined = 1};
struct ivc_mpi_errh_s ivc_obj_errors_abort = {
    .magic = ERRH_MAGIC, .kind = ERRH_ABORT, .refcount = 1, .predefined = 1};

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
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large to be stored in the output argument",
    [MPI_ERR_ERRHANDLER] = "invalid error handler",
    [MPI_ERR_PROC_ABORTED] = "a peer process aborted",
    [MPI_T_ERR_MEMORY] = "MPI_T: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T: the tool interface is not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T: the tool interface cannot be initialized now",
    [MPI_T_ERR_NOT_ACCESSIBLE] = "MPI_T: not accessible at this moment",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T: invalid enumeration item",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T: no more handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T: no more performance experiment sessions",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T: invalid performance experiment session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T: the control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T: the control variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T: the performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T: the performance variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T: the performance variable cannot be read and reset at once",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T: no variable, category or event of that name",
    [MPI_T_ERR_INVALID] = "MPI_T: invalid use of the interface or bad parameter",
    [MPI_T_ERR_NOT_SUPPORTED] = "MPI_T: not supported",
    [MPI_ERR_ABI] = "ABI: the request cannot be met by this library's ABI",
};

/* ---- classes and codes added by the program ---- */

/* The fault-tolerance classes of mpi-ext.h (src/mpi/ft) come right after MPI_ERR_LASTCODE:
 * MPIX_ERR_PROC_FAILED_PENDING, MPIX_ERR_REVOKED. */
#include "../../../include/mpi-ext.h"
static const char *mpix_text(int code)
{
    switch (code) {
    case MPIX_ERR_PROC_FAILED_PENDING:
        return "a peer process failed; the MPI_ANY_SOURCE receive stays pending";
    case MPIX_ERR_REVOKED: return "the communicator was revoked";
    default: return NULL;
    }
}

#define USER_BASE (IVC_MPIX_ERR_LASTCODE + 1) /* the first value handed out */

typedef struct {
    int used;
    int is_class;
    int cls;    /* a code's class; a class's own value */
    int ncodes; /* class: its codes not yet removed */
    char *text; /* MPI_Add_error_string, or NULL */
} user_err_t;

static user_err_t *uerr; /* uerr[v - USER_BASE] */
static int uerr_len;     /* entries in use or freed below the highest in use, + 1 */
static int uerr_cap;

static user_err_t *user_err(int v)
{
    if (v < USER_BASE || v - USER_BASE >= uerr_len || !uerr[v - USER_BASE].used)
        return NULL;
    return &uerr[v - USER_BASE];
}

int ivc_mpi_last_used_code(void)
{
    return uerr_len > 0 ? USER_BASE + uerr_len - 1 : IVC_MPIX_ERR_LASTCODE;
}

/* The class of a valid code (predefined or added), or -1. */
static int code_class(int code)
{
    if ((code >= 0 && code < MPI_ERR_LASTCODE) || mpix_text(code) != NULL)
        return code;
    user_err_t *u = user_err(code);
    return u != NULL ? u->cls : -1;
}

/* The text of a code for messages; never NULL. */
static const char *code_text(int code)
{
    if (code >= 0 && code < MPI_ERR_LASTCODE && class_text[code] != NULL)
        return class_text[code];
    if (mpix_text(code) != NULL)
        return mpix_text(code);
    user_err_t *u = user_err(code);
    if (u != NULL)
        return u->text != NULL ? u->text : "error code added by the program";
    return "unknown error code";
}

/* Takes the next value; returns it, or -1 without memory. */
static int user_err_new(int is_class, int cls)
{
    if (uerr_len == uerr_cap) {
        int cap = uerr_cap ? 2 * uerr_cap : 16;
        user_err_t *n = realloc(uerr, (size_t)cap * sizeof(*n));
        if (n == NULL)
            return -1;
        uerr = n;
        uerr_cap = cap;
    }
    int v = USER_BASE + uerr_len;
    uerr[uerr_len++] = (user_err_t){1, is_class, is_class ? v : cls, 0, NULL};
    return v;
}

static void user_err_drop(user_err_t *u)
{
    free(u->text);
    memset(u, 0, sizeof(*u));
    while (uerr_len > 0 && !uerr[uerr_len - 1].used)
        uerr_len--;
}

int ivc_mpi_errno_class(int err)
{
    switch (err) {
    case 0: return MPI_SUCCESS;
    case -ENOMEM: return MPI_ERR_NO_MEM;
    case -EMSGSIZE: return MPI_ERR_TRUNCATE;
    case -EINVAL: return MPI_ERR_ARG;
    case -EOWNERDEAD:
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

/* ---- raising errors ---- */

/* Windows whose private communicator raises their errors: comm -> win, unordered. */
static struct win_bind {
    MPI_Comm comm;
    MPI_Win win;
} *wbind;
static int nwbind, wbind_cap;

void ivc_mpi_errh_bind_win(MPI_Comm comm, MPI_Win win)
{
    for (int i = 0; i < nwbind; i++) {
        if (wbind[i].comm == comm) {
            if (win != NULL)
                wbind[i].win = win;
            else
                wbind[i] = wbind[--nwbind];
            return;
        }
    }
    if (win == NULL)
        return;
    if (nwbind == wbind_cap) {
        int cap = wbind_cap ? 2 * wbind_cap : 8;
        struct win_bind *n = realloc(wbind, (size_t)cap * sizeof(*n));
        if (n == NULL)
            return; /* the window's user handler then gets the communicator: logged below */
        wbind = n;
        wbind_cap = cap;
    }
    wbind[nwbind++] = (struct win_bind){comm, win};
}

static MPI_Win bound_win(MPI_Comm comm)
{
    for (int i = 0; i < nwbind; i++)
        if (wbind[i].comm == comm)
            return wbind[i].win;
    return NULL;
}

int ivc_mpi_errh_usable(MPI_Errhandler h, int obj)
{
    return h != NULL && h->magic == ERRH_MAGIC && (h->predefined || h->obj == obj);
}

int ivc_mpi_errh_invoke(MPI_Errhandler h, int obj, void *handle, int code, const char *fn,
                        const char *detail)
{
    if (h == NULL || h->magic != ERRH_MAGIC)
        h = MPI_ERRORS_ARE_FATAL;
    if (h->kind == ERRH_RETURN)
        return code;
    if (h->kind == ERRH_USER) {
        int c = code;
        if (h->fortran) {
            MPI_Fint fh = obj == ERRH_OBJ_WIN       ? PMPI_Win_c2f(*(MPI_Win *)handle)
                          : obj == ERRH_OBJ_SESSION ? PMPI_Session_c2f(*(MPI_Session *)handle)
                          : obj == ERRH_OBJ_FILE    ? PMPI_File_c2f(*(MPI_File *)handle)
                                                    : PMPI_Comm_c2f(*(MPI_Comm *)handle);
            ((void (*)(MPI_Fint *, int *))h->fn)(&fh, &c);
        } else {
            /* The three handler types differ only in the handle's type. */
            h->fn(handle, &c, fn, detail);
        }
        return code;
    }
    char msg[MPI_MAX_ERROR_STRING + 512];
    snprintf(msg, sizeof(msg), "%s: %s (%s); aborting the job", fn, detail, code_text(code));
    int cls = code_class(code);
    ivc_mpi_die(cls > 0 ? cls : MPI_ERR_OTHER, msg);
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
    if (h != NULL && h->magic == ERRH_MAGIC && h->kind == ERRH_USER && h->obj == ERRH_OBJ_WIN) {
        MPI_Win w = bound_win(comm);
        if (w != NULL)
            return ivc_mpi_errh_invoke(h, ERRH_OBJ_WIN, &w, cls, fn, detail);
        ivc_error("%s: a window's error handler is attached to a communicator that is no "
                  "window's; the error is fatal",
                  fn);
        h = MPI_ERRORS_ARE_FATAL;
    }
    return ivc_mpi_errh_invoke(h, ERRH_OBJ_COMM, &comm, cls, fn, detail);
}

/* Errors of the functions that are valid at any time (before MPI_Init too) go to
 * MPI_COMM_WORLD's handler, which before MPI_Init is the initial one, ERRORS_ARE_FATAL. */
#define ARG_ERROR(fn, ...) ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, __VA_ARGS__)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *fn = "MPI_Error_string";
    if (string == NULL || resultlen == NULL)
        return ARG_ERROR(fn, "NULL output argument");
    if (code_class(errorcode) < 0) {
        snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
        *resultlen = (int)strlen(string);
        return ARG_ERROR(fn, "error code %d is not one of this library's", errorcode);
    }
    /* A code the program added without a string has the empty string (MPI 4.1 sec. 9.5). */
    user_err_t *u = user_err(errorcode);
    const char *s = u != NULL ? (u->text != NULL ? u->text : "") : code_text(errorcode);
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Error_string)

int PMPI_Error_class(int errorcode, int *errorclass)
{
    const char *fn = "MPI_Error_class";
    if (errorclass == NULL)
        return ARG_ERROR(fn, "NULL output argument");
    int cls = code_class(errorcode);
    if (cls < 0)
        return ARG_ERROR(fn, "error code %d is not one of this library's", errorcode);
    *errorclass = cls;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Error_class)

int PMPI_Add_error_class(int *errorclass)
{
    const char *fn = "MPI_Add_error_class";
    if (errorclass == NULL)
        return ARG_ERROR(fn, "NULL output argument");
    int v = user_err_new(1, 0);
    if (v < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    *errorclass = v;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    const char *fn = "MPI_Add_error_code";
    if (errorcode == NULL)
        return ARG_ERROR(fn, "NULL output argument");
    /* Predefined classes take codes too; a code the program added is no class. */
    user_err_t *c = user_err(errorclass);
    if (!(errorclass > MPI_SUCCESS && errorclass < MPI_ERR_LASTCODE) &&
        mpix_text(errorclass) == NULL && (c == NULL || !c->is_class))
        return ARG_ERROR(fn, "%d is not an error class", errorclass);
    int v = user_err_new(0, errorclass);
    if (v < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    if ((c = user_err(errorclass)) != NULL) /* the table may have moved */
        c->ncodes++;
    *errorcode = v;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    const char *fn = "MPI_Add_error_string";
    user_err_t *u = user_err(errorcode);
    if (u == NULL)
        return ARG_ERROR(fn, "%d is not an error class or code the program added", errorcode);
    if (string == NULL || strlen(string) >= MPI_MAX_ERROR_STRING)
        return ARG_ERROR(fn, "the string must have at most %d characters",
                         MPI_MAX_ERROR_STRING - 1);
    char *t = strdup(string);
    if (t == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    free(u->text); /* a second call replaces the string */
    u->text = t;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Add_error_string)

int PMPI_Remove_error_string(int errorcode)
{
    const char *fn = "MPI_Remove_error_string";
    user_err_t *u = user_err(errorcode);
    if (u == NULL || u->text == NULL)
        return ARG_ERROR(fn, "%d has no string that MPI_Add_error_string added", errorcode);
    free(u->text);
    u->text = NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Remove_error_string)

int PMPI_Remove_error_code(int errorcode)
{
    const char *fn = "MPI_Remove_error_code";
    user_err_t *u = user_err(errorcode);
    if (u == NULL || u->is_class)
        return ARG_ERROR(fn, "%d is not an error code that MPI_Add_error_code added", errorcode);
    if (u->text != NULL)
        return ARG_ERROR(fn, "error code %d still has a string (MPI_Remove_error_string first)",
                         errorcode);
    user_err_t *c = user_err(u->cls);
    if (c != NULL)
        c->ncodes--;
    user_err_drop(u);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Remove_error_code)

int PMPI_Remove_error_class(int errorclass)
{
    const char *fn = "MPI_Remove_error_class";
    user_err_t *u = user_err(errorclass);
    if (u == NULL || !u->is_class)
        return ARG_ERROR(fn, "%d is not an error class that MPI_Add_error_class added",
                         errorclass);
    if (u->ncodes > 0)
        return ARG_ERROR(fn, "error class %d still has %d codes (MPI_Remove_error_code first)",
                         errorclass, u->ncodes);
    /* Like a code, a class goes only after its string (MPI 4.1 sec. 9.5). */
    if (u->text != NULL)
        return ARG_ERROR(fn, "error class %d still has a string (MPI_Remove_error_string first)",
                         errorclass);
    user_err_drop(u);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Remove_error_class)

/* ---- error handlers ---- */

static int check_errh(MPI_Comm comm, MPI_Errhandler h, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    if (!ivc_mpi_errh_usable(h, ERRH_OBJ_COMM))
        return ivc_mpi_raise(comm, MPI_ERR_ERRHANDLER, fn,
                             h != NULL && h->magic == ERRH_MAGIC
                                 ? "the error handler was not made for communicators"
                                 : "invalid error handler");
    return MPI_SUCCESS;
}

void ivc_mpi_errh_retain(MPI_Errhandler h)
{
    if (!h->predefined)
        h->refcount++;
}

void ivc_mpi_errh_release(MPI_Errhandler h)
{
    if (h != NULL && !h->predefined && --h->refcount == 0) {
        h->magic = 0;
        free(h);
    }
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    int rc = check_errh(comm, errhandler, "MPI_Comm_set_errhandler");
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Errhandler old = comm->errh;
    ivc_mpi_errh_retain(errhandler);
    comm->errh = errhandler;
    ivc_mpi_errh_release(old);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Comm_get_errhandler";
    CHECK_COMM(comm, fn);
    if (errhandler == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL output argument");
    ivc_mpi_errh_retain(comm->errh);
    *errhandler = comm->errh;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_get_errhandler)

/* Returns a new user handler for objects of kind `obj`, or raises. */
static int errh_create(void *function, int obj, MPI_Errhandler *errhandler, const char *fn)
{
    if (function == NULL || errhandler == NULL)
        return ARG_ERROR(fn, "NULL argument");
    MPI_Errhandler h = calloc(1, sizeof(*h));
    if (h == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    h->magic = ERRH_MAGIC;
    h->kind = ERRH_USER;
    h->obj = obj;
    h->fn = (MPI_Comm_errhandler_function *)function;
    h->refcount = 1;
    *errhandler = h;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    return errh_create((void *)function, ERRH_OBJ_COMM, errhandler, "MPI_Comm_create_errhandler");
}
IVC_MPI_WEAK(Comm_create_errhandler)

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    return errh_create((void *)win_errhandler_fn, ERRH_OBJ_WIN, errhandler,
                       "MPI_Win_create_errhandler");
}
IVC_MPI_WEAK(Win_create_errhandler)

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    return errh_create((void *)session_errhandler_fn, ERRH_OBJ_SESSION, errhandler,
                       "MPI_Session_create_errhandler");
}
IVC_MPI_WEAK(Session_create_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    const char *fn = "MPI_Comm_call_errhandler";
    CHECK_COMM(comm, fn);
    ivc_mpi_raise(comm, errorcode, fn, "error raised by the program");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_call_errhandler)

/* The window's handler through the public interface: the window's internals are the one-sided
 * room's. */
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    const char *fn = "MPI_Win_call_errhandler";
    MPI_Errhandler h;
    int rc = PMPI_Win_get_errhandler(win, &h); /* checks the window, raises MPI_ERR_WIN */
    if (rc != MPI_SUCCESS)
        return rc;
    ivc_mpi_errh_invoke(h, ERRH_OBJ_WIN, &win, errorcode, fn, "error raised by the program");
    ivc_mpi_errh_release(h);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_call_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Errhandler_free";
    if (errhandler == NULL)
        return ARG_ERROR(fn, "NULL argument");
    MPI_Errhandler h = *errhandler;
    if (h == NULL || h->magic != ERRH_MAGIC)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ERRHANDLER, fn, "invalid error handler");
    ivc_mpi_errh_release(h);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Errhandler_free)

int ivc_mpi_name_out(const char *src, char *name, int *resultlen)
{
    /* The callers check their arguments; this keeps one that does not from crashing. */
    if (name == NULL || resultlen == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_*_get_name",
                             "NULL name or resultlen");
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", src);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
