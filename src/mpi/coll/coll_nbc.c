/* The engine of nonblocking collectives: schedules of point-to-point rounds (coll_impl.h),
 * advanced by the request machinery's waits and tests (ivc_mpi_progress()). What each
 * collective's schedule is lives in coll_sched.c.
 *
 * Point-to-point, not the shared areas: an area serves one blocking operation at a time,
 * and a nonblocking one may stay open across any number of them. Each operation gets its
 * own tag (NBC_TAG_BASE + a per-communicator count), so several in flight on one
 * communicator never match each other's messages. */
#include "coll/coll_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { ACT_SEND = NBC_SEND, ACT_RECV = NBC_RECV, ACT_REDUCE, ACT_COPY, ACT_UNPACK };

typedef struct nbc_act {
    int kind;
    int peer;        /* send/recv: comm rank */
    int tag;         /* send/recv */
    MPI_Comm comm;   /* send/recv: the schedule's communicator or its local_comm */
    void *buf;       /* send/recv: buffer; reduce: inout; copy, unpack: destination */
    const void *src; /* reduce: in; copy, unpack: source */
    int count;       /* send/recv: elements of dt */
    MPI_Datatype dt; /* send/recv/unpack (retained) */
    uint64_t n;      /* reduce, unpack: elements; copy: bytes */
    MPI_Request sub; /* send/recv in flight */
    int round;
} nbc_act_t;

struct nbc {
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
    void **mem;             /* scratch blocks */
    int nmem, capmem;
    int bad; /* MPI_ERR_TRUNCATE once a receive saw a length mismatch */
};

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

MPI_Comm nbc_comm(const nbc_t *s)
{
    return s->comm;
}

int nbc_xfer_on(nbc_t *s, MPI_Comm comm, int kind, int peer, void *buf, int count,
                MPI_Datatype dt, int tagoff)
{
    if (peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    nbc_act_t *a = add(s, kind);
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    a->comm = comm;
    a->peer = peer;
    a->tag = s->tag + tagoff;
    a->buf = buf;
    a->count = count;
    a->dt = dt;
    /* The user may free the datatype before a later round posts this transfer. */
    ivc_mpi_dt_retain(dt);
    return MPI_SUCCESS;
}

int nbc_xfer(nbc_t *s, int kind, int peer, void *buf, int count, MPI_Datatype dt, int tagoff)
{
    return nbc_xfer_on(s, s->comm, kind, peer, buf, count, dt, tagoff);
}

int nbc_reduce(nbc_t *s, const void *in, void *inout, uint64_t count)
{
    nbc_act_t *a = add(s, ACT_REDUCE);
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    a->src = in;
    a->buf = inout;
    a->n = count;
    return MPI_SUCCESS;
}

int nbc_copy(nbc_t *s, void *dst, const void *src, uint64_t n)
{
    nbc_act_t *a = add(s, ACT_COPY);
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    a->src = src;
    a->buf = dst;
    a->n = n;
    return MPI_SUCCESS;
}

int nbc_unpack(nbc_t *s, void *buf, uint64_t count, MPI_Datatype dt, const void *src)
{
    nbc_act_t *a = add(s, ACT_UNPACK);
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    a->src = src;
    a->buf = buf;
    a->n = count;
    a->dt = dt;
    ivc_mpi_dt_retain(dt);
    return MPI_SUCCESS;
}

void nbc_end_round(nbc_t *s)
{
    if (s->nacts > 0 && s->acts[s->nacts - 1].round == s->nrounds)
        s->nrounds++;
}

void nbc_set_op(nbc_t *s, MPI_Op op, MPI_Datatype dt)
{
    s->op = *op;
    if (s->rdt != NULL)
        ivc_mpi_dt_release(s->rdt);
    s->rdt = dt;
    ivc_mpi_dt_retain(dt);
}

void nbc_mark_mismatch(nbc_t *s)
{
    s->bad = MPI_ERR_TRUNCATE;
}

void *nbc_scratch(nbc_t *s, uint64_t bytes)
{
    if (s->nmem == s->capmem) {
        int cap = s->capmem ? 2 * s->capmem : 4;
        void **m = realloc(s->mem, (size_t)cap * sizeof(*m));
        if (m == NULL)
            return NULL;
        s->mem = m;
        s->capmem = cap;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (p != NULL)
        s->mem[s->nmem++] = p;
    return p;
}

static void nbc_free(nbc_t *s)
{
    /* A sub-request still in flight (the schedule failed) is freed by its completion. */
    for (int i = 0; i < s->nacts; i++) {
        if (s->acts[i].dt != NULL)
            ivc_mpi_dt_release(s->acts[i].dt);
        MPI_Request r = s->acts[i].sub;
        if (r != NULL && r->done)
            ivc_mpi_req_free(r);
        else if (r != NULL)
            r->freed = 1;
    }
    if (s->rdt != NULL)
        ivc_mpi_dt_release(s->rdt);
    for (int i = 0; i < s->nmem; i++)
        free(s->mem[i]);
    free(s->mem);
    free(s->acts);
    free(s);
}

void nbc_discard(nbc_t *s)
{
    ivc_mpi_req_free(s->req);
    nbc_free(s);
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
        /* A start that fails leaves the sub-request complete with its error, reported when
         * the round ends: the round's other transfers are posted all the same, so that the
         * schedule ends only once none of them is in flight (its buffers are freed then). */
        int rc = ivc_mpi_ft_check(a->comm, -2, 1);
        if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
            ivc_mpi_req_init_local(a->sub, a->kind == ACT_SEND ? REQ_SEND : REQ_RECV, a->comm, 1);
            a->sub->status.MPI_ERROR = rc;
        } else if (a->kind == ACT_SEND && s->bad) {
            /* After a length mismatch: a message the receiver sees as one too (coll_impl.h). */
            int n = coll_len_poison(coll_bytes(a->count, a->dt));
            void *p = nbc_scratch(s, (uint64_t)n);
            if (p == NULL)
                return MPI_ERR_NO_MEM;
            memset(p, 0, (size_t)n);
            ivc_mpi_start_send(a->sub, p, n, MPI_BYTE, a->peer, a->tag, a->comm, 1, 0);
        } else if (a->kind == ACT_SEND) {
            ivc_mpi_start_send(a->sub, a->buf, a->count, a->dt, a->peer, a->tag, a->comm, 1, 0);
        } else {
            ivc_mpi_start_recv(a->sub, a->buf, a->count, a->dt, a->peer, a->tag, a->comm, 1);
        }
    }
    return MPI_SUCCESS;
}

/* Runs local step a. Returns MPI_SUCCESS or an error class. */
static int run_local(nbc_t *s, nbc_act_t *a)
{
    if (a->kind == ACT_REDUCE)
        return coll_op_apply(&s->op, s->rdt, a->src, a->buf, a->n);
    if (a->kind == ACT_COPY) {
        memcpy(a->buf, a->src, a->n);
    } else if (a->kind == ACT_UNPACK) {
        ivc_data_t d;
        ivc_mpi_data(&d, a->buf, 0, a->dt);
        d.count = a->n;
        d.bytes = a->n * a->dt->map.size;
        ivc_data_unpack(&d, 0, a->src, d.bytes);
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
            /* A length mismatch fails the operation but not the schedule: the rounds
             * after it still run, so that no peer waits for this rank (coll_impl.h). */
            if (a->kind == ACT_RECV &&
                coll_len_mismatch(a->sub->status.MPI_ERROR, a->sub->status.ivc_count,
                                  coll_bytes(a->count, a->dt)))
                s->bad = MPI_ERR_TRUNCATE;
            else if (a->sub->status.MPI_ERROR != MPI_SUCCESS)
                err = a->sub->status.MPI_ERROR;
        }
        for (int i = s->first; i < end && err == MPI_SUCCESS; i++) {
            nbc_act_t *a = &s->acts[i];
            if (a->sub != NULL) {
                ivc_mpi_req_free(a->sub);
                a->sub = NULL;
            } else if (a->kind != ACT_SEND && a->kind != ACT_RECV) {
                err = run_local(s, a);
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
    if (s->bad && s->req->status.MPI_ERROR == MPI_SUCCESS)
        s->req->status.MPI_ERROR = s->bad;
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

int coll_nbc_tag(MPI_Comm comm)
{
    ivc_coll_comm_t *cc = ivc_coll_comm(comm);
    if (cc == NULL)
        return -1;
    return NBC_TAG_BASE + (int)(cc->nbseq++ & 0xfffff);
}

nbc_t *nbc_new(MPI_Comm comm, int tag)
{
    nbc_t *s = calloc(1, sizeof(*s));
    MPI_Request r = s != NULL ? ivc_mpi_req_new_local(REQ_COLL, comm, 0) : NULL;
    if (r == NULL) {
        free(s);
        return NULL;
    }
    r->op.done = ivc_mpi_req_op_done;
    s->req = r;
    s->comm = comm;
    s->tag = tag;
    return s;
}

int nbc_start(nbc_t *s, MPI_Request *request)
{
    nbc_end_round(s);
    int rc = s->nrounds > 0 ? post_round(s) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        /* Sub-requests already posted cannot be taken back; they complete into the void.
         * Only a failure before anything moved gets here in practice (out of memory). */
        nbc_discard(s);
        return rc;
    }
    *active_tail = s;
    active_tail = &s->next;
    ivc_mpi_nbc_active++;
    *request = s->req;
    ivc_mpi_nbc_progress();
    return MPI_SUCCESS;
}

int coll_issue(MPI_Comm comm, const coll_args_t *a, int tag, MPI_Request *request)
{
    if (tag < 0 && (tag = coll_nbc_tag(comm)) < 0)
        return MPI_ERR_NO_MEM;
    nbc_t *s = nbc_new(comm, tag);
    if (s == NULL)
        return MPI_ERR_NO_MEM;
    int rc = coll_build(s, a);
    if (rc != MPI_SUCCESS) {
        nbc_discard(s);
        return rc;
    }
    return nbc_start(s, request);
}

int coll_run(MPI_Comm comm, const coll_args_t *a)
{
    MPI_Request r;
    int rc = coll_issue(comm, a, -1, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ivc_mpi_wait_done(r, MPI_STATUS_IGNORE);
    ivc_mpi_req_free(r);
    return rc;
}
