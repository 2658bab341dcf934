/* Helpers of the generated large-count `_c` functions (large_count.c): narrowing of counts
 * and displacements to the `int` forms, and the lengths of collective count arrays. Every
 * function returns MPI_SUCCESS or raises and returns an error class; arrays come back in
 * fresh allocations the caller frees. */
#ifndef IVC_BINDING_LARGE_COUNT_UTIL_H
#define IVC_BINDING_LARGE_COUNT_UTIL_H

#include "mpi_impl.h"

enum {
    IVC_LC_REMOTE, /* the remote group of an intercommunicator, else the group */
    IVC_LC_LOCAL,  /* the local group */
    IVC_LC_INDEG,  /* neighbourhood collectives: sources */
    IVC_LC_OUTDEG  /* neighbourhood collectives: destinations */
};

/* Length of a count or displacement array of a collective on comm (0 if comm is invalid:
 * the called function then reports the communicator). */
int ivc_lc_len(MPI_Comm comm, int which);
/* Whether this process is the root of a rooted collective (root-only arrays). */
int ivc_lc_is_root(MPI_Comm comm, int root);

int ivc_lc_narrow_count_int(MPI_Count v, int *out, const char *fn, const char *arg);
int ivc_lc_narrow_count_aint(MPI_Count v, MPI_Aint *out, const char *fn, const char *arg);
int ivc_lc_narrow_aint_int(MPI_Aint v, int *out, const char *fn, const char *arg);
int ivc_lc_narrow_array_count_int(const MPI_Count *a, int n, int **out, const char *fn,
                                  const char *arg);
int ivc_lc_narrow_array_aint_int(const MPI_Aint *a, int n, int **out, const char *fn,
                                 const char *arg);
int ivc_lc_narrow_array_count_aint(const MPI_Count *a, int n, MPI_Aint **out, const char *fn,
                                   const char *arg);

/* A `_c` function whose `int` twin libmpi lacks: raises MPI_ERR_UNSUPPORTED_OPERATION. */
int ivc_lc_unsupported(const char *fn);

#endif
