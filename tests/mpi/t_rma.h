/* Helpers shared by the one-sided tests (tests/mpi/rma_*.c): the kinds of window memory,
 * so that every test runs over direct access (region memory) and over the target-side
 * active-message path (private memory). */
#ifndef IVC_TESTS_MPI_T_RMA_H
#define IVC_TESTS_MPI_T_RMA_H

#include "t_util.h"

/* The error class of a call's return code (another MPI may return codes, not classes). */
#define CHECK_CLASS(expected, call, what)                                                          \
    do {                                                                                           \
        int t_c_ = (call);                                                                         \
        if (t_c_ != MPI_SUCCESS)                                                                   \
            MPI_Error_class(t_c_, &t_c_);                                                          \
        CHECK_INT((expected), t_c_, (what));                                                       \
    } while (0)

/* --lenient: skip checks of behaviour the standard allows but does not require (used to
 * validate the test itself against MPICH, see README.md). */
#if defined(__GNUC__)
__attribute__((unused))
#endif
static int t_lenient;

enum { WK_ALLOCATE, WK_CREATE_MALLOC, WK_CREATE_ALLOC_MEM, WK_COUNT };

static const char *const t_wk_name[WK_COUNT] = {"Win_allocate", "Win_create(malloc)",
                                                "Win_create(Alloc_mem)"};

typedef struct {
    MPI_Win win;
    void *base;
    int kind;
} t_win;

/* Creates a window of `bytes` (zeroed) with displacement unit `unit` over comm. */
static inline void t_win_make(t_win *w, int kind, MPI_Aint bytes, int unit, MPI_Comm comm)
{
    w->kind = kind;
    switch (kind) {
    case WK_ALLOCATE:
        CHECK_MPI(MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, comm, &w->base, &w->win));
        break;
    case WK_CREATE_MALLOC:
        w->base = t_malloc((size_t)bytes);
        CHECK_MPI(MPI_Win_create(w->base, bytes, unit, MPI_INFO_NULL, comm, &w->win));
        break;
    default:
        CHECK_MPI(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &w->base));
        CHECK_MPI(MPI_Win_create(w->base, bytes, unit, MPI_INFO_NULL, comm, &w->win));
        break;
    }
    memset(w->base, 0, (size_t)bytes);
    MPI_Barrier(comm);
}

static inline void t_win_free(t_win *w)
{
    CHECK_MPI(MPI_Win_free(&w->win));
    CHECK_TRUE(w->win == MPI_WIN_NULL, "Win_free nulls the handle");
    if (w->kind == WK_CREATE_MALLOC)
        free(w->base);
    else if (w->kind == WK_CREATE_ALLOC_MEM)
        CHECK_MPI(MPI_Free_mem(w->base));
}

#endif
