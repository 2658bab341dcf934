/* Intercommunicators: Intercomm_create, Intercomm_merge, Comm_remote_size/group, and the
 * intercommunicator forms of Comm_dup, Comm_split and Comm_create.
 *
 * An intercommunicator keeps the REMOTE group in comm->world/size, so point-to-point
 * addresses remote ranks unchanged; comm->rank is the rank in the local group
 * (local_world/local_size), and local_comm an intracommunicator over the local group.
 *
 * Every constructor follows one pattern (swap()): the members of each group AND their offers
 * of context ids over their local intracommunicator; the two leaders swap those masks and a
 * few integers (a group's world ranks, colors and keys, the high flag) through a "bridge"
 * communicator both belong to (the peer communicator of Intercomm_create, the
 * intercommunicator itself otherwise); each leader hands the result to its group with two
 * OR-allreduces (non-leaders contribute zeros). Both leaders pick the same ids from the
 * same AND of the two masks: ids[0] for the new intercommunicator(s), ids[1] for their
 * local communicators. Nothing holds the masks meanwhile (ids_confirm() says why), so
 * every member then checks that the two ids are still free, and both groups try again
 * unless all found them so. Communicators of different colors made by one split share ids
 * safely: no process belongs to two of them (as in mpi_comm.c). */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* Tags of the leaders' messages on the bridge's collective context (ctx + 1): above those
 * of the collectives (coll_impl.h: small values, and NBC_TAG_BASE + 20 bits). */
#define TAG_CREATE 0x40000000 /* Intercomm_create: + the user's tag (29 bits) */
#define TAG_INTER  0x7ff00000 /* operations on an existing intercommunicator */

typedef struct link {
    MPI_Comm local;  /* intracommunicator of this process's group */
    int leader;      /* the group's leader, a rank of local */
    MPI_Comm bridge; /* at the leader: reaches the other leader */
    int peer;        /* the other leader's rank in bridge */
    int tag;         /* of the leaders' messages on bridge */
    int status;      /* at the leader: an error class found in its own arguments, or 0 */
    int disjoint;    /* the ints swapped are world ranks of groups that must be disjoint */
} link_t;

/* Whether the n world ranks a and the m world ranks b have a member in common. */
static int overlap(const int *a, int n, const int *b, int m)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            if (a[i] == b[j])
                return 1;
    return 0;
}

enum { HDR_STATUS, HDR_N, HDR_ID0, HDR_ID1, HDR_WORDS };
/* A status of leader_swap: the two groups' free ids did not meet (each group's may be held
 * by agreements of other threads for now): both groups agree again, up to SWAP_ROUNDS. */
#define SWAP_RETRY  (-1)
#define SWAP_ROUNDS 10000

/* At the leader: swaps masks and n ints with the other leader; picks the ids. Fills
 * hdr[HDR_N..] and *theirs (malloc'd); returns 0 or an error class. */
static int leader_swap(link_t *l, const uint64_t *mask, const int *mine, int n, int *hdr,
                       int **theirs)
{
    const int mw = 2 * IVC_MPI_ID_WORDS; /* the mask as ints */
    int rn = -1, rc = ivc_mpi_sendrecv_x(&n, 1, MPI_INT, l->peer, l->tag, &rn, 1, MPI_INT,
                                         l->peer, l->tag, l->bridge, 1, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rn < 0 || rn > 4 * (int)ivc_coord.nvcs + 16)
        return MPI_ERR_INTERN; /* the other side is not running the same call */
    int *out = malloc((size_t)(mw + n) * sizeof(int));
    int *in = malloc((size_t)(mw + rn) * sizeof(int));
    if (out == NULL || in == NULL) {
        free(out);
        free(in);
        return MPI_ERR_NO_MEM;
    }
    memcpy(out, mask, IVC_MPI_ID_WORDS * sizeof(uint64_t));
    if (n > 0)
        memcpy(out + mw, mine, (size_t)n * sizeof(int));
    rc = ivc_mpi_sendrecv_x(out, mw + n, MPI_INT, l->peer, l->tag, in, mw + rn, MPI_INT, l->peer,
                            l->tag, l->bridge, 1, MPI_STATUS_IGNORE);
    free(out);
    if (rc != MPI_SUCCESS) {
        free(in);
        return rc;
    }
    uint64_t both[IVC_MPI_ID_WORDS];
    memcpy(both, in, sizeof(both));
    for (int w = 0; w < IVC_MPI_ID_WORDS; w++)
        both[w] &= mask[w];
    hdr[HDR_N] = rn;
    hdr[HDR_ID0] = ivc_mpi_comm_id_pop(both);
    hdr[HDR_ID1] = ivc_mpi_comm_id_pop(both);
    memmove(in, in + mw, (size_t)rn * sizeof(int));
    *theirs = in;
    /* Both leaders see the same two lists, so both fail alike. */
    if (l->disjoint && overlap(mine, n, in, rn))
        return MPI_ERR_COMM;
    return hdr[HDR_ID1] < 0 ? SWAP_RETRY : 0;
}

/* After the leaders picked ids[0..1]: whether they are still free at every member of both
 * groups (*ok). Nothing held them back while the leaders talked: holding a group's whole
 * mask across that wait deadlocked with MPI_THREAD_MULTIPLE (threads/comm/idup_comm_gen: the
 * held ids starved another thread's agreement in the leader's process, which kept the other
 * group's agreement, lower in its process, from ending, so that its leader never came).
 * Here only the two ids are held back, from the check until the caller takes them, and the
 * only wait is on the members of the two groups, all already past the leaders' swap.
 * Returns MPI_SUCCESS or an error class, the same at every member of this group. */
static int ids_confirm(link_t *l, const int ids[2], int *ok)
{
    uint64_t avail[IVC_MPI_ID_WORDS], held[IVC_MPI_ID_WORDS] = {0};
    ivc_mpi_comm_ids_offer(avail);
    int here = 1;
    for (int i = 0; i < 2; i++) {
        int id = ids[i];
        if (id < 0 || id >= 64 * IVC_MPI_ID_WORDS || !(avail[id / 64] >> (id % 64) & 1))
            here = 0;
        else
            held[id / 64] |= 1ull << (id % 64);
    }
    if (here)
        ivc_mpi_comm_ids_reserve(held);
    int group = 0, word = 1;
    int rc = ivc_mpi_coll_allreduce(&here, &group, 1, MPI_INT, MPI_BAND, l->local);
    if (rc != MPI_SUCCESS)
        return rc;
    if (l->local->rank == l->leader) {
        int theirs = 0;
        rc = ivc_mpi_sendrecv_x(&group, 1, MPI_INT, l->peer, l->tag, &theirs, 1, MPI_INT, l->peer,
                                l->tag, l->bridge, 1, MPI_STATUS_IGNORE);
        /* 1: both groups found them free; 0: try again; below 0: an error class, negated. */
        word = rc != MPI_SUCCESS ? -rc : group && theirs;
    }
    int all = 0;
    rc = ivc_mpi_coll_allreduce(&word, &all, 1, MPI_INT, MPI_MIN, l->local);
    if (rc == MPI_SUCCESS && all < 0)
        rc = -all;
    *ok = all == 1;
    return rc;
}

/* Collective over both groups: see the file comment. `mine` (n ints) counts at the leader
 * only. On success *theirs (malloc'd, *ntheirs ints) holds what the other leader sent and
 * ids[] the agreed ids, held back from other agreements here until it returns (the caller
 * takes them before any wait). Returns MPI_SUCCESS or an error class, the same at every
 * member of this group (and of the other, unless a leader's arguments were wrong). */
static int swap(link_t *l, const int *mine, int n, int **theirs, int *ntheirs, int ids[2])
{
    uint64_t mask[IVC_MPI_ID_WORDS];
    int hdr[HDR_WORDS], all[HDR_WORDS], rc;
    int *buf = NULL;
    for (int round = 0;; round++) {
        rc = ivc_mpi_comm_ids_agree(l->local, mask);
        if (rc != MPI_SUCCESS)
            return rc;
        memset(hdr, 0, sizeof(hdr));
        if (l->local->rank == l->leader) {
            hdr[HDR_STATUS] = l->status;
            if (hdr[HDR_STATUS] == 0)
                hdr[HDR_STATUS] = leader_swap(l, mask, mine, n, hdr, &buf);
            if (hdr[HDR_STATUS] != 0)
                hdr[HDR_N] = 0;
        }
        rc = ivc_mpi_coll_allreduce(hdr, all, HDR_WORDS, MPI_INT, MPI_BOR, l->local);
        if (rc != MPI_SUCCESS)
            break;
        /* Both leaders saw the same two masks, and both groups confirm alike: either both
         * come back here or neither does. */
        if (all[HDR_STATUS] == 0) {
            int ok = 0;
            if ((rc = ids_confirm(l, all + HDR_ID0, &ok)) != MPI_SUCCESS || ok)
                break;
        } else if (all[HDR_STATUS] != SWAP_RETRY) {
            break;
        }
        free(buf);
        buf = NULL;
        ivc_mpi_comm_ids_reserve(NULL);
        if (round == SWAP_ROUNDS) {
            all[HDR_STATUS] = MPI_ERR_INTERN; /* no id is free in both groups */
            break;
        }
        ivc_mpi_comm_ids_pause();
    }
    if (rc == MPI_SUCCESS && all[HDR_STATUS] != 0)
        rc = all[HDR_STATUS];
    int rn = all[HDR_N];
    if (rc == MPI_SUCCESS && buf == NULL && (buf = calloc((size_t)rn + 1, sizeof(int))) == NULL)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && rn > 0)
        rc = ivc_mpi_coll_allreduce(MPI_IN_PLACE, buf, rn, MPI_INT, MPI_BOR, l->local);
    ivc_mpi_comm_ids_reserve(NULL);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return rc;
    }
    *theirs = buf;
    *ntheirs = rn;
    ids[0] = all[HDR_ID0];
    ids[1] = all[HDR_ID1];
    return MPI_SUCCESS;
}

/* The link of an operation on the existing intercommunicator ic: leaders are local rank 0. */
static link_t ic_link(MPI_Comm ic)
{
    link_t l = {ic->local_comm, 0, ic, 0, TAG_INTER, 0, 0};
    return l;
}

static int *ints_dup(const int *a, int n)
{
    int *d = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (d != NULL && n > 0)
        memcpy(d, a, (size_t)n * sizeof(int));
    return d;
}

/* Builds the intercommunicator after a swap that sent each group's world ranks. */
static int build(link_t *l, MPI_Errhandler errh, MPI_Comm *out)
{
    int *rw = NULL, nr = 0, ids[2];
    int rc = swap(l, l->local->world, l->local->size, &rw, &nr, ids);
    if (rc != MPI_SUCCESS)
        return rc;
    if (nr < 1) {
        free(rw);
        return MPI_ERR_INTERN;
    }
    int *lw = ints_dup(l->local->world, l->local->size);
    if (lw == NULL) {
        free(rw);
        return MPI_ERR_NO_MEM;
    }
    return ivc_mpi_intercomm_with_ids(errh, ids, lw, l->local->size, rw, nr, out);
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create";
    CHECK_COMM(local_comm, fn);
    if (local_comm->inter)
        return ivc_mpi_raise(local_comm, MPI_ERR_COMM, fn, "local_comm is an intercommunicator");
    if (local_leader < 0 || local_leader >= local_comm->size)
        return ivc_mpi_raise(local_comm, MPI_ERR_RANK, fn, "local_leader %d is not a rank of %d",
                             local_leader, local_comm->size);
    if (newintercomm == NULL)
        return ivc_mpi_raise(local_comm, MPI_ERR_ARG, fn, "NULL newintercomm");
    link_t l = {local_comm, local_leader, peer_comm, remote_leader, TAG_CREATE, 0, 1};
    /* The leader checks what only it uses and still runs the agreement, so that its whole
     * group returns the error instead of waiting for it. */
    if (local_comm->rank == local_leader) {
        if (!ivc_mpi_comm_valid(peer_comm))
            l.status = MPI_ERR_COMM;
        else if (remote_leader < 0 || remote_leader >= peer_comm->size)
            l.status = MPI_ERR_RANK;
        else if (tag < 0)
            l.status = MPI_ERR_TAG;
        else if (peer_comm->world[remote_leader] == ivc_mpi_world_rank)
            l.status = MPI_ERR_RANK; /* the remote leader would be this process */
        else
            l.tag = TAG_CREATE + (tag & 0x1fffffff);
    }
    int rc = build(&l, local_comm->errh, newintercomm);
    if (rc != MPI_SUCCESS) {
        *newintercomm = MPI_COMM_NULL;
        return ivc_mpi_raise(local_comm, rc, fn,
                             rc == MPI_ERR_RANK  ? "remote_leader is not a rank of peer_comm"
                             : rc == MPI_ERR_TAG ? "negative tag"
                             : rc == MPI_ERR_COMM
                                 ? "invalid peer_comm, or the groups overlap"
                                 : "agreeing with the remote group failed");
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Intercomm_create)

int ivc_mpi_intercomm_from_worlds(const int *lw, int nl, int local_leader, const int *rw, int nr,
                                  int remote_leader, int tag, MPI_Errhandler errh, MPI_Comm *out)
{
    return ivc_mpi_intercomm_from_worlds_x(lw, nl, local_leader, rw, nr, remote_leader, tag, -1,
                                           errh, out);
}

int ivc_mpi_intercomm_from_worlds_x(const int *lw, int nl, int local_leader, const int *rw,
                                    int nr, int remote_leader, int tag, int low,
                                    MPI_Errhandler errh, MPI_Comm *out)
{
    int me = -1;
    for (int i = 0; i < nl; i++)
        if (lw[i] == ivc_mpi_world_rank)
            me = i;
    if (me < 0 || nr < 1 || local_leader < 0 || local_leader >= nl || remote_leader < 0 ||
        remote_leader >= nr || tag < 0 || overlap(lw, nl, rw, nr))
        return MPI_ERR_ARG;
    /* Stand-ins on the reserved context (see MPI_Comm_create_group): the local group, and
     * the pair of leaders (ordered by world rank, so that both agree on their ranks). */
    struct ivc_mpi_comm_s local, pair;
    memset(&local, 0, sizeof(local));
    local.magic = COMM_MAGIC;
    local.ctx = ivc_mpi_comm_reserved_ctx(IVC_MPI_NO_PARENT_ID, tag);
    local.rank = me;
    local.size = local.local_size = nl;
    local.world = local.local_world = (int *)lw;
    local.errh = errh;
    local.predefined = 1; /* requests neither retain nor free it */
    local.standin = 1;
    int pw[2] = {lw[local_leader], rw[remote_leader]};
    if (low == 0 || (low < 0 && pw[0] > pw[1])) {
        pw[0] = rw[remote_leader];
        pw[1] = lw[local_leader];
    }
    pair = local;
    /* The leaders may be in two jobs (dynamic processes, low >= 0), which number each
     * other's processes differently: the pair names them by its own ranks 0 and 1. In one
     * job it names them by world rank (a stand-in), so that the pair of another creation
     * with the same tag, whose ranks are also 0 and 1, cannot cross its messages: a member
     * that finished one creation (Create_from_groups) and started the next sent its first
     * message to a leader still in the first, which took it for its own peer's. */
    pair.standin = low < 0;
    pair.rank = pw[0] == ivc_mpi_world_rank ? 0 : 1;
    pair.size = pair.local_size = 2;
    pair.world = pair.local_world = pw;
    link_t l = {&local, local_leader, &pair, 1 - pair.rank, TAG_CREATE + (tag & 0x1fffffff), 0, 0};
    int *theirs = NULL, n = 0, ids[2];
    int rc = swap(&l, NULL, 0, &theirs, &n, ids);
    if (rc != MPI_SUCCESS)
        return rc;
    free(theirs);
    int *l2 = ints_dup(lw, nl), *r2 = ints_dup(rw, nr);
    if (l2 == NULL || r2 == NULL) {
        free(l2);
        free(r2);
        return MPI_ERR_NO_MEM;
    }
    return ivc_mpi_intercomm_with_ids(errh, ids, l2, nl, r2, nr, out);
}

int ivc_mpi_intercomm_dup(MPI_Comm comm, MPI_Comm *out)
{
    const char *fn = "MPI_Comm_dup";
    link_t l = ic_link(comm);
    int *theirs = NULL, n = 0, ids[2];
    int rc = swap(&l, NULL, 0, &theirs, &n, ids);
    free(theirs);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "agreeing with the remote group failed");
    int *lw = ints_dup(comm->local_world, comm->local_size);
    int *rw = ints_dup(comm->world, comm->size);
    if (lw == NULL || rw == NULL) {
        free(lw);
        free(rw);
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    rc = ivc_mpi_intercomm_with_ids(comm->errh, ids, lw, comm->local_size, rw, comm->size, out);
    if (rc == MPI_SUCCESS) {
        if (comm->info != NULL)
            rc = PMPI_Info_dup(comm->info, &(*out)->info);
        if (rc == MPI_SUCCESS)
            rc = ivc_mpi_attr_copy(comm, *out);
        if (rc != MPI_SUCCESS) {
            ivc_mpi_attr_delete_all(*out);
            ivc_mpi_comm_release(*out);
        }
    }
    if (rc != MPI_SUCCESS) {
        *out = MPI_COMM_NULL;
        return ivc_mpi_raise(comm, rc, fn, "duplicating the intercommunicator failed");
    }
    return MPI_SUCCESS;
}

typedef struct split_ent {
    int color, key, rank;
} split_ent_t;

static int split_cmp(const void *a, const void *b)
{
    const split_ent_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The world ranks of the members of color c in a table of n (color, key) pairs over the
 * world ranks w, ordered by key then rank; returns their number (*out malloc'd) or -1. */
static int split_members(const int *tab, int n, const int *w, int c, int **out)
{
    split_ent_t *e = malloc((size_t)(n > 0 ? n : 1) * sizeof(*e));
    int *m = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (e == NULL || m == NULL) {
        free(e);
        free(m);
        return -1;
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (tab[2 * i] == c)
            e[k++] = (split_ent_t){c, tab[2 * i + 1], i};
    qsort(e, (size_t)k, sizeof(*e), split_cmp);
    for (int i = 0; i < k; i++)
        m[i] = w[e[i].rank];
    free(e);
    *out = m;
    return k;
}

/* MPI 4.1 sec. 7.4.2: each group splits by color and key; the new intercommunicator of a
 * color joins the local and the remote members of that color. A process whose color is
 * MPI_UNDEFINED, or has no partner of its color in the other group, gets MPI_COMM_NULL. */
int ivc_mpi_intercomm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    const char *fn = "MPI_Comm_split";
    int nl = comm->local_size;
    int *tab = malloc((size_t)nl * 2 * sizeof(int)), mine[2] = {color, key};
    if (tab == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = ivc_mpi_coll_allgather(mine, 2, MPI_INT, tab, 2, MPI_INT, comm->local_comm);
    link_t l = ic_link(comm);
    int *theirs = NULL, n = 0, ids[2];
    if (rc == MPI_SUCCESS)
        rc = swap(&l, tab, 2 * nl, &theirs, &n, ids);
    if (rc == MPI_SUCCESS && n != 2 * comm->size)
        rc = MPI_ERR_INTERN;
    *out = MPI_COMM_NULL;
    int *lw = NULL, *rw = NULL, nlw = 0, nrw = 0;
    if (rc == MPI_SUCCESS && color != MPI_UNDEFINED) {
        nlw = split_members(tab, nl, comm->local_world, color, &lw);
        nrw = split_members(theirs, comm->size, comm->world, color, &rw);
        if (nlw < 0 || nrw < 0)
            rc = MPI_ERR_NO_MEM;
    }
    free(tab);
    free(theirs);
    if (rc == MPI_SUCCESS && color != MPI_UNDEFINED && nrw > 0) {
        rc = ivc_mpi_intercomm_with_ids(comm->errh, ids, lw, nlw, rw, nrw, out);
        lw = rw = NULL;
    }
    free(lw);
    free(rw);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "splitting the intercommunicator failed");
    return MPI_SUCCESS;
}

/* MPI 4.1 sec. 7.4.2: group is a subgroup of the local group (the same at every local
 * member); the new intercommunicator joins it with the group the other side passed.
 * Processes outside group, or facing an empty remote group, get MPI_COMM_NULL. */
int ivc_mpi_intercomm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out)
{
    const char *fn = "MPI_Comm_create";
    for (int i = 0; i < group->size; i++)
        if (!overlap(&group->world[i], 1, comm->local_world, comm->local_size))
            return ivc_mpi_raise(comm, MPI_ERR_GROUP, fn,
                                 "the group is not a subset of the local group");
    link_t l = ic_link(comm);
    int *rw = NULL, nr = 0, ids[2];
    int rc = swap(&l, group->world, group->size, &rw, &nr, ids);
    *out = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS && group->rank != MPI_UNDEFINED && nr > 0) {
        int *lw = ints_dup(group->world, group->size);
        if (lw == NULL) {
            free(rw);
            return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
        }
        rc = ivc_mpi_intercomm_with_ids(comm->errh, ids, lw, group->size, rw, nr, out);
        rw = NULL;
    }
    free(rw);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "creating the intercommunicator failed");
    return MPI_SUCCESS;
}

/* The group with high == 0 comes first; when both pass the same value, the group whose
 * leader has the lower world rank (the choice is free, it only has to be the same on both
 * sides). */
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    const char *fn = "MPI_Intercomm_merge";
    CHECK_COMM(intercomm, fn);
    if (!intercomm->inter)
        return ivc_mpi_raise(intercomm, MPI_ERR_COMM, fn, "not an intercommunicator");
    if (newintracomm == NULL)
        return ivc_mpi_raise(intercomm, MPI_ERR_ARG, fn, "NULL newintracomm");
    link_t l = ic_link(intercomm);
    int mine = high != 0, *theirs = NULL, n = 0, ids[2];
    int rc = swap(&l, &mine, 1, &theirs, &n, ids);
    if (rc == MPI_SUCCESS && n != 1)
        rc = MPI_ERR_INTERN;
    if (rc != MPI_SUCCESS) {
        free(theirs);
        return ivc_mpi_raise(intercomm, rc, fn, "agreeing with the remote group failed");
    }
    int rhigh = theirs[0];
    free(theirs);
    int nl = intercomm->local_size, nr = intercomm->size;
    int first = mine != rhigh ? !mine : intercomm->local_world[0] < intercomm->world[0];
    int *w = malloc((size_t)(nl + nr) * sizeof(int));
    if (w == NULL)
        return ivc_mpi_raise(intercomm, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(w + (first ? 0 : nr), intercomm->local_world, (size_t)nl * sizeof(int));
    memcpy(w + (first ? nl : 0), intercomm->world, (size_t)nr * sizeof(int));
    rc = ivc_mpi_comm_with_id(intercomm->errh, ids[0], w, nl + nr, newintracomm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(intercomm, rc, fn, "out of memory");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Intercomm_merge)

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    const char *fn = "MPI_Comm_remote_size";
    CHECK_COMM(comm, fn);
    if (!comm->inter)
        return ivc_mpi_raise(comm, MPI_ERR_COMM, fn, "not an intercommunicator");
    CHECK_NULL_ARG(comm, size, fn, "size");
    *size = comm->size;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    const char *fn = "MPI_Comm_remote_group";
    CHECK_COMM(comm, fn);
    if (!comm->inter)
        return ivc_mpi_raise(comm, MPI_ERR_COMM, fn, "not an intercommunicator");
    CHECK_NULL_ARG(comm, group, fn, "group");
    MPI_Group g = ivc_mpi_group_new(comm->world, comm->size);
    if (g == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    *group = g;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_remote_group)
