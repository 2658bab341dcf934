/* Window kinds for the one-sided tests of tests/mpi/rma2: every flavor of window memory, so
 * that each behaviour runs over direct access (region memory), active messages (private
 * memory, dynamic windows, other hosts) and shared memory. */
#ifndef IVC_TESTS_RMA2_T_WIN_H
#define IVC_TESTS_RMA2_T_WIN_H

#include "../t_util.h"

enum { K_CREATE_MALLOC, K_CREATE_ALLOC_MEM, K_ALLOCATE, K_ALLOCATE_SHARED, K_DYNAMIC, K_COUNT };
static const char *const k_name[K_COUNT] = {"Win_create(malloc)", "Win_create(Alloc_mem)",
                                            "Win_allocate", "Win_allocate_shared",
                                            "Win_create_dynamic"};

typedef struct {
    int kind;
    MPI_Comm comm; /* the window's communicator (the node's ranks for allocate_shared) */
    int rank, size;
    MPI_Win win;
    unsigned char *base;
    MPI_Aint bytes;
    MPI_Aint *addr; /* dynamic: every rank's attached base address */
} twin_t;

/* Creates a window of `bytes` (zeroed), displacement unit 1. Collective over WORLD. */
static inline void twin_make(twin_t *w, int kind, MPI_Aint bytes, MPI_Info info)
{
    memset(w, 0, sizeof(*w));
    w->kind = kind;
    w->bytes = bytes;
    w->comm = MPI_COMM_WORLD;
    if (kind == K_ALLOCATE_SHARED)
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                      &w->comm));
    MPI_Comm_rank(w->comm, &w->rank);
    MPI_Comm_size(w->comm, &w->size);
    switch (kind) {
    case K_CREATE_MALLOC:
        w->base = calloc(1, (size_t)bytes);
        CHECK_MPI(MPI_Win_create(w->base, bytes, 1, info, w->comm, &w->win));
        break;
    case K_CREATE_ALLOC_MEM:
        CHECK_MPI(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &w->base));
        CHECK_MPI(MPI_Win_create(w->base, bytes, 1, info, w->comm, &w->win));
        break;
    case K_ALLOCATE:
        CHECK_MPI(MPI_Win_allocate(bytes, 1, info, w->comm, &w->base, &w->win));
        break;
    case K_ALLOCATE_SHARED:
        CHECK_MPI(MPI_Win_allocate_shared(bytes, 1, info, w->comm, &w->base, &w->win));
        break;
    default:
        w->base = calloc(1, (size_t)bytes);
        CHECK_MPI(MPI_Win_create_dynamic(info, w->comm, &w->win));
        CHECK_MPI(MPI_Win_attach(w->win, w->base, bytes));
        break;
    }
    w->addr = calloc((size_t)w->size, sizeof(MPI_Aint));
    MPI_Aint mine = 0;
    MPI_Get_address(w->base, &mine);
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, w->addr, 1, MPI_AINT, w->comm));
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w->rank, 0, w->win);
    memset(w->base, 0, (size_t)bytes);
    MPI_Win_unlock(w->rank, w->win);
    MPI_Barrier(w->comm);
}

/* The target displacement of byte `off` of rank t's window. */
static inline MPI_Aint twin_disp(const twin_t *w, int t, MPI_Aint off)
{
    return w->kind == K_DYNAMIC ? MPI_Aint_add(w->addr[t], off) : off;
}

static inline void twin_free(twin_t *w)
{
    if (w->kind == K_DYNAMIC)
        CHECK_MPI(MPI_Win_detach(w->win, w->base));
    CHECK_MPI(MPI_Win_free(&w->win));
    if (w->kind == K_CREATE_MALLOC || w->kind == K_DYNAMIC)
        free(w->base);
    else if (w->kind == K_CREATE_ALLOC_MEM)
        CHECK_MPI(MPI_Free_mem(w->base));
    if (w->comm != MPI_COMM_WORLD)
        MPI_Comm_free(&w->comm);
    free(w->addr);
}

#define CHECK_CLASS(expected, call, what)                                                          \
    do {                                                                                           \
        int t_c_ = (call);                                                                         \
        if (t_c_ != MPI_SUCCESS)                                                                   \
            MPI_Error_class(t_c_, &t_c_);                                                          \
        CHECK_INT((expected), t_c_, (what));                                                       \
    } while (0)

#endif
