/* Nonblocking collectives (Ibarrier, Ibcast, Iallreduce) as schedules of point-to-point
 * rounds, advanced by the request machinery's waits and tests (ivc_mpi_progress()).
 *
 * A schedule is built whole when the call starts: a list of rounds, each a set of sends and
 * receives posted together and, once all of them completed, local work (a reduction step,
 * a copy). Point-to-point, not the shared areas: an area serves one blocking operation at a
 * time, and a nonblocking one may stay open across any number of them. Each operation gets
 * its own tag (NBC_TAG_BASE + a per-communicator count), so several in flight on one
 * communicator never match each other's messages. */
#include "coll/coll_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { ACT_SEND, ACT_RECV, ACT_REDUCE, ACT_COPY };

typedef struct nbc_act {
    int kind;
    int peer;        /* send/recv: comm rank */
    void *buf;       /* send/recv: buffer; reduce: inout; copy: destination */
    const void *src; /* reduce: in; copy: source */
    int count;       /* send/recv: elements of dt */
    MPI_Datatype dt; /* send/recv */
    uint64_t n;      /* reduce: elements; copy: bytes */
    MPI_Request sub; /* send/recv in flight */
    int round;
} nbc_act_t;

typedef struct nbc {
    struct nbc *next;
    MPI_Request req;
    MPI_Comm comm;
    int tag;
    nbc_act_t *acts;
    int nacts, cap;
    int round, nrounds;     /* current round, rounds in all */
    int first;              /* index of the first action of the current round */
    struct ivc_mpi_op_s op; /* a copy: the user may free the operation meanwhile */
    MPI_Datatype rdt;       /* reduction datatype (retained) */
    ivc_data_t out;         /* Iallreduce: where the result is unpacked */
    uint8_t *scratch;
} nbc_t;

int ivc_mpi_nbc_active;
static nbc_t *active_head, **active_tail = &active_head;

static nbc_act_t *add(nbc_t *s, int kind)
{
    if (s->nacts == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        nbc_act_t *a = realloc(s->acts, (size_t)cap * sizeof(*a));
        if (a == NULL)
            return NULL;
        s->acts = a;
        s->cap = cap;
    }
    nbc_act_t *a = &s->acts[s->nacts++];
    memset(a, 0, sizeof(*a));
    a->kind = kind;
    a->round = s->nrounds;
    return a;
}

static int add_xfer(nbc_t *s, int kind, int peer, void *buf, int count, MPI_Datatype dt)
{
    nbc_act_t *a = add(s, kind);
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    a->peer = peer;
    a->buf = buf;
    a->count = count;
    a->dt = dt;
    /* The user may free the datatype before a later round posts this transfer. */
    ivc_mpi_dt_retain(dt);
    return MPI_SUCCESS;
}

static void end_round(nbc_t *s)
{
    s->nrounds++;
}

static void nbc_free(nbc_t *s)
{
    /* A sub-request still in flight (the schedule failed) is freed by its completion. */
    for (int i = 0; i < s->nacts; i++) {
        if (s->acts[i].kind == ACT_SEND || s->acts[i].kind == ACT_RECV)
            ivc_mpi_dt_release(s->acts[i].dt);
        MPI_Request r = s->acts[i].sub;
        if (r != NULL && r->done)
            ivc_mpi_req_free(r);
        else if (r != NULL)
            r->freed = 1;
    }
    if (s->rdt != NULL)
        ivc_mpi_dt_release(s->rdt);
    free(s->acts);
    free(s->scratch);
    free(s);
}

/* Posts the sends and receives of the current round. */
static int post_round(nbc_t *s)
{
    for (int i = s->first; i < s->nacts && s->acts[i].round == s->round; i++) {
        nbc_act_t *a = &s->acts[i];
        if (a->kind != ACT_SEND && a->kind != ACT_RECV)
            continue;
        a->sub = ivc_mpi_req_alloc(a->kind == ACT_SEND ? REQ_SEND : REQ_RECV);
        if (a->sub == NULL)
            return MPI_ERR_NO_MEM;
        int rc = a->kind == ACT_SEND ? ivc_mpi_start_send(a->sub, a->buf, a->count, a->dt, a->peer,
                                                          s->tag, s->comm, 1, 0)
                                     : ivc_mpi_start_recv(a->sub, a->buf, a->count, a->dt, a->peer,
                                                          s->tag, s->comm, 1);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Advances s as far as it goes without waiting. Returns 1 when the schedule finished
 * (request completed, with its error if one occurred), 0 otherwise; *steps counts rounds. */
static int advance(nbc_t *s, int *steps)
{
    while (s->round < s->nrounds) {
        int end = s->first, err = MPI_SUCCESS;
        for (; end < s->nacts && s->acts[end].round == s->round; end++) {
            nbc_act_t *a = &s->acts[end];
            if (a->sub == NULL)
                continue;
            if (!a->sub->done)
                return 0;
            if (a->sub->status.MPI_ERROR != MPI_SUCCESS)
                err = a->sub->status.MPI_ERROR;
        }
        for (int i = s->first; i < end && err == MPI_SUCCESS; i++) {
            nbc_act_t *a = &s->acts[i];
            if (a->sub != NULL) {
                ivc_mpi_req_free(a->sub);
                a->sub = NULL;
            } else if (a->kind == ACT_REDUCE) {
                err = coll_op_apply(&s->op, s->rdt, a->src, a->buf, a->n);
            } else if (a->kind == ACT_COPY) {
                memcpy(a->buf, a->src, a->n);
            }
        }
        s->first = end;
        s->round++;
        (*steps)++;
        if (err == MPI_SUCCESS && s->round < s->nrounds)
            err = post_round(s);
        if (err != MPI_SUCCESS) {
            s->req->status.MPI_ERROR = err;
            s->round = s->nrounds;
        }
    }
    if (s->req->status.MPI_ERROR == MPI_SUCCESS && s->out.buf != NULL)
        ivc_data_unpack(&s->out, 0, s->scratch, s->out.bytes);
    ivc_mpi_req_op_done(&s->req->op, 0);
    return 1;
}

int ivc_mpi_nbc_progress(void)
{
    static int busy;
    if (busy)
        return 0;
    busy = 1;
    int steps = 0;
    for (nbc_t **p = &active_head; *p != NULL;) {
        nbc_t *s = *p;
        if (advance(s, &steps)) {
            *p = s->next;
            if (*p == NULL)
                active_tail = p;
            nbc_free(s);
            ivc_mpi_nbc_active--;
        } else {
            p = &s->next;
        }
    }
    busy = 0;
    return steps;
}

/* A fresh schedule on comm with its request (both NULL without memory). */
static nbc_t *nbc_new(MPI_Comm comm)
{
    ivc_coll_comm_t *cc = ivc_coll_comm(comm);
    nbc_t *s = calloc(1, sizeof(*s));
    MPI_Request r = s != NULL && cc != NULL ? ivc_mpi_req_alloc(REQ_COLL) : NULL;
    if (r == NULL) {
        free(s);
        return NULL;
    }
    r->done = 0;
    r->freed = 0;
    r->comm = comm;
    ivc_mpi_comm_retain(comm);
    r->dt = NULL;
    r->peer = -1;
    r->msg_len = 0;
    ivc_mpi_status_empty(&r->status);
    r->op.done = ivc_mpi_req_op_done;
    s->req = r;
    s->comm = comm;
    s->tag = NBC_TAG_BASE + (int)(cc->nbseq++ & 0xfffff);
    return s;
}

/* Starts s: posts round 0 and queues it. On error, frees it. */
static int nbc_start(nbc_t *s, MPI_Request *request)
{
    int rc = s->nrounds > 0 ? post_round(s) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        /* Sub-requests already posted cannot be taken back; they complete into the void.
         * Only a failure before anything moved gets here in practice (out of memory). */
        ivc_mpi_req_free(s->req);
        nbc_free(s);
        return rc;
    }
    *active_tail = s;
    active_tail = &s->next;
    ivc_mpi_nbc_active++;
    *request = s->req;
    ivc_mpi_nbc_progress();
    return MPI_SUCCESS;
}

/* Binomial tree broadcast rounds of buf from root: receive from the parent, then send to
 * every child in one round. */
static int tree_bcast(nbc_t *s, void *buf, int count, MPI_Datatype dt, int root)
{
    int size = s->comm->size, rel = (s->comm->rank - root + size) % size, mask = 1, rc;
    while (mask < size) {
        if (rel & mask) {
            rc = add_xfer(s, ACT_RECV, (rel - mask + root) % size, buf, count, dt);
            if (rc != MPI_SUCCESS)
                return rc;
            end_round(s);
            break;
        }
        mask <<= 1;
    }
    int children = 0;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < size) {
            rc = add_xfer(s, ACT_SEND, (rel + mask + root) % size, buf, count, dt);
            if (rc != MPI_SUCCESS)
                return rc;
            children++;
        }
    }
    if (children)
        end_round(s);
    return MPI_SUCCESS;
}

static int check(MPI_Comm comm, MPI_Request *request, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    if (request == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL request pointer");
    return MPI_SUCCESS;
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ibarrier";
    int rc = check(comm, request, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    nbc_t *s = nbc_new(comm);
    if (s == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    /* Dissemination: round k signals rank + 2^k and hears from rank - 2^k. */
    int size = comm->size, rank = comm->rank;
    for (int k = 1; k < size && rc == MPI_SUCCESS; k <<= 1) {
        rc = add_xfer(s, ACT_SEND, (rank + k) % size, NULL, 0, MPI_BYTE);
        if (rc == MPI_SUCCESS)
            rc = add_xfer(s, ACT_RECV, (rank - k + size) % size, NULL, 0, MPI_BYTE);
        end_round(s);
    }
    if (rc == MPI_SUCCESS)
        rc = nbc_start(s, request);
    else {
        ivc_mpi_req_free(s->req);
        nbc_free(s);
    }
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "starting the barrier failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Ibarrier)

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    const char *fn = "MPI_Ibcast";
    int rc = check(comm, request, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return ivc_mpi_raise(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (!ivc_mpi_dt_valid(datatype) || !datatype->committed)
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (root < 0 || root >= comm->size)
        return ivc_mpi_raise(comm, MPI_ERR_ROOT, fn, "root %d is not in the communicator", root);
    nbc_t *s = nbc_new(comm);
    if (s == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    rc = tree_bcast(s, buffer, count, datatype, root);
    if (rc == MPI_SUCCESS)
        rc = nbc_start(s, request);
    else {
        ivc_mpi_req_free(s->req);
        nbc_free(s);
    }
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "starting the broadcast failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Ibcast)

/* Binomial reduction of packed data to rank 0 (rank order kept for non-commutative
 * operations), then a binomial broadcast of the result; rank r's result is unpacked into
 * recvbuf when the schedule ends. */
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iallreduce";
    int rc = check(comm, request, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return ivc_mpi_raise(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (!ivc_mpi_dt_valid(datatype) || !datatype->committed)
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (!ivc_mpi_op_valid(op))
        return ivc_mpi_raise(comm, MPI_ERR_OP, fn, "invalid operation");
    if (op->id != OP_USER && datatype->basic == B_NONE)
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn,
                             "predefined reductions need a datatype made of one basic type");
    uint64_t bytes = coll_bytes(count, datatype);
    if (bytes > INT_MAX)
        return ivc_mpi_raise(comm, MPI_ERR_COUNT, fn, "more than 2 GiB per rank");
    nbc_t *s = nbc_new(comm);
    if (s == NULL || (s->scratch = malloc(bytes ? 2 * bytes : 1)) == NULL) {
        if (s != NULL) {
            ivc_mpi_req_free(s->req);
            nbc_free(s);
        }
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    s->op = *op;
    s->rdt = datatype;
    ivc_mpi_dt_retain(datatype);
    uint8_t *acc = s->scratch, *in = s->scratch + bytes;
    ivc_data_t d;
    ivc_mpi_data(&d, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, datatype);
    ivc_data_pack(&d, 0, acc, bytes);
    ivc_mpi_data(&s->out, recvbuf, count, datatype);
    int size = comm->size, rank = comm->rank;
    for (int mask = 1; mask < size && rc == MPI_SUCCESS; mask <<= 1) {
        if (rank & mask) {
            rc = add_xfer(s, ACT_SEND, rank - mask, acc, (int)bytes, MPI_BYTE);
            end_round(s);
            break;
        }
        if (rank + mask < size) {
            /* in = acc op in (the partner holds higher ranks), then acc = in. Each
             * action is filled before the next add(), which may move the array. */
            rc = add_xfer(s, ACT_RECV, rank + mask, in, (int)bytes, MPI_BYTE);
            nbc_act_t *a = rc == MPI_SUCCESS ? add(s, ACT_REDUCE) : NULL;
            if (a != NULL) {
                a->src = acc;
                a->buf = in;
                a->n = (uint64_t)count;
                a = add(s, ACT_COPY);
            }
            if (a == NULL) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            a->src = in;
            a->buf = acc;
            a->n = bytes;
            end_round(s);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = tree_bcast(s, acc, (int)bytes, MPI_BYTE, 0);
    if (rc == MPI_SUCCESS)
        rc = nbc_start(s, request);
    else {
        ivc_mpi_req_free(s->req);
        nbc_free(s);
    }
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "starting the allreduce failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Iallreduce)
