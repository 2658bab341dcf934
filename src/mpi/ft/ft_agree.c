/* Agreement despite failures: flooding uniform consensus (ft.h, "Agreement").
 *
 * Why it is uniform. The coordinator's detector is perfect here: a rank reported failed
 * has failed (its process ended, or it broke the protocol and is cut off), and every
 * failure is eventually reported to every live rank. A round ends at member p once p has a
 * message of that round from every member it does not know failed, so each round behaves
 * like a synchronous round in which crashed members' messages may reach only some. With n
 * members at most n - 1 fail, so among n rounds one has no new crash; after it every live
 * member holds the same set of contributions, and later rounds only flood that same set.
 * Everything combined is idempotent (AND, union), so the set is carried as its combination.
 * A member that returns after round n has the same value as every other that does, failed
 * or not afterwards.
 *
 * So everything a caller reports comes from the decided value, never from what this member
 * happens to know when it returns (a failure reaches members at different times; one that
 * learned of it only after the last round would otherwise report it alone):
 *  - the failed members: the union of what members knew when they started a round. A
 *    receive that fails in the last round marks nobody (the mark would reach no one else,
 *    and another member may have had that message), unless no other member is left; a
 *    member that died during the last round and is not in the set is left for the next
 *    operation to find, at every member alike.
 *  - the error (ivc_mpi_ft_cons_error): MPIX_ERR_PROC_FAILED when a member of that set was
 *    not acknowledged (MPIX_Comm_failure_ack) before the call at every member whose
 *    contribution counted (an input: AND of one byte per member), so that, as ULFM asks,
 *    the error is raised at every member or at none.
 *
 * The members of an intercommunicator are both groups: the group holding the lower world
 * rank first, each in its rank order, so that both sides number them alike. Messages to
 * the other group go over the intercommunicator, to the own group over its local
 * communicator.
 *
 * Messages travel on the fault-tolerance context (comm->ctx + IVC_FT_CTX_OFF), which
 * neither a revocation nor a failure of another member fails, with tag
 * (agreement number << 16 | round). A round waits for its sends too: they go to members
 * that post the matching receive in the same round (a member skips only ranks it knows
 * failed, and those have), so no send is left behind when the call returns. */
#include "ft/ft.h"

#include "base/ivc_log.h"

#include <stdlib.h>
#include <string.h>

/* One message / value: flag, then the context-id mask, then a byte per member: failed
 * (union), then a byte per member: acknowledged as failed (AND); padded to 8 bytes. */
#define V_IDS_OFF    8
#define V_FAILED_OFF (V_IDS_OFF + IVC_MPI_ID_WORDS * 8)

struct ft_cons {
    MPI_Comm comm; /* retained */
    int n, me;
    int *world;    /* member -> world rank */
    int *rank;     /* member -> rank in the communicator that reaches it */
    int lo_remote; /* intercommunicator: members [0, lo) are the remote group, else local */
    int lo;        /* size of the first group (n on an intracommunicator) */
    int round;     /* current round; == n once decided */
    int tagbase;
    size_t len;     /* bytes of a value */
    uint8_t *val;   /* this member's value */
    uint8_t *out;   /* what this round sends */
    uint8_t *in;    /* n receive buffers of len bytes */
    MPI_Request *q; /* receives [0, n), sends [n, 2n) of this round, or NULL */
};

static inline uint32_t *v_flag(uint8_t *v)
{
    return (uint32_t *)v;
}

static inline uint64_t *v_ids(uint8_t *v)
{
    return (uint64_t *)(v + V_IDS_OFF);
}

static inline uint8_t *v_failed(uint8_t *v)
{
    return v + V_FAILED_OFF;
}

static inline uint8_t *v_acked(const ft_cons_t *c, uint8_t *v)
{
    return v + V_FAILED_OFF + c->n;
}

/* val = val combined with v. */
static void merge(ft_cons_t *c, uint8_t *v)
{
    *v_flag(c->val) &= *v_flag(v);
    uint64_t ids[IVC_MPI_ID_WORDS];
    memcpy(ids, v_ids(v), sizeof(ids));
    for (int w = 0; w < IVC_MPI_ID_WORDS; w++)
        v_ids(c->val)[w] &= ids[w];
    for (int i = 0; i < c->n; i++) {
        v_failed(c->val)[i] |= v_failed(v)[i] != 0;
        v_acked(c, c->val)[i] &= v_acked(c, v)[i] != 0;
    }
}

static MPI_Request xfer(ft_cons_t *c, int send, int peer)
{
    MPI_Request r = ivc_mpi_req_alloc(send ? REQ_SEND : REQ_RECV);
    if (r == NULL)
        ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory in an agreement");
    int tag = c->tagbase | c->round;
    MPI_Comm via = c->comm;
    if (c->comm->inter && (peer < c->lo) != c->lo_remote)
        via = c->comm->local_comm; /* a member of this process's own group */
    /* A start that fails leaves r complete with its error: read at the end of the round. */
    if (send)
        ivc_mpi_start_send(r, c->out, (int)c->len, MPI_BYTE, c->rank[peer], tag, via,
                           IVC_FT_CTX_OFF, 0);
    else
        ivc_mpi_start_recv(r, c->in + (size_t)peer * c->len, (int)c->len, MPI_BYTE, c->rank[peer],
                           tag, via, IVC_FT_CTX_OFF);
    return r;
}

static void post_round(ft_cons_t *c)
{
    uint8_t *failed = v_failed(c->val);
    for (int i = 0; i < c->n; i++)
        if (i != c->me && ivc_mpi_peer_failed(c->world[i]))
            failed[i] = 1;
    memcpy(c->out, c->val, c->len);
    for (int i = 0; i < c->n; i++) {
        if (i == c->me || failed[i])
            continue;
        c->q[i] = xfer(c, 0, i);
        c->q[c->n + i] = xfer(c, 1, i);
    }
}

/* This member's input of acknowledgements: the first ft_nacked failed members of the comm
 * in the order this process learned of them (MPIX_Comm_failure_ack, ft_core.c). */
static void acked_input(ft_cons_t *c)
{
    MPI_Comm comm = c->comm;
    int k = comm->ft_nacked;
    if (k <= 0)
        return;
    int *w = malloc((size_t)k * sizeof(int));
    if (w == NULL)
        return; /* acknowledged nothing: at worst the error is raised (everywhere) */
    int nf = ivc_mpi_ft_failed_members(comm, w, k);
    for (int j = 0; j < k && j < nf; j++)
        for (int i = 0; i < c->n; i++)
            if (c->world[i] == w[j])
                v_acked(c, c->val)[i] = 1;
    free(w);
}

/* Numbers the members (see the top of this file). Returns 0 or -ENOMEM. */
static int members(ft_cons_t *c, MPI_Comm comm)
{
    c->world = malloc((size_t)c->n * sizeof(int));
    c->rank = malloc((size_t)c->n * sizeof(int));
    if (c->world == NULL || c->rank == NULL)
        return -1;
    if (!comm->inter) {
        for (int i = 0; i < c->n; i++) {
            c->world[i] = comm->world[i];
            c->rank[i] = i;
        }
        c->lo = c->n;
        c->me = comm->rank;
        return 0;
    }
    int lmin = comm->local_world[0], rmin = comm->world[0];
    for (int i = 1; i < comm->local_size; i++)
        lmin = comm->local_world[i] < lmin ? comm->local_world[i] : lmin;
    for (int i = 1; i < comm->size; i++)
        rmin = comm->world[i] < rmin ? comm->world[i] : rmin;
    c->lo_remote = rmin < lmin;
    const int *first = c->lo_remote ? comm->world : comm->local_world;
    const int *second = c->lo_remote ? comm->local_world : comm->world;
    c->lo = c->lo_remote ? comm->size : comm->local_size;
    for (int i = 0; i < c->n; i++) {
        c->world[i] = i < c->lo ? first[i] : second[i - c->lo];
        c->rank[i] = i < c->lo ? i : i - c->lo;
    }
    c->me = c->lo_remote ? c->lo + comm->rank : comm->rank;
    return 0;
}

ft_cons_t *ivc_mpi_ft_cons_start(MPI_Comm comm, uint32_t flag, const uint64_t *ids, int *err)
{
    int n = comm->inter ? comm->size + comm->local_size : comm->size;
    if (n >= 0x10000 || (comm->inter && comm->local_comm == MPI_COMM_NULL)) {
        *err = MPI_ERR_COMM;
        return NULL;
    }
    ft_cons_t *c = calloc(1, sizeof(*c));
    /* A multiple of 8: the values of all members lie back to back in `in`, each read
     * through aligned flag and id words. */
    size_t len = (V_FAILED_OFF + 2 * (size_t)n + 7) & ~(size_t)7;
    if (c != NULL)
        c->n = n;
    if (c == NULL || (c->val = calloc(1, len)) == NULL || (c->out = malloc(len)) == NULL ||
        (c->in = malloc(len * (size_t)n)) == NULL ||
        (c->q = calloc(2 * (size_t)n, sizeof(MPI_Request))) == NULL || members(c, comm) != 0) {
        if (c != NULL) {
            free(c->val);
            free(c->out);
            free(c->in);
            free(c->q);
            free(c->world);
            free(c->rank);
        }
        free(c);
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    c->comm = comm;
    ivc_mpi_comm_retain(comm);
    c->len = len;
    /* Every member numbers its agreements on comm alike (they are collective). */
    c->tagbase = (int)((comm->ft_seq++ & 0x3fffu) << 16);
    *v_flag(c->val) = flag;
    for (int w = 0; w < IVC_MPI_ID_WORDS; w++)
        v_ids(c->val)[w] = ids != NULL ? ids[w] : ~0ull;
    acked_input(c);
    post_round(c);
    return c;
}

/* Whether member i is the only other member not known failed: then a mark made in the last
 * round disagrees with nobody (every other member failed). */
static int only_other(ft_cons_t *c, int i)
{
    for (int j = 0; j < c->n; j++)
        if (j != c->me && j != i && !v_failed(c->val)[j])
            return 0;
    return 1;
}

int ivc_mpi_ft_cons_step(ft_cons_t *c)
{
    while (c->round < c->n) {
        for (int i = 0; i < 2 * c->n; i++)
            if (c->q[i] != NULL && !c->q[i]->done)
                return 0;
        for (int i = 0; i < c->n; i++) {
            MPI_Request r = c->q[i];
            if (r == NULL)
                continue;
            if (r->status.MPI_ERROR == MPI_SUCCESS && r->status.ivc_count == (long long)c->len)
                merge(c, c->in + (size_t)i * c->len);
            else if (c->round + 1 < c->n || only_other(c, i))
                v_failed(c->val)[i] = 1; /* it failed (nothing else fails these); in the
                                          * last round only where nobody could disagree */
        }
        for (int i = 0; i < 2 * c->n; i++) {
            if (c->q[i] != NULL)
                ivc_mpi_req_free(c->q[i]);
            c->q[i] = NULL;
        }
        if (++c->round < c->n)
            post_round(c);
    }
    return 1;
}

int ivc_mpi_ft_cons_round(const ft_cons_t *c)
{
    return c->round;
}

uint32_t ivc_mpi_ft_cons_flag(const ft_cons_t *c)
{
    return *v_flag(c->val);
}

const uint64_t *ivc_mpi_ft_cons_ids(const ft_cons_t *c)
{
    return v_ids(c->val);
}

const uint8_t *ivc_mpi_ft_cons_failed(const ft_cons_t *c)
{
    return v_failed(c->val);
}

const int *ivc_mpi_ft_cons_members(const ft_cons_t *c, int *n)
{
    *n = c->n;
    return c->world;
}

int ivc_mpi_ft_cons_error(const ft_cons_t *c)
{
    const uint8_t *failed = c->val + V_FAILED_OFF, *acked = failed + c->n;
    for (int i = 0; i < c->n; i++)
        if (failed[i] && !acked[i])
            return MPIX_ERR_PROC_FAILED;
    return MPI_SUCCESS;
}

void ivc_mpi_ft_cons_free(ft_cons_t *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < 2 * c->n; i++) {
        MPI_Request r = c->q[i];
        if (r == NULL)
            continue;
        if (r->done)
            ivc_mpi_req_free(r);
        else
            r->freed = 1; /* freed by its completion; its buffers go with ours below only
                           * once decided, when none is left */
    }
    ivc_mpi_comm_release(c->comm);
    free(c->val);
    free(c->out);
    free(c->in);
    free(c->q);
    free(c->world);
    free(c->rank);
    free(c);
}
