/* Nonblocking communicator duplication: MPI_Comm_idup, MPI_Comm_idup_with_info.
 *
 * The new communicator (groups, handler, topology, info, copied attributes) is made at the
 * call; only its context id is agreed in the background, by rounds that the progress of
 * any wait or test advances (ivc_mpi_comm_progress() from ivc_mpi_progress()). Idups may be
 * started in different orders on different communicators (MPI 4.1 sec. 6.12: the order
 * only has to be the same per communicator), so an agreement cannot block, and two in
 * flight at one process must never pick the same id.
 *
 * A round is an AND-allreduce of offers: each member sends its offer to the group's root
 * (rank 0 of the parent, or of the local group of an intercommunicator), the root ANDs
 * them (for an intercommunicator, swaps the result with the other root) and sends the
 * result back. A process offers its free ids (of its slice of the upper half of the id
 * space, which blocking agreements use last: see "Slices" below) only while it holds that
 * slice's local pledge; an agreement that does not hold it offers nothing (all zeros) and
 * the round fails everywhere, to be retried. While pledged, ids are offered to no other
 * agreement (blocking ones included, mpi_comm.c), so a result with ids in it names ids
 * still free at every member when the round ends: each takes them at once. A slice's
 * pledge goes, at the start of a round, only to the agreement of highest priority (lowest
 * parent context id, then lowest sequence number on that parent) among those in flight here
 * that offer from it: every process ranks the same two agreements the same way, so the one
 * ranked first everywhere wins a round after finitely many, and the others follow (no
 * livelock of two agreements each holding the pledge at a different member). An extra word
 * carries the AND of the members' "I offered" flags: a failed round with every flag set
 * means no id of the slice is free at every member (the agreement then offers the whole
 * upper half), or, offering the whole, none at all.
 *
 * Traffic: the parent's (or its local communicator's) collective context, tag TAG_IDUP +
 * the agreement's sequence number on the parent; rounds of one agreement follow each other
 * in per-pair order on one tag. */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

#define TAG_IDUP 0x7e000000 /* + 24 bits of the sequence number (coll_impl.h tags are lower) */
#define W        IVC_MPI_ID_WORDS
#define VEC      (W + 1) /* an offer: the mask, then the "offered" flag */

enum { PH_GATHER, PH_SWAP, PH_SCATTER, PH_WAIT_RESULT };

typedef struct agree {
    struct agree *next;
    MPI_Comm parent; /* retained */
    MPI_Comm local;  /* parent, or its local communicator */
    MPI_Comm comm;   /* the new communicator (its handle is the user's) */
    int nids;        /* ids to agree on: 1, or 2 for an intercommunicator */
    int tag;
    int prio_id;      /* priority: parent's context id, */
    uint32_t prio_seq; /* then the sequence number */
    int in_round, phase, pledged;
    int wide; /* offers the whole upper half (its slice had no common id) */
    uint64_t mine[VEC], result[VEC], other[VEC];
    uint64_t *gathered;   /* root: VEC words from each other member */
    MPI_Request *sub;     /* root: local size + 1; others: 2 */
    int nsub;
    int done, err;
    int refs; /* the list of agreements in flight, and the request */
} agree_t;

int ivc_mpi_comm_pending;
static agree_t *head;
/* Slices of the pledge: word W/2 + k of the mask (64 ids) is slice k. An agreement offers
 * from the slice of its parent (its context id modulo SLICES), so that agreements over
 * different parents do not wait for each other: with one pledge, a thread whose idup waits
 * for peers that first need this process's offer to another idup deadlocked (MPICH's
 * threads/comm/idup_deadlock). One whose slice has no id in common at every member offers
 * the whole upper half ("wide") from its next round on. */
#define SLICES (W / 2)
static agree_t *holder[SLICES]; /* the agreement holding each slice's pledge, or NULL */

static int higher(const agree_t *a, const agree_t *b)
{
    return a->prio_id != b->prio_id ? a->prio_id < b->prio_id : a->prio_seq < b->prio_seq;
}

static int slice_of(const agree_t *a)
{
    return (int)((unsigned)a->prio_id % SLICES);
}

/* A one-member group (a duplicate of MPI_COMM_SELF): see round_start. */
static int is_solo(const agree_t *a)
{
    return a->local->size == 1 && !a->parent->inter;
}

/* Whether a offers from slice k. */
static int offers_from(const agree_t *a, int k)
{
    return a->wide || k == slice_of(a);
}

/* Whether a and b offer from a common slice. */
static int share(const agree_t *a, const agree_t *b)
{
    return a->wide || b->wide || slice_of(a) == slice_of(b);
}

/* The pledge is what the holders offered in their rounds in flight. */
static void repledge(void)
{
    uint64_t m[W] = {0};
    for (int k = 0; k < SLICES; k++)
        if (holder[k] != NULL)
            for (int w = W / 2; w < W; w++)
                m[w] |= holder[k]->mine[w];
    ivc_mpi_comm_ids_pledge(m);
}

static void unpledge(agree_t *a)
{
    if (!a->pledged)
        return;
    for (int k = 0; k < SLICES; k++)
        if (holder[k] == a)
            holder[k] = NULL;
    a->pledged = 0;
    repledge();
}

static int subs_done(agree_t *a)
{
    for (int i = 0; i < a->nsub; i++)
        if (a->sub[i] != NULL && !a->sub[i]->done)
            return 0;
    return 1;
}

/* Frees the finished sub-requests; returns the first error among them. */
static int subs_reap(agree_t *a)
{
    int err = MPI_SUCCESS;
    for (int i = 0; i < a->nsub; i++) {
        if (a->sub[i] == NULL)
            continue;
        if (err == MPI_SUCCESS)
            err = a->sub[i]->status.MPI_ERROR;
        ivc_mpi_req_free(a->sub[i]);
        a->sub[i] = NULL;
    }
    a->nsub = 0;
    return err;
}

static int post(agree_t *a, int send, void *buf, int peer, MPI_Comm c)
{
    MPI_Request r = ivc_mpi_req_alloc(send ? REQ_SEND : REQ_RECV);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    a->sub[a->nsub++] = r;
    int rc = send ? ivc_mpi_start_send(r, buf, VEC, MPI_UINT64_T, peer, a->tag, c, 1, 0)
                  : ivc_mpi_start_recv(r, buf, VEC, MPI_UINT64_T, peer, a->tag, c, 1);
    if (rc != MPI_SUCCESS)
        r->done = 1, r->status.MPI_ERROR = rc;
    return rc;
}

static void round_start(agree_t *a)
{
    /* A one-member group (a duplicate of MPI_COMM_SELF) ends its round within this progress
     * call: it takes any id not pledged at once and needs no pledge, so it never waits for
     * an agreement whose round waits for other processes (MPI_THREAD_MULTIPLE: a thread may
     * hold a program's lock around it while another thread's idup waits for a peer). */
    int solo = is_solo(a);
    int take = 1;
    for (int k = 0; k < SLICES && !solo; k++)
        if (holder[k] != NULL && offers_from(a, k))
            take = 0;
    for (agree_t *o = head; take && !solo && o != NULL; o = o->next)
        if (o != a && !o->done && share(o, a) && higher(o, a))
            take = 0;
    memset(a->mine, 0, sizeof(a->mine));
    if (take) {
        /* Only the upper half of the ids (its slice, unless wide): blocking agreements,
         * which take the lowest free ids, must not find every id pledged while a round
         * runs. */
        ivc_mpi_comm_ids_offer(a->mine);
        if (!solo) {
            memset(a->mine, 0, W / 2 * sizeof(uint64_t));
            for (int k = 0; k < SLICES; k++) {
                if (!offers_from(a, k))
                    a->mine[W / 2 + k] = 0;
                else
                    holder[k] = a;
            }
            a->pledged = 1;
            repledge();
        }
        /* "Offered": nothing here may mean that a blocking agreement's round (another
         * thread's, or the one whose wait runs this) holds the ids for now: try again. */
        uint64_t any = 0;
        for (int w = 0; w < W; w++)
            any |= a->mine[w];
        a->mine[W] = any != 0 || !ivc_mpi_comm_ids_held();
    }
    memcpy(a->result, a->mine, sizeof(a->result));
    a->in_round = 1;
    int n = a->local->size, rc = MPI_SUCCESS;
    if (a->local->rank == 0) {
        a->phase = PH_GATHER;
        for (int k = 1; k < n && rc == MPI_SUCCESS; k++)
            rc = post(a, 0, a->gathered + (size_t)(k - 1) * VEC, k, a->local);
    } else {
        a->phase = PH_WAIT_RESULT;
        rc = post(a, 0, a->result, 0, a->local);
        if (rc == MPI_SUCCESS)
            rc = post(a, 1, a->mine, 0, a->local);
    }
    if (rc != MPI_SUCCESS && a->err == MPI_SUCCESS)
        a->err = rc;
}

static void and_into(uint64_t *acc, const uint64_t *v)
{
    for (int w = 0; w < VEC; w++)
        acc[w] &= v[w];
}

/* Ends a round with a->result in hand: takes the ids, or sets up a retry. */
static void round_end(agree_t *a)
{
    a->in_round = 0;
    int ids[2] = {-1, -1};
    uint64_t m[W];
    memcpy(m, a->result, sizeof(m));
    for (int i = 0; i < a->nids; i++)
        ids[i] = ivc_mpi_comm_id_pop(m);
    unpledge(a);
    if (ids[a->nids - 1] >= 0) {
        int rc = ivc_mpi_comm_set_ids(a->comm, ids);
        a->err = rc;
        a->done = 1;
    } else if (a->result[W] == 1 && !a->wide && !is_solo(a)) {
        a->wide = 1; /* everybody offered its slice, and no id is free at all of them */
    } else if (a->result[W] == 1) {
        a->err = MPI_ERR_INTERN; /* everybody offered, and no id is free at all of them */
        a->done = 1;
    }
}

/* Advances a; returns 1 if anything happened. */
static int advance(agree_t *a)
{
    if (a->done)
        return 0;
    if (!a->in_round) {
        round_start(a);
        return 1;
    }
    if (!subs_done(a))
        return 0;
    int rc = subs_reap(a), n = a->local->size;
    if (rc == MPI_SUCCESS)
        rc = a->err;
    if (rc != MPI_SUCCESS) {
        a->err = rc;
        unpledge(a);
        a->done = 1;
        return 1;
    }
    switch (a->phase) {
    case PH_GATHER:
        for (int k = 1; k < n; k++)
            and_into(a->result, a->gathered + (size_t)(k - 1) * VEC);
        if (a->parent->inter) {
            a->phase = PH_SWAP;
            rc = post(a, 0, a->other, 0, a->parent);
            if (rc == MPI_SUCCESS)
                rc = post(a, 1, a->result, 0, a->parent);
            break;
        }
        /* fall through */
    case PH_SWAP:
        if (a->phase == PH_SWAP)
            and_into(a->result, a->other);
        a->phase = PH_SCATTER;
        for (int k = 1; k < n && rc == MPI_SUCCESS; k++)
            rc = post(a, 1, a->result, k, a->local);
        if (n == 1)
            round_end(a);
        break;
    case PH_SCATTER:
    case PH_WAIT_RESULT:
        round_end(a);
        break;
    }
    if (rc != MPI_SUCCESS)
        a->err = rc;
    return 1;
}

static void agree_unref(agree_t *a)
{
    if (--a->refs > 0)
        return;
    subs_reap(a);
    free(a->gathered);
    free(a->sub);
    if (a->parent != MPI_COMM_NULL)
        ivc_mpi_comm_release(a->parent);
    free(a);
}

int ivc_mpi_comm_progress(void)
{
    static int busy;
    if (busy)
        return 0;
    busy = 1;
    int steps = 0;
    for (agree_t **p = &head; *p != NULL;) {
        agree_t *a = *p;
        /* Bounded: a one-member group without the pledge fails its rounds at once. */
        for (int i = 0; i < 16 && advance(a); i++)
            steps++;
        if (a->done) {
            *p = a->next;
            ivc_mpi_comm_pending--;
            agree_unref(a);
        } else {
            p = &a->next;
        }
    }
    busy = 0;
    return steps;
}

static int idup_poll(MPI_Request r)
{
    agree_t *a = r->u.x.state;
    if (!a->done)
        ivc_mpi_comm_progress();
    if (!a->done)
        return 0;
    r->status.MPI_ERROR = a->err;
    return 1;
}

static void idup_drop(MPI_Request r)
{
    agree_unref(r->u.x.state);
}

static int idup(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request,
                const char *fn)
{
    CHECK_COMM(comm, fn);
    if (newcomm == NULL || request == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL argument");
    if (info != MPI_INFO_NULL && (info == NULL || info->magic != INFO_MAGIC))
        return ivc_mpi_raise(comm, MPI_ERR_INFO, fn, "invalid info");
    agree_t *a = calloc(1, sizeof(*a));
    MPI_Comm local = comm->inter ? comm->local_comm : comm;
    if (a != NULL) {
        a->sub = calloc((size_t)local->size + 2, sizeof(MPI_Request));
        a->gathered = calloc((size_t)local->size * VEC, sizeof(uint64_t));
    }
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_ERR_NO_MEM;
    if (a != NULL && a->sub != NULL && a->gathered != NULL)
        rc = ivc_mpi_comm_dup_pending(comm, &c);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL)
        rc = ivc_mpi_comm_info_set(c, info, 1);
    MPI_Request r = rc == MPI_SUCCESS ? ivc_mpi_req_poll_new(comm, idup_poll, idup_drop, a) : NULL;
    if (r == NULL) {
        if (c != MPI_COMM_NULL) {
            ivc_mpi_attr_delete_all(c);
            ivc_mpi_comm_release(c);
        }
        if (a != NULL) {
            free(a->sub);
            free(a->gathered);
        }
        free(a);
        return ivc_mpi_raise(comm, rc == MPI_SUCCESS ? MPI_ERR_NO_MEM : rc, fn,
                             "cannot start the duplication");
    }
    a->refs = 2;
    a->parent = comm;
    ivc_mpi_comm_retain(comm);
    a->local = local;
    a->comm = c;
    a->nids = comm->inter ? 2 : 1;
    a->prio_id = comm->ctx_id;
    a->prio_seq = comm->idup_seq++;
    a->tag = TAG_IDUP + (int)(a->prio_seq & 0xffffff);
    /* Queued last: agreements started earlier get their rounds first. */
    agree_t **p = &head;
    while (*p != NULL)
        p = &(*p)->next;
    *p = a;
    ivc_mpi_comm_pending++;
    *newcomm = c;
    *request = r;
    ivc_mpi_comm_progress();
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup(comm, MPI_INFO_NULL, newcomm, request, "MPI_Comm_idup");
}
IVC_MPI_WEAK(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return idup(comm, info, newcomm, request, "MPI_Comm_idup_with_info");
}
IVC_MPI_WEAK(Comm_idup_with_info)
