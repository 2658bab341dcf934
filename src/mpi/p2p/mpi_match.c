/* Matching: the posted-receive queue and the unexpected-message queue.
 *
 * Channels hand every arriving envelope to ivc_mpi_on_message() in the order the sender
 * sent them (each channel keeps per-peer order), and both queues are FIFO, so the first
 * matching receive always gets the first matching message: MPI's non-overtaking rule.
 *
 * Failures (src/mpi/ft/ft.h): once a peer failed or a communicator was revoked, a receive
 * that can no longer complete is completed with its error when posted and when the failure
 * or revocation becomes known (ivc_mpi_match_ft_sweep), and messages no receive may match
 * any more (the collective context of a communicator with a failed member, any context of
 * a revoked one) are discarded on arrival and out of the unexpected queue, their senders
 * released. Until then each of these paths costs one branch on ivc_mpi_ft_state. */
#include "mpi_impl.h"

#include "base/ivc_log.h"
#include "ft/ft.h"

#include <stdlib.h>
#include <string.h>

/* An arrived message no receive has matched yet, with its eager payload after it in the
 * same block. */
typedef struct umsg {
    struct umsg *prev, *next;
    ivc_inmsg_t m;   /* m.data points at the payload for eager messages, else NULL */
    uint64_t serial; /* its number among m.peer's messages to this rank (mpi_cancel.c) */
    int small;       /* a block of UMSG_SMALL payload bytes, kept for reuse when freed */
} umsg_t;

/* Blocks for small unexpected messages are kept on a free list: a burst of messages that
 * arrive before their receives (drained by another call's progress) would otherwise cost a
 * malloc and a free each, a third of a receive's instructions (bench/instr.sh). */
#define UMSG_SMALL     256
#define UMSG_CACHE_MAX 256
static umsg_t *umsg_cache; /* linked through next */
static int umsg_cached;

static umsg_t *umsg_new(uint64_t len)
{
    umsg_t *u;
    if (len <= UMSG_SMALL && umsg_cache != NULL) {
        u = umsg_cache;
        umsg_cache = u->next;
        umsg_cached--;
        return u;
    }
    int small = len <= UMSG_SMALL;
    u = malloc(sizeof(*u) + (small ? UMSG_SMALL : len));
    if (u != NULL)
        u->small = small;
    return u;
}

static void umsg_free(umsg_t *u)
{
    if (u->small && umsg_cached < UMSG_CACHE_MAX) {
        u->next = umsg_cache;
        umsg_cache = u;
        umsg_cached++;
        return;
    }
    free(u);
}

static struct {
    MPI_Request head, tail;
} posted;

static struct {
    umsg_t *head, *tail;
} unexpected;

static uint8_t *failed_peers; /* world rank -> 1 once its channel reported it failed */
static int failed_cap;        /* entries of failed_peers (dynamic-process peers grow it) */

/* Messages that arrived from each world id, counted as the coordinator numbers a sender's
 * (ivc_chan_op_t.serial), so that a sender can name one when it cancels it. */
static uint64_t *arrived;
static int arrived_cap;

static uint64_t count_arrival(int peer)
{
    if (__builtin_expect(peer >= arrived_cap, 0)) {
        int cap = (int)ivc_coord.nvcs > peer ? (int)ivc_coord.nvcs : peer + 1;
        uint64_t *a = realloc(arrived, (size_t)cap * sizeof(*a));
        if (a == NULL)
            ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory counting messages");
        memset(a + arrived_cap, 0, (size_t)(cap - arrived_cap) * sizeof(*a));
        arrived = a;
        arrived_cap = cap;
    }
    return ++arrived[peer];
}

static inline int envelope_matches(uint32_t ctx, int src, int tag, const ivc_env_t *env)
{
    return ctx == env->ctx && (src == MPI_ANY_SOURCE || src == env->src) &&
           (tag == MPI_ANY_TAG || tag == env->tag);
}

static void posted_remove(MPI_Request r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        posted.head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        posted.tail = r->prev;
    r->prev = r->next = NULL;
}

static void posted_append(MPI_Request r)
{
    r->next = NULL;
    r->prev = posted.tail;
    if (posted.tail)
        posted.tail->next = r;
    else
        posted.head = r;
    posted.tail = r;
}

static void unexpected_remove(umsg_t *u)
{
    if (u->prev)
        u->prev->next = u->next;
    else
        unexpected.head = u->next;
    if (u->next)
        u->next->prev = u->prev;
    else
        unexpected.tail = u->prev;
}

static umsg_t *unexpected_find(uint32_t ctx, int src, int tag)
{
    for (umsg_t *u = unexpected.head; u != NULL; u = u->next)
        if (envelope_matches(ctx, src, tag, &u->m.env))
            return u;
    return NULL;
}

/* Hands message m to the matched receive r: copies an eager payload now, or asks the
 * channel to pull a rendezvous payload. */
int ivc_mpi_recv_split_elem(MPI_Request r, uint64_t n)
{
    MPI_Datatype dt = r->dt;
    return dt != NULL && dt->basic != B_NONE && dt->basic_size > 1 && n % dt->basic_size != 0;
}

static void deliver(MPI_Request r, const ivc_inmsg_t *m)
{
    r->status.MPI_SOURCE = m->env.src;
    r->status.MPI_TAG = m->env.tag;
    r->status.MPI_ERROR = MPI_SUCCESS;
    r->msg_len = m->env.len;
    if (!m->rndv) {
        uint64_t n = m->env.len < r->op.data.bytes ? m->env.len : r->op.data.bytes;
        ivc_data_unpack(&r->op.data, 0, m->data, n);
        r->status.ivc_count = (long long)n;
        if (n < m->env.len)
            r->status.MPI_ERROR = MPI_ERR_TRUNCATE;
        else if (n < r->op.data.bytes && ivc_mpi_recv_split_elem(r, n))
            r->status.MPI_ERROR = MPI_ERR_TYPE;
        if (m->env.flags & IVC_ENV_SYNC) {
            int rc = ivc_coord_send_ack(m);
            if (rc < 0)
                r->status.MPI_ERROR = ivc_mpi_errno_class(rc);
        }
        ivc_mpi_req_complete(r);
        return;
    }
    int rc = ivc_coord_recv_rndv(m, &r->op);
    if (rc < 0) {
        r->status.MPI_ERROR = ivc_mpi_errno_class(rc);
        ivc_mpi_req_complete(r);
    }
}

void ivc_mpi_on_message(void *arg, ivc_inmsg_t *m)
{
    uint64_t serial = count_arrival(m->peer);
    /* One-sided active messages never meet a receive: the target handles them here. The
     * reserved contexts (RMA, fault tolerance, partitioned, cancellation) are the high
     * ones. */
    if (__builtin_expect(m->env.ctx >= IVC_FT_CTX_OFF || ivc_mpi_ft_state != 0, 0)) {
        if (m->env.ctx == IVC_RMA_CTX) {
            ivc_mpi_rma_on_message(m);
            return;
        }
        if (m->env.ctx == IVC_CANCEL_CTX) {
            ivc_mpi_cancel_on_message(m);
            return;
        }
        if (ivc_mpi_ft_on_message(m))
            return;
    }
    for (MPI_Request r = posted.head; r != NULL; r = r->next) {
        if (envelope_matches(r->ctx, r->src, r->tag, &m->env)) {
            posted_remove(r);
            deliver(r, m);
            return;
        }
    }
    int eager = !m->rndv && m->env.len > 0;
    umsg_t *u = umsg_new(eager ? m->env.len : 0);
    if (u == NULL)
        ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory queueing an unexpected message");
    u->m = *m;
    u->m.data = NULL;
    if (eager) {
        memcpy(u + 1, m->data, m->env.len);
        u->m.data = u + 1;
    }
    u->serial = serial;
    u->next = NULL;
    u->prev = unexpected.tail;
    if (unexpected.tail)
        unexpected.tail->next = u;
    else
        unexpected.head = u;
    unexpected.tail = u;
}

int ivc_mpi_peer_failed(int world_rank)
{
    return failed_peers != NULL && world_rank >= 0 && world_rank < failed_cap &&
           failed_peers[world_rank];
}

/* Called once per failed rank (the channels and the coordinator may both report it). */
void ivc_mpi_on_peer_failed(void *arg, int peer, int err)
{
    /* World ids past the job's size are dynamic-process peers (coord.h). */
    int npeers = (int)ivc_coord.nvcs;
    if (peer < 0 || peer >= npeers || peer == ivc_mpi_world_rank)
        return;
    if (failed_cap < npeers) {
        uint8_t *f = realloc(failed_peers, (size_t)npeers);
        if (f == NULL)
            ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory recording a failed peer");
        memset(f + failed_cap, 0, (size_t)(npeers - failed_cap));
        failed_peers = f;
        failed_cap = npeers;
    }
    if (failed_peers[peer])
        return;
    failed_peers[peer] = 1;
    ivc_mpi_cancel_peer_failed(peer);
    /* Counts it on every communicator, ends the job if no handler can return the error,
     * then sweeps the queues (ivc_mpi_match_ft_sweep). */
    ivc_mpi_ft_on_failure(peer, err);
}

static void match_ft_sweep_once(void);

void ivc_mpi_match_discard(const ivc_inmsg_t *m)
{
    if (m->rndv) {
        /* Pulled into nothing: the receiver accepts 0 bytes, the sender's send completes. */
        ivc_chan_op_t *op = calloc(1, sizeof(*op));
        if (op == NULL)
            return; /* the sender then waits as if we never matched it */
        op->done = ivc_mpi_ft_sink_done;
        if (ivc_coord_recv_rndv(m, op) < 0)
            free(op);
    } else if (m->env.flags & IVC_ENV_SYNC) {
        ivc_coord_send_ack(m);
    }
}

void ivc_mpi_match_ft_sweep(void)
{
    /* Completing a receive may free its communicator, which may retire its id and ask for
     * another sweep: that one is folded into this one. */
    static int busy, again;
    if (busy) {
        again = 1;
        return;
    }
    busy = 1;
    do {
        again = 0;
        match_ft_sweep_once();
    } while (again);
    busy = 0;
}

static void match_ft_sweep_once(void)
{
    MPI_Request r = posted.head;
    while (r != NULL) {
        MPI_Request next = r->next;
        int err = ivc_mpi_ft_doomed(r);
        if (err != MPI_SUCCESS) {
            posted_remove(r);
            r->status.MPI_ERROR = err;
            ivc_mpi_req_complete(r);
        }
        r = next;
    }
    umsg_t *u = unexpected.head;
    while (u != NULL) {
        umsg_t *next = u->next;
        if (ivc_mpi_ft_sink_ctx(u->m.env.ctx)) {
            unexpected_remove(u);
            ivc_mpi_match_discard(&u->m);
            umsg_free(u);
        }
        u = next;
    }
}

/* Matches a new receive against the unexpected queue, or posts it. */
void ivc_mpi_match_post(MPI_Request r)
{
    if (__builtin_expect(ivc_mpi_ft_state != 0, 0)) {
        int err = ivc_mpi_ft_doomed(r);
        if (err != MPI_SUCCESS) {
            r->status.MPI_ERROR = err;
            ivc_mpi_req_complete(r);
            return;
        }
    }
    umsg_t *u = unexpected_find(r->ctx, r->src, r->tag);
    if (u == NULL) {
        posted_append(r);
        return;
    }
    unexpected_remove(u);
    deliver(r, &u->m);
    umsg_free(u);
}

/* Takes a posted receive back (MPI_Cancel). Returns 1 if it was still posted. */
int ivc_mpi_match_cancel(MPI_Request r)
{
    for (MPI_Request p = posted.head; p != NULL; p = p->next) {
        if (p == r) {
            posted_remove(r);
            return 1;
        }
    }
    return 0;
}

int ivc_mpi_match_withdraw(int peer, uint64_t serial, const ivc_env_t *env)
{
    for (umsg_t *u = unexpected.head; u != NULL; u = u->next) {
        if (u->m.peer != peer || u->serial != serial)
            continue;
        const ivc_env_t *e = &u->m.env;
        if (e->ctx != env->ctx || e->src != env->src || e->tag != env->tag || e->len != env->len)
            return 0; /* not the message the sender means: leave it */
        unexpected_remove(u);
        ivc_mpi_match_discard(&u->m);
        umsg_free(u);
        return 1;
    }
    return 0;
}

int ivc_mpi_iprobe(int src, int tag, MPI_Comm comm, uint32_t ctx_off, MPI_Status *status)
{
    ivc_coord_progress();
    /* comm == NULL: ctx_off is the context itself (ivc_mpi_match_take). */
    umsg_t *u = unexpected_find(comm != NULL ? comm->ctx + ctx_off : ctx_off, src, tag);
    if (u == NULL)
        return 0;
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = u->m.env.src;
        status->MPI_TAG = u->m.env.tag; /* MPI_ERROR stays the user's (p2p.h) */
        status->ivc_count = (long long)u->m.env.len;
        status->ivc_cancelled = 0;
    }
    return 1;
}

void *ivc_mpi_match_take(uint32_t ctx, int src, int tag, MPI_Status *status)
{
    if (!ivc_mpi_iprobe(src, tag, NULL, ctx, status))
        return NULL;
    umsg_t *u = unexpected_find(ctx, src, tag);
    unexpected_remove(u);
    return u;
}

void ivc_mpi_match_deliver_taken(MPI_Request r, void *umsg)
{
    umsg_t *u = umsg;
    deliver(r, &u->m);
    umsg_free(u);
}

void ivc_mpi_match_finalize(void)
{
    /* tests/mpi/poll_yield.sh reads this line. */
    ivc_debug("polling calls that found nothing yielded the core %llu times",
              (unsigned long long)ivc_mpi_poll_yields);
    ivc_mpi_bsend_finalize();
    ivc_mpi_part_comm_free(MPI_COMM_WORLD);
    ivc_mpi_part_comm_free(MPI_COMM_SELF);
    if (ivc_mpi_req_zombies != NULL)
        ivc_mpi_req_sweep();
    while (unexpected.head) {
        umsg_t *u = unexpected.head;
        unexpected.head = u->next;
        umsg_free(u);
    }
    free(arrived);
    arrived = NULL;
    arrived_cap = 0;
    while (umsg_cache != NULL) {
        umsg_t *u = umsg_cache;
        umsg_cache = u->next;
        free(u);
    }
    umsg_cached = 0;
    unexpected.tail = NULL;
    posted.head = posted.tail = NULL;
    free(failed_peers);
    failed_peers = NULL;
    failed_cap = 0;
}
