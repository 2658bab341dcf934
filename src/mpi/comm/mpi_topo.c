/* Virtual topologies: Cartesian, graph and distributed graph. Reordering is never done
 * (allowed by the standard): rank i of the new communicator is rank i of the old one. */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

int ivc_obj_unweighted[1], ivc_obj_weights_empty[1];

static int *dup_ints(const int *a, int n)
{
    int *d = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (d != NULL && n > 0 && a != NULL)
        memcpy(d, a, (size_t)n * sizeof(int));
    return d;
}

void ivc_mpi_topo_free(struct ivc_mpi_topo *t)
{
    if (t == NULL)
        return;
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    free(t->in);
    free(t->inw);
    free(t->out);
    free(t->outw);
    free(t);
}

struct ivc_mpi_topo *ivc_mpi_topo_dup(const struct ivc_mpi_topo *t)
{
    struct ivc_mpi_topo *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return NULL;
    *d = *t;
    d->dims = dup_ints(t->dims, t->ndims);
    d->periods = dup_ints(t->periods, t->ndims);
    d->index = dup_ints(t->index, t->nnodes);
    d->edges = dup_ints(t->edges, t->nedges);
    d->in = dup_ints(t->in, t->indeg);
    d->inw = dup_ints(t->inw, t->indeg);
    d->out = dup_ints(t->out, t->outdeg);
    d->outw = dup_ints(t->outw, t->outdeg);
    if (!d->dims || !d->periods || !d->index || !d->edges || !d->in || !d->inw || !d->out ||
        !d->outw) {
        ivc_mpi_topo_free(d);
        return NULL;
    }
    return d;
}

/* Raises MPI_ERR_TOPOLOGY unless comm has a topology of `kind`. */
#define CHECK_TOPO(comm, k, fn)                                                                    \
    do {                                                                                           \
        CHECK_COMM(comm, fn);                                                                      \
        if ((comm)->topo == NULL || (comm)->topo->kind != (k))                                     \
            return ivc_mpi_raise(comm, MPI_ERR_TOPOLOGY, fn, "wrong or no topology");              \
    } while (0)

/* Topologies are defined on intracommunicators only (MPI 4.1 sec. 8.5). */
#define CHECK_INTRA(comm, fn)                                                                      \
    do {                                                                                           \
        CHECK_COMM(comm, fn);                                                                      \
        if ((comm)->inter)                                                                         \
            return ivc_mpi_raise(comm, MPI_ERR_COMM, fn, "comm is an intercommunicator");         \
    } while (0)

/* Makes a communicator of the first n ranks of comm, with topology t (taken over). */
static int topo_comm(MPI_Comm comm, int n, struct ivc_mpi_topo *t, MPI_Comm *out, const char *fn)
{
    int *w = dup_ints(comm->world, n);
    if (w == NULL || t == NULL) {
        free(w);
        ivc_mpi_topo_free(t);
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    int rc = ivc_mpi_comm_make(comm, comm, comm->rank < n, w, n, out);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_topo_free(t);
        return ivc_mpi_raise(comm, rc, fn, "creating the communicator failed");
    }
    if (*out == MPI_COMM_NULL)
        ivc_mpi_topo_free(t);
    else
        (*out)->topo = t;
    return MPI_SUCCESS;
}

/* ---- Cartesian ---- */

/* Best factorization search of Dims_create: the free dimensions take divisors of m in
 * non-increasing order; the most balanced choice (smallest largest - smallest) wins, and
 * among equally balanced ones the one with the larger smallest factor, then the larger
 * next-smallest, and so on: the choice MPICH makes (its test topo/dims5 checks 75,000 cases;
 * the standard leaves ties open). f[k..n) are chosen from divs (descending) below `cap`, with
 * product `rem`. */
typedef struct dims_search {
    int n, *f, *best;
    const int *divs;
    int ndivs;
    long best_spread;
} dims_search_t;

static void dims_search(dims_search_t *s, int k, long rem, long cap)
{
    if (k == s->n - 1) {
        if (rem > cap)
            return;
        s->f[k] = (int)rem;
        long spread = s->f[0] - rem;
        int better = spread < s->best_spread;
        if (spread == s->best_spread) /* a tie: the larger smallest factor, then the next */
            for (int j = k; j >= 0; j--)
                if (s->f[j] != s->best[j]) {
                    better = s->f[j] > s->best[j];
                    break;
                }
        if (better) {
            s->best_spread = spread;
            memcpy(s->best, s->f, (size_t)s->n * sizeof(int));
        }
        return;
    }
    for (int i = 0; i < s->ndivs; i++) {
        long d = s->divs[i];
        if (d > cap || rem % d != 0)
            continue;
        /* The later factors are at most d, so the spread is at least f[0] - d, and the
         * n - k factors left multiply to rem: d^(n-k) >= rem. */
        if (k > 0 && s->f[0] - d > s->best_spread)
            break;
        long p = 1;
        for (int j = 0; j < s->n - k && p < rem; j++)
            p *= d;
        if (p < rem)
            break;
        s->f[k] = (int)d;
        dims_search(s, k + 1, rem / d, d);
    }
}

/* Fills the zero entries of dims with a balanced factorization of nnodes / (product of
 * the non-zero ones), in non-increasing order, as MPICH does: Dims_create(72, 2) = 9 x 8,
 * (16, 3) = 4 x 2 x 2. MPI_ERR_DIMS for a negative entry or ndims, or when the fixed entries
 * do not divide nnodes; MPI_ERR_ARG for nnodes < 1. */
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    const char *fn = "MPI_Dims_create";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (nnodes < 1)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "nnodes %d < 1", nnodes);
    if (ndims < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "invalid ndims %d", ndims);
    if (ndims > 0)
        CHECK_NULL_ARG(MPI_COMM_WORLD, dims, fn, "dims");
    long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "dims[%d] is negative", i);
        if (dims[i] > 0) {
            fixed *= dims[i];
            if (fixed > nnodes)
                break;
        } else {
            nfree++;
        }
    }
    if (fixed > nnodes || nnodes % fixed != 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn,
                             "%d nodes cannot fill the fixed dimensions (product %ld)", nnodes,
                             fixed);
    int m = (int)(nnodes / fixed);
    if (nfree == 0)
        return m == 1 ? MPI_SUCCESS
                      : ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn,
                                      "dims multiply to %ld, not %d", fixed, nnodes);
    /* The divisors of m, descending (an int has at most 1600). */
    int *buf = malloc(((size_t)nfree * 2 + 1600) * sizeof(int));
    if (buf == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
    int *divs = buf + 2 * nfree, nd = 0, nsmall = 0;
    for (long d = 1; d * d <= m; d++)
        if (m % d == 0)
            divs[nd++] = (int)d;
    nsmall = nd;
    for (int i = nsmall - 1; i >= 0; i--) /* the large ones, ascending after the small ones */
        if ((long)divs[i] * divs[i] != m)
            divs[nd++] = m / divs[i];
    for (int i = 0; i < nd / 2; i++) {
        int t = divs[i];
        divs[i] = divs[nd - 1 - i];
        divs[nd - 1 - i] = t;
    }
    dims_search_t s = {nfree, buf, buf + nfree, divs, nd, (long)m + 1};
    dims_search(&s, 0, m, m);
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = s.best[k++];
    free(buf);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Dims_create)

static struct ivc_mpi_topo *cart_topo(int ndims, const int *dims, const int *periods)
{
    struct ivc_mpi_topo *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = dup_ints(dims, ndims);
    t->periods = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
    if (t->dims == NULL || t->periods == NULL) {
        ivc_mpi_topo_free(t);
        return NULL;
    }
    for (int i = 0; i < ndims; i++)
        t->periods[i] = periods[i] != 0;
    return t;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    const char *fn = "MPI_Cart_create";
    CHECK_INTRA(comm_old, fn);
    if (ndims < 0)
        return ivc_mpi_raise(comm_old, MPI_ERR_DIMS, fn, "negative ndims");
    if (ndims > 0) {
        CHECK_NULL_ARG(comm_old, dims, fn, "dims");
        CHECK_NULL_ARG(comm_old, periods, fn, "periods");
    }
    CHECK_NULL_ARG(comm_old, comm_cart, fn, "comm_cart");
    *comm_cart = MPI_COMM_NULL; /* what a failed call leaves (MPICH does the same) */
    long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return ivc_mpi_raise(comm_old, MPI_ERR_DIMS, fn, "dims[%d] = %d", i, dims[i]);
        n *= dims[i];
        if (n > comm_old->size)
            break;
    }
    if (n > comm_old->size)
        return ivc_mpi_raise(comm_old, MPI_ERR_DIMS, fn,
                             "the grid has more points than the %d ranks", comm_old->size);
    return topo_comm(comm_old, (int)n, cart_topo(ndims, dims, periods), comm_cart, fn);
}
IVC_MPI_WEAK(Cart_create)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    CHECK_TOPO(comm, MPI_CART, "MPI_Cartdim_get");
    CHECK_NULL_ARG(comm, ndims, "MPI_Cartdim_get", "ndims");
    *ndims = comm->topo->ndims;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Cartdim_get)

static void coords_of(const struct ivc_mpi_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    const char *fn = "MPI_Cart_get";
    CHECK_TOPO(comm, MPI_CART, fn);
    const struct ivc_mpi_topo *t = comm->topo;
    if (maxdims < 0)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "negative maxdims %d", maxdims);
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    if (n > 0) {
        CHECK_NULL_ARG(comm, dims, fn, "dims");
        CHECK_NULL_ARG(comm, periods, fn, "periods");
        CHECK_NULL_ARG(comm, coords, fn, "coords");
    }
    int c[64];
    if (t->ndims <= 64)
        coords_of(t, comm->rank, c);
    for (int i = 0; i < n; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = i < 64 ? c[i] : 0;
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Cart_get)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    const char *fn = "MPI_Cart_rank";
    CHECK_TOPO(comm, MPI_CART, fn);
    const struct ivc_mpi_topo *t = comm->topo;
    if (t->ndims > 0)
        CHECK_NULL_ARG(comm, coords, fn, "coords");
    CHECK_NULL_ARG(comm, rank, fn, "rank");
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i];
        if (t->periods[i])
            c = ((c % t->dims[i]) + t->dims[i]) % t->dims[i];
        else if (c < 0 || c >= t->dims[i])
            return ivc_mpi_raise(comm, MPI_ERR_ARG, fn,
                                 "coordinate %d of dimension %d is out of "
                                 "range",
                                 coords[i], i);
        r = r * t->dims[i] + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Cart_rank)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    const char *fn = "MPI_Cart_coords";
    CHECK_TOPO(comm, MPI_CART, fn);
    const struct ivc_mpi_topo *t = comm->topo;
    if (rank < 0 || rank >= comm->size)
        return ivc_mpi_raise(comm, MPI_ERR_RANK, fn, "rank %d", rank);
    if (maxdims < t->ndims)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "maxdims %d < %d", maxdims, t->ndims);
    if (t->ndims > 0)
        CHECK_NULL_ARG(comm, coords, fn, "coords");
    coords_of(t, rank, coords);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Cart_coords)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    const char *fn = "MPI_Cart_shift";
    CHECK_TOPO(comm, MPI_CART, fn);
    const struct ivc_mpi_topo *t = comm->topo;
    if (direction < 0 || direction >= t->ndims || t->ndims > 64)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "direction %d", direction);
    CHECK_NULL_ARG(comm, rank_source, fn, "rank_source");
    CHECK_NULL_ARG(comm, rank_dest, fn, "rank_dest");
    int c[64];
    coords_of(t, comm->rank, c);
    int me = c[direction], d = t->dims[direction];
    for (int k = 0; k < 2; k++) {
        int v = me + (k == 0 ? -disp : disp);
        int *out = k == 0 ? rank_source : rank_dest;
        if (t->periods[direction])
            v = ((v % d) + d) % d;
        if (v < 0 || v >= d) {
            *out = MPI_PROC_NULL;
            continue;
        }
        c[direction] = v;
        int r = 0;
        for (int i = 0; i < t->ndims; i++)
            r = r * t->dims[i] + c[i];
        *out = r;
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Cart_shift)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    const char *fn = "MPI_Cart_sub";
    CHECK_TOPO(comm, MPI_CART, fn);
    const struct ivc_mpi_topo *t = comm->topo;
    if (t->ndims > 64)
        return ivc_mpi_raise(comm, MPI_ERR_DIMS, fn, "too many dimensions");
    if (t->ndims > 0)
        CHECK_NULL_ARG(comm, remain_dims, fn, "remain_dims");
    CHECK_NULL_ARG(comm, newcomm, fn, "newcomm");
    int c[64], dims[64], periods[64], nd = 0, color = 0, key = 0;
    coords_of(t, comm->rank, c);
    /* Ranks with equal coordinates in the dropped dimensions share a sub-grid; inside it the
     * row-major order of the kept coordinates is the rank order. */
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + c[i];
            dims[nd] = t->dims[i];
            periods[nd++] = t->periods[i];
        } else {
            color = color * t->dims[i] + c[i];
        }
    }
    struct ivc_mpi_topo *nt = cart_topo(nd, dims, periods);
    if (nt == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_topo_free(nt);
        return rc;
    }
    (*newcomm)->topo = nt;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Cart_sub)

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    CHECK_COMM(comm, "MPI_Topo_test");
    CHECK_NULL_ARG(comm, status, "MPI_Topo_test", "status");
    *status = comm->topo != NULL ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Topo_test)

/* ---- graphs ---- */

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    const char *fn = "MPI_Graph_create";
    CHECK_INTRA(comm_old, fn);
    CHECK_NULL_ARG(comm_old, comm_graph, fn, "comm_graph");
    *comm_graph = MPI_COMM_NULL; /* what a failed call leaves */
    if (nnodes < 0 || nnodes > comm_old->size)
        return ivc_mpi_raise(comm_old, MPI_ERR_ARG, fn, "nnodes %d", nnodes);
    if (nnodes > 0)
        CHECK_NULL_ARG(comm_old, index, fn, "index");
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    if (nedges > 0)
        CHECK_NULL_ARG(comm_old, edges, fn, "edges");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i > 0 ? index[i - 1] : 0))
            return ivc_mpi_raise(comm_old, MPI_ERR_ARG, fn, "index is not non-decreasing");
    for (int i = 0; i < nedges; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return ivc_mpi_raise(comm_old, MPI_ERR_ARG, fn, "edge %d to %d is out of range", i,
                                 edges[i]);
    struct ivc_mpi_topo *t = calloc(1, sizeof(*t));
    if (t != NULL) {
        t->kind = MPI_GRAPH;
        t->nnodes = nnodes;
        t->nedges = nedges;
        t->index = dup_ints(index, nnodes);
        t->edges = dup_ints(edges, nedges);
        if (t->index == NULL || t->edges == NULL) {
            ivc_mpi_topo_free(t);
            t = NULL;
        }
    }
    return topo_comm(comm_old, nnodes, t, comm_graph, fn);
}
IVC_MPI_WEAK(Graph_create)

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    CHECK_TOPO(comm, MPI_GRAPH, "MPI_Graphdims_get");
    CHECK_NULL_ARG(comm, nnodes, "MPI_Graphdims_get", "nnodes");
    CHECK_NULL_ARG(comm, nedges, "MPI_Graphdims_get", "nedges");
    *nnodes = comm->topo->nnodes;
    *nedges = comm->topo->nedges;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Graphdims_get)

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    const char *fn = "MPI_Graph_get";
    CHECK_TOPO(comm, MPI_GRAPH, fn);
    const struct ivc_mpi_topo *t = comm->topo;
    if (maxindex < 0 || maxedges < 0)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "negative maxindex or maxedges");
    if (maxindex > 0 && t->nnodes > 0)
        CHECK_NULL_ARG(comm, index, fn, "index");
    if (maxedges > 0 && t->nedges > 0)
        CHECK_NULL_ARG(comm, edges, fn, "edges");
    for (int i = 0; i < maxindex && i < t->nnodes; i++)
        index[i] = t->index[i];
    for (int i = 0; i < maxedges && i < t->nedges; i++)
        edges[i] = t->edges[i];
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Graph_get)

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    const char *fn = "MPI_Graph_neighbors_count";
    CHECK_TOPO(comm, MPI_GRAPH, fn);
    const struct ivc_mpi_topo *t = comm->topo;
    if (rank < 0 || rank >= t->nnodes)
        return ivc_mpi_raise(comm, MPI_ERR_RANK, fn, "rank %d", rank);
    CHECK_NULL_ARG(comm, nneighbors, fn, "nneighbors");
    *nneighbors = t->index[rank] - (rank > 0 ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    const char *fn = "MPI_Graph_neighbors";
    CHECK_TOPO(comm, MPI_GRAPH, fn);
    const struct ivc_mpi_topo *t = comm->topo;
    if (rank < 0 || rank >= t->nnodes)
        return ivc_mpi_raise(comm, MPI_ERR_RANK, fn, "rank %d", rank);
    int first = rank > 0 ? t->index[rank - 1] : 0;
    if (maxneighbors > 0 && t->index[rank] > first)
        CHECK_NULL_ARG(comm, neighbors, fn, "neighbors");
    for (int i = first, k = 0; i < t->index[rank] && k < maxneighbors; i++, k++)
        neighbors[k] = t->edges[i];
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Graph_neighbors)

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create_adjacent";
    CHECK_INTRA(comm_old, fn);
    if (indegree < 0 || outdegree < 0)
        return ivc_mpi_raise(comm_old, MPI_ERR_ARG, fn, "negative degree");
    /* Weights are read unless MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY is given. */
    int wread = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED &&
                sourceweights != MPI_WEIGHTS_EMPTY && destweights != MPI_WEIGHTS_EMPTY;
    if (indegree > 0) {
        CHECK_NULL_ARG(comm_old, sources, fn, "sources");
        if (wread)
            CHECK_NULL_ARG(comm_old, sourceweights, fn, "sourceweights");
    }
    if (outdegree > 0) {
        CHECK_NULL_ARG(comm_old, destinations, fn, "destinations");
        if (wread)
            CHECK_NULL_ARG(comm_old, destweights, fn, "destweights");
    }
    CHECK_NULL_ARG(comm_old, comm_dist_graph, fn, "comm_dist_graph");
    for (int i = 0; i < indegree; i++)
        if (sources[i] < 0 || sources[i] >= comm_old->size)
            return ivc_mpi_raise(comm_old, MPI_ERR_RANK, fn, "source %d", sources[i]);
    for (int i = 0; i < outdegree; i++)
        if (destinations[i] < 0 || destinations[i] >= comm_old->size)
            return ivc_mpi_raise(comm_old, MPI_ERR_RANK, fn, "destination %d", destinations[i]);
    struct ivc_mpi_topo *t = calloc(1, sizeof(*t));
    if (t != NULL) {
        int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
        t->kind = MPI_DIST_GRAPH;
        t->indeg = indegree;
        t->outdeg = outdegree;
        t->weighted = weighted;
        t->in = dup_ints(sources, indegree);
        t->out = dup_ints(destinations, outdegree);
        int ok = sourceweights != MPI_WEIGHTS_EMPTY && destweights != MPI_WEIGHTS_EMPTY;
        t->inw = dup_ints(weighted && ok ? sourceweights : NULL, indegree);
        t->outw = dup_ints(weighted && ok ? destweights : NULL, outdegree);
        if (!t->in || !t->out || !t->inw || !t->outw) {
            ivc_mpi_topo_free(t);
            t = NULL;
        }
        if (t != NULL && !(weighted && ok)) {
            memset(t->inw, 0, (size_t)indegree * sizeof(int));
            memset(t->outw, 0, (size_t)outdegree * sizeof(int));
        }
    }
    return topo_comm(comm_old, comm_old->size, t, comm_dist_graph, fn);
}
IVC_MPI_WEAK(Dist_graph_create_adjacent)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    const char *fn = "MPI_Dist_graph_neighbors_count";
    CHECK_TOPO(comm, MPI_DIST_GRAPH, fn);
    CHECK_NULL_ARG(comm, indegree, fn, "indegree");
    CHECK_NULL_ARG(comm, outdegree, fn, "outdegree");
    CHECK_NULL_ARG(comm, weighted, fn, "weighted");
    *indegree = comm->topo->indeg;
    *outdegree = comm->topo->outdeg;
    *weighted = comm->topo->weighted;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    const char *fn = "MPI_Dist_graph_neighbors";
    CHECK_TOPO(comm, MPI_DIST_GRAPH, fn);
    const struct ivc_mpi_topo *t = comm->topo;
    int wi = t->weighted && sourceweights != MPI_UNWEIGHTED;
    int wo = t->weighted && destweights != MPI_UNWEIGHTED;
    if (maxindegree < 0 || maxoutdegree < 0)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "negative maxindegree or maxoutdegree");
    if (maxindegree > 0 && t->indeg > 0) {
        CHECK_NULL_ARG(comm, sources, fn, "sources");
        if (wi)
            CHECK_NULL_ARG(comm, sourceweights, fn, "sourceweights");
    }
    if (maxoutdegree > 0 && t->outdeg > 0) {
        CHECK_NULL_ARG(comm, destinations, fn, "destinations");
        if (wo)
            CHECK_NULL_ARG(comm, destweights, fn, "destweights");
    }
    for (int i = 0; i < maxindegree && i < t->indeg; i++) {
        sources[i] = t->in[i];
        if (wi)
            sourceweights[i] = t->inw[i];
    }
    for (int i = 0; i < maxoutdegree && i < t->outdeg; i++) {
        destinations[i] = t->out[i];
        if (wo)
            destweights[i] = t->outw[i];
    }
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Dist_graph_neighbors)

/* ---- mapping (no reordering: the first ranks take the nodes in order) ---- */

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    const char *fn = "MPI_Cart_map";
    CHECK_INTRA(comm, fn);
    if (ndims < 0)
        return ivc_mpi_raise(comm, MPI_ERR_DIMS, fn, "invalid ndims %d", ndims);
    if (ndims > 0)
        CHECK_NULL_ARG(comm, dims, fn, "dims");
    long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return ivc_mpi_raise(comm, MPI_ERR_DIMS, fn, "dims[%d] = %d", i, dims[i]);
        n *= dims[i];
        if (n > comm->size)
            return ivc_mpi_raise(comm, MPI_ERR_DIMS, fn,
                                 "the grid has more points than the %d ranks", comm->size);
    }
    if (newrank == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL newrank");
    *newrank = comm->rank < n ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Cart_map)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    const char *fn = "MPI_Graph_map";
    CHECK_INTRA(comm, fn);
    if (nnodes < 1 || nnodes > comm->size)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "nnodes %d (communicator of %d)", nnodes,
                             comm->size);
    if (newrank == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL newrank");
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Graph_map)

/* ---- distributed graph from any rank's edges ---- */

/* Every rank contributes the edges it names as (source, destination, weight) triples; an
 * allgather of the counts and one of the triples let each rank pick its in- and
 * out-edges, in the order of the contributing ranks, then of each rank's list. The graph
 * is weighted unless every rank passed MPI_UNWEIGHTED. */
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create";
    CHECK_INTRA(comm_old, fn);
    int size = comm_old->size, me = comm_old->rank;
    if (n < 0)
        return ivc_mpi_raise(comm_old, MPI_ERR_ARG, fn, "negative n %d", n);
    if (comm_dist_graph == NULL)
        return ivc_mpi_raise(comm_old, MPI_ERR_ARG, fn, "NULL comm_dist_graph");
    int weighted = weights != MPI_UNWEIGHTED;
    if (n > 0) {
        CHECK_NULL_ARG(comm_old, sources, fn, "sources");
        CHECK_NULL_ARG(comm_old, degrees, fn, "degrees");
    }
    long ne = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] > 0) {
            CHECK_NULL_ARG(comm_old, destinations, fn, "destinations");
            if (weighted && weights != MPI_WEIGHTS_EMPTY)
                CHECK_NULL_ARG(comm_old, weights, fn, "weights");
        }
        if (sources[i] < 0 || sources[i] >= size)
            return ivc_mpi_raise(comm_old, MPI_ERR_RANK, fn, "source %d", sources[i]);
        if (degrees[i] < 0)
            return ivc_mpi_raise(comm_old, MPI_ERR_ARG, fn, "negative degree %d", degrees[i]);
        for (int k = 0; k < degrees[i]; k++, ne++) {
            if (destinations[ne] < 0 || destinations[ne] >= size)
                return ivc_mpi_raise(comm_old, MPI_ERR_RANK, fn, "destination %d",
                                     destinations[ne]);
            if (weighted && weights != MPI_WEIGHTS_EMPTY && weights[ne] < 0)
                return ivc_mpi_raise(comm_old, MPI_ERR_ARG, fn, "negative weight %d",
                                     weights[ne]);
        }
    }
    if (ne > (INT32_MAX - 2) / 3)
        return ivc_mpi_raise(comm_old, MPI_ERR_ARG, fn, "too many edges");
    int mine[2] = {(int)ne, weighted}, *counts = malloc((size_t)size * 2 * sizeof(int));
    int *cnt = malloc((size_t)size * 2 * sizeof(int));
    int *trip = malloc((size_t)(3 * ne + 1) * sizeof(int));
    int rc = counts && cnt && trip ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int i = 0, e = 0; rc == MPI_SUCCESS && i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            trip[3 * e] = sources[i];
            trip[3 * e + 1] = destinations[e];
            trip[3 * e + 2] = weighted && weights != MPI_WEIGHTS_EMPTY ? weights[e] : 0;
        }
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_coll_allgather(mine, 2, MPI_INT, counts, 2, MPI_INT, comm_old);
    long total = 0;
    int anyw = 0;
    for (int r = 0; rc == MPI_SUCCESS && r < size; r++) {
        cnt[r] = 3 * counts[2 * r];
        cnt[size + r] = (int)(3 * total);
        total += counts[2 * r];
        anyw |= counts[2 * r + 1];
        if (3 * total > INT32_MAX)
            rc = MPI_ERR_ARG;
    }
    int *all = rc == MPI_SUCCESS ? malloc((size_t)(3 * total + 1) * sizeof(int)) : NULL;
    if (rc == MPI_SUCCESS && all == NULL)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allgatherv(trip, (int)(3 * ne), MPI_INT, all, cnt, cnt + size, MPI_INT,
                             comm_old);
    free(counts);
    free(cnt);
    free(trip);
    struct ivc_mpi_topo *t = NULL;
    if (rc == MPI_SUCCESS && (t = calloc(1, sizeof(*t))) == NULL)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        int indeg = 0, outdeg = 0;
        for (long e = 0; e < total; e++) {
            indeg += all[3 * e + 1] == me;
            outdeg += all[3 * e] == me;
        }
        t->kind = MPI_DIST_GRAPH;
        t->weighted = anyw;
        t->indeg = indeg;
        t->outdeg = outdeg;
        t->in = malloc((size_t)(indeg + 1) * sizeof(int));
        t->inw = malloc((size_t)(indeg + 1) * sizeof(int));
        t->out = malloc((size_t)(outdeg + 1) * sizeof(int));
        t->outw = malloc((size_t)(outdeg + 1) * sizeof(int));
        if (!t->in || !t->inw || !t->out || !t->outw) {
            rc = MPI_ERR_NO_MEM;
        } else {
            int a = 0, b = 0;
            for (long e = 0; e < total; e++) {
                if (all[3 * e + 1] == me) {
                    t->in[a] = all[3 * e];
                    t->inw[a++] = all[3 * e + 2];
                }
                if (all[3 * e] == me) {
                    t->out[b] = all[3 * e + 1];
                    t->outw[b++] = all[3 * e + 2];
                }
            }
        }
    }
    free(all);
    if (rc != MPI_SUCCESS) {
        ivc_mpi_topo_free(t);
        return ivc_mpi_raise(comm_old, rc, fn, "exchanging the edges failed");
    }
    return topo_comm(comm_old, size, t, comm_dist_graph, fn);
}
IVC_MPI_WEAK(Dist_graph_create)
