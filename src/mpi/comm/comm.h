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
    int *world; /* comm rank -> world rank; of the REMOTE group on an intercommunicator */
    /* Intercommunicators: world/size describe the remote group (point-to-point addresses
     * remote ranks unchanged), rank is this process's rank in the local group, and
     * local_size/local_world the local group; local_comm is an intracommunicator over the
     * local group (own context; for collectives' internal use), freed with the intercomm.
     * On an intracommunicator inter == 0, local_size == size, local_world == world (the
     * same array, not separately owned) and local_comm == MPI_COMM_NULL. */
    int inter;
    int local_size;
    int *local_world;
    MPI_Comm local_comm;
    MPI_Info info;      /* hints of Comm_set_info / dup_with_info (a private copy), or NULL */
    uint32_t idup_seq;  /* MPI_Comm_idup calls on this communicator (tags their agreement) */
    MPI_Errhandler errh;
    int predefined;
    /* A stand-in on a reserved context (MPI_Comm_create_group's agreement and the like):
     * disjoint groups may share that context at once, and so may consecutive calls by
     * different groups, so point-to-point names ranks by world rank on it, never by the
     * rank in the group, which another group's member may also have (mpi_p2p.c). */
    int standin;
    int refs; /* the user's handle plus requests in flight; freed at 0 */
    char name[MPI_MAX_OBJECT_NAME];
    struct ivc_mpi_attr *attrs; /* cached attributes (mpi_attr.c) */
    struct ivc_mpi_topo *topo;  /* virtual topology or NULL (mpi_topo.c) */
    struct ivc_coll_comm *coll; /* collective state, made at first use, or NULL (coll.h) */
    uint64_t coll_seq0; /* first collective sequence number, agreed at creation; 0: at first
                         * use (coll_shm.c, seq_agree) */
    struct ivc_mpi_bbuf *bbuf;  /* MPI_Comm_attach_buffer's buffer or NULL (p2p.h) */
    struct ivc_mpi_part_seq *part_seq; /* partitioned inits per (peer, tag) (mpi_part.c) */
    /* Fault tolerance (src/mpi/ft/ft.h). Counted by ivc_mpi_ft_scan() at every failure
     * event, read on slow paths only (the hot paths test ivc_mpi_ft_state first). */
    int ft_nfailed;  /* members (of either group) known to have failed */
    int ft_broken;   /* internal communicator of a failed one (hierarchy, local group) */
    int ft_revoked;  /* MPIX_Comm_revoke reached this process */
    int ft_nacked;   /* failed members acknowledged (MPIX_Comm_failure_ack/ack_failed): the
                      * first ft_nacked in the order this process learned of them */
    uint32_t ft_seq; /* agreements (agree, iagree, shrink) started on this communicator */
    uint64_t ft_id;  /* identity carried by revocation notices (ivc_mpi_ft_comm_id) */
};

extern int ivc_mpi_world_rank, ivc_mpi_world_size;

/* The Fortran glue's side of attribute caching (mpi_attr.c; exported to libmpifort). kind:
 * 'c' communicator, 't' datatype, 'w' window; h the C handle.
 *   ivc_fort_keyval_mark: keyval's callbacks are Fortran trampolines (they take values);
 *   ivc_fort_attr_mark: the attribute just set through C from Fortran holds a Fortran
 *     value (fint: MPI_ATTR_PUT's INTEGER), so C's get returns the address of its storage;
 *   ivc_fort_attr_value: 1 and *val for an attribute holding a Fortran value, else 0. */
void ivc_fort_keyval_mark(int keyval);
void ivc_fort_attr_mark(int kind, void *h, int keyval, int fint);
int ivc_fort_attr_value(int kind, void *h, int keyval, MPI_Aint *val);

int ivc_mpi_comm_init(void);
/* Dynamic processes (mpi_dyn.c): reads IVC_DYN_FD and, in a spawned process, connects to
 * the parents (collective over MPI_COMM_WORLD). Returns MPI_SUCCESS or an error class. */
int ivc_mpi_dyn_init(void);
/* MPI_APPNUM (-1: not set) and MPI_UNIVERSE_SIZE, as the launcher gave them. */
void ivc_mpi_comm_set_dyn_attrs(int appnum, int universe);
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
/* The context of the id agreement of MPI_Comm_create_group and of the stand-ins of
 * MPI_Intercomm_create_from_groups (not a communicator's): one per parent context id
 * (`parent_id`; IDS - 1 when there is none) and user tag (distinct below 2^16), so that
 * threads creating communicators at once, with different tags or parents as MPI asks, keep
 * apart. Between 2^28 and 2^29: above every communicator's context, below p2p.h's offsets. */
uint32_t ivc_mpi_comm_reserved_ctx(int parent_id, int tag);
#define IVC_MPI_NO_PARENT_ID 2047

/* ---- context ids (mpi_comm.c), for the constructors of the other files ----
 * A mask has one bit per id (IVC_MPI_ID_WORDS words); a set bit is an id free here. */
#define IVC_MPI_ID_WORDS 32
/* The ids this process can offer to a new communicator now: free, and not pledged to a
 * nonblocking agreement in flight (MPI_Comm_idup). */
void ivc_mpi_comm_ids_offer(uint64_t *mask);
/* Pledges the ids of `mask` to a nonblocking agreement (NULL withdraws the pledge): blocking
 * agreements do not offer them meanwhile. One pledge at a time. */
void ivc_mpi_comm_ids_pledge(const uint64_t *mask);
/* Reserves the ids of `mask` for a blocking agreement until it has taken its ids (NULL
 * withdraws): nonblocking rounds do not pledge them meanwhile. ivc_mpi_comm_ids_agree()
 * reserves during its allreduce; a caller that waits for more (other messages) before taking
 * its ids reserves the agreed mask itself meanwhile. */
void ivc_mpi_comm_ids_reserve(const uint64_t *mask);
/* ivc_mpi_comm_ids_offer() AND-reduced over the intracommunicator `over` (collective).
 * Returns MPI_SUCCESS or an error class. */
int ivc_mpi_comm_ids_agree(MPI_Comm over, uint64_t *mask);
/* Between two rounds of an agreement that found no id: lets the other agreements in flight
 * (other threads', MPI_THREAD_MULTIPLE) move on, handing the lock over. */
void ivc_mpi_comm_ids_pause(void);
/* Whether a blocking agreement is in flight here (its offer is held from the others). */
int ivc_mpi_comm_ids_held(void);
/* Removes and returns the lowest id set in mask, or -1 if none is. */
int ivc_mpi_comm_id_pop(uint64_t *mask);
/* Makes the intracommunicator of the n world ranks `world` (taken over; freed on error),
 * which must include this process, with the agreed context id `id`, handler errh. Returns
 * MPI_SUCCESS or MPI_ERR_NO_MEM / MPI_ERR_INTERN. */
int ivc_mpi_comm_with_id(MPI_Errhandler errh, int id, int *world, int n, MPI_Comm *out);
/* Makes an intercommunicator: local group lw (nl world ranks, this process among them) and
 * remote group rw (nr), context id ids[0], its local communicator's id ids[1] (both agreed
 * by every member of both groups); lw and rw are taken over (freed on error). Returns
 * MPI_SUCCESS or MPI_ERR_NO_MEM / MPI_ERR_INTERN. */
int ivc_mpi_intercomm_with_ids(MPI_Errhandler errh, const int ids[2], int *lw, int nl, int *rw,
                               int nr, MPI_Comm *out);

/* MPI_Comm_idup: a copy of comm (groups, handler, topology, info; attributes copied now)
 * whose context id is not yet known (it matches no message); ivc_mpi_comm_set_ids() gives
 * it the agreed id(s) (ids[1]: the local communicator of an intercommunicator). Both return
 * MPI_SUCCESS or an error class. */
int ivc_mpi_comm_dup_pending(MPI_Comm comm, MPI_Comm *out);
int ivc_mpi_comm_set_ids(MPI_Comm c, const int *ids);

/* Stores the hints of info on c: merged into those it has, or replacing them (replace).
 * Returns MPI_SUCCESS or an error class. */
int ivc_mpi_comm_info_set(MPI_Comm c, MPI_Info info, int replace);

/* ---- intercommunicators (mpi_intercomm.c) ---- */
/* For MPI_Intercomm_create_from_groups: makes the intercommunicator between this process's
 * group lw (nl world ranks, group order) and the remote group rw (nr world ranks), which
 * must be disjoint. Collective over both groups, each member passing its own group as lw:
 * the groups agree internally on a reserved context (as MPI_Comm_create_group) and the two
 * leaders lw[local_leader] and rw[remote_leader] exchange messages tagged `tag` (>= 0; e.g.
 * a hash of the string tag: concurrent calls by the same leaders need different tags).
 * The arrays stay the caller's. Returns MPI_SUCCESS or an error class (nothing raised). */
int ivc_mpi_intercomm_from_worlds(const int *lw, int nl, int local_leader, const int *rw, int nr,
                                  int remote_leader, int tag, MPI_Errhandler errh, MPI_Comm *out);
/* The same where the two groups number world ranks differently (dynamic processes: world
 * ids past the job's size name another job's processes, numbered by each process as it
 * meets them): `low` says whether this group's leader is the first of the leaders' pair
 * (1) or the second (0), which the two sides must choose opposite (-1: by world rank, as
 * ivc_mpi_intercomm_from_worlds). */
int ivc_mpi_intercomm_from_worlds_x(const int *lw, int nl, int local_leader, const int *rw,
                                    int nr, int remote_leader, int tag, int low,
                                    MPI_Errhandler errh, MPI_Comm *out);
/* Intercommunicator forms of the constructors (Comm_dup, Comm_split, Comm_create call them
 * for an intercommunicator). They raise on comm; return MPI_SUCCESS or the class raised. */
int ivc_mpi_intercomm_dup(MPI_Comm comm, MPI_Comm *out);
int ivc_mpi_intercomm_split(MPI_Comm comm, int color, int key, MPI_Comm *out);
int ivc_mpi_intercomm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out);

/* ---- nonblocking agreements (mpi_idup.c) ---- */
/* Advances the MPI_Comm_idup agreements in flight; called from ivc_mpi_progress() while
 * ivc_mpi_comm_pending is non-zero. Returns the number of steps taken. */
extern int ivc_mpi_comm_pending;
int ivc_mpi_comm_progress(void);

/* ---- fault tolerance hooks (mpi_comm.c; the logic lives in src/mpi/ft) ----
 * Every communicator with a context id is registered by id while it lives, so that a
 * failure or a revocation notice can reach it. Returns the communicator registered under
 * context id `id`, or NULL. */
MPI_Comm ivc_mpi_comm_by_id(int id);
/* Number of context ids (registry slots). */
int ivc_mpi_comm_ids(void);

/* Attribute caching: copies (Comm_dup) and deletes (Comm_free) with the user's callbacks.
 * Return MPI_SUCCESS or the first callback's error. */
int ivc_mpi_attr_copy(MPI_Comm from, MPI_Comm to);
int ivc_mpi_attr_delete_all(MPI_Comm comm);
/* Looks up a user keyval's attribute on comm; MPI_ERR_KEYVAL for an unknown key. */
int ivc_mpi_attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
/* The same for datatypes (copied by Type_dup, deleted by Type_free) and windows (looked up
 * by Win_get_attr for keys other than the predefined ones, deleted by Win_free). Return
 * MPI_SUCCESS, the first callback's error, or MPI_ERR_KEYVAL (get: not a window keyval). */
int ivc_mpi_type_attr_copy(MPI_Datatype from, MPI_Datatype to);
int ivc_mpi_type_attr_delete_all(MPI_Datatype dt);
int ivc_mpi_win_attr_get(MPI_Win win, int keyval, void *attribute_val, int *flag);
int ivc_mpi_win_attr_delete_all(MPI_Win win);

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
