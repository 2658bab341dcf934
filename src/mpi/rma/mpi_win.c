/* Windows: creation (Win_create, Win_allocate, Win_allocate_shared, Win_create_dynamic),
 * attach/detach, attributes, names, Win_free, and synchronization (fence, passive-target
 * locks, flushes, PSCW). Data movement is in mpi_rma.c; the design is in rma_impl.h.
 *
 * Creation, collective over the communicator: the window gets a private communicator (same
 * ranks, its own context id, which also names the window in active messages), registers
 * itself so that active messages find it, then every rank publishes where its memory and
 * control block are (region offsets, or none) with one allgather. An origin reaches a target
 * directly when the target shares the region and both offsets validate against it. */
#include "rma/rma_impl.h"

#include "base/ivc_log.h"

#include <stdlib.h>
#include <string.h>

#define IDS 2048 /* context ids (mpi_comm.c): window ids are below */

static MPI_Win windows[IDS];

MPI_Win ivc_rma_win_lookup(int id)
{
    if (id < 0 || id >= IDS)
        return NULL;
    return windows[id];
}

int ivc_rma_win_register(MPI_Win w)
{
    if (w->id < 0 || w->id >= IDS || windows[w->id] != NULL)
        return MPI_ERR_INTERN;
    windows[w->id] = w;
    return MPI_SUCCESS;
}

void ivc_rma_win_unregister(MPI_Win w)
{
    if (w->id >= 0 && w->id < IDS && windows[w->id] == w)
        windows[w->id] = NULL;
}

/* Whether world rank r shares this rank's region (the coordinator's locality view). */
static int co_located(int r)
{
    /* A rank that may migrate reaches every peer's window through messages. */
    return r == ivc_mpi_world_rank ||
           (ivc_coord.vcs != NULL && ivc_coord.shm != NULL && !ivc_coord.migrate &&
            ivc_coord.vcs[r].ops == &ivc_shm_chan_ops);
}

/* What each rank publishes at creation. */
enum { PUB_MEM, PUB_SIZE, PUB_UNIT, PUB_CTL, PUB_N };
#define NO_OFF UINT64_MAX

static void win_destroy(MPI_Win w)
{
    ivc_rma_win_unregister(w);
    if (w->mem != NULL && !ivc_mpi_mem_arena_free(w->mem))
        free(w->mem);
    if (w->shared_block != NULL)
        ivc_mpi_mem_arena_free(w->shared_block);
    if (w->ctl != NULL) {
        if (w->ctl_private)
            free(w->ctl);
        else
            ivc_mpi_mem_arena_free(w->ctl);
    }
    while (w->attached != NULL) {
        win_attach_t *a = w->attached;
        w->attached = a->next;
        free(a);
    }
    ivc_mpi_group_release(w->start_group);
    ivc_mpi_group_release(w->post_group);
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    free(w->post_done);
    free(w->peers);
    if (w->comm != NULL) {
        ivc_mpi_errh_bind_win(w->comm, NULL); /* env room: user window handlers */
        ivc_mpi_comm_release(w->comm);
    }
    w->magic = 0;
    free(w);
}

/* Collective part of every constructor. `mem` is memory the window owns (freed with it).
 * Returns MPI_SUCCESS with *out set, or an error class (nothing left allocated; `mem` is
 * the caller's to free then). */
static int win_setup(void *base, uint64_t size, int disp_unit, MPI_Comm comm, int flavor, void *mem,
                     MPI_Info info, MPI_Win *out)
{
    MPI_Win w = calloc(1, sizeof(*w));
    int *world = malloc((size_t)comm->size * sizeof(int));
    if (w == NULL || world == NULL) {
        free(w);
        free(world);
        return MPI_ERR_NO_MEM;
    }
    memcpy(world, comm->world, (size_t)comm->size * sizeof(int));
    int rc = ivc_mpi_comm_make(comm, comm, 1, world, comm->size, &w->comm);
    if (rc != MPI_SUCCESS) {
        free(w);
        return rc;
    }
    /* Errors on a window go to its own handler, ERRORS_ARE_FATAL until set. */
    PMPI_Comm_set_errhandler(w->comm, MPI_ERRORS_ARE_FATAL);
    ivc_mpi_errh_bind_win(w->comm, w); /* a user window handler receives this window */
    w->magic = WIN_MAGIC;
    w->id = w->comm->ctx_id;
    snprintf(w->comm->name, sizeof(w->comm->name), "window");
    w->base = base;
    w->size = size;
    w->disp_unit = disp_unit;
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->info = MPI_INFO_NULL;
    rc = info != MPI_INFO_NULL ? PMPI_Info_dup(info, &w->info) : PMPI_Info_create(&w->info);
    if (rc != MPI_SUCCESS) {
        w->info = MPI_INFO_NULL;
        win_destroy(w);
        return rc;
    }
    w->peers = calloc((size_t)comm->size, sizeof(*w->peers));
    uint64_t *pub = malloc((size_t)comm->size * PUB_N * sizeof(uint64_t));
    uint64_t ctl_bytes = WIN_CTL_BYTES(ivc_mpi_world_size);
    w->ctl = ivc_mpi_mem_arena_alloc(ctl_bytes);
    if (w->ctl == NULL) {
        void *p = NULL;
        w->ctl = posix_memalign(&p, IVC_CACHE_LINE, ctl_bytes) == 0 ? p : NULL;
        w->ctl_private = 1;
    }
    if (w->peers == NULL || pub == NULL || w->ctl == NULL) {
        free(pub);
        win_destroy(w);
        return MPI_ERR_NO_MEM;
    }
    ivc_store_relaxed(&w->ctl->lock, 0);
    ivc_store_relaxed(&w->ctl->acc, 0);
    ivc_store_relaxed(&w->ctl->lock_waiters, 0);
    ivc_store_relaxed(&w->ctl->acc_waiters, 0);
    for (uint64_t k = 0; k < WIN_CTL_WORDS(ivc_mpi_world_size); k++)
        ivc_store_relaxed(&w->ctl->shared[k], 0);
    if ((rc = ivc_rma_win_register(w)) != MPI_SUCCESS) {
        free(pub);
        win_destroy(w);
        return rc;
    }
    uint64_t mine[PUB_N] = {NO_OFF, size, (uint64_t)disp_unit, NO_OFF}, off;
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC && size > 0 && ivc_mpi_mem_region_off(base, size, &off))
        mine[PUB_MEM] = off;
    if (!w->ctl_private && ivc_mpi_mem_region_off(w->ctl, ctl_bytes, &off))
        mine[PUB_CTL] = off;
    /* Also the point after which every rank has registered the window: no active message
     * for it can arrive earlier. */
    rc = ivc_mpi_coll_allgather(mine, PUB_N, MPI_UINT64_T, pub, PUB_N, MPI_UINT64_T, w->comm);
    if (rc != MPI_SUCCESS) {
        free(pub);
        win_destroy(w);
        return rc;
    }
    for (int t = 0; t < comm->size; t++) {
        win_peer_t *p = &w->peers[t];
        const uint64_t *q = pub + (size_t)t * PUB_N;
        p->world = comm->world[t];
        p->size = q[PUB_SIZE];
        p->disp_unit = (uint32_t)q[PUB_UNIT];
        if (t == comm->rank) { /* this rank reaches itself through its own pointers */
            p->direct = 1;
            p->base = base;
            p->ctl = w->ctl;
            p->seen = w->ctl_private ? NULL : w->ctl;
            continue;
        }
        p->remote = !co_located(p->world);
        if (p->remote)
            continue;
        /* Offsets from a peer are untrusted: used only if they lie inside the region. */
        uint8_t *c = q[PUB_CTL] != NO_OFF && q[PUB_CTL] % IVC_CACHE_LINE == 0
                         ? ivc_region_at(&ivc_coord.region, q[PUB_CTL], ctl_bytes)
                         : NULL;
        p->seen = (ivc_win_ctl_t *)c;
        if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
            continue;
        uint8_t *m =
            q[PUB_MEM] != NO_OFF ? ivc_region_at(&ivc_coord.region, q[PUB_MEM], p->size) : NULL;
        if (c != NULL && (m != NULL || p->size == 0) && p->disp_unit > 0) {
            p->direct = 1;
            p->base = m;
            p->ctl = (ivc_win_ctl_t *)c;
        }
    }
    free(pub);
    *out = w;
    return MPI_SUCCESS;
}

static int check_create(MPI_Comm comm, MPI_Aint size, int disp_unit, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    if (comm->inter)
        return ivc_mpi_raise(comm, MPI_ERR_COMM, fn, "windows need an intracommunicator");
    if (size < 0)
        return ivc_mpi_raise(comm, MPI_ERR_SIZE, fn, "negative size %ld", size);
    if (disp_unit <= 0)
        return ivc_mpi_raise(comm, MPI_ERR_DISP, fn, "disp_unit %d must be positive", disp_unit);
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    const char *fn = "MPI_Win_create";
    int rc = check_create(comm, size, disp_unit, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(comm, win, fn, "win");
    rc = win_setup(base, (uint64_t)size, disp_unit, comm, MPI_WIN_FLAVOR_CREATE, NULL, info, win);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "creating the window failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_create)

/* Window memory: from the arena when it has room (then co-located peers reach it
 * directly), else private. */
static void *win_mem(uint64_t size)
{
    void *p = ivc_mpi_mem_arena_alloc(size);
    if (p == NULL && posix_memalign(&p, IVC_CACHE_LINE, size ? size : 1) != 0)
        p = NULL;
    return p;
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    const char *fn = "MPI_Win_allocate";
    int rc = check_create(comm, size, disp_unit, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(comm, baseptr, fn, "baseptr");
    CHECK_NULL_ARG(comm, win, fn, "win");
    void *mem = win_mem((uint64_t)size);
    if (mem == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "cannot allocate %ld bytes", size);
    rc = win_setup(mem, (uint64_t)size, disp_unit, comm, MPI_WIN_FLAVOR_ALLOCATE, mem, info, win);
    if (rc != MPI_SUCCESS) {
        if (!ivc_mpi_mem_arena_free(mem))
            free(mem);
        return ivc_mpi_raise(comm, rc, fn, "creating the window failed");
    }
    (*win)->mem = mem;
    *(void **)baseptr = mem;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_allocate)

/* Every rank's segment is carved, in rank order and contiguous (the standard's default),
 * from one block that rank 0 takes from its arena; without room there, each rank uses its
 * own arena (non-contiguous, still shared). Shared memory must be in the region, so every
 * rank must share it. */
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    const char *fn = "MPI_Win_allocate_shared";
    int rc = check_create(comm, size, disp_unit, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(comm, baseptr, fn, "baseptr");
    CHECK_NULL_ARG(comm, win, fn, "win");
    int ok = 1;
    for (int t = 0; t < comm->size; t++)
        ok &= co_located(comm->world[t]);
    uint64_t *sizes = malloc((size_t)comm->size * sizeof(uint64_t));
    if (sizes == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    uint64_t mysize = ((uint64_t)size + IVC_CACHE_LINE - 1) / IVC_CACHE_LINE * IVC_CACHE_LINE;
    rc = ivc_mpi_coll_allgather(&mysize, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, comm);
    uint64_t total = 0, prefix = 0;
    for (int t = 0; t < comm->size; t++) {
        if (t == comm->rank)
            prefix = total;
        total += sizes[t];
    }
    free(sizes);
    /* Rank 0 contributes its block's offset + 1; 0 means none. Everyone learns it. */
    void *block = NULL;
    uint64_t off = 0, got = 0;
    if (rc == MPI_SUCCESS && comm->rank == 0 && ok && comm->size > 0) {
        block = ivc_mpi_mem_arena_alloc(total);
        if (block != NULL && ivc_mpi_mem_region_off(block, total, &off))
            got = off + 1;
    }
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_coll_allreduce(&got, &off, 1, MPI_UINT64_T, MPI_MAX, comm);
    void *mine = NULL, *own = NULL;
    if (rc == MPI_SUCCESS && ok) {
        if (off != 0) {
            mine = ivc_region_at(&ivc_coord.region, off - 1 + prefix, mysize);
        } else {
            own = ivc_mpi_mem_arena_alloc(mysize);
            mine = own;
        }
    }
    /* Everyone must have its memory, or nobody creates the window. */
    int have = mine != NULL || (ok && mysize == 0), all = 0;
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_coll_allreduce(&have, &all, 1, MPI_INT, MPI_LAND, comm);
    if (rc == MPI_SUCCESS && !all)
        rc = ok ? MPI_ERR_NO_MEM : MPI_ERR_RMA_SHARED;
    if (rc == MPI_SUCCESS)
        rc = win_setup(mine, (uint64_t)size, disp_unit, comm, MPI_WIN_FLAVOR_SHARED, NULL, info,
                       win);
    if (rc != MPI_SUCCESS) {
        if (block != NULL)
            ivc_mpi_mem_arena_free(block);
        if (own != NULL)
            ivc_mpi_mem_arena_free(own);
        const char *why = rc == MPI_ERR_RMA_SHARED ? "some ranks do not share this rank's region"
                          : rc == MPI_ERR_NO_MEM ? "the region arenas have no room (IVC_RMA_ARENA)"
                                                 : "creating the window failed";
        return ivc_mpi_raise(comm, rc, fn, "%s", why);
    }
    (*win)->mem = own;
    (*win)->shared_block = block;
    *(void **)baseptr = mine;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_allocate_shared)

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    const char *fn = "MPI_Win_shared_query";
    CHECK_WIN(win, fn);
    CHECK_NULL_ARG(win->comm, size, fn, "size");
    CHECK_NULL_ARG(win->comm, disp_unit, fn, "disp_unit");
    CHECK_NULL_ARG(win->comm, baseptr, fn, "baseptr");
    int any = rank == MPI_PROC_NULL;
    if (any) { /* the first rank with memory */
        for (rank = 0; rank < win->comm->size - 1 && win->peers[rank].size == 0; rank++)
            ;
    }
    if (rank < 0 || rank >= win->comm->size)
        return ivc_mpi_raise(win->comm, MPI_ERR_RANK, fn, "rank %d", rank);
    win_peer_t *p = &win->peers[rank];
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_FLAVOR, fn, "a dynamic window has no segments");
    if (!p->direct || (p->base == NULL && p->size > 0)) {
        /* MPI-4.1: memory of a Win_create/Win_allocate window that this rank cannot load
         * (malloc'ed, or on another host) is reported as size 0 and a NULL baseptr. */
        *size = 0;
        *disp_unit = (int)p->disp_unit;
        *(void **)baseptr = NULL;
        return MPI_SUCCESS;
    }
    *size = (MPI_Aint)p->size;
    *disp_unit = (int)p->disp_unit;
    /* A rank's empty segment has no address (as MPICH, whose test suite checks it); with
     * MPI_PROC_NULL and no memory anywhere, the address is that of a zero-size allocation. */
    *(void **)baseptr = p->size == 0 && !any ? NULL : p->base;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_shared_query)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    const char *fn = "MPI_Win_create_dynamic";
    int rc = check_create(comm, 0, 1, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    CHECK_NULL_ARG(comm, win, fn, "win");
    rc = win_setup(NULL, 0, 1, comm, MPI_WIN_FLAVOR_DYNAMIC, NULL, info, win);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "creating the window failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_create_dynamic)

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    const char *fn = "MPI_Win_attach";
    CHECK_WIN(win, fn);
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_FLAVOR, fn, "not a dynamic window");
    if (size < 0 || (base == NULL && size > 0))
        return ivc_mpi_raise(win->comm, MPI_ERR_ARG, fn, "invalid memory");
    win_attach_t *a = malloc(sizeof(*a));
    if (a == NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_NO_MEM, fn, "out of memory");
    a->base = (uintptr_t)base;
    a->size = (uint64_t)size;
    a->next = win->attached;
    win->attached = a;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    const char *fn = "MPI_Win_detach";
    CHECK_WIN(win, fn);
    for (win_attach_t **p = &win->attached; *p != NULL; p = &(*p)->next) {
        if ((*p)->base == (uintptr_t)base) {
            win_attach_t *a = *p;
            *p = a->next;
            free(a);
            return MPI_SUCCESS;
        }
    }
    return ivc_mpi_raise(win->comm, MPI_ERR_RMA_ATTACH, fn, "the memory is not attached");
}
IVC_MPI_WEAK(Win_detach)

int PMPI_Win_free(MPI_Win *win)
{
    const char *fn = "MPI_Win_free";
    if (win == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    CHECK_WIN(*win, fn);
    MPI_Win w = *win;
    /* The standard makes freeing inside an access or exposure epoch erroneous; refused
     * before anything is torn down, so that the program may end the epoch and free again. */
    if (w->lock_all || w->start_group != NULL || w->post_group != NULL)
        return ivc_mpi_raise(w->comm, MPI_ERR_RMA_SYNC, fn, "an epoch is open on the window");
    for (int t = 0; t < w->comm->size; t++)
        if (w->peers[t].lock != 0)
            return ivc_mpi_raise(w->comm, MPI_ERR_RMA_SYNC, fn, "rank %d is locked", t);
    int rc = ivc_mpi_win_attr_delete_all(w); /* user attributes (comm/mpi_attr.c) */
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(w->comm, rc, fn, "an attribute's delete callback failed");
    for (int t = 0; t < w->comm->size && rc == MPI_SUCCESS; t++)
        rc = ivc_rma_flush_am(w, t);
    /* Nobody may still be accessing this rank's memory or lock words. From here a peer
     * that left the barrier first may free its block: this rank stops auditing them. */
    w->freeing = 1;
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_coll_barrier(w->comm);
    if (rc != MPI_SUCCESS) {
        w->freeing = 0;
        return ivc_mpi_raise(w->comm, rc, fn, "synchronizing with the other ranks failed");
    }
    win_destroy(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_free)

void ivc_mpi_rma_finalize(void)
{
    /* Windows the program never freed: release this rank's resources only. */
    for (int i = 0; i < IDS; i++)
        if (windows[i] != NULL)
            win_destroy(windows[i]);
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    CHECK_WIN(win, "MPI_Win_get_group");
    return PMPI_Comm_group(win->comm, group);
}
IVC_MPI_WEAK(Win_get_group)

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    const char *fn = "MPI_Win_get_attr";
    CHECK_WIN(win, fn);
    CHECK_NULL_ARG(win->comm, attribute_val, fn, "attribute_val");
    CHECK_NULL_ARG(win->comm, flag, fn, "flag");
    *flag = 1;
    win->attr_size = (MPI_Aint)win->size;
    win->attr_disp_unit = win->disp_unit;
    win->attr_flavor = win->flavor;
    win->attr_model = win->model;
    switch (win_keyval) {
    case MPI_WIN_BASE: *(void **)attribute_val = win->base; break;
    case MPI_WIN_SIZE: *(MPI_Aint **)attribute_val = &win->attr_size; break;
    case MPI_WIN_DISP_UNIT: *(int **)attribute_val = &win->attr_disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: *(int **)attribute_val = &win->attr_flavor; break;
    case MPI_WIN_MODEL: *(int **)attribute_val = &win->attr_model; break;
    default: {
        int rc = ivc_mpi_win_attr_get(win, win_keyval, attribute_val, flag); /* comm/mpi_attr.c */
        if (rc != MPI_SUCCESS)
            return ivc_mpi_raise(win->comm, rc, fn, "unknown key %d", win_keyval);
    }
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_get_attr)

/* Window errors are raised on the window's private communicator, so its handler is the
 * window's: a predefined one or one from MPI_Win_create_errhandler (ivc_mpi_raise hands it
 * the window, bound in win_setup). */
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_Win_set_errhandler";
    CHECK_WIN(win, fn);
    if (!ivc_mpi_errh_usable(errhandler, ERRH_OBJ_WIN))
        return ivc_mpi_raise(win->comm, MPI_ERR_ERRHANDLER, fn,
                             "not a predefined or window error handler");
    ivc_mpi_errh_retain(errhandler);
    ivc_mpi_errh_release(win->comm->errh);
    win->comm->errh = errhandler;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    CHECK_WIN(win, "MPI_Win_get_errhandler");
    return PMPI_Comm_get_errhandler(win->comm, errhandler);
}
IVC_MPI_WEAK(Win_get_errhandler)

/* Hints. IVC's behaviour does not depend on any: every accumulate is ordered and atomic
 * with every other, locks always work, memory is always unified. The window keeps the hints
 * given at creation and by Win_set_info (a later value replaces an earlier one), and
 * Win_get_info returns them with the standard's window hints IVC did not receive, at the
 * values IVC works with. */
static const struct {
    const char *key, *value;
    int shared_only;
} win_hints[] = {
    {"no_locks", "false", 0},
    {"accumulate_ordering", "rar,raw,war,waw", 0},
    {"accumulate_ops", "same_op_no_op", 0},
    {"mpi_accumulate_granularity", "0", 0},
    {"same_size", "false", 0},
    {"same_disp_unit", "false", 0},
    {"alloc_shared_noncontig", "false", 1},
};

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    const char *fn = "MPI_Win_set_info";
    CHECK_WIN(win, fn);
    if (info == MPI_INFO_NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_INFO, fn, "MPI_INFO_NULL");
    int n, rc = PMPI_Info_get_nkeys(info, &n);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0, len = (int)sizeof(value);
        rc = PMPI_Info_get_nthkey(info, i, key);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Info_get_string(info, key, &len, value, &flag);
        if (rc == MPI_SUCCESS && flag)
            rc = PMPI_Info_set(win->info, key, value);
    }
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "invalid info object");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    const char *fn = "MPI_Win_get_info";
    CHECK_WIN(win, fn);
    if (info_used == NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_ARG, fn, "NULL argument");
    MPI_Info info;
    int rc = PMPI_Info_dup(win->info, &info);
    for (size_t k = 0; rc == MPI_SUCCESS && k < sizeof(win_hints) / sizeof(win_hints[0]); k++) {
        int len, flag = 0;
        if (win_hints[k].shared_only && win->flavor != MPI_WIN_FLAVOR_SHARED)
            continue;
        rc = PMPI_Info_get_valuelen(info, win_hints[k].key, &len, &flag);
        if (rc == MPI_SUCCESS && !flag)
            rc = PMPI_Info_set(info, win_hints[k].key, win_hints[k].value);
    }
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "cannot build the info object");
    *info_used = info;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_get_info)

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    CHECK_WIN(win, "MPI_Win_set_name");
    CHECK_NULL_ARG(win->comm, win_name, "MPI_Win_set_name", "win_name");
    snprintf(win->name, sizeof(win->name), "%s", win_name);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_set_name)

/* MPI-4.1: MPI_WIN_NULL is named "MPI_WIN_NULL". NULL win_name or resultlen: MPI_ERR_ARG,
 * raised on the window (on WORLD for MPI_WIN_NULL). */
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    const char *fn = "MPI_Win_get_name";
    if (win == MPI_WIN_NULL) {
        CHECK_NULL_ARG(MPI_COMM_WORLD, win_name, fn, "win_name");
        CHECK_NULL_ARG(MPI_COMM_WORLD, resultlen, fn, "resultlen");
        return ivc_mpi_name_out("MPI_WIN_NULL", win_name, resultlen);
    }
    CHECK_WIN(win, fn);
    CHECK_NULL_ARG(win->comm, win_name, fn, "win_name");
    CHECK_NULL_ARG(win->comm, resultlen, fn, "resultlen");
    return ivc_mpi_name_out(win->name, win_name, resultlen);
}
IVC_MPI_WEAK(Win_get_name)

/* ---- synchronization ---- */

/* Completes every AM operation to every target. */
static int flush_all(MPI_Win w)
{
    for (int t = 0; t < w->comm->size; t++) {
        int rc = ivc_rma_flush_am(w, t);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    ivc_fence_seq_cst();
    return MPI_SUCCESS;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_fence";
    CHECK_WIN(win, fn);
    int rc = flush_all(win);
    win->fence = !(assert &MPI_MODE_NOSUCCEED);
    /* The barrier's messages order every rank's stores before every later access. */
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_coll_barrier(win->comm);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "the fence failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_fence)

static int check_target(MPI_Win w, int rank, const char *fn)
{
    if (rank < 0 || rank >= w->comm->size)
        return ivc_mpi_raise(w->comm, MPI_ERR_RANK, fn, "rank %d is not in the window", rank);
    return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock";
    CHECK_WIN(win, fn);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = check_target(win, rank, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return ivc_mpi_raise(win->comm, MPI_ERR_LOCKTYPE, fn, "lock type %d", lock_type);
    win_peer_t *p = &win->peers[rank];
    if (p->lock != 0 || win->lock_all)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "rank %d is already locked", rank);
    if (win->start_group != NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "inside a PSCW access epoch");
    /* One round of progress first, even for a free lock or MPI_MODE_NOCHECK: a rank that
     * only locks, reads and unlocks its own window (all direct, no waiting) must still
     * answer the lock requests and accesses other ranks sent it as active messages, or
     * they starve (MPICH's rma/linked_list_bench_lock_* spin so, with no other MPI call). */
    ivc_mpi_progress();
    p->nocheck = (assert &MPI_MODE_NOCHECK) != 0;
    if (!p->nocheck && (rc = ivc_rma_lock(win, rank, lock_type)) != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "locking rank %d failed", rank);
    p->lock = lock_type;
    win->fence = 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    const char *fn = "MPI_Win_unlock";
    CHECK_WIN(win, fn);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = check_target(win, rank, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    win_peer_t *p = &win->peers[rank];
    if (p->lock == 0)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "rank %d is not locked", rank);
    rc = ivc_rma_flush_am(win, rank); /* a refused access is reported, the lock released */
    int rc2 = p->nocheck ? MPI_SUCCESS : ivc_rma_unlock(win, rank, p->lock);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    p->lock = 0;
    ivc_fence_seq_cst();
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "unlocking rank %d failed", rank);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_unlock)

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock_all";
    CHECK_WIN(win, fn);
    if (win->lock_all)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "already in a lock_all epoch");
    if (win->start_group != NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "inside a PSCW access epoch");
    for (int t = 0; t < win->comm->size; t++)
        if (win->peers[t].lock != 0)
            return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "rank %d is locked", t);
    ivc_mpi_progress(); /* as in MPI_Win_lock */
    int nocheck = (assert &MPI_MODE_NOCHECK) != 0;
    for (int t = 0; t < win->comm->size; t++) {
        win->peers[t].nocheck = nocheck;
        if (!nocheck) {
            int rc = ivc_rma_lock(win, t, MPI_LOCK_SHARED);
            if (rc != MPI_SUCCESS)
                return ivc_mpi_raise(win->comm, rc, fn, "locking rank %d failed", t);
        }
        win->peers[t].lock = MPI_LOCK_SHARED;
    }
    win->lock_all = 1;
    win->fence = 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    const char *fn = "MPI_Win_unlock_all";
    CHECK_WIN(win, fn);
    if (!win->lock_all)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "not in a lock_all epoch");
    int rc = MPI_SUCCESS;
    for (int t = 0; t < win->comm->size; t++) {
        win_peer_t *p = &win->peers[t];
        int r = p->nocheck ? ivc_rma_flush_am(win, t) : ivc_rma_unlock(win, t, MPI_LOCK_SHARED);
        if (rc == MPI_SUCCESS)
            rc = r;
        p->lock = 0;
    }
    win->lock_all = 0;
    ivc_fence_seq_cst();
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "unlocking failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_unlock_all)

static int flush_one(MPI_Win win, int rank, const char *fn)
{
    CHECK_WIN(win, fn);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = check_target(win, rank, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    ivc_mpi_progress(); /* see PMPI_Win_sync */
    rc = ivc_rma_flush_am(win, rank);
    ivc_fence_seq_cst();
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "completing operations at rank %d failed", rank);
    return MPI_SUCCESS;
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    return flush_one(win, rank, "MPI_Win_flush");
}
IVC_MPI_WEAK(Win_flush)

/* Local completion is remote completion here: a direct copy is done when it returns, and an
 * active message is acknowledged once applied. */
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush_one(win, rank, "MPI_Win_flush_local");
}
IVC_MPI_WEAK(Win_flush_local)

static int flush_all_call(MPI_Win win, const char *fn)
{
    CHECK_WIN(win, fn);
    ivc_mpi_progress(); /* see PMPI_Win_sync */
    int rc = flush_all(win);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "completing operations failed");
    return MPI_SUCCESS;
}

int PMPI_Win_flush_all(MPI_Win win)
{
    return flush_all_call(win, "MPI_Win_flush_all");
}
IVC_MPI_WEAK(Win_flush_all)

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush_all_call(win, "MPI_Win_flush_local_all");
}
IVC_MPI_WEAK(Win_flush_local_all)

/* Win_sync and the flushes also run one round of progress, even with nothing of this rank
 * to complete: a rank that polls a flag in its own window with them (mpi4py.util.sync's
 * spin loops: Flush of itself, then Sync) must still serve the active messages that other
 * ranks' lock, put and accumulate requests on its window are waiting on. */
int PMPI_Win_sync(MPI_Win win)
{
    CHECK_WIN(win, "MPI_Win_sync");
    ivc_mpi_polled(ivc_mpi_progress());
    ivc_fence_seq_cst();
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_sync)

/* ---- PSCW: zero-byte messages on the window's private communicator ---- */

enum { TAG_POST = 1, TAG_COMPLETE = 2 };

/* Rank in the window of group member i. */
static int member_rank(MPI_Win w, MPI_Group g, int i)
{
    for (int t = 0; t < w->comm->size; t++)
        if (w->comm->world[t] == g->world[i])
            return t;
    return -1;
}

static int check_group(MPI_Win w, MPI_Group g, const char *fn)
{
    if (!ivc_mpi_group_valid(g))
        return ivc_mpi_raise(w->comm, MPI_ERR_GROUP, fn, "invalid group");
    for (int i = 0; i < g->size; i++)
        if (member_rank(w, g, i) < 0)
            return ivc_mpi_raise(w->comm, MPI_ERR_GROUP, fn, "the group is not in the window");
    return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_post";
    CHECK_WIN(win, fn);
    int rc = check_group(win, group, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (win->post_group != NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "already in an exposure epoch");
    free(win->post_done);
    win->post_done = calloc((size_t)group->size + 1, sizeof(int));
    if (win->post_done == NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_NO_MEM, fn, "out of memory");
    ivc_fence_seq_cst();
    for (int i = 0; i < group->size; i++) {
        rc = ivc_mpi_send_x(NULL, 0, MPI_BYTE, member_rank(win, group, i), TAG_POST, win->comm, 0);
        if (rc != MPI_SUCCESS)
            return ivc_mpi_raise(win->comm, rc, fn, "posting failed");
    }
    if (!group->predefined)
        group->refs++;
    win->post_group = group;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_post)

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_start";
    CHECK_WIN(win, fn);
    int rc = check_group(win, group, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (win->start_group != NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "already in an access epoch");
    for (int i = 0; i < group->size; i++) {
        rc = ivc_mpi_recv_x(NULL, 0, MPI_BYTE, member_rank(win, group, i), TAG_POST, win->comm, 0,
                            MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return ivc_mpi_raise(win->comm, rc, fn, "waiting for the targets' posts failed");
    }
    if (!group->predefined)
        group->refs++;
    win->start_group = group;
    win->fence = 0;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    const char *fn = "MPI_Win_complete";
    CHECK_WIN(win, fn);
    MPI_Group g = win->start_group;
    if (g == NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "no access epoch");
    int rc = MPI_SUCCESS;
    for (int i = 0; i < g->size && rc == MPI_SUCCESS; i++)
        rc = ivc_rma_flush_am(win, member_rank(win, g, i));
    ivc_fence_seq_cst();
    for (int i = 0; i < g->size && rc == MPI_SUCCESS; i++)
        rc = ivc_mpi_send_x(NULL, 0, MPI_BYTE, member_rank(win, g, i), TAG_COMPLETE, win->comm, 0);
    win->start_group = NULL;
    ivc_mpi_group_release(g);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "completing the access epoch failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_complete)

/* Receives the completions of the exposure epoch; with `block` 0 only those already here.
 * Returns MPI_SUCCESS or a class; *all = every origin completed. */
static int post_progress(MPI_Win win, int block, int *all)
{
    MPI_Group g = win->post_group;
    *all = 1;
    for (int i = 0; i < g->size; i++) {
        if (win->post_done[i])
            continue;
        int t = member_rank(win, g, i);
        if (!block && !ivc_mpi_iprobe(t, TAG_COMPLETE, win->comm, 0, MPI_STATUS_IGNORE)) {
            *all = 0;
            continue;
        }
        int rc =
            ivc_mpi_recv_x(NULL, 0, MPI_BYTE, t, TAG_COMPLETE, win->comm, 0, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        win->post_done[i] = 1;
    }
    if (*all) {
        ivc_fence_seq_cst();
        win->post_group = NULL;
        ivc_mpi_group_release(g);
    }
    return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
    const char *fn = "MPI_Win_wait";
    CHECK_WIN(win, fn);
    if (win->post_group == NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "no exposure epoch");
    int all, rc = post_progress(win, 1, &all);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "waiting for the origins failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
    const char *fn = "MPI_Win_test";
    CHECK_WIN(win, fn);
    CHECK_NULL_ARG(win->comm, flag, fn, "flag");
    if (win->post_group == NULL)
        return ivc_mpi_raise(win->comm, MPI_ERR_RMA_SYNC, fn, "no exposure epoch");
    int rc = post_progress(win, 0, flag);
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(win->comm, rc, fn, "testing for the origins failed");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Win_test)
