/* Internal definitions of the MPI layer: the objects behind mpi.h's handles, the request
 * and matching core, and the functions the MPI modules share.
 *
 * Every MPI_X is a weak alias of PMPI_X (IVC_MPI_WEAK), so a profiling library can wrap
 * MPI_X and call PMPI_X; inside libmpi, calls go to internal functions or PMPI_ names. */
#ifndef IVC_MPI_IMPL_H
#define IVC_MPI_IMPL_H

#include <mpi.h>

#include "base/ivc_data.h"
#include "base/ivc_wait.h"
#include "chan/chan.h"
#include "coord/coord.h"

#include <stdint.h>

#define IVC_MPI_STR(x)     #x
#define IVC_MPI_WEAK(name) _Pragma(IVC_MPI_STR(weak MPI_##name = PMPI_##name))

/* Object magics: a handle that does not carry its magic is rejected as invalid. */
#define COMM_MAGIC 0x434f4d4du
#define DT_MAGIC   0x44545950u
#define REQ_MAGIC  0x52455155u
#define ERRH_MAGIC 0x45525248u
#define OP_MAGIC   0x4f504f50u

/* ---- errors ---- */

struct ivc_mpi_errh_s {
    uint32_t magic;
    int kind; /* ERRH_FATAL, ERRH_RETURN, ERRH_ABORT, ERRH_USER */
    MPI_Comm_errhandler_function *fn;
    int refcount;
    int predefined;
};
enum { ERRH_FATAL = 1, ERRH_RETURN, ERRH_ABORT, ERRH_USER };

/* Raises error class `cls` in function `fn` on `comm` (MPI_COMM_WORLD's handler when comm is
 * not valid): ERRORS_ARE_FATAL prints the message and aborts the job; ERRORS_RETURN returns
 * `cls`; a user handler is called, then `cls` returned. */
int ivc_mpi_raise(MPI_Comm comm, int cls, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The one place where -errno from the layers below becomes an MPI error class. */
int ivc_mpi_errno_class(int err);

/* Prints `why`, marks the job aborted in the region and exits with `code`. */
void ivc_mpi_die(int code, const char *why) __attribute__((noreturn));

/* ---- datatypes ---- */

/* Basic kinds: what a reduction operates on. */
/* clang-format off */
enum {
    B_NONE = -1,
    B_CHAR, B_SCHAR, B_UCHAR, B_BYTE, B_WCHAR, B_SHORT, B_USHORT, B_INT, B_UINT, B_LONG,
    B_ULONG, B_LLONG, B_ULLONG, B_FLOAT, B_DOUBLE, B_LDOUBLE, B_BOOL, B_I8, B_I16, B_I32, B_I64,
    B_U8, B_U16, B_U32, B_U64, B_AINT, B_OFFSET, B_COUNT, B_CFLOAT, B_CDOUBLE, B_CLDOUBLE,
    B_PACKED, B_FLOAT_INT, B_DOUBLE_INT, B_LONG_INT, B_2INT, B_SHORT_INT, B_LDOUBLE_INT,
    B_COUNT_KINDS
};
/* clang-format on */

/* The C layouts of the (value, index) pair types (MPI_FLOAT_INT ...). */
typedef struct {
    float v;
    int i;
} float_int_t;
typedef struct {
    double v;
    int i;
} double_int_t;
typedef struct {
    long v;
    int i;
} long_int_t;
typedef struct {
    int v;
    int i;
} int2_t;
typedef struct {
    short v;
    int i;
} short_int_t;
typedef struct {
    long double v;
    int i;
} ldouble_int_t;

struct ivc_mpi_dt_s {
    uint32_t magic;
    int predefined;
    int committed;
    int refcount;    /* the user's handle plus requests in flight */
    int basic;       /* basic kind if every element is of one kind, else B_NONE */
    uint64_t nbasic; /* basic elements per element */
    uint64_t basic_size;
    uint32_t align; /* strictest alignment of a component (struct extent padding) */
    int resized;    /* lb/extent were set explicitly */
    int64_t true_lb, true_ub;
    ivc_typemap_t map;
    char name[MPI_MAX_OBJECT_NAME];
};

int ivc_mpi_dt_init(void);
int ivc_mpi_dt_valid(MPI_Datatype dt);
void ivc_mpi_dt_retain(MPI_Datatype dt);
void ivc_mpi_dt_release(MPI_Datatype dt);

/* Describes count elements of dt at buf as a byte stream. */
static inline void ivc_mpi_data(ivc_data_t *d, const void *buf, int count, MPI_Datatype dt)
{
    d->buf = (void *)buf;
    d->count = (uint64_t)count;
    d->map = &dt->map;
    d->bytes = (uint64_t)count * dt->map.size;
}

/* ---- reduction operations ---- */

struct ivc_mpi_op_s {
    uint32_t magic;
    int id; /* OP_MAX ... */
    int commute;
    MPI_User_function *fn;
    int predefined;
};
enum {
    OP_MAX,
    OP_MIN,
    OP_SUM,
    OP_PROD,
    OP_LAND,
    OP_BAND,
    OP_LOR,
    OP_BOR,
    OP_LXOR,
    OP_BXOR,
    OP_MAXLOC,
    OP_MINLOC,
    OP_REPLACE,
    OP_NO_OP,
    OP_USER
};

/* inout[i] = in[i] op inout[i] for n elements of basic kind `basic`.
 * Returns MPI_SUCCESS or MPI_ERR_OP when op is not defined on that kind. */
int ivc_mpi_op_apply(MPI_Op op, const void *in, void *inout, uint64_t n, int basic);
int ivc_mpi_op_valid(MPI_Op op);

/* ---- communicators ---- */

struct ivc_mpi_comm_s {
    uint32_t magic;
    uint32_t ctx; /* point-to-point context; collectives use ctx + 1 */
    int ctx_id;   /* index in the context-id mask (ctx = 2 * ctx_id) */
    int rank, size;
    int *world; /* comm rank -> world rank */
    MPI_Errhandler errh;
    int predefined;
    int refs; /* the user's handle plus requests in flight; freed at 0 */
    char name[MPI_MAX_OBJECT_NAME];
};

extern int ivc_mpi_world_rank, ivc_mpi_world_size;

int ivc_mpi_comm_init(void);
void ivc_mpi_comm_finalize(void);

/* Requests keep their communicator alive: MPI_Comm_free with operations pending only drops
 * the user's reference (the standard lets them complete normally). */
void ivc_mpi_comm_retain(MPI_Comm comm);
void ivc_mpi_comm_release(MPI_Comm comm);

static inline int ivc_mpi_comm_valid(MPI_Comm comm)
{
    return comm != MPI_COMM_NULL && comm->magic == COMM_MAGIC;
}

/* ---- requests, matching, progress ---- */

enum { REQ_SEND = 1, REQ_RECV = 2 };

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

/* ---- environment ---- */

extern int ivc_mpi_initialized, ivc_mpi_finalized;

/* Returns MPI_ERR_OTHER with a message unless MPI is initialized and not finalized. */
int ivc_mpi_check_init(const char *fn);

#endif
