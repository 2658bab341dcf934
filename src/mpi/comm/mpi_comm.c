/* Communicators: COMM_WORLD, COMM_SELF, dup/split/free/compare, names and the predefined
 * attributes.
 *
 * Context ids: every communicator has an id from a per-process mask of IDS bits; its
 * point-to-point context is 2 * id and its collective context 2 * id + 1. A new
 * communicator takes the lowest id free at every member, agreed by an allreduce (BAND) of
 * the masks over the parent. Disjoint communicators made by one split share an id safely:
 * no process belongs to two of them. */
#include "mpi_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define IDS        2048
#define MASK_WORDS (IDS / 64)

struct ivc_mpi_comm_s ivc_obj_comm_world, ivc_obj_comm_self;
int ivc_mpi_world_rank, ivc_mpi_world_size;

static uint64_t free_ids[MASK_WORDS];
static int tag_ub = INT_MAX, host_attr = MPI_PROC_NULL, io_attr = MPI_ANY_SOURCE, wtime_global;
static int appnum_attr, universe_attr, lastcode_attr = MPI_ERR_LASTCODE - 1;

static void id_take(int id)
{
    free_ids[id / 64] &= ~(1ull << (id % 64));
}

static void id_give(int id)
{
    free_ids[id / 64] |= 1ull << (id % 64);
}

static void comm_setup(MPI_Comm c, int id, int rank, int size, int *world, const char *name)
{
    c->magic = COMM_MAGIC;
    c->ctx_id = id;
    c->ctx = 2u * (uint32_t)id;
    c->rank = rank;
    c->size = size;
    c->world = world;
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
     * flight any more. */
    id_give(c->ctx_id);
    ivc_mpi_topo_free(c->topo);
    ivc_mpi_coll_comm_free(c);
    if (!c->errh->predefined && --c->errh->refcount == 0)
        free(c->errh);
    c->magic = 0;
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
    id_take(IDS - 1); /* ivc_mpi_comm_reserved_ctx() */
    comm_setup(MPI_COMM_WORLD, 0, ivc_mpi_world_rank, ivc_mpi_world_size, wmap, "MPI_COMM_WORLD");
    comm_setup(MPI_COMM_SELF, 1, 0, 1, smap, "MPI_COMM_SELF");
    MPI_COMM_WORLD->predefined = 1;
    MPI_COMM_SELF->predefined = 1;
    return 0;
}

void ivc_mpi_comm_finalize(void)
{
    ivc_mpi_coll_comm_free(MPI_COMM_WORLD);
    ivc_mpi_coll_comm_free(MPI_COMM_SELF);
    free(MPI_COMM_WORLD->world);
    free(MPI_COMM_SELF->world);
    MPI_COMM_WORLD->world = MPI_COMM_SELF->world = NULL;
}

/* Agrees on the lowest context id free at every member of `parent`. */
static int id_agree(MPI_Comm parent, int *id)
{
    uint64_t mask[MASK_WORDS];
    int rc = ivc_mpi_coll_allreduce(free_ids, mask, MASK_WORDS, MPI_UINT64_T, MPI_BAND, parent);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int w = 0; w < MASK_WORDS; w++) {
        if (mask[w] != 0) {
            *id = w * 64 + __builtin_ctzll(mask[w]);
            return MPI_SUCCESS;
        }
    }
    return MPI_ERR_INTERN;
}

static int comm_new(MPI_Comm parent, int id, int rank, int size, int *world, MPI_Comm *out)
{
    MPI_Comm c = calloc(1, sizeof(*c));
    if (c == NULL) {
        free(world);
        return MPI_ERR_NO_MEM;
    }
    comm_setup(c, id, rank, size, world, "");
    c->errh = parent->errh;
    c->errh->refcount++;
    id_take(id);
    *out = c;
    return MPI_SUCCESS;
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    CHECK_COMM(comm, "MPI_Comm_rank");
    *rank = comm->rank;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_rank)

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    CHECK_COMM(comm, "MPI_Comm_size");
    *size = comm->size;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_size)

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    CHECK_COMM(comm, "MPI_Comm_dup");
    int id, rc = id_agree(comm, &id);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, "MPI_Comm_dup", "cannot agree on a context id");
    int *world = malloc((size_t)comm->size * sizeof(int));
    if (world == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, "MPI_Comm_dup", "out of memory");
    memcpy(world, comm->world, (size_t)comm->size * sizeof(int));
    rc = comm_new(comm, id, comm->rank, comm->size, world, newcomm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, "MPI_Comm_dup", "out of memory");
    /* A duplicate keeps the topology and runs the attributes' copy callbacks. */
    if (comm->topo != NULL && ((*newcomm)->topo = ivc_mpi_topo_dup(comm->topo)) == NULL)
        rc = MPI_ERR_NO_MEM;
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

uint32_t ivc_mpi_comm_reserved_ctx(void)
{
    return 2u * (IDS - 1);
}

int ivc_mpi_comm_make(MPI_Comm over, MPI_Comm parent, int member, int *world, int n, MPI_Comm *out)
{
    int id, rc = id_agree(over, &id);
    if (rc != MPI_SUCCESS || !member) {
        free(world);
        *out = MPI_COMM_NULL;
        return rc;
    }
    int myrank = -1;
    for (int i = 0; i < n; i++)
        if (world[i] == ivc_mpi_world_rank)
            myrank = i;
    if (myrank < 0) {
        free(world);
        return MPI_ERR_INTERN;
    }
    return comm_new(parent, id, myrank, n, world, out);
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
    if (color < 0 && color != MPI_UNDEFINED)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "color %d is negative", color);
    int mine[3] = {color, key, comm->rank};
    split_entry_t *all = malloc((size_t)comm->size * sizeof(*all));
    if (all == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = ivc_mpi_coll_allgather(mine, 3, MPI_INT, all, 3, MPI_INT, comm);
    int id = 0;
    if (rc == MPI_SUCCESS)
        rc = id_agree(comm, &id);
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
    rc = comm_new(comm, id, myrank, n, world, newcomm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "out of memory");
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

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    const char *fn = "MPI_Comm_compare";
    CHECK_COMM(comm1, fn);
    CHECK_COMM(comm2, fn);
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (comm1->size != comm2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    size_t n = (size_t)comm1->size;
    if (memcmp(comm1->world, comm2->world, n * sizeof(int)) == 0) {
        *result = MPI_CONGRUENT;
        return MPI_SUCCESS;
    }
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int));
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return ivc_mpi_raise(comm1, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    memcpy(a, comm1->world, n * sizeof(int));
    memcpy(b, comm2->world, n * sizeof(int));
    qsort(a, n, sizeof(int), int_cmp);
    qsort(b, n, sizeof(int), int_cmp);
    *result = memcmp(a, b, n * sizeof(int)) == 0 ? MPI_SIMILAR : MPI_UNEQUAL;
    free(a);
    free(b);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    CHECK_COMM(comm, "MPI_Comm_test_inter");
    *flag = 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_test_inter)

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    CHECK_COMM(comm, "MPI_Comm_get_attr");
    int *val = NULL;
    switch (keyval) {
    case MPI_TAG_UB: val = &tag_ub; break;
    case MPI_HOST: val = &host_attr; break;
    case MPI_IO: val = &io_attr; break;
    case MPI_WTIME_IS_GLOBAL: val = &wtime_global; break;
    case MPI_APPNUM: val = &appnum_attr; break;
    case MPI_UNIVERSE_SIZE: val = &universe_attr; break;
    case MPI_LASTUSEDCODE: val = &lastcode_attr; break;
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
    snprintf(comm->name, sizeof(comm->name), "%s", name ? name : "");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    CHECK_COMM(comm, "MPI_Comm_get_name");
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Comm_get_name)
