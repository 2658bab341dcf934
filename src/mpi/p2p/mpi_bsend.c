/* Buffered mode: the buffers of MPI_Buffer_attach (process), MPI_Comm_attach_buffer
 * (communicator) and MPI_Session_attach_buffer (session, through the ivc_mpi_bbuf_*
 * functions of p2p.h), and the buffered sends that use them.
 *
 * A buffered send packs the message into the buffer and sends it from there as a standard
 * send of bytes; the user's request is complete when the call returns. Each message takes
 * one segment: a header (bseg_t, BSEG_HDR bytes) followed by the packed data rounded up to
 * 16 bytes, so a message of n packed bytes needs at most n + MPI_BSEND_OVERHEAD bytes of the
 * buffer (the first segment's alignment included). Segments are kept in address order and a
 * new one goes into the first gap that fits; a segment is reclaimed once its send has
 * completed (checked at the next buffered send, flush or detach). With MPI_BUFFER_AUTOMATIC
 * every segment is a malloc of its own. */
#include "mpi_impl.h"

#include <limits.h>
#include <stdlib.h>

typedef struct bseg {
    struct bseg *next; /* in address order (automatic: newest first) */
    MPI_Request req;   /* the send of the packed data */
    uint64_t size;     /* bytes of the segment, header included */
    uint64_t seq;      /* order of buffering, for MPI_Buffer_iflush */
} bseg_t;

#define BSEG_ALIGN 16u
#define BSEG_HDR   ((sizeof(bseg_t) + BSEG_ALIGN - 1) & ~(uint64_t)(BSEG_ALIGN - 1))
_Static_assert(BSEG_HDR + 2 * (BSEG_ALIGN - 1) <= MPI_BSEND_OVERHEAD,
               "MPI_BSEND_OVERHEAD covers a segment header and its alignment");

struct ivc_mpi_bbuf {
    void *user; /* the address attached (MPI_BUFFER_AUTOMATIC for automatic) */
    MPI_Count user_size;
    char *lo, *hi; /* the aligned usable range; both NULL when automatic */
    bseg_t *segs;  /* in flight */
    uint64_t seq;  /* next segment's seq */
    int refs;      /* the slot it is attached to, plus pending iflush requests */
};

static struct ivc_mpi_bbuf *process_bbuf;

static uint64_t align_up(uint64_t v)
{
    return (v + BSEG_ALIGN - 1) & ~(uint64_t)(BSEG_ALIGN - 1);
}

/* Frees the segments whose sends have completed. */
static void reclaim(struct ivc_mpi_bbuf *b)
{
    bseg_t **pp = &b->segs;
    while (*pp != NULL) {
        bseg_t *s = *pp;
        if (!s->req->done) {
            pp = &s->next;
            continue;
        }
        *pp = s->next;
        ivc_mpi_req_free(s->req); /* an error after the Bsend returned has nobody to tell */
        if (b->lo == NULL)
            free(s);
    }
}

/* A segment of `size` bytes (header included) linked into b, or NULL without room. */
static bseg_t *reserve(struct ivc_mpi_bbuf *b, uint64_t size)
{
    bseg_t *s;
    if (b->lo == NULL) {
        s = malloc(size);
        if (s == NULL)
            return NULL;
        s->next = b->segs;
        b->segs = s;
    } else {
        char *pos = b->lo;
        bseg_t **pp = &b->segs;
        for (; *pp != NULL; pp = &(*pp)->next) {
            if ((uint64_t)((char *)*pp - pos) >= size)
                break;
            pos = (char *)*pp + (*pp)->size;
        }
        if (*pp == NULL && (uint64_t)(b->hi - pos) < size)
            return NULL;
        s = (bseg_t *)pos;
        s->next = *pp;
        *pp = s;
    }
    s->size = size;
    s->seq = b->seq++;
    s->req = NULL;
    return s;
}

static void unreserve(struct ivc_mpi_bbuf *b, bseg_t *s)
{
    for (bseg_t **pp = &b->segs; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    if (b->lo == NULL)
        free(s);
}

static void bbuf_release(struct ivc_mpi_bbuf *b)
{
    if (--b->refs > 0)
        return;
    reclaim(b);
    /* Left only by MPI_Finalize or a freed communicator: their sends are complete. */
    while (b->segs != NULL) {
        bseg_t *s = b->segs;
        b->segs = s->next;
        if (s->req->done)
            ivc_mpi_req_free(s->req);
        else
            s->req->freed = 1;
        if (b->lo == NULL)
            free(s);
    }
    free(b);
}

int ivc_mpi_bbuf_attach(struct ivc_mpi_bbuf **slot, void *buf, MPI_Count size)
{
    if (*slot != NULL)
        return MPI_ERR_BUFFER;
    int automatic = buf == MPI_BUFFER_AUTOMATIC;
    if (!automatic && size < 0)
        return MPI_ERR_COUNT;
    if (!automatic && buf == NULL && size > 0)
        return MPI_ERR_BUFFER;
    struct ivc_mpi_bbuf *b = calloc(1, sizeof(*b));
    if (b == NULL)
        return MPI_ERR_NO_MEM;
    b->user = buf;
    b->user_size = automatic ? 0 : size;
    if (!automatic) {
        uintptr_t lo = align_up((uintptr_t)buf), hi = (uintptr_t)buf + (uintptr_t)size;
        b->lo = (char *)(lo < hi ? lo : hi);
        b->hi = (char *)hi;
        if (b->lo == NULL) /* a 0-byte buffer at NULL: never has room */
            b->lo = b->hi = (char *)BSEG_ALIGN;
    }
    b->refs = 1;
    *slot = b;
    return MPI_SUCCESS;
}

int ivc_mpi_bbuf_flush(struct ivc_mpi_bbuf *b)
{
    ivc_backoff_t bo;
    ivc_backoff_init_idle(&bo, NULL, NULL);
    for (;;) {
        reclaim(b);
        if (b->segs == NULL)
            return MPI_SUCCESS;
        ivc_mpi_poll(&bo);
    }
}

int ivc_mpi_bbuf_detach(struct ivc_mpi_bbuf **slot, void *buffer_addr, MPI_Count *size)
{
    struct ivc_mpi_bbuf *b = *slot;
    if (b == NULL)
        return MPI_ERR_BUFFER;
    int rc = ivc_mpi_bbuf_flush(b);
    if (rc != MPI_SUCCESS)
        return rc;
    if (buffer_addr != NULL)
        *(void **)buffer_addr = b->user;
    if (size != NULL)
        *size = b->user_size;
    *slot = NULL;
    bbuf_release(b);
    return MPI_SUCCESS;
}

/* An iflush request: done once no segment buffered before it remains. */
typedef struct {
    struct ivc_mpi_bbuf *b;
    uint64_t mark;
} iflush_t;

static int iflush_poll(MPI_Request r)
{
    iflush_t *f = r->u.x.state;
    reclaim(f->b);
    for (bseg_t *s = f->b->segs; s != NULL; s = s->next)
        if (s->seq < f->mark)
            return 0;
    return 1;
}

static void iflush_drop(MPI_Request r)
{
    iflush_t *f = r->u.x.state;
    bbuf_release(f->b);
    free(f);
}

int ivc_mpi_bbuf_iflush(struct ivc_mpi_bbuf *b, MPI_Comm comm, MPI_Request *request)
{
    iflush_t *f = malloc(sizeof(*f));
    if (f == NULL)
        return MPI_ERR_NO_MEM;
    f->b = b;
    f->mark = b->seq;
    MPI_Request r = ivc_mpi_req_poll_new(comm, iflush_poll, iflush_drop, f);
    if (r == NULL) {
        free(f);
        return MPI_ERR_NO_MEM;
    }
    b->refs++;
    *request = r;
    return MPI_SUCCESS;
}

void ivc_mpi_bbuf_comm_free(MPI_Comm comm)
{
    if (comm->bbuf != NULL) {
        bbuf_release(comm->bbuf);
        comm->bbuf = NULL;
    }
}

/* From ivc_mpi_match_finalize(): sends are complete by then. */
void ivc_mpi_bsend_finalize(void)
{
    if (process_bbuf != NULL)
        bbuf_release(process_bbuf);
    process_bbuf = NULL;
    ivc_mpi_bbuf_comm_free(MPI_COMM_WORLD);
    ivc_mpi_bbuf_comm_free(MPI_COMM_SELF);
}

/* The buffer a buffered send on comm uses: the communicator's, else the process's. (With
 * sessions, a session's buffer comes between the two.) */
static struct ivc_mpi_bbuf *bbuf_for(MPI_Comm comm)
{
    return comm->bbuf != NULL ? comm->bbuf : process_bbuf;
}

int ivc_mpi_start_bsend(MPI_Request r, const void *buf, int count, MPI_Datatype dt, int dest,
                        int tag, MPI_Comm comm)
{
    /* The user's request is complete at once (it is a local operation). */
    ivc_mpi_req_init_local(r, REQ_SEND, comm, 1);
    if (dest == MPI_PROC_NULL) {
        ivc_mpi_status_proc_null(&r->status);
        return MPI_SUCCESS;
    }
    struct ivc_mpi_bbuf *b = bbuf_for(comm);
    if (b == NULL)
        return r->status.MPI_ERROR = MPI_ERR_BUFFER;
    ivc_data_t d;
    ivc_mpi_data(&d, buf, count, dt);
    if (d.bytes > INT_MAX)
        return r->status.MPI_ERROR = MPI_ERR_COUNT;
    uint64_t need = BSEG_HDR + align_up(d.bytes);
    reclaim(b);
    bseg_t *s = reserve(b, need);
    if (s == NULL && b->lo != NULL && b->segs != NULL) {
        /* One round of progress may complete an earlier buffered send. */
        ivc_mpi_progress();
        reclaim(b);
        s = reserve(b, need);
    }
    if (s == NULL)
        return r->status.MPI_ERROR = b->lo == NULL ? MPI_ERR_NO_MEM : MPI_ERR_BUFFER;
    char *data = (char *)s + BSEG_HDR;
    ivc_data_pack(&d, 0, data, d.bytes);
    s->req = ivc_mpi_req_alloc(REQ_SEND);
    int rc = s->req == NULL
                 ? MPI_ERR_NO_MEM
                 : ivc_mpi_start_send(s->req, data, (int)d.bytes, MPI_BYTE, dest, tag, comm, 0, 0);
    if (rc != MPI_SUCCESS) {
        if (s->req != NULL)
            ivc_mpi_req_free(s->req);
        unreserve(b, s);
        return r->status.MPI_ERROR = rc;
    }
    /* MPI_Cancel of the user's request names the message sent from the buffer. */
    r->peer = s->req->peer;
    r->op.env = s->req->op.env;
    r->op.serial = s->req->op.serial;
    return MPI_SUCCESS;
}

/* ---- the MPI calls ---- */

static int bsend_raise(MPI_Comm comm, int rc, int dest, const char *fn)
{
    if (rc == MPI_ERR_BUFFER)
        return ivc_mpi_raise(comm, rc, fn,
                             "no buffer attached, or too little room left in it (attach "
                             "MPI_Pack_size + MPI_BSEND_OVERHEAD bytes per message)");
    return ivc_mpi_raise(comm, rc, fn, "buffered send to rank %d failed", dest);
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    const char *fn = "MPI_Bsend";
    int rc = ivc_mpi_check_p2p(buf, comm, count, &datatype, dest, tag, PEER_SEND, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ivc_mpi_req_s r;
    r.on_stack = 1;
    rc = ivc_mpi_start_bsend(&r, buf, count, datatype, dest, tag, comm);
    ivc_mpi_req_free(&r);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : bsend_raise(comm, rc, dest, fn);
}
IVC_MPI_WEAK(Bsend)

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    const char *fn = "MPI_Ibsend";
    int rc = ivc_mpi_check_p2p(buf, comm, count, &datatype, dest, tag, PEER_SEND, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (request == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL request pointer");
    MPI_Request r = ivc_mpi_req_alloc(REQ_SEND);
    if (r == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    rc = ivc_mpi_start_bsend(r, buf, count, datatype, dest, tag, comm);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_req_free(r);
        return bsend_raise(comm, rc, dest, fn);
    }
    *request = r;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Ibsend)

static int attach(struct ivc_mpi_bbuf **slot, MPI_Comm comm, void *buffer, MPI_Count size,
                  const char *fn)
{
    int rc = ivc_mpi_bbuf_attach(slot, buffer, size);
    if (rc == MPI_ERR_BUFFER && *slot != NULL)
        return ivc_mpi_raise(comm, rc, fn, "a buffer is already attached");
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "invalid buffer or size %lld", (long long)size);
    return MPI_SUCCESS;
}

static int detach(struct ivc_mpi_bbuf **slot, MPI_Comm comm, void *buffer_addr, int *size,
                  const char *fn)
{
    if (buffer_addr == NULL || size == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL buffer address or size");
    MPI_Count n = 0;
    int rc = ivc_mpi_bbuf_detach(slot, buffer_addr, &n);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "no buffer is attached");
    *size = n > INT_MAX ? INT_MAX : (int)n;
    return MPI_SUCCESS;
}

static int done_poll(MPI_Request r)
{
    (void)r;
    return 1;
}

/* Flushes b (request NULL) or starts an iflush; without a buffer there is nothing to wait
 * for (iflush then gives a complete request). */
static int flush(struct ivc_mpi_bbuf *b, MPI_Comm comm, MPI_Request *request, const char *fn)
{
    int rc = MPI_SUCCESS;
    if (request == NULL) {
        if (b != NULL)
            rc = ivc_mpi_bbuf_flush(b);
    } else if (b != NULL) {
        rc = ivc_mpi_bbuf_iflush(b, comm, request);
    } else {
        *request = ivc_mpi_req_poll_new(comm, done_poll, NULL, NULL);
        rc = *request == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "flushing the buffer failed");
    return MPI_SUCCESS;
}

#define CHECK_INIT(fn)                                                                             \
    do {                                                                                           \
        int rc_ = ivc_mpi_check_init(fn);                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
    } while (0)

int PMPI_Buffer_attach(void *buffer, int size)
{
    CHECK_INIT("MPI_Buffer_attach");
    return attach(&process_bbuf, MPI_COMM_WORLD, buffer, size, "MPI_Buffer_attach");
}
IVC_MPI_WEAK(Buffer_attach)

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    CHECK_INIT("MPI_Buffer_detach");
    return detach(&process_bbuf, MPI_COMM_WORLD, buffer_addr, size, "MPI_Buffer_detach");
}
IVC_MPI_WEAK(Buffer_detach)

int PMPI_Buffer_flush(void)
{
    CHECK_INIT("MPI_Buffer_flush");
    return flush(process_bbuf, MPI_COMM_WORLD, NULL, "MPI_Buffer_flush");
}
IVC_MPI_WEAK(Buffer_flush)

int PMPI_Buffer_iflush(MPI_Request *request)
{
    CHECK_INIT("MPI_Buffer_iflush");
    if (request == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_iflush", "NULL request");
    return flush(process_bbuf, MPI_COMM_WORLD, request, "MPI_Buffer_iflush");
}
IVC_MPI_WEAK(Buffer_iflush)

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    CHECK_COMM(comm, "MPI_Comm_attach_buffer");
    return attach(&comm->bbuf, comm, buffer, size, "MPI_Comm_attach_buffer");
}
IVC_MPI_WEAK(Comm_attach_buffer)

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    CHECK_COMM(comm, "MPI_Comm_detach_buffer");
    return detach(&comm->bbuf, comm, buffer_addr, size, "MPI_Comm_detach_buffer");
}
IVC_MPI_WEAK(Comm_detach_buffer)

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    CHECK_COMM(comm, "MPI_Comm_flush_buffer");
    return flush(comm->bbuf, comm, NULL, "MPI_Comm_flush_buffer");
}
IVC_MPI_WEAK(Comm_flush_buffer)

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    CHECK_COMM(comm, "MPI_Comm_iflush_buffer");
    if (request == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_iflush_buffer", "NULL request");
    return flush(comm->bbuf, comm, request, "MPI_Comm_iflush_buffer");
}
IVC_MPI_WEAK(Comm_iflush_buffer)
