/* Communicator room: communicators, groups, attribute caching and virtual topologies
 * (mpi_comm.c, mpi_group.c, mpi_attr.c, mpi_topo.c). */
#ifndef IVC_MPI_COMM_H
#define IVC_MPI_COMM_H

#include <mpi.h>


#include <stdint.h>

#define COMM_MAGIC  0x434f4d4du
#define GROUP_MAGIC 0x47525550u

struct ivc_mpi_comm_s {
    uint32_t magic;
    uint32_t ctx; /* point-to-point context; collectives use ctx + 1 */
    int ctx_id;   /* index in the context-id mask (ctx = 2 * ctx_id) */
    int rank, size;
    int *world; /* comm rank -> world rank */
    MPI_Errhandler errh;
    int predefined;
    int refs; /* the user's handle plus requests in flight; freed at 0 */
    char name[MPI_MAX_OBJECT_NAME];
    struct ivc_mpi_attr *attrs; /* cached attributes (mpi_attr.c) */
    struct ivc_mpi_topo *topo;  /* virtual topology or NULL (mpi_topo.c) */
    struct ivc_coll_comm *coll; /* collective state, made at first use, or NULL (coll.h) */
};

extern int ivc_mpi_world_rank, ivc_mpi_world_size;

int ivc_mpi_comm_init(void);
void ivc_mpi_comm_finalize(void);

/* Requests keep their communicator alive: MPI_Comm_free with operations pending only drops
 * the user's reference (the standard lets them complete normally). */
void ivc_mpi_comm_retain(MPI_Comm comm);
void ivc_mpi_comm_release(MPI_Comm comm);

static inline int ivc_mpi_comm_valid(MPI_Comm comm)
{
    return comm != MPI_COMM_NULL && comm->magic == COMM_MAGIC;
}

struct ivc_mpi_group_s {
    uint32_t magic;
    int size;
    int rank;   /* this process's rank in the group, or MPI_UNDEFINED */
    int *world; /* group rank -> world rank */
    int refs;
    int predefined;
};

static inline int ivc_mpi_group_valid(MPI_Group g)
{
    return g != MPI_GROUP_NULL && g->magic == GROUP_MAGIC;
}

/* A new group of n world ranks (the array is copied). Returns NULL without memory. */
MPI_Group ivc_mpi_group_new(const int *world, int n);
void ivc_mpi_group_release(MPI_Group g);

/* Makes a communicator of the n world ranks `world` (taken over; freed on error), agreeing
 * on its context id over `over`, which every member of `over` calls collectively. A caller
 * with member == 0 gets MPI_COMM_NULL. The new communicator inherits parent's error
 * handler. Returns MPI_SUCCESS or an error class. */
int ivc_mpi_comm_make(MPI_Comm over, MPI_Comm parent, int member, int *world, int n, MPI_Comm *out);
/* The context reserved for the id agreement of MPI_Comm_create_group (not a communicator's). */
uint32_t ivc_mpi_comm_reserved_ctx(void);

/* Attribute caching: copies (Comm_dup) and deletes (Comm_free) with the user's callbacks.
 * Return MPI_SUCCESS or the first callback's error. */
int ivc_mpi_attr_copy(MPI_Comm from, MPI_Comm to);
int ivc_mpi_attr_delete_all(MPI_Comm comm);
/* Looks up a user keyval's attribute on comm; MPI_ERR_KEYVAL for an unknown key. */
int ivc_mpi_attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);

/* Topology of a communicator (copied by Comm_dup, freed with the communicator). */
struct ivc_mpi_topo {
    int kind; /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    int ndims, *dims, *periods;
    int nnodes, nedges, *index, *edges;                  /* graph */
    int indeg, outdeg, weighted, *in, *inw, *out, *outw; /* dist graph */
};
struct ivc_mpi_topo *ivc_mpi_topo_dup(const struct ivc_mpi_topo *t);
void ivc_mpi_topo_free(struct ivc_mpi_topo *t);

#endif
