/* Requests: allocation, completion, and the Wait/Test family.
 *
 * Send, receive and collective requests complete by their `done` flag. The extended kinds
 * (p2p.h) complete through ivc_mpi_req_ext_done(): a persistent request when its inner
 * request has (or at once while inactive), a generalized request when the user calls
 * MPI_Grequest_complete, a compound request (REQ_POLL) when its poll function says so.
 * Finishing them (req_finish_ext) differs by kind: a persistent request takes its inner
 * request's status and becomes inactive, a generalized one asks query_fn for its status and
 * then calls free_fn. The calls take the extended path after one branch on the kind.
 *
 * Failures (src/mpi/ft/ft.h): a nonblocking MPI_ANY_SOURCE receive on a communicator with
 * a failed member not yet acknowledged cannot tell whether its sender is the dead one: the
 * waits report MPIX_ERR_PROC_FAILED_PENDING for it and leave it active (ULFM), Waitall and
 * Waitsome with MPI_ERR_IN_STATUS; a send on a revoked communicator reports
 * MPIX_ERR_REVOKED. These checks run only once ivc_mpi_ft_state is set. */
#include "mpi_impl.h"

#include "base/ivc_log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REQ_SLAB 64

static MPI_Request free_reqs;

MPI_Request ivc_mpi_req_alloc(int kind)
{
    if (free_reqs == NULL) {
        MPI_Request slab = calloc(REQ_SLAB, sizeof(*slab));
        if (slab == NULL)
            return NULL;
        for (int i = 0; i < REQ_SLAB; i++) {
            slab[i].next = free_reqs;
            free_reqs = &slab[i];
        }
    }
    MPI_Request r = free_reqs;
    free_reqs = r->next;
    /* ivc_mpi_start_send/recv set everything else. */
    r->magic = REQ_MAGIC;
    r->kind = kind;
    r->on_stack = 0;
    r->dt = NULL;
    r->comm = NULL;
    r->prev = r->next = NULL;
    return r;
}

void ivc_mpi_req_init_local(MPI_Request r, int kind, MPI_Comm comm, int done)
{
    r->magic = REQ_MAGIC;
    r->kind = kind;
    r->done = done;
    r->freed = 0;
    r->peer = -1;
    r->msg_len = 0;
    r->dt = NULL;
    r->comm = comm;
    if (comm != MPI_COMM_NULL)
        ivc_mpi_comm_retain(comm);
    ivc_mpi_status_empty(&r->status);
    r->cancel = REQ_CANCEL_NONE;
    r->op.serial = 0;
}

MPI_Request ivc_mpi_req_new_local(int kind, MPI_Comm comm, int done)
{
    MPI_Request r = ivc_mpi_req_alloc(kind);
    if (r != NULL)
        ivc_mpi_req_init_local(r, kind, comm, done);
    return r;
}

void ivc_mpi_req_free(MPI_Request r)
{
    if (r->dt != NULL)
        ivc_mpi_dt_release(r->dt);
    r->dt = NULL;
    if (r->comm != NULL)
        ivc_mpi_comm_release(r->comm);
    r->comm = NULL;
    if (r->on_stack)
        return;
    r->magic = 0;
    r->next = free_reqs;
    free_reqs = r;
}

MPI_Request ivc_mpi_req_zombies;

/* Frees a finished request of any kind with what its kind owns (not calling free_fn). */
static void req_release(MPI_Request r)
{
    if (r->kind == REQ_POLL && r->u.x.drop != NULL)
        r->u.x.drop(r);
    else if (r->kind == REQ_PERSIST && r->u.p.free_args != NULL)
        r->u.p.free_args(r->u.p.args);
    ivc_mpi_req_free(r);
}

int ivc_mpi_req_ext_done(MPI_Request r)
{
    switch (r->kind) {
    case REQ_PERSIST: return r->u.p.inner == NULL || ivc_mpi_req_done(r->u.p.inner);
    case REQ_POLL:
        if (!r->done && r->u.x.poll(r))
            r->done = 1;
        return r->done;
    default: return r->done;
    }
}

MPI_Request ivc_mpi_req_poll_new(MPI_Comm comm, int (*poll)(MPI_Request), void (*drop)(MPI_Request),
                                 void *state)
{
    MPI_Request r = ivc_mpi_req_new_local(REQ_POLL, comm, 0);
    if (r == NULL)
        return NULL;
    r->u.x.poll = poll;
    r->u.x.drop = drop;
    r->u.x.state = state;
    return r;
}

int ivc_mpi_req_reap(MPI_Request r, MPI_Status *st)
{
    ivc_mpi_req_done(r); /* a compound request fills its status when polled complete */
    ivc_mpi_status_out(st, &r->status);
    int err = r->status.MPI_ERROR;
    req_release(r);
    return err;
}

static void zombie_unlink(MPI_Request r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        ivc_mpi_req_zombies = r->next;
    if (r->next)
        r->next->prev = r->prev;
}

/* Parks a request the user freed while active until it completes. */
static void zombie_add(MPI_Request r)
{
    r->freed = 1;
    r->prev = NULL;
    r->next = ivc_mpi_req_zombies;
    if (r->next)
        r->next->prev = r;
    ivc_mpi_req_zombies = r;
}

void ivc_mpi_req_sweep(void)
{
    MPI_Request r = ivc_mpi_req_zombies;
    while (r != NULL) {
        MPI_Request next = r->next;
        if (ivc_mpi_req_done(r)) {
            zombie_unlink(r);
            if (r->kind == REQ_PERSIST && r->u.p.inner != NULL) {
                ivc_mpi_req_reap(r->u.p.inner, MPI_STATUS_IGNORE);
                r->u.p.inner = NULL;
            }
            req_release(r);
        }
        r = next;
    }
}

void ivc_mpi_req_op_done(ivc_chan_op_t *op, int status)
{
    MPI_Request r = (MPI_Request)op;
    if (status < 0)
        r->status.MPI_ERROR = ivc_mpi_errno_class(status);
    if (__builtin_expect(r->cancel == REQ_CANCEL_ASKED, 0)) {
        /* The receiver's answer, or its failure, completes it (mpi_cancel.c). */
        r->cancel_opdone = 1;
        return;
    }
    if (status >= 0 && r->kind == REQ_RECV) {
        r->status.ivc_count = (long long)op->xfer;
        if (op->xfer < r->msg_len)
            r->status.MPI_ERROR = MPI_ERR_TRUNCATE;
        else if (op->xfer < op->data.bytes && ivc_mpi_recv_split_elem(r, op->xfer))
            r->status.MPI_ERROR = MPI_ERR_TYPE;
    }
    ivc_mpi_req_complete(r);
}

static void status_set(MPI_Status *s, int source)
{
    if (s == MPI_STATUS_IGNORE)
        return;
    s->MPI_SOURCE = source;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    s->ivc_count = 0;
    s->ivc_cancelled = 0;
}

void ivc_mpi_status_empty(MPI_Status *s)
{
    status_set(s, MPI_ANY_SOURCE);
}

void ivc_mpi_status_proc_null(MPI_Status *s)
{
    status_set(s, MPI_PROC_NULL);
}

void ivc_mpi_status_proc_null_out(MPI_Status *s)
{
    MPI_Status t;
    status_set(&t, MPI_PROC_NULL);
    ivc_mpi_status_out(s, &t);
}

static void check_abort(void)
{
    uint32_t rank;
    int code;
    if (ivc_coord_aborted(&rank, &code) && rank != ivc_coord.boot.rank) {
        /* Name the failure behind the abort, if one was recorded (a peer's fatal error
         * handler ending the job because a rank died): every survivor says so. */
        char why[160];
        for (uint32_t r = 0; r < ivc_coord.boot.size; r++)
            if (ivc_region_member_get(&ivc_coord.region, r) == IVC_MEMBER_FAILED)
                ivc_error("%s", ivc_coord_failure_text(r, why, sizeof(why)));
        ivc_error("rank %u aborted the job with code %d; exiting", rank, code);
        fflush(stdout);
        _exit(code != 0 ? code : 1);
    }
}

/* The re-check between announcing a sleep and sleeping (coord.h, ivc_coord_sleep):
 * progress, then what the wait looks at itself. */
static int poll_recheck(void *arg)
{
    const ivc_backoff_t *b = arg;
    int n = ivc_mpi_progress();
    if (n == 0 && b->ready != NULL)
        n = b->ready(b->ready_arg);
    return n;
}

/* What a waiting rank looks at now and then: an abort, other writers' damage to its
 * collective area and to window lock words, requests to sweep. */
static void poll_slow(void)
{
    check_abort();
    ivc_mpi_coll_audit();
    ivc_mpi_rma_audit();
    if (ivc_mpi_req_zombies != NULL)
        ivc_mpi_req_sweep();
}

uint32_t ivc_mpi_idle_polls;
uint64_t ivc_mpi_idle_since, ivc_mpi_poll_yields;

void ivc_mpi_poll(ivc_backoff_t *b)
{
    /* Counts idle rounds past the spin stage on its own: the backoff's round counter also
     * advances inside ivc_backoff_idle() and restarts after every sleep. */
    static uint32_t idle_rounds;
    static int slow_due; /* a sleep ended: its slow path runs at the next idle round */
    if (ivc_mpi_progress() > 0)
        return;
    if (slow_due) {
        /* Once per sleep (IVC_WAIT_TIMEOUT bounds it), but not between the ring and the
         * work it announced: on the 2-vCPU machine the audits cost about 11 µs of a
         * 50 µs wake-up. */
        slow_due = 0;
        poll_slow();
    }
    if (ivc_backoff_idle(b)) {
        ivc_coord_sleep(poll_recheck, b);
        ivc_backoff_reset(b); /* awake: poll again first, what woke it may need more */
        slow_due = 1;
        return;
    }
    if (b->rounds >= b->spin && (++idle_rounds & 255) == 0)
        poll_slow();
}

int ivc_mpi_wait_done(MPI_Request r, MPI_Status *status)
{
    if (!r->done) {
        ivc_backoff_t b;
        ivc_backoff_init_idle(&b, NULL, NULL);
        while (!r->done)
            ivc_mpi_poll(&b);
    }
    ivc_mpi_status_out(status, &r->status);
    if (__builtin_expect(ivc_mpi_ft_state != 0, 0))
        return ivc_mpi_ft_req_error(r);
    return r->status.MPI_ERROR;
}

/* A wait's ready() (ivc_wait.h): the request completed (a compound request's poll may
 * complete it without progress). */
static int req_ready(void *r)
{
    return ivc_mpi_req_done((MPI_Request)r);
}

/* MPI_SUCCESS, or MPIX_ERR_PROC_FAILED_PENDING for a request that may never complete (see
 * the top of this file). */
static inline int req_blocked(MPI_Request r)
{
    if (__builtin_expect(ivc_mpi_ft_state == 0, 1))
        return MPI_SUCCESS;
    return ivc_mpi_ft_pending(r);
}

static void status_pending(MPI_Status *st, int err)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    ivc_mpi_status_empty(st);
    st->MPI_ERROR = err;
}

static int req_valid(MPI_Request r)
{
    return r != MPI_REQUEST_NULL && r->magic == REQ_MAGIC;
}

/* Asks a completed generalized request's query_fn for its status; returns its error. */
static int greq_query(MPI_Request r, MPI_Status *status)
{
    MPI_Status st;
    ivc_mpi_status_empty(&st);
    int err = r->u.g.query(r->u.g.extra, &st);
    st.MPI_ERROR = err;
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    return err;
}

/* req_finish() of the extended kinds. */
static int req_finish_ext(MPI_Request *rp, MPI_Status *status, MPI_Comm *comm)
{
    MPI_Request r = *rp;
    *comm = r->comm;
    ivc_mpi_comm_retain(*comm);
    if (r->kind == REQ_PERSIST) {
        /* Stays allocated, inactive; the handle is kept. */
        MPI_Request inner = r->u.p.inner;
        if (inner == NULL) {
            ivc_mpi_status_empty(status);
            return MPI_SUCCESS;
        }
        r->u.p.inner = NULL;
        return ivc_mpi_req_reap(inner, status);
    }
    int err;
    if (r->kind == REQ_GREQ) {
        err = greq_query(r, status);
        int ferr = r->u.g.free(r->u.g.extra);
        if (err == MPI_SUCCESS)
            err = ferr;
        ivc_mpi_req_free(r);
    } else {
        err = ivc_mpi_req_reap(r, status);
    }
    *rp = MPI_REQUEST_NULL;
    return err;
}

/* Finishes a completed user request: copies its status, frees it, nulls the handle, and
 * returns its error class (a persistent request is left inactive instead). *comm gets the
 * request's communicator, retained for raising the error: the caller releases it. */
static int req_finish(MPI_Request *rp, MPI_Status *status, MPI_Comm *comm)
{
    MPI_Request r = *rp;
    if (__builtin_expect(r->kind >= REQ_PERSIST, 0))
        return req_finish_ext(rp, status, comm);
    ivc_mpi_status_out(status, &r->status);
    int err = r->status.MPI_ERROR;
    if (__builtin_expect(ivc_mpi_ft_state != 0, 0))
        err = ivc_mpi_ft_req_error(r);
    *comm = r->comm;
    ivc_mpi_comm_retain(*comm);
    ivc_mpi_req_free(r);
    *rp = MPI_REQUEST_NULL;
    return err;
}

/* Raises `err` (if any) on the communicator req_finish() retained, then releases it. */
static int finish_raise(MPI_Comm comm, int err, const char *fn, const char *what)
{
    int rc = err != MPI_SUCCESS ? ivc_mpi_raise(comm, err, fn, "%s", what) : MPI_SUCCESS;
    ivc_mpi_comm_release(comm);
    return rc;
}

#define CHECK_REQS(fn, n, arr)                                                                     \
    do {                                                                                           \
        int rc_ = ivc_mpi_check_init(fn);                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        if ((n) < 0 || ((n) > 0 && (arr) == NULL))                                                 \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "invalid request array");        \
        for (int i_ = 0; i_ < (n); i_++)                                                           \
            if ((arr)[i_] != MPI_REQUEST_NULL && !req_valid((arr)[i_]))                            \
                return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn,                          \
                                     "request %d is not valid", i_);                               \
    } while (0)

/* NULL output pointers: MPI_ERR_ARG on WORLD, as the request checks above. A status may be
 * MPI_STATUS_IGNORE, never NULL; an array of statuses or indices may be NULL only when
 * nothing is written to it (count 0). */
#define CHECK_OUT(p, fn, what) CHECK_NULL_ARG(MPI_COMM_WORLD, p, fn, what)
#define CHECK_STATUS(st, fn)                                                                       \
    CHECK_NULL_ARG(MPI_COMM_WORLD, st, fn, "status (MPI_STATUS_IGNORE ignores it)")
#define CHECK_ARRAY_OUT(n, p, fn, what)                                                            \
    do {                                                                                           \
        if ((n) > 0)                                                                               \
            CHECK_NULL_ARG(MPI_COMM_WORLD, p, fn, what);                                           \
    } while (0)
#define CHECK_STATUSES(n, sts, fn)                                                                 \
    CHECK_ARRAY_OUT(n, sts, fn, "array_of_statuses (MPI_STATUSES_IGNORE ignores them)")

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (request == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Wait", "NULL request pointer");
    CHECK_REQS("MPI_Wait", 1, request);
    CHECK_STATUS(status, "MPI_Wait");
    if (*request == MPI_REQUEST_NULL) {
        ivc_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    MPI_Comm comm;
    MPI_Request r = *request;
    if (!ivc_mpi_req_done(r)) {
        ivc_backoff_t b;
        ivc_backoff_init_idle(&b, req_ready, r);
        while (!ivc_mpi_req_done(r)) {
            ivc_mpi_poll(&b);
            int err = req_blocked(r);
            if (__builtin_expect(err != MPI_SUCCESS, 0)) {
                status_pending(status, err);
                return ivc_mpi_raise(r->comm, err, "MPI_Wait",
                                     "a peer failed; an MPI_ANY_SOURCE receive stays pending");
            }
        }
    }
    int err = req_finish(request, status, &comm);
    return finish_raise(comm, err, "MPI_Wait", "the request failed");
}
IVC_MPI_WEAK(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (request == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test", "NULL request pointer");
    CHECK_REQS("MPI_Test", 1, request);
    CHECK_OUT(flag, "MPI_Test", "flag");
    CHECK_STATUS(status, "MPI_Test");
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        ivc_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!ivc_mpi_req_done(*request))
        ivc_mpi_polled(ivc_mpi_progress());
    if (!ivc_mpi_req_done(*request)) {
        *flag = 0;
        int err = req_blocked(*request);
        if (__builtin_expect(err != MPI_SUCCESS, 0)) {
            status_pending(status, err);
            return ivc_mpi_raise((*request)->comm, err, "MPI_Test",
                                 "a peer failed; an MPI_ANY_SOURCE receive stays pending");
        }
        return MPI_SUCCESS;
    }
    *flag = 1;
    MPI_Comm comm;
    int err = req_finish(request, status, &comm);
    return finish_raise(comm, err, "MPI_Test", "the request failed");
}
IVC_MPI_WEAK(Test)

/* Finishes one request of an array into st (its MPI_ERROR set, as MPI_ERR_IN_STATUS asks).
 * The first failing request's communicator stays retained in *err_comm for raising; the
 * others are released. */
static void finish_in_array(MPI_Request *rp, MPI_Status *st, MPI_Comm *err_comm)
{
    MPI_Comm comm;
    int err = req_finish(rp, st, &comm);
    if (st != MPI_STATUS_IGNORE)
        st->MPI_ERROR = err;
    if (err != MPI_SUCCESS && *err_comm == MPI_COMM_NULL)
        *err_comm = comm;
    else
        ivc_mpi_comm_release(comm);
}

/* Finishes every request of the array (all are complete), storing statuses by index;
 * returns MPI_ERR_IN_STATUS if any failed. */
static int finish_array(int count, MPI_Request reqs[], MPI_Status statuses[], const char *fn)
{
    MPI_Comm err_comm = MPI_COMM_NULL;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (reqs[i] == MPI_REQUEST_NULL)
            ivc_mpi_status_empty(st);
        else
            finish_in_array(&reqs[i], st, &err_comm);
    }
    if (err_comm != MPI_COMM_NULL)
        return finish_raise(err_comm, MPI_ERR_IN_STATUS, fn, "at least one request failed");
    return MPI_SUCCESS;
}

/* Waitall / Waitsome when requests are blocked (req_blocked): finishes the complete ones
 * into their statuses, gives the blocked ones MPIX_ERR_PROC_FAILED_PENDING (left active) and
 * the others MPI_ERR_PENDING (Waitall; Waitsome lists only complete and blocked ones). */
static int finish_blocked(int count, MPI_Request reqs[], MPI_Status statuses[], int *outcount,
                          int indices[], const char *fn)
{
    MPI_Comm err_comm = MPI_COMM_NULL;
    int n = 0;
    for (int i = 0; i < count; i++) {
        MPI_Request r = reqs[i];
        int at = outcount != NULL ? n : i;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[at];
        if (r == MPI_REQUEST_NULL || ivc_mpi_req_inactive(r)) {
            if (outcount == NULL)
                ivc_mpi_status_empty(st);
            continue;
        }
        if (ivc_mpi_req_done(r)) {
            finish_in_array(&reqs[i], st, &err_comm);
        } else {
            int err = req_blocked(r);
            if (err == MPI_SUCCESS && outcount != NULL)
                continue;
            status_pending(st, err != MPI_SUCCESS ? err : MPI_ERR_PENDING);
            if (err_comm == MPI_COMM_NULL) {
                err_comm = r->comm;
                ivc_mpi_comm_retain(err_comm);
            }
        }
        if (indices != NULL)
            indices[n] = i;
        n++;
    }
    if (outcount != NULL)
        *outcount = n;
    if (err_comm == MPI_COMM_NULL)
        err_comm = MPI_COMM_WORLD;
    return finish_raise(err_comm, MPI_ERR_IN_STATUS, fn,
                        "a peer failed; MPI_ANY_SOURCE receives stay pending");
}

/* Whether any active, incomplete request of the array is blocked (req_blocked). */
static int any_blocked(int count, MPI_Request reqs[])
{
    if (__builtin_expect(ivc_mpi_ft_state == 0, 1))
        return 0;
    for (int i = 0; i < count; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !ivc_mpi_req_done(reqs[i]) &&
            req_blocked(reqs[i]) != MPI_SUCCESS)
            return 1;
    return 0;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses)
{
    CHECK_REQS("MPI_Waitall", count, array_of_requests);
    CHECK_STATUSES(count, array_of_statuses, "MPI_Waitall");
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, NULL, NULL);
    for (int i = 0; i < count; i++) {
        while (array_of_requests[i] != MPI_REQUEST_NULL &&
               !ivc_mpi_req_done(array_of_requests[i])) {
            if (__builtin_expect(req_blocked(array_of_requests[i]) != MPI_SUCCESS, 0)) {
                /* The others may still complete: wait for them, then report. */
                for (int j = 0; j < count; j++)
                    while (array_of_requests[j] != MPI_REQUEST_NULL &&
                           !ivc_mpi_req_done(array_of_requests[j]) &&
                           req_blocked(array_of_requests[j]) == MPI_SUCCESS)
                        ivc_mpi_poll(&b);
                return finish_blocked(count, array_of_requests, array_of_statuses, NULL, NULL,
                                      "MPI_Waitall");
            }
            ivc_mpi_poll(&b);
        }
    }
    return finish_array(count, array_of_requests, array_of_statuses, "MPI_Waitall");
}
IVC_MPI_WEAK(Waitall)

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status *array_of_statuses)
{
    CHECK_REQS("MPI_Testall", count, array_of_requests);
    CHECK_OUT(flag, "MPI_Testall", "flag");
    CHECK_STATUSES(count, array_of_statuses, "MPI_Testall");
    ivc_mpi_polled(ivc_mpi_progress());
    for (int i = 0; i < count; i++) {
        if (array_of_requests[i] != MPI_REQUEST_NULL && !ivc_mpi_req_done(array_of_requests[i])) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return finish_array(count, array_of_requests, array_of_statuses, "MPI_Testall");
}
IVC_MPI_WEAK(Testall)

/* Index of a completed request, -1 if none is, MPI_UNDEFINED if all are null or inactive. */
static int find_done(int count, const MPI_Request reqs[])
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL || ivc_mpi_req_inactive(reqs[i]))
            continue;
        active = 1;
        if (ivc_mpi_req_done(reqs[i]))
            return i;
    }
    return active ? -1 : MPI_UNDEFINED;
}

static int finish_one(MPI_Request reqs[], int i, int *index, MPI_Status *status, const char *fn)
{
    MPI_Comm comm;
    *index = i;
    int err = req_finish(&reqs[i], status, &comm);
    return finish_raise(comm, err, fn, "a request failed");
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    CHECK_REQS("MPI_Waitany", count, array_of_requests);
    CHECK_OUT(index, "MPI_Waitany", "index");
    CHECK_STATUS(status, "MPI_Waitany");
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, NULL, NULL);
    for (;;) {
        int i = find_done(count, array_of_requests);
        if (i == MPI_UNDEFINED) {
            *index = MPI_UNDEFINED;
            ivc_mpi_status_empty(status);
            return MPI_SUCCESS;
        }
        if (i >= 0)
            return finish_one(array_of_requests, i, index, status, "MPI_Waitany");
        if (__builtin_expect(ivc_mpi_ft_state != 0, 0)) {
            for (int j = 0; j < count; j++) {
                MPI_Request r = array_of_requests[j];
                int err = r != MPI_REQUEST_NULL ? req_blocked(r) : MPI_SUCCESS;
                if (err != MPI_SUCCESS) {
                    *index = j;
                    status_pending(status, err);
                    return ivc_mpi_raise(r->comm, err, "MPI_Waitany",
                                         "a peer failed; an MPI_ANY_SOURCE receive stays pending");
                }
            }
        }
        ivc_mpi_poll(&b);
    }
}
IVC_MPI_WEAK(Waitany)

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    CHECK_REQS("MPI_Testany", count, array_of_requests);
    CHECK_OUT(index, "MPI_Testany", "index");
    CHECK_OUT(flag, "MPI_Testany", "flag");
    CHECK_STATUS(status, "MPI_Testany");
    ivc_mpi_polled(ivc_mpi_progress());
    int i = find_done(count, array_of_requests);
    if (i == MPI_UNDEFINED) {
        *flag = 1;
        *index = MPI_UNDEFINED;
        ivc_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (i < 0) {
        *flag = 0;
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *flag = 1;
    return finish_one(array_of_requests, i, index, status, "MPI_Testany");
}
IVC_MPI_WEAK(Testany)

/* Finishes every completed request; *outcount = MPI_UNDEFINED if all are null or inactive. */
static int finish_some(int count, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[], const char *fn)
{
    int n = 0, active = 0;
    MPI_Comm err_comm = MPI_COMM_NULL;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL || ivc_mpi_req_inactive(reqs[i]))
            continue;
        active = 1;
        if (!ivc_mpi_req_done(reqs[i]))
            continue;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
        finish_in_array(&reqs[i], st, &err_comm);
        indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    if (err_comm != MPI_COMM_NULL)
        return finish_raise(err_comm, MPI_ERR_IN_STATUS, fn, "at least one request failed");
    return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status *array_of_statuses)
{
    CHECK_REQS("MPI_Waitsome", incount, array_of_requests);
    CHECK_OUT(outcount, "MPI_Waitsome", "outcount");
    CHECK_ARRAY_OUT(incount, array_of_indices, "MPI_Waitsome", "array_of_indices");
    CHECK_STATUSES(incount, array_of_statuses, "MPI_Waitsome");
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, NULL, NULL);
    while (find_done(incount, array_of_requests) == -1) {
        if (__builtin_expect(any_blocked(incount, array_of_requests), 0))
            return finish_blocked(incount, array_of_requests, array_of_statuses, outcount,
                                  array_of_indices, "MPI_Waitsome");
        ivc_mpi_poll(&b);
    }
    return finish_some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
                       "MPI_Waitsome");
}
IVC_MPI_WEAK(Waitsome)

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status *array_of_statuses)
{
    CHECK_REQS("MPI_Testsome", incount, array_of_requests);
    CHECK_OUT(outcount, "MPI_Testsome", "outcount");
    CHECK_ARRAY_OUT(incount, array_of_indices, "MPI_Testsome", "array_of_indices");
    CHECK_STATUSES(incount, array_of_statuses, "MPI_Testsome");
    ivc_mpi_polled(ivc_mpi_progress());
    return finish_some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
                       "MPI_Testsome");
}
IVC_MPI_WEAK(Testsome)

int PMPI_Request_free(MPI_Request *request)
{
    CHECK_OUT(request, "MPI_Request_free", "request pointer");
    if (!req_valid(*request))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free",
                             "invalid request");
    MPI_Request r = *request;
    int err = MPI_SUCCESS;
    *request = MPI_REQUEST_NULL;
    switch (r->kind) {
    case REQ_PERSIST:
    case REQ_POLL:
        if (ivc_mpi_req_ext_done(r)) {
            if (r->kind == REQ_PERSIST && r->u.p.inner != NULL) {
                ivc_mpi_req_reap(r->u.p.inner, MPI_STATUS_IGNORE);
                r->u.p.inner = NULL;
            }
            req_release(r);
        } else {
            zombie_add(r); /* finished by ivc_mpi_req_sweep() once complete */
        }
        break;
    case REQ_GREQ:
        /* free_fn runs now if the request is complete, else at MPI_Grequest_complete. */
        if (r->done) {
            err = r->u.g.free(r->u.g.extra);
            ivc_mpi_req_free(r);
        } else {
            r->freed = 1;
        }
        break;
    default:
        if (r->done)
            ivc_mpi_req_free(r);
        else
            r->freed = 1; /* freed by its completion */
    }
    if (err != MPI_SUCCESS)
        return ivc_mpi_raise(MPI_COMM_WORLD, err, "MPI_Request_free",
                             "the generalized request's free function failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Request_free)

/* Status of a complete (or inactive) request without finishing it; returns its error. */
static int req_peek(MPI_Request r, MPI_Status *status)
{
    switch (r->kind) {
    case REQ_PERSIST:
        if (r->u.p.inner == NULL) {
            ivc_mpi_status_empty(status);
            return MPI_SUCCESS;
        }
        return req_peek(r->u.p.inner, status);
    case REQ_GREQ: return greq_query(r, status);
    default:
        if (status != MPI_STATUS_IGNORE)
            *status = r->status;
        return r->status.MPI_ERROR;
    }
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    const char *fn = "MPI_Request_get_status";
    CHECK_OUT(flag, fn, "flag");
    CHECK_STATUS(status, fn);
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        ivc_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!req_valid(request))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "invalid request");
    if (!ivc_mpi_req_done(request))
        ivc_mpi_polled(ivc_mpi_progress());
    *flag = ivc_mpi_req_done(request);
    if (*flag) {
        int err = req_peek(request, status);
        if (err != MPI_SUCCESS)
            return ivc_mpi_raise(request->comm, err, fn, "the request failed");
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Request_get_status)

/* The Request_get_status_{any,all,some} calls (MPI 4.1): Testany/Testall/Testsome that
 * leave every request as it is (nothing freed, no persistent request made inactive). */
int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                                int *flag, MPI_Status *status)
{
    const char *fn = "MPI_Request_get_status_any";
    CHECK_REQS(fn, count, array_of_requests);
    if (index == NULL || flag == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL index or flag");
    CHECK_STATUS(status, fn);
    ivc_mpi_polled(ivc_mpi_progress());
    int i = find_done(count, array_of_requests);
    if (i == MPI_UNDEFINED) {
        *flag = 1;
        *index = MPI_UNDEFINED;
        ivc_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    *index = i < 0 ? MPI_UNDEFINED : i;
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    int err = req_peek(array_of_requests[i], status);
    if (err != MPI_SUCCESS)
        return ivc_mpi_raise(array_of_requests[i]->comm, err, fn, "a request failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Request_get_status_any)

/* Peeks at request i into st (MPI_ERROR set); returns 1 if it failed. */
static int peek_in_array(const MPI_Request reqs[], int i, MPI_Status *st)
{
    MPI_Status tmp;
    int err = req_peek(reqs[i], &tmp);
    tmp.MPI_ERROR = err;
    if (st != MPI_STATUS_IGNORE)
        *st = tmp;
    return err != MPI_SUCCESS;
}

int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[])
{
    const char *fn = "MPI_Request_get_status_all";
    CHECK_REQS(fn, count, array_of_requests);
    if (flag == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL flag");
    CHECK_STATUSES(count, array_of_statuses, fn);
    ivc_mpi_polled(ivc_mpi_progress());
    for (int i = 0; i < count; i++) {
        if (array_of_requests[i] != MPI_REQUEST_NULL && !ivc_mpi_req_done(array_of_requests[i])) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    int failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st =
            array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[i];
        if (array_of_requests[i] == MPI_REQUEST_NULL)
            ivc_mpi_status_empty(st);
        else
            failed |= peek_in_array(array_of_requests, i, st);
    }
    if (failed)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_IN_STATUS, fn, "at least one request failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Request_get_status_all)

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    const char *fn = "MPI_Request_get_status_some";
    CHECK_REQS(fn, incount, array_of_requests);
    if (outcount == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL outcount");
    CHECK_ARRAY_OUT(incount, array_of_indices, fn, "array_of_indices");
    CHECK_STATUSES(incount, array_of_statuses, fn);
    ivc_mpi_polled(ivc_mpi_progress());
    int n = 0, active = 0, failed = 0;
    for (int i = 0; i < incount; i++) {
        MPI_Request r = array_of_requests[i];
        if (r == MPI_REQUEST_NULL || ivc_mpi_req_inactive(r))
            continue;
        active = 1;
        if (!ivc_mpi_req_done(r))
            continue;
        MPI_Status *st =
            array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[n];
        failed |= peek_in_array(array_of_requests, i, st);
        array_of_indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    if (failed)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_IN_STATUS, fn, "at least one request failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Request_get_status_some)

/* Cancels r if it can still be cancelled; returns an error class (a generalized request's
 * cancel_fn may fail). */
static int req_cancel(MPI_Request r)
{
    switch (r->kind) {
    case REQ_RECV:
        /* A receive still in the posted queue is cancelled. */
        if (!r->done && ivc_mpi_match_cancel(r)) {
            r->status.ivc_cancelled = 1;
            r->status.MPI_ERROR = MPI_SUCCESS;
            r->status.ivc_count = 0;
            ivc_mpi_req_complete(r);
        }
        return MPI_SUCCESS;
    case REQ_PERSIST: /* the active round; nothing to cancel while inactive */
        return r->u.p.inner != NULL ? req_cancel(r->u.p.inner) : MPI_SUCCESS;
    case REQ_GREQ: return r->u.g.cancel(r->u.g.extra, r->done);
    case REQ_SEND: ivc_mpi_cancel_send(r); return MPI_SUCCESS;
    default: /* collectives and compound requests complete normally */ return MPI_SUCCESS;
    }
}

int PMPI_Cancel(MPI_Request *request)
{
    CHECK_OUT(request, "MPI_Cancel", "request pointer");
    if (!req_valid(*request))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel", "invalid request");
    int err = req_cancel(*request);
    if (err != MPI_SUCCESS)
        return ivc_mpi_raise((*request)->comm, err, "MPI_Cancel", "the cancel function failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Cancel)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (status == NULL || status == MPI_STATUS_IGNORE || flag == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test_cancelled",
                             "invalid status or flag");
    *flag = status->ivc_cancelled;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Test_cancelled)
