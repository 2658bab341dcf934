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
    struct ivc_mpi_attr *attrs; /* cached attributes (mpi_attr.c) */
    struct ivc_mpi_topo *topo;  /* virtual topology or NULL (mpi_topo.c) */
    struct ivc_coll_comm *coll; /* collective state, made at first use, or NULL (coll.h) */
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

/* ---- groups, attributes, topologies, info, matched probes, memory, one-sided ----
 * (mpi_group.c, mpi_attr.c, mpi_topo.c, mpi_info.c, mpi_mprobe.c, mpi_mem.c, mpi_win.c,
 * mpi_rma.c) */

#define GROUP_MAGIC 0x47525550u
#define INFO_MAGIC  0x494e464fu
#define MSG_MAGIC   0x4d534750u
#define WIN_MAGIC   0x57494e44u

struct ivc_mpi_group_s {
    uint32_t magic;
    int size;
    int rank;   /* this process's rank in the group, or MPI_UNDEFINED */
    int *world; /* group rank -> world rank */
    int refs;
    int predefined;
};

static inline int ivc_mpi_group_valid(MPI_Group g)
{
    return g != MPI_GROUP_NULL && g->magic == GROUP_MAGIC;
}

/* A new group of n world ranks (the array is copied). Returns NULL without memory. */
MPI_Group ivc_mpi_group_new(const int *world, int n);
void ivc_mpi_group_release(MPI_Group g);

/* Makes a communicator of the n world ranks `world` (taken over; freed on error), agreeing
 * on its context id over `over`, which every member of `over` calls collectively. A caller
 * with member == 0 gets MPI_COMM_NULL. The new communicator inherits parent's error
 * handler. Returns MPI_SUCCESS or an error class. */
int ivc_mpi_comm_make(MPI_Comm over, MPI_Comm parent, int member, int *world, int n, MPI_Comm *out);
/* The context reserved for the id agreement of MPI_Comm_create_group (not a communicator's). */
uint32_t ivc_mpi_comm_reserved_ctx(void);

/* Attribute caching: copies (Comm_dup) and deletes (Comm_free) with the user's callbacks.
 * Return MPI_SUCCESS or the first callback's error. */
int ivc_mpi_attr_copy(MPI_Comm from, MPI_Comm to);
int ivc_mpi_attr_delete_all(MPI_Comm comm);
/* Looks up a user keyval's attribute on comm; MPI_ERR_KEYVAL for an unknown key. */
int ivc_mpi_attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);

/* Topology of a communicator (copied by Comm_dup, freed with the communicator). */
struct ivc_mpi_topo {
    int kind; /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    int ndims, *dims, *periods;
    int nnodes, nedges, *index, *edges;                  /* graph */
    int indeg, outdeg, weighted, *in, *inw, *out, *outw; /* dist graph */
};
struct ivc_mpi_topo *ivc_mpi_topo_dup(const struct ivc_mpi_topo *t);
void ivc_mpi_topo_free(struct ivc_mpi_topo *t);

struct ivc_mpi_info_s {
    uint32_t magic;
    int nkeys;
    struct ivc_info_kv *head;
};

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

/* Memory of MPI_Alloc_mem: this rank's arena in the region (mpi_mem.c). */
int ivc_mpi_mem_init(void);
void ivc_mpi_mem_finalize(void);
/* Allocates from the arena (NULL when it has no room or there is no region). */
void *ivc_mpi_mem_arena_alloc(uint64_t size);
/* Returns 1 and frees p if it came from the arena, else 0. */
int ivc_mpi_mem_arena_free(void *p);
/* Region offset of [p, p + len) if it lies inside the region mapping: returns 1, else 0. */
int ivc_mpi_mem_region_off(const void *p, uint64_t len, uint64_t *off);

/* One-sided: the reserved context of active messages (never a communicator's: those are
 * below 2 * 2048), the message upcall, and finalize. */
#define IVC_RMA_CTX 0xfffffff0u
void ivc_mpi_rma_on_message(ivc_inmsg_t *m);
void ivc_mpi_rma_finalize(void);

/* ---- collectives (mpi_coll.c, coll_*.c; internals in coll.h) ---- */

/* MPI_Init / MPI_Finalize hooks: reserve this rank's collective area in the region and learn
 * the others' (collective over COMM_WORLD); forget them. Init returns MPI_SUCCESS or an error
 * class. */
int ivc_mpi_coll_init(void);
void ivc_mpi_coll_finalize(void);
/* Frees a communicator's collective state (from ivc_mpi_comm_release). */
void ivc_mpi_coll_comm_free(MPI_Comm comm);
/* Advances nonblocking collectives; returns the number of steps taken. Called by the
 * request machinery's waits and tests while any is in flight. */
extern int ivc_mpi_nbc_active;
int ivc_mpi_nbc_progress(void);

static inline int ivc_mpi_progress(void)
{
    int n = ivc_coord_progress();
    if (ivc_mpi_nbc_active)
        n += ivc_mpi_nbc_progress();
    return n;
}

/* ---- environment ---- */

extern int ivc_mpi_initialized, ivc_mpi_finalized;

/* Returns MPI_ERR_OTHER with a message unless MPI is initialized and not finalized. */
int ivc_mpi_check_init(const char *fn);

/* Entry checks of a function on a communicator: returns from the caller on failure. */
#define CHECK_COMM(comm, fn)                                                                       \
    do {                                                                                           \
        int rc_ = ivc_mpi_check_init(fn);                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        if (!ivc_mpi_comm_valid(comm))                                                             \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");        \
    } while (0)

#endif
