/* Communicators: COMM_WORLD, COMM_SELF, dup/split/free/compare, names and the predefined
 * attributes.
 *
 * Context ids: every communicator has an id from a per-process mask of IDS bits; its
 * point-to-point context is 2 * id and its collective context 2 * id + 1. A new
 * communicator takes the lowest id free at every member, agreed by an allreduce (BAND) of
 * the masks over the parent. Disjoint communicators made by one split share an id safely:
 * no process belongs to two of them. */
#include "mpi_impl.h"

#include "base/ivc_biglock.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define IDS        2048
#define MASK_WORDS IVC_MPI_ID_WORDS
_Static_assert(MASK_WORDS * 64 == IDS, "one mask bit per context id");

struct ivc_mpi_comm_s ivc_obj_comm_world, ivc_obj_comm_self;
int ivc_mpi_world_rank, ivc_mpi_world_size;

static uint64_t free_ids[MASK_WORDS];
static MPI_Comm by_id[IDS]; /* the communicator holding each id here, for src/mpi/ft */
static uint64_t pledged[MASK_WORDS];  /* ids pledged to a nonblocking agreement (mpi_idup.c) */
/* Ids callers hold back (ivc_mpi_comm_ids_reserve), one set per thread. */
typedef struct reservation {
    uintptr_t thread;
    uint64_t mask[MASK_WORDS];
    struct reservation *next;
} reservation_t;
static reservation_t *reservations;

/* Blocking agreements in flight in this process (more than one only with
 * MPI_THREAD_MULTIPLE: threads that make communicators at once); each holds back what it
 * offered until its round ends. */
typedef struct agreement {
    uint32_t prio;    /* the parent's context / 2: the lowest one offers, the others wait */
    uintptr_t thread; /* ivc_biglock_self() of the thread that agrees */
    uint64_t held[MASK_WORDS];
    struct agreement *next;
} agreement_t;
static agreement_t *agreements;
static int tag_ub = INT_MAX, host_attr = MPI_PROC_NULL, io_attr = MPI_ANY_SOURCE, wtime_global;
static int appnum_attr, universe_attr, lastcode_attr;

void ivc_mpi_comm_set_dyn_attrs(int appnum, int universe)
{
    if (appnum >= 0)
        appnum_attr = appnum;
    universe_attr = universe;
}

static void id_take(int id)
{
    free_ids[id / 64] &= ~(1ull << (id % 64));
}

static void id_give(int id)
{
    free_ids[id / 64] |= 1ull << (id % 64);
}

MPI_Comm ivc_mpi_comm_by_id(int id)
{
    return id >= 0 && id < IDS ? by_id[id] : NULL;
}

int ivc_mpi_comm_ids(void)
{
    return IDS;
}

/* A communicator got its context id: make it reachable by failures and revocations. */
static void comm_register(MPI_Comm c)
{
    by_id[c->ctx_id] = c;
    ivc_mpi_ft_comm_new(c);
}

static void comm_setup(MPI_Comm c, int id, int rank, int size, int *world, const char *name)
{
    c->magic = COMM_MAGIC;
    c->ctx_id = id;
    c->ctx = 2u * (uint32_t)id;
    c->rank = rank;
    c->size = size;
    c->world = world;
    c->local_size = size;
    c->local_world = world;
    c->local_comm = MPI_COMM_NULL;
    c->errh = MPI_ERRORS_ARE_FATAL;
    c->refs = 1;
    snprintf(c->name, sizeof(c->name), "%s", name);
}

void ivc_mpi_comm_retain(MPI_Comm c)
{
    if (!c->predefined)
        c->refs++;
}

void ivc_mpi_comm_release(MPI_Comm c)
{
    if (c->predefined || --c->refs > 0)
        return;
    /* Only now may the context id serve another communicator: nothing of this one is in
     * flight any more. (-1: an MPI_Comm_idup result that never got its id.) A communicator
     * that saw a failure or a revocation keeps its id forever: abandoned operations may
     * still have messages on its way here (src/mpi/ft/ft.h). */
    if (c->ctx_id >= 0) {
        if (by_id[c->ctx_id] == c)
            by_id[c->ctx_id] = NULL;
        if (!ivc_mpi_ft_comm_release(c))
            id_give(c->ctx_id);
    }
    ivc_mpi_topo_free(c->topo);
    ivc_mpi_coll_comm_free(c);
    ivc_mpi_bbuf_comm_free(c);
    ivc_mpi_part_comm_free(c);
    if (!c->errh->predefined && --c->errh->refcount == 0)
        free(c->errh);
    if (c->info != NULL)
        PMPI_Info_free(&c->info);
    c->magic = 0;
    if (c->inter) {
        free(c->local_world);
        if (c->local_comm != MPI_COMM_NULL)
            ivc_mpi_comm_release(c->local_comm);
    }
    free(c->world);
    free(c);
}

int ivc_mpi_comm_init(void)
{
    memset(free_ids, 0xff, sizeof(free_ids));
    ivc_mpi_world_rank = (int)ivc_coord.boot.rank;
    ivc_mpi_world_size = (int)ivc_coord.boot.size;
    universe_attr = ivc_mpi_world_size;
    int *wmap = malloc((size_t)ivc_mpi_world_size * sizeof(int));
    int *smap = malloc(sizeof(int));
    if (wmap == NULL || smap == NULL)
        return -1;
    for (int r = 0; r < ivc_mpi_world_size; r++)
        wmap[r] = r;
    smap[0] = ivc_mpi_world_rank;
    id_take(0);
    id_take(1);
    id_take(IDS - 1); /* once ivc_mpi_comm_reserved_ctx()'s; kept out of use */
    comm_setup(MPI_COMM_WORLD, 0, ivc_mpi_world_rank, ivc_mpi_world_size, wmap, "MPI_COMM_WORLD");
    comm_setup(MPI_COMM_SELF, 1, 0, 1, smap, "MPI_COMM_SELF");
    MPI_COMM_WORLD->predefined = 1;
    MPI_COMM_SELF->predefined = 1;
    comm_register(MPI_COMM_WORLD);
    comm_register(MPI_COMM_SELF);
    return 0;
}

void ivc_mpi_comm_finalize(void)
{
    by_id[0] = by_id[1] = NULL;
    ivc_mpi_ft_comm_release(MPI_COMM_WORLD);
    ivc_mpi_ft_comm_release(MPI_COMM_SELF);
    ivc_mpi_coll_comm_free(MPI_COMM_WORLD);
    ivc_mpi_coll_comm_free(MPI_COMM_SELF);
    free(MPI_COMM_WORLD->world);
    free(MPI_COMM_SELF->world);
    MPI_COMM_WORLD->world = MPI_COMM_SELF->world = NULL;
    MPI_COMM_WORLD->local_world = MPI_COMM_SELF->local_world = NULL;
}

/* Blocking and nonblocking agreements run side by side (the second advanced by the progress
 * of the first's waits): a blocking one offers no id pledged to a nonblocking round, and
 * reserves what it offered until it has taken its id, so that no round pledges those. */
void ivc_mpi_comm_ids_offer(uint64_t *mask)
{
    for (int w = 0; w < MASK_WORDS; w++) {
        mask[w] = free_ids[w] & ~pledged[w];
        for (reservation_t *r = reservations; r != NULL; r = r->next)
            mask[w] &= ~r->mask[w];
        for (agreement_t *a = agreements; a != NULL; a = a->next)
            mask[w] &= ~a->held[w];
    }
}

void ivc_mpi_comm_ids_pledge(const uint64_t *mask)
{
    for (int w = 0; w < MASK_WORDS; w++)
        pledged[w] = mask != NULL ? mask[w] : 0;
}

void ivc_mpi_comm_ids_reserve(const uint64_t *mask)
{
    uintptr_t self = ivc_biglock_self();
    reservation_t **pp = &reservations;
    while (*pp != NULL && (*pp)->thread != self)
        pp = &(*pp)->next;
    if (mask == NULL) {
        reservation_t *r = *pp;
        if (r != NULL) {
            *pp = r->next;
            free(r);
        }
        return;
    }
    if (*pp == NULL) {
        /* Without memory nothing is held back: another agreement may offer these ids
         * meanwhile (as before threads: one caller held them at a time). */
        reservation_t *r = calloc(1, sizeof(*r));
        if (r == NULL)
            return;
        r->thread = self;
        *pp = r;
    }
    memcpy((*pp)->mask, mask, sizeof((*pp)->mask));
}

/* A blocking agreement's offer: the lower half of the ids when any is free there (nonblocking
 * agreements, mpi_idup.c, offer the upper half: neither finds everything held by the other),
 * else, or when `all`, every id. */
static void offer_lower(uint64_t *mask, int all)
{
    uint64_t low = 0;
    ivc_mpi_comm_ids_offer(mask);
    for (int w = 0; w < MASK_WORDS / 2; w++)
        low |= mask[w];
    if (low != 0 && !all)
        memset(mask + MASK_WORDS / 2, 0, MASK_WORDS / 2 * sizeof(uint64_t));
}

void ivc_mpi_comm_ids_pause(void)
{
    /* Unconditionally: a round over one member does not wait, and progress that found work
     * would skip the hand-over of a wait's backoff. */
    ivc_mpi_progress();
    ivc_biglock_handover();
}

int ivc_mpi_comm_ids_held(void)
{
    return agreements != NULL;
}

/* Threads of one process may agree over different parents at once, in different orders on
 * different ranks (MPI_THREAD_MULTIPLE). In every round only the agreement with the lowest
 * parent id here offers ids (those no other round in flight here holds); the others offer
 * none and try again, so their rounds fail everywhere alike (the AND is the same at every
 * member). The lowest agreement of the whole job is the lowest wherever it runs, so it
 * succeeds, and the next one follows. One more word decides for everyone alike when to stop
 * without an id: no member had another agreement in flight, and a round that offered every
 * id (not only the lower half: one member's may be used up) found none in common. With one
 * thread there is one agreement: one round, as before (two when the lower halves miss). */
int ivc_mpi_comm_ids_agree(MPI_Comm over, uint64_t *mask)
{
    if (over->inter)
        return MPI_ERR_COMM; /* the intercommunicator code agrees over both groups itself */
    agreement_t me = {over->ctx / 2, ivc_biglock_self(), {0}, agreements};
    agreements = &me;
    int rc, every = 0;
    for (;;) {
        uint64_t mine[MASK_WORDS + 1], all[MASK_WORDS + 1];
        int lowest = 1, alone = 1;
        /* This thread's own entries (one level up: a collective's lazy set-up making a
         * communicator) neither block nor count. */
        for (agreement_t *a = agreements; a != NULL; a = a->next) {
            int other = a->thread != me.thread;
            lowest &= !other || a->prio > me.prio || (a->prio == me.prio && a->thread > me.thread);
            alone &= !other;
        }
        memset(mine, 0, sizeof(mine));
        if (lowest)
            offer_lower(mine, every);
        mine[MASK_WORDS] = (uint64_t)alone;
        memcpy(me.held, mine, sizeof(me.held));
        rc = ivc_mpi_coll_allreduce(mine, all, MASK_WORDS + 1, MPI_UINT64_T, MPI_BAND, over);
        memset(me.held, 0, sizeof(me.held));
        int any = 0;
        for (int w = 0; w < MASK_WORDS; w++)
            any |= all[w] != 0;
        if (rc != MPI_SUCCESS || any || (all[MASK_WORDS] != 0 && every)) {
            memcpy(mask, all, MASK_WORDS * sizeof(uint64_t));
            break;
        }
        every = all[MASK_WORDS] != 0; /* alone everywhere: offer every id next */
        ivc_mpi_comm_ids_pause();
    }
    agreement_t **pp = &agreements;
    while (*pp != &me)
        pp = &(*pp)->next;
    *pp = me.next;
    return rc;
}

int ivc_mpi_comm_id_pop(uint64_t *mask)
{
    for (int w = 0; w < MASK_WORDS; w++) {
        if (mask[w] != 0) {
            int b = __builtin_ctzll(mask[w]);
            mask[w] &= ~(1ull << b);
            return w * 64 + b;
        }
    }
    return -1;
}

/* Agrees on the lowest context id free at every member of `parent`, and on the new
 * communicator's first collective sequence number (*seq0: the MAX of what every member
 * offers, so that its first collective needs no agreement of its own). */
static int id_agree(MPI_Comm parent, int *id, uint64_t *seq0)
{
    /* The sequence first: between the id agreement and the pop below another thread must
     * not run an agreement (a wait lets it), or it could take the same id. */
    uint64_t mask[MASK_WORDS], offer = ivc_mpi_coll_seq_offer();
    int rc = ivc_mpi_coll_allreduce(&offer, seq0, 1, MPI_UINT64_T, MPI_MAX, parent);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_comm_ids_agree(parent, mask);
    if (rc != MPI_SUCCESS)
        return rc;
    *id = ivc_mpi_comm_id_pop(mask);
    return *id < 0 ? MPI_ERR_INTERN : MPI_SUCCESS;
}

static int comm_new(MPI_Errhandler errh, int id, int rank, int size, int *world, MPI_Comm *out)
{
    MPI_Comm c = calloc(1, sizeof(*c));
    if (c == NULL) {
        free(world);
        return MPI_ERR_NO_MEM;
    }
    comm_setup(c, id, rank, size, world, "");
    c->errh = errh;
    c->errh->refcount++;
    id_take(id);
    comm_register(c);
    *out = c;
    return MPI_SUCCESS;
}

/* Index of this process in the n world ranks w, or -1. */
static int my_index(const int *w, int n)
{
    for (int i = 0; i < n; i++)
        if (w[i] == ivc_mpi_world_rank)
            return i;
    return -1;
}

int ivc_mpi_comm_with_id(MPI_Errhandler errh, int id, int *world, int n, MPI_Comm *out)
{
    int me = my_index(world, n);
    if (me < 0 || id < 0 || id >= IDS) {
        free(world);
        return MPI_ERR_INTERN;
    }
    return comm_new(errh, id, me, n, world, out);
}

int ivc_mpi_intercomm_with_ids(MPI_Errhandler errh, const int ids[2], int *lw, int nl, int *rw,
                               int nr, MPI_Comm *out)
{
    int me = my_index(lw, nl);
    int *lw2 = malloc((size_t)nl * sizeof(int));
    if (me < 0 || lw2 == NULL || ids[0] == ids[1] || ids[0] < 0 || ids[0] >= IDS) {
        free(lw);
        free(rw);
        free(lw2);
        return lw2 == NULL ? MPI_ERR_NO_MEM : MPI_ERR_INTERN;
    }
    memcpy(lw2, lw, (size_t)nl * sizeof(int));
    MPI_Comm local;
    int rc = ivc_mpi_comm_with_id(errh, ids[1], lw2, nl, &local);
    if (rc != MPI_SUCCESS) {
        free(lw);
        free(rw);
        return rc;
    }
    snprintf(local->name, sizeof(local->name), "intercomm local group");
    rc = comm_new(errh, ids[0], me, nr, rw, out);
    if (rc != MPI_SUCCESS) {
        free(lw);
        ivc_mpi_comm_release(local);
        return rc;
    }
    (*out)->inter = 1;
    (*out)->local_size = nl;
    (*out)->local_world = lw;
    (*out)->local_comm = local;
    return MPI_SUCCESS;
}

int ivc_mpi_comm_dup_pending(MPI_Comm comm, MPI_Comm *out)
{
    int *world = malloc((size_t)comm->size * sizeof(int));
    int *lw = comm->inter ? malloc((size_t)comm->local_size * sizeof(int)) : NULL;
    if (world == NULL || (comm->inter && lw == NULL)) {
        free(world);
        free(lw);
        return MPI_ERR_NO_MEM;
    }
    memcpy(world, comm->world, (size_t)comm->size * sizeof(int));
    if (lw != NULL)
        memcpy(lw, comm->local_world, (size_t)comm->local_size * sizeof(int));
    MPI_Comm c = calloc(1, sizeof(*c));
    if (c == NULL) {
        free(world);
        free(lw);
        return MPI_ERR_NO_MEM;
    }
    comm_setup(c, 0, comm->rank, comm->size, world, "");
    c->ctx_id = -1;
    c->ctx = UINT32_MAX - 1; /* matches nothing until the id is known */
    c->errh = comm->errh;
    c->errh->refcount++;
    if (lw != NULL) {
        c->inter = 1;
        c->local_size = comm->local_size;
        c->local_world = lw;
    }
    int rc = MPI_SUCCESS;
    if (comm->topo != NULL && (c->topo = ivc_mpi_topo_dup(comm->topo)) == NULL)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && comm->info != NULL)
        rc = PMPI_Info_dup(comm->info, &c->info);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_attr_copy(comm, c);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_attr_delete_all(c);
        ivc_mpi_comm_release(c);
        return rc;
    }
    *out = c;
    return MPI_SUCCESS;
}

int ivc_mpi_comm_set_ids(MPI_Comm c, const int *ids)
{
    if (ids[0] < 0 || ids[0] >= IDS)
        return MPI_ERR_INTERN;
    if (c->inter) {
        int *lw = malloc((size_t)c->local_size * sizeof(int));
        if (lw == NULL)
            return MPI_ERR_NO_MEM;
        memcpy(lw, c->local_world, (size_t)c->local_size * sizeof(int));
        int rc = ivc_mpi_comm_with_id(c->errh, ids[1], lw, c->local_size, &c->local_comm);
        if (rc != MPI_SUCCESS)
            return rc;
        snprintf(c->local_comm->name, sizeof(c->local_comm->name), "intercomm local group");
    }
    c->ctx_id = ids[0];
    c->ctx = 2u * (uint32_t)ids[0];
    id_take(ids[0]);
    comm_register(c);
    return MPI_SUCCESS;
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    CHECK_COMM(comm, "MPI_Comm_rank");
    CHECK_NULL_ARG(comm, rank, "MPI_Comm_rank", "rank");
    *rank = comm->rank;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_rank)

/* The size of the local group (of an intercommunicator too). */
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    CHECK_COMM(comm, "MPI_Comm_size");
    CHECK_NULL_ARG(comm, size, "MPI_Comm_size", "size");
    *size = comm->local_size;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_size)

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    CHECK_COMM(comm, "MPI_Comm_dup");
    CHECK_NULL_ARG(comm, newcomm, "MPI_Comm_dup", "newcomm");
    if (comm->inter)
        return ivc_mpi_intercomm_dup(comm, newcomm);
    int id;
    uint64_t seq0 = 0;
    int rc = id_agree(comm, &id, &seq0);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, "MPI_Comm_dup", "cannot agree on a context id");
    int *world = malloc((size_t)comm->size * sizeof(int));
    if (world == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, "MPI_Comm_dup", "out of memory");
    memcpy(world, comm->world, (size_t)comm->size * sizeof(int));
    rc = comm_new(comm->errh, id, comm->rank, comm->size, world, newcomm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, "MPI_Comm_dup", "out of memory");
    (*newcomm)->coll_seq0 = seq0;
    /* A duplicate keeps the topology and the hints and runs the attributes' copy callbacks. */
    if (comm->topo != NULL && ((*newcomm)->topo = ivc_mpi_topo_dup(comm->topo)) == NULL)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && comm->info != NULL)
        rc = PMPI_Info_dup(comm->info, &(*newcomm)->info);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_attr_copy(comm, *newcomm);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_attr_delete_all(*newcomm);
        ivc_mpi_comm_release(*newcomm);
        *newcomm = MPI_COMM_NULL;
        return ivc_mpi_raise(comm, rc, "MPI_Comm_dup", "copying attributes failed");
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_dup)

_Static_assert(IVC_MPI_NO_PARENT_ID == IDS - 1, "the id kept out of use");

uint32_t ivc_mpi_comm_reserved_ctx(int parent_id, int tag)
{
    uint32_t k = ((uint32_t)tag << 11) | ((uint32_t)parent_id & (IDS - 1));
    return 0x10000000u + 2u * (k & 0x07ffffffu);
}

int ivc_mpi_comm_make(MPI_Comm over, MPI_Comm parent, int member, int *world, int n, MPI_Comm *out)
{
    int id;
    uint64_t seq0 = 0;
    int rc = id_agree(over, &id, &seq0);
    if (rc != MPI_SUCCESS || !member) {
        free(world);
        *out = MPI_COMM_NULL;
        return rc;
    }
    rc = ivc_mpi_comm_with_id(parent->errh, id, world, n, out);
    if (rc == MPI_SUCCESS && *out != MPI_COMM_NULL)
        (*out)->coll_seq0 = seq0;
    return rc;
}

typedef struct split_entry {
    int color, key, rank;
} split_entry_t;

static int split_cmp(const void *a, const void *b)
{
    const split_entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split";
    CHECK_COMM(comm, fn);
    CHECK_NULL_ARG(comm, newcomm, fn, "newcomm");
    if (color < 0 && color != MPI_UNDEFINED)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "color %d is negative", color);
    if (comm->inter)
        return ivc_mpi_intercomm_split(comm, color, key, newcomm);
    int mine[3] = {color, key, comm->rank};
    split_entry_t *all = malloc((size_t)comm->size * sizeof(*all));
    if (all == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = ivc_mpi_coll_allgather(mine, 3, MPI_INT, all, 3, MPI_INT, comm);
    int id = 0;
    uint64_t seq0 = 0;
    if (rc == MPI_SUCCESS)
        rc = id_agree(comm, &id, &seq0);
    if (rc != MPI_SUCCESS) {
        free(all);
        return ivc_mpi_raise(comm, rc, fn, "exchange with the other ranks failed");
    }
    if (color == MPI_UNDEFINED) {
        free(all);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int n = 0;
    for (int i = 0; i < comm->size; i++)
        if (all[i].color == color)
            all[n++] = all[i];
    qsort(all, (size_t)n, sizeof(*all), split_cmp);
    int *world = malloc((size_t)n * sizeof(int));
    if (world == NULL) {
        free(all);
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    int myrank = 0;
    for (int i = 0; i < n; i++) {
        world[i] = comm->world[all[i].rank];
        if (all[i].rank == comm->rank)
            myrank = i;
    }
    free(all);
    rc = comm_new(comm->errh, id, myrank, n, world, newcomm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "out of memory");
    (*newcomm)->coll_seq0 = seq0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_split)

int PMPI_Comm_free(MPI_Comm *comm)
{
    const char *fn = "MPI_Comm_free";
    if (comm == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    CHECK_COMM(*comm, fn);
    MPI_Comm c = *comm;
    if (c->predefined)
        return ivc_mpi_raise(c, MPI_ERR_COMM, fn, "%s cannot be freed", c->name);
    int rc = ivc_mpi_attr_delete_all(c);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(c, rc, fn, "an attribute's delete callback failed");
    ivc_mpi_comm_release(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_free)

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* MPI_CONGRUENT (same order), MPI_SIMILAR (same members) or MPI_UNEQUAL for two lists of
 * world ranks; -1 without memory. (MPI_CONGRUENT < MPI_SIMILAR < MPI_UNEQUAL.) */
static int group_cmp(const int *w1, int n1, const int *w2, int n2)
{
    _Static_assert(MPI_CONGRUENT < MPI_SIMILAR && MPI_SIMILAR < MPI_UNEQUAL, "result order");
    if (n1 != n2)
        return MPI_UNEQUAL;
    size_t n = (size_t)n1;
    if (n == 0 || memcmp(w1, w2, n * sizeof(int)) == 0)
        return MPI_CONGRUENT;
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int));
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return -1;
    }
    memcpy(a, w1, n * sizeof(int));
    memcpy(b, w2, n * sizeof(int));
    qsort(a, n, sizeof(int), int_cmp);
    qsort(b, n, sizeof(int), int_cmp);
    int r = memcmp(a, b, n * sizeof(int)) == 0 ? MPI_SIMILAR : MPI_UNEQUAL;
    free(a);
    free(b);
    return r;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    const char *fn = "MPI_Comm_compare";
    CHECK_COMM(comm1, fn);
    CHECK_COMM(comm2, fn);
    CHECK_NULL_ARG(comm1, result, fn, "result");
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (comm1->inter != comm2->inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    /* Intercommunicators: congruent / similar when both the local and the remote groups
     * are (MPI 4.1 sec. 7.4.1). */
    int r = group_cmp(comm1->local_world, comm1->local_size, comm2->local_world, comm2->local_size);
    if (r >= 0 && comm1->inter) {
        int r2 = group_cmp(comm1->world, comm1->size, comm2->world, comm2->size);
        r = r2 < 0 ? r2 : (r2 > r ? r2 : r);
    }
    if (r < 0)
        return ivc_mpi_raise(comm1, MPI_ERR_NO_MEM, fn, "out of memory");
    *result = r;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    CHECK_COMM(comm, "MPI_Comm_test_inter");
    CHECK_NULL_ARG(comm, flag, "MPI_Comm_test_inter", "flag");
    *flag = comm->inter;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_test_inter)

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    CHECK_COMM(comm, "MPI_Comm_get_attr");
    CHECK_NULL_ARG(comm, attribute_val, "MPI_Comm_get_attr", "attribute_val");
    CHECK_NULL_ARG(comm, flag, "MPI_Comm_get_attr", "flag");
    int *val = NULL;
    switch (keyval) {
    case MPI_TAG_UB: val = &tag_ub; break;
    case MPI_HOST: val = &host_attr; break;
    case MPI_IO: val = &io_attr; break;
    case MPI_WTIME_IS_GLOBAL: val = &wtime_global; break;
    case MPI_APPNUM: val = &appnum_attr; break;
    case MPI_UNIVERSE_SIZE: val = &universe_attr; break;
    case MPI_LASTUSEDCODE:
        lastcode_attr = ivc_mpi_last_used_code(); /* >= every error code (env room) */
        val = &lastcode_attr;
        break;
    default: {
        int rc = ivc_mpi_attr_get(comm, keyval, attribute_val, flag);
        if (rc != MPI_SUCCESS)
            return ivc_mpi_raise(comm, rc, "MPI_Comm_get_attr", "unknown key %d", keyval);
        return MPI_SUCCESS;
    }
    }
    *flag = 1;
    *(int **)attribute_val = val;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_get_attr)

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    CHECK_COMM(comm, "MPI_Comm_set_name");
    CHECK_NULL_ARG(comm, name, "MPI_Comm_set_name", "name");
    snprintf(comm->name, sizeof(comm->name), "%s", name);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_set_name)

/* MPI-4.1: MPI_COMM_NULL is named "MPI_COMM_NULL". NULL name or resultlen: MPI_ERR_ARG,
 * raised on comm (on WORLD for MPI_COMM_NULL). */
int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    const char *fn = "MPI_Comm_get_name";
    if (comm == MPI_COMM_NULL) {
        CHECK_NULL_ARG(MPI_COMM_WORLD, name, fn, "name");
        CHECK_NULL_ARG(MPI_COMM_WORLD, resultlen, fn, "resultlen");
        return ivc_mpi_name_out("MPI_COMM_NULL", name, resultlen);
    }
    CHECK_COMM(comm, fn);
    CHECK_NULL_ARG(comm, name, fn, "name");
    CHECK_NULL_ARG(comm, resultlen, fn, "resultlen");
    return ivc_mpi_name_out(comm->name, name, resultlen);
}
IVC_MPI_WEAK(Comm_get_name)

/* ---- info hints ----
 * A communicator keeps the hints set on it (Comm_set_info merges, dup_with_info replaces,
 * Comm_dup / idup copy); Comm_get_info returns them. IVC acts on none of them yet, so it
 * adds none of its own. */

int ivc_mpi_comm_info_set(MPI_Comm c, MPI_Info info, int replace)
{
    if (replace && c->info != NULL)
        PMPI_Info_free(&c->info);
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (c->info == NULL) {
        int rc = PMPI_Info_create(&c->info);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    int n = 0, rc = PMPI_Info_get_nkeys(info, &n);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        char key[MPI_MAX_INFO_KEY + 1];
        int len = 0, flag = 0;
        rc = PMPI_Info_get_nthkey(info, i, key);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Info_get_valuelen(info, key, &len, &flag);
        if (rc != MPI_SUCCESS || !flag)
            continue;
        char *val = malloc((size_t)len + 1);
        if (val == NULL)
            return MPI_ERR_NO_MEM;
        rc = PMPI_Info_get(info, key, len, val, &flag);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Info_set(c->info, key, val);
        free(val);
    }
    return rc;
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    const char *fn = "MPI_Comm_set_info";
    CHECK_COMM(comm, fn);
    if (info != MPI_INFO_NULL && (info == NULL || info->magic != INFO_MAGIC))
        return ivc_mpi_raise(comm, MPI_ERR_INFO, fn, "invalid info");
    int rc = ivc_mpi_comm_info_set(comm, info, 0);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "storing the hints failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    const char *fn = "MPI_Comm_get_info";
    CHECK_COMM(comm, fn);
    if (info_used == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL info_used");
    int rc = comm->info != NULL ? PMPI_Info_dup(comm->info, info_used)
                                : PMPI_Info_create(info_used);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "out of memory");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_get_info)
