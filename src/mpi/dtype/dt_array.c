/* Array datatypes: MPI_Type_create_subarray and MPI_Type_create_darray.
 *
 * Both select, in every dimension of an n-dimensional array of oldtype, a list of runs of
 * consecutive indices (a subarray: one run; a darray: this process's blocks). The type is
 * built from the fastest-varying dimension outwards: level d is an hindexed type of the
 * runs of dimension d over level d-1, resized to span the whole dimension (lb 0, extent
 * gsize[d] times the level below), so the next level's displacements are plain multiples.
 * The last level spans the whole array: lb 0, extent the product of the sizes times
 * oldtype's extent, as the standard specifies for both constructors. */
#include "dtype/dt_impl.h"

#include <stdlib.h>

typedef struct run {
    int start, len;
} run_t;

/* Builds the array type. runs[d] / nruns[d] are dimension d's runs, gsizes[d] its size,
 * with dimension `order` (MPI_ORDER_C: the last dimension varies fastest). Returns
 * MPI_SUCCESS or a class. */
static int array_build(int ndims, const int *gsizes, run_t *const *runs, const int *nruns,
                       int order, MPI_Datatype old, MPI_Datatype *out)
{
    MPI_Datatype cur = old;
    int64_t stride = old->map.extent; /* extent of one index in the current dimension */
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        int n = nruns[d];
        int *lens = malloc((n ? (size_t)n : 1) * sizeof(int));
        MPI_Aint *disps = malloc((n ? (size_t)n : 1) * sizeof(MPI_Aint));
        MPI_Datatype h = NULL, r = NULL;
        if (lens == NULL || disps == NULL)
            rc = MPI_ERR_NO_MEM;
        for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
            lens[i] = runs[d][i].len;
            disps[i] = (MPI_Aint)runs[d][i].start * stride;
        }
        if (rc == MPI_SUCCESS)
            rc = dt_hindexed(n, lens, 0, NULL, disps, cur, &h);
        free(lens);
        free(disps);
        if (rc == MPI_SUCCESS) {
            rc = dt_resized(h, 0, (MPI_Aint)gsizes[d] * stride, &r);
            ivc_mpi_dt_release(h);
        }
        if (cur != old)
            ivc_mpi_dt_release(cur);
        cur = r;
        stride *= gsizes[d];
    }
    if (rc != MPI_SUCCESS) {
        if (cur != NULL && cur != old)
            ivc_mpi_dt_release(cur);
        return rc;
    }
    /* ndims >= 1, so cur is a type of our own. */
    *out = cur;
    return MPI_SUCCESS;
}

static void free_runs(run_t **runs, int ndims)
{
    if (runs == NULL)
        return;
    for (int d = 0; d < ndims; d++)
        free(runs[d]);
    free(runs);
}

/* The product of n sizes stays below 2^62 bytes once multiplied by the extent. */
static int sizes_fit(int n, const int *sizes, int64_t extent)
{
    int64_t total = extent < 0 ? -extent : extent;
    if (total == 0)
        total = 1;
    for (int d = 0; d < n; d++) {
        if (sizes[d] > 0 && total > (INT64_C(1) << 62) / sizes[d])
            return 0;
        total *= sizes[d] > 0 ? sizes[d] : 1;
    }
    return 1;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_subarray";
    DT_QUERY(fn, oldtype);
    if (ndims <= 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "ndims %d must be positive", ndims);
    if (array_of_sizes == NULL || array_of_subsizes == NULL || array_of_starts == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    CHECK_NULL_ARG(MPI_COMM_WORLD, newtype, fn, "newtype");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "invalid order %d", order);
    for (int d = 0; d < ndims; d++) {
        int sz = array_of_sizes[d], sub = array_of_subsizes[d], st = array_of_starts[d];
        if (sz <= 0 || sub < 0 || sub > sz || st < 0 || st > sz - sub)
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                                 "dimension %d: size %d, subsize %d, start %d", d, sz, sub, st);
    }
    if (!sizes_fit(ndims, array_of_sizes, oldtype->map.extent))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "the array is too large");
    run_t **runs = calloc((size_t)ndims, sizeof(*runs));
    int *nruns = calloc((size_t)ndims, sizeof(int));
    int rc = runs == NULL || nruns == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    for (int d = 0; rc == MPI_SUCCESS && d < ndims; d++) {
        if ((runs[d] = malloc(sizeof(run_t))) == NULL) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        runs[d][0] = (run_t){array_of_starts[d], array_of_subsizes[d]};
        nruns[d] = 1;
    }
    MPI_Datatype dt = NULL;
    if (rc == MPI_SUCCESS)
        rc = array_build(ndims, array_of_sizes, runs, nruns, order, oldtype, &dt);
    free_runs(runs, ndims);
    free(nruns);
    if (rc == MPI_SUCCESS &&
        (rc = dt_record(dt, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1)) == MPI_SUCCESS) {
        dt->ints[0] = ndims;
        for (int d = 0; d < ndims; d++) {
            dt->ints[1 + d] = array_of_sizes[d];
            dt->ints[1 + ndims + d] = array_of_subsizes[d];
            dt->ints[1 + 2 * ndims + d] = array_of_starts[d];
        }
        dt->ints[1 + 3 * ndims] = order;
        dt_record_type(dt, oldtype);
    }
    if (rc != MPI_SUCCESS) {
        if (dt != NULL)
            ivc_mpi_dt_release(dt);
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, fn, "cannot build the datatype");
    }
    *newtype = dt;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_create_subarray)

/* Dimension d's runs for the process at grid coordinate `coord`. Returns MPI_SUCCESS, or
 * MPI_ERR_ARG with *why set, or MPI_ERR_NO_MEM. */
static int darray_runs(int gsize, int distrib, int darg, int psize, int coord, run_t **out,
                       int *nout, const char **why)
{
    *out = NULL;
    *nout = 0;
    int64_t b;
    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        if (psize != 1) {
            *why = "MPI_DISTRIBUTE_NONE needs a process grid size of 1";
            return MPI_ERR_ARG;
        }
        b = gsize;
        break;
    case MPI_DISTRIBUTE_BLOCK:
        if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
            b = ((int64_t)gsize + psize - 1) / psize;
        } else if (darg <= 0 || (int64_t)darg * psize < gsize) {
            *why = "a block distribution argument must be positive and cover the dimension";
            return MPI_ERR_ARG;
        } else {
            b = darg;
        }
        break;
    case MPI_DISTRIBUTE_CYCLIC:
        if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
            b = 1;
        } else if (darg <= 0) {
            *why = "a cyclic distribution argument must be positive";
            return MPI_ERR_ARG;
        } else {
            b = darg;
        }
        break;
    default: *why = "invalid distribution"; return MPI_ERR_ARG;
    }
    /* Blocks of b start at (coord + k * psize) * b; a block distribution has at most one. */
    int64_t step = distrib == MPI_DISTRIBUTE_CYCLIC ? b * psize : INT64_MAX;
    int64_t first = (int64_t)coord * b;
    int64_t n = first >= gsize                       ? 0
                : distrib == MPI_DISTRIBUTE_CYCLIC ? (gsize - first + step - 1) / step
                                                   : 1;
    run_t *r = malloc((n ? (size_t)n : 1) * sizeof(*r));
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    for (int64_t k = 0; k < n; k++) {
        int64_t s = first + k * (distrib == MPI_DISTRIBUTE_CYCLIC ? step : 0);
        int64_t len = gsize - s < b ? gsize - s : b;
        r[k] = (run_t){(int)s, (int)len};
    }
    *out = r;
    *nout = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_darray";
    DT_QUERY(fn, oldtype);
    if (size <= 0 || rank < 0 || rank >= size)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "rank %d of %d", rank, size);
    if (ndims <= 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "ndims %d must be positive", ndims);
    if (array_of_gsizes == NULL || array_of_distribs == NULL || array_of_dargs == NULL ||
        array_of_psizes == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    CHECK_NULL_ARG(MPI_COMM_WORLD, newtype, fn, "newtype");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "invalid order %d", order);
    int64_t procs = 1;
    for (int d = 0; d < ndims; d++) {
        if (array_of_gsizes[d] <= 0 || array_of_psizes[d] <= 0)
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                                 "dimension %d: gsize %d, psize %d must be positive", d,
                                 array_of_gsizes[d], array_of_psizes[d]);
        procs *= array_of_psizes[d];
        if (procs > size)
            break;
    }
    if (procs != size)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                             "the process grid does not have %d processes", size);
    if (!sizes_fit(ndims, array_of_gsizes, oldtype->map.extent))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "the array is too large");
    run_t **runs = calloc((size_t)ndims, sizeof(*runs));
    int *nruns = calloc((size_t)ndims, sizeof(int));
    int rc = runs == NULL || nruns == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    const char *why = "cannot build the datatype";
    /* Processes are numbered in row-major order of the grid, whatever the array order. */
    int r = rank;
    for (int d = ndims - 1; rc == MPI_SUCCESS && d >= 0; d--) {
        int coord = r % array_of_psizes[d];
        r /= array_of_psizes[d];
        rc = darray_runs(array_of_gsizes[d], array_of_distribs[d], array_of_dargs[d],
                         array_of_psizes[d], coord, &runs[d], &nruns[d], &why);
    }
    MPI_Datatype dt = NULL;
    if (rc == MPI_SUCCESS)
        rc = array_build(ndims, array_of_gsizes, runs, nruns, order, oldtype, &dt);
    free_runs(runs, ndims);
    free(nruns);
    if (rc == MPI_SUCCESS &&
        (rc = dt_record(dt, MPI_COMBINER_DARRAY, 4 * ndims + 4, 0, 1)) == MPI_SUCCESS) {
        int *v = dt->ints;
        v[0] = size;
        v[1] = rank;
        v[2] = ndims;
        for (int d = 0; d < ndims; d++) {
            v[3 + d] = array_of_gsizes[d];
            v[3 + ndims + d] = array_of_distribs[d];
            v[3 + 2 * ndims + d] = array_of_dargs[d];
            v[3 + 3 * ndims + d] = array_of_psizes[d];
        }
        v[3 + 4 * ndims] = order;
        dt_record_type(dt, oldtype);
    }
    if (rc != MPI_SUCCESS) {
        if (dt != NULL)
            ivc_mpi_dt_release(dt);
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, fn, "%s", why);
    }
    *newtype = dt;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Type_create_darray)
