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
 * Messages travel on the fault-tolerance context (comm->ctx + IVC_FT_CTX_OFF), which
 * neither a revocation nor a failure of another member fails, with tag
 * (agreement number << 16 | round). A round waits for its sends too: they go to members
 * that post the matching receive in the same round (a member skips only ranks it knows
 * failed, and those have), so no send is left behind when the call returns. */
#include "ft/ft.h"

#include "base/ivc_log.h"

#include <stdlib.h>
#include <string.h>

/* One message / value: flag, then the context-id mask, then a byte per member. */
#define V_IDS_OFF    8
#define V_FAILED_OFF (V_IDS_OFF + IVC_MPI_ID_WORDS * 8)

struct ft_cons {
    MPI_Comm comm; /* retained */
    int n, me;
    int round; /* current round; == n once decided */
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

/* val = val combined with v. */
static void merge(ft_cons_t *c, uint8_t *v)
{
    *v_flag(c->val) &= *v_flag(v);
    uint64_t ids[IVC_MPI_ID_WORDS];
    memcpy(ids, v_ids(v), sizeof(ids));
    for (int w = 0; w < IVC_MPI_ID_WORDS; w++)
        v_ids(c->val)[w] &= ids[w];
    for (int i = 0; i < c->n; i++)
        v_failed(c->val)[i] |= v_failed(v)[i] != 0;
}

static MPI_Request xfer(ft_cons_t *c, int send, int peer)
{
    MPI_Request r = ivc_mpi_req_alloc(send ? REQ_SEND : REQ_RECV);
    if (r == NULL)
        ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory in an agreement");
    int tag = c->tagbase | c->round;
    /* A start that fails leaves r complete with its error: read at the end of the round. */
    if (send)
        ivc_mpi_start_send(r, c->out, (int)c->len, MPI_BYTE, peer, tag, c->comm, IVC_FT_CTX_OFF,
                           0);
    else
        ivc_mpi_start_recv(r, c->in + (size_t)peer * c->len, (int)c->len, MPI_BYTE, peer, tag,
                           c->comm, IVC_FT_CTX_OFF);
    return r;
}

static void post_round(ft_cons_t *c)
{
    uint8_t *failed = v_failed(c->val);
    for (int i = 0; i < c->n; i++)
        if (i != c->me && ivc_mpi_peer_failed(c->comm->world[i]))
            failed[i] = 1;
    memcpy(c->out, c->val, c->len);
    for (int i = 0; i < c->n; i++) {
        if (i == c->me || failed[i])
            continue;
        c->q[i] = xfer(c, 0, i);
        c->q[c->n + i] = xfer(c, 1, i);
    }
}

ft_cons_t *ivc_mpi_ft_cons_start(MPI_Comm comm, uint32_t flag, const uint64_t *ids, int *err)
{
    int n = comm->size;
    if (comm->inter || n >= 0x10000) {
        *err = MPI_ERR_COMM;
        return NULL;
    }
    ft_cons_t *c = calloc(1, sizeof(*c));
    /* A multiple of 8: the values of all members lie back to back in `in`, each read
     * through aligned flag and id words. */
    size_t len = (V_FAILED_OFF + (size_t)n + 7) & ~(size_t)7;
    if (c == NULL || (c->val = calloc(1, len)) == NULL || (c->out = malloc(len)) == NULL ||
        (c->in = malloc(len * (size_t)n)) == NULL ||
        (c->q = calloc(2 * (size_t)n, sizeof(MPI_Request))) == NULL) {
        if (c != NULL) {
            free(c->val);
            free(c->out);
            free(c->in);
        }
        free(c);
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    c->comm = comm;
    ivc_mpi_comm_retain(comm);
    c->n = n;
    c->me = comm->rank;
    c->len = len;
    /* Every member numbers its agreements on comm alike (they are collective). */
    c->tagbase = (int)((comm->ft_seq++ & 0x3fffu) << 16);
    *v_flag(c->val) = flag;
    for (int w = 0; w < IVC_MPI_ID_WORDS; w++)
        v_ids(c->val)[w] = ids != NULL ? ids[w] : ~0ull;
    post_round(c);
    return c;
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
            else
                v_failed(c->val)[i] = 1; /* it failed (nothing else fails these) */
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
    free(c);
}
