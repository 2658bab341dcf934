/* Helpers of the generated large-count functions (see large_count_util.h). They sit above
 * the MPI rooms and use only the public (PMPI_) interface. */
#include "binding/c/large_count_util.h"

#include <limits.h>
#include <stdlib.h>

int ivc_lc_len(MPI_Comm comm, int which)
{
    int n = 0, inter = 0, topo = MPI_UNDEFINED;
    if (!ivc_mpi_comm_valid(comm))
        return 0;
    switch (which) {
    case IVC_LC_INDEG:
    case IVC_LC_OUTDEG: {
        if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
            return 0;
        int in = 0, out = 0, w;
        if (topo == MPI_CART) {
            PMPI_Cartdim_get(comm, &in);
            in *= 2;
            out = in;
        } else if (topo == MPI_GRAPH) {
            int r;
            PMPI_Comm_rank(comm, &r);
            PMPI_Graph_neighbors_count(comm, r, &in);
            out = in;
        } else if (topo == MPI_DIST_GRAPH) {
            PMPI_Dist_graph_neighbors_count(comm, &in, &out, &w);
        }
        return which == IVC_LC_INDEG ? in : out;
    }
    case IVC_LC_REMOTE:
        PMPI_Comm_test_inter(comm, &inter);
        if (inter && PMPI_Comm_remote_size(comm, &n) == MPI_SUCCESS)
            return n;
        /* fall through */
    default:
        PMPI_Comm_size(comm, &n);
        return n;
    }
}

int ivc_lc_is_root(MPI_Comm comm, int root)
{
    int inter = 0, rank = -1;
    if (!ivc_mpi_comm_valid(comm))
        return 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return root == MPI_ROOT;
    PMPI_Comm_rank(comm, &rank);
    return rank == root;
}

static int too_large(const char *fn, const char *arg, long long v)
{
    return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn,
                         "%s = %lld does not fit IVC's int-counted transfers", arg, v);
}

int ivc_lc_narrow_count_int(MPI_Count v, int *out, const char *fn, const char *arg)
{
    if (v > INT_MAX || v < INT_MIN)
        return too_large(fn, arg, v);
    *out = (int)v;
    return MPI_SUCCESS;
}

int ivc_lc_narrow_count_aint(MPI_Count v, MPI_Aint *out, const char *fn, const char *arg)
{
    if (v > LONG_MAX || v < LONG_MIN)
        return too_large(fn, arg, v);
    *out = (MPI_Aint)v;
    return MPI_SUCCESS;
}

int ivc_lc_narrow_aint_int(MPI_Aint v, int *out, const char *fn, const char *arg)
{
    return ivc_lc_narrow_count_int((MPI_Count)v, out, fn, arg);
}

/* One body for the three array conversions: element type From to To. */
#define NARROW_ARRAY(name, From, To, lo, hi)                                                       \
    int name(const From *a, int n, To **out, const char *fn, const char *arg)                      \
    {                                                                                              \
        To *b = malloc(sizeof(To) * (size_t)(n > 0 ? n : 1));                                      \
        if (b == NULL)                                                                             \
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "no memory for %s", arg);     \
        for (int i = 0; i < n; i++) {                                                              \
            if (a[i] > (hi) || a[i] < (lo)) {                                                      \
                free(b);                                                                           \
                return too_large(fn, arg, (long long)a[i]);                                        \
            }                                                                                      \
            b[i] = (To)a[i];                                                                       \
        }                                                                                          \
        *out = b;                                                                                  \
        return MPI_SUCCESS;                                                                        \
    }
NARROW_ARRAY(ivc_lc_narrow_array_count_int, MPI_Count, int, INT_MIN, INT_MAX)
NARROW_ARRAY(ivc_lc_narrow_array_aint_int, MPI_Aint, int, INT_MIN, INT_MAX)
NARROW_ARRAY(ivc_lc_narrow_array_count_aint, MPI_Count, MPI_Aint, LONG_MIN, LONG_MAX)

int ivc_lc_unsupported(const char *fn)
{
    return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                         "not implemented by IVC");
}
