/* Topology additions, checked against expectations computed here:
 * - Dims_create gives the most balanced factorization, non-increasing, as MPICH does
 *   ((72, 2) = 9 x 8, not 12 x 6; ties as MPICH breaks them), keeps non-zero entries, and refuses impossible
 *   requests (MPI_ERR_DIMS, MPI_ERR_ARG for nnodes < 1);
 * - Cart_map / Graph_map: the ranks that fit keep their rank, the others MPI_UNDEFINED;
 * - Dist_graph_create (the non-adjacent form) with all edges given by rank 0 (weighted),
 *   by their sources (unweighted) and by their destinations: in/out neighbours and weights
 *   of every rank, Topo_test, and a message along the edges of the result;
 * - errors: out-of-range ranks, negative counts, and MPI_ERR_COMM for the topology
 *   constructors on an intercommunicator. Any NP >= 2. */
#include "../t_util.h"

#define CHECK_CLASS(expected, call, what)                                                          \
    do {                                                                                           \
        int t_c_ = (call);                                                                         \
        if (t_c_ != MPI_SUCCESS)                                                                   \
            MPI_Error_class(t_c_, &t_c_);                                                          \
        CHECK_INT((expected), t_c_, (what));                                                       \
    } while (0)

static void dims_case(int nnodes, int nd, const int *in, const int *exp)
{
    char w[160];
    int d[8];
    memcpy(d, in, (size_t)nd * sizeof(int));
    CHECK_MPI(MPI_Dims_create(nnodes, nd, d));
    for (int i = 0; i < nd; i++)
        CHECK_INT(exp[i], d[i], t_fmt(w, sizeof w, "Dims_create(%d, %d)[%d]", nnodes, nd, i));
}

static int pair_cmp(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* Checks comm's neighbours against the expected (rank, weight) pairs, as sets. */
static void check_side(const int *ranks, const int *wts, int n, int *exp, int nexp, int weighted,
                       const char *what)
{
    char w[160];
    CHECK_INT(nexp, n, t_fmt(w, sizeof w, "%s: degree", what));
    int *got = t_malloc((size_t)(2 * n + 2) * sizeof(int));
    for (int i = 0; i < n; i++) {
        got[2 * i] = ranks[i];
        got[2 * i + 1] = weighted ? wts[i] : 0;
    }
    qsort(got, (size_t)n, 2 * sizeof(int), pair_cmp);
    qsort(exp, (size_t)nexp, 2 * sizeof(int), pair_cmp);
    for (int i = 0; i < n; i++) {
        CHECK_INT(exp[2 * i], got[2 * i], t_fmt(w, sizeof w, "%s: neighbour %d", what, i));
        CHECK_INT(exp[2 * i + 1], got[2 * i + 1], t_fmt(w, sizeof w, "%s: weight %d", what, i));
    }
    free(got);
}

static void check_graph(MPI_Comm g, int *in, int nin, int *out, int nout, int weighted,
                        const char *what)
{
    char w[160];
    int indeg, outdeg, wflag, st;
    CHECK_MPI(MPI_Topo_test(g, &st));
    CHECK_INT(MPI_DIST_GRAPH, st, t_fmt(w, sizeof w, "%s: Topo_test", what));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &wflag));
    CHECK_INT(weighted, wflag, t_fmt(w, sizeof w, "%s: weighted", what));
    int s[64], sw[64], d[64], dw[64];
    CHECK_MPI(MPI_Dist_graph_neighbors(g, 64, s, weighted ? sw : MPI_UNWEIGHTED, 64, d,
                                       weighted ? dw : MPI_UNWEIGHTED));
    check_side(s, sw, indeg, in, nin, weighted, t_fmt(w, sizeof w, "%s: in", what));
    check_side(d, dw, outdeg, out, nout, weighted, t_fmt(w, sizeof w, "%s: out", what));
    /* One message along every edge: to each out-neighbour, from each in-neighbour. */
    MPI_Request *rq = t_malloc((size_t)(outdeg + indeg + 1) * sizeof(MPI_Request));
    int *rb = t_malloc((size_t)(indeg + 1) * sizeof(int)), me;
    MPI_Comm_rank(g, &me);
    for (int i = 0; i < indeg; i++)
        CHECK_MPI(MPI_Irecv(&rb[i], 1, MPI_INT, s[i], 4, g, &rq[i]));
    for (int i = 0; i < outdeg; i++)
        CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, d[i], 4, g, &rq[indeg + i]));
    CHECK_MPI(MPI_Waitall(indeg + outdeg, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < indeg; i++)
        CHECK_INT(s[i], rb[i], t_fmt(w, sizeof w, "%s: message from in-neighbour %d", what, i));
    free(rq);
    free(rb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n = t_size, me = t_rank;

    dims_case(72, 2, (int[]){0, 0}, (int[]){9, 8});
    dims_case(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
    dims_case(24, 3, (int[]){0, 0, 0}, (int[]){4, 3, 2});
    dims_case(72, 3, (int[]){0, 0, 0}, (int[]){6, 4, 3});
    dims_case(60, 3, (int[]){0, 0, 0}, (int[]){5, 4, 3});
    dims_case(100, 2, (int[]){0, 0}, (int[]){10, 10});
    dims_case(30, 4, (int[]){0, 0, 0, 0}, (int[]){5, 3, 2, 1});
    dims_case(64, 3, (int[]){0, 0, 0}, (int[]){4, 4, 4});
    dims_case(30030, 2, (int[]){0, 0}, (int[]){182, 165});
    dims_case(720, 4, (int[]){0, 0, 0, 0}, (int[]){6, 6, 5, 4});
    dims_case(1024, 5, (int[]){0, 0, 0, 0, 0}, (int[]){4, 4, 4, 4, 4});
    dims_case(97, 3, (int[]){0, 0, 0}, (int[]){97, 1, 1});
    dims_case(1, 2, (int[]){0, 0}, (int[]){1, 1});
    dims_case(72, 3, (int[]){0, 0, 3}, (int[]){6, 4, 3});
    dims_case(72, 3, (int[]){0, 8, 0}, (int[]){3, 8, 3});
    dims_case(12, 3, (int[]){0, 3, 0}, (int[]){2, 3, 2});
    dims_case(12, 2, (int[]){3, 4}, (int[]){3, 4});
    /* Ties in balance (largest - smallest) go to the larger smallest factor, then the
     * next-smallest, as MPICH's topo/dims5 expects: 20x18x14 and 113x28x15x15 are as
     * balanced. */
    dims_case(5040, 3, (int[]){0, 0, 0}, (int[]){21, 16, 15});
    dims_case(711900, 4, (int[]){0, 0, 0, 0}, (int[]){113, 21, 20, 15});
    dims_case(218736, 5, (int[]){0, 0, 0, 0, 0}, (int[]){31, 14, 9, 8, 7});
    {
        int d[3];
        CHECK_CLASS(MPI_ERR_DIMS, MPI_Dims_create(12, 2, (d[0] = 5, d[1] = 0, d)),
                    "Dims_create(12, {5, 0})");
        CHECK_CLASS(MPI_ERR_DIMS, MPI_Dims_create(12, 2, (d[0] = 3, d[1] = 3, d)),
                    "Dims_create(12, {3, 3})");
        CHECK_CLASS(MPI_ERR_DIMS, MPI_Dims_create(12, 2, (d[0] = -1, d[1] = 0, d)),
                    "Dims_create with a negative entry");
        CHECK_CLASS(MPI_ERR_DIMS, MPI_Dims_create(12, -1, d), "Dims_create with ndims -1");
        CHECK_CLASS(MPI_ERR_ARG, MPI_Dims_create(0, 2, (d[0] = 0, d[1] = 0, d)),
                    "Dims_create with nnodes 0");
        CHECK_CLASS(MPI_ERR_DIMS, MPI_Dims_create(5, 0, d), "Dims_create(5, 0 dims)");
        CHECK_MPI(MPI_Dims_create(1, 0, d));
    }
    {
        /* A grid larger than the communicator: an error, and the output is MPI_COMM_NULL
         * (MPICH's errors/topo/cartsmall). */
        int d[2] = {n, n}, p[2] = {0, 0};
        MPI_Comm c = MPI_COMM_WORLD;
        CHECK_CLASS(MPI_ERR_DIMS, MPI_Cart_create(MPI_COMM_WORLD, 2, d, p, 0, &c),
                    "Cart_create of n x n points");
        CHECK_TRUE(c == MPI_COMM_NULL, "a failed Cart_create leaves MPI_COMM_NULL");
    }

    /* Cart_map / Graph_map. */
    int nr = -2, dims1[1] = {n - 1}, per[1] = {0};
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims1, per, &nr));
    CHECK_INT(me < n - 1 ? me : MPI_UNDEFINED, nr, "Cart_map of n-1 points");
    int dims2[2] = {n, 2};
    CHECK_CLASS(MPI_ERR_DIMS, MPI_Cart_map(MPI_COMM_WORLD, 2, dims2, per, &nr),
                "Cart_map with more points than ranks");
    int idx[64], edg[64];
    for (int i = 0; i < n; i++)
        idx[i] = i + 1, edg[i] = (i + 1) % (n - 1 > 0 ? n - 1 : 1);
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, n - 1, idx, edg, &nr));
    CHECK_INT(me < n - 1 ? me : MPI_UNDEFINED, nr, "Graph_map of n-1 nodes");
    CHECK_CLASS(MPI_ERR_ARG, MPI_Graph_map(MPI_COMM_WORLD, n + 1, idx, edg, &nr),
                "Graph_map with more nodes than ranks");

    /* Dist_graph_create, case 1: rank 0 names every edge: i -> i+1 (weight 10i+1) and, with
     * three ranks or more, i -> i+2 (weight 10i+2). */
    int two = n >= 3;
    {
        int srcs[64], degs[64], dsts[128], wts[128], k = 0, cnt = 0;
        if (me == 0)
            for (int i = 0; i < n; i++) {
                srcs[cnt] = i;
                degs[cnt++] = 1 + two;
                dsts[k] = (i + 1) % n, wts[k++] = 10 * i + 1;
                if (two)
                    dsts[k] = (i + 2) % n, wts[k++] = 10 * i + 2;
            }
        MPI_Comm g;
        CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, cnt, srcs, degs, dsts,
                                        me == 0 ? wts : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
        int in[8], out[8], ni = 0, no = 0;
        out[2 * no] = (me + 1) % n, out[2 * no++ + 1] = 10 * me + 1;
        if (two)
            out[2 * no] = (me + 2) % n, out[2 * no++ + 1] = 10 * me + 2;
        int p1 = (me + n - 1) % n, p2 = (me + n - 2) % n;
        in[2 * ni] = p1, in[2 * ni++ + 1] = 10 * p1 + 1;
        if (two)
            in[2 * ni] = p2, in[2 * ni++ + 1] = 10 * p2 + 2;
        check_graph(g, in, ni, out, no, 1, "Dist_graph_create, all edges from rank 0");
        MPI_Comm_free(&g);
    }
    /* Case 2: each rank names its own out-edge, unweighted. */
    {
        int src = me, deg = 1, dst = (me + 1) % n;
        MPI_Comm g;
        CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, &dst, MPI_UNWEIGHTED,
                                        MPI_INFO_NULL, 0, &g));
        int in[2] = {(me + n - 1) % n, 0}, out[2] = {(me + 1) % n, 0};
        check_graph(g, in, 1, out, 1, 0, "Dist_graph_create, edges from their sources");
        MPI_Comm_free(&g);
    }
    /* Case 3: each rank names its in-edges from the two ranks below it, weights 7. */
    {
        int srcs[2] = {(me + n - 1) % n, (me + n - 2) % n}, degs[2] = {1, 1}, dsts[2] = {me, me};
        int wts[2] = {7, 7}, cnt = two ? 2 : 1;
        MPI_Comm g;
        CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, cnt, srcs, degs, dsts, wts, MPI_INFO_NULL,
                                        0, &g));
        int in[4] = {srcs[0], 7, srcs[1], 7}, out[4] = {(me + 1) % n, 7, (me + 2) % n, 7};
        check_graph(g, in, cnt, out, cnt, 1, "Dist_graph_create, edges from their destinations");
        MPI_Comm_free(&g);
    }
    {
        MPI_Comm g;
        int src = n, deg = 1, dst = 0;
        CHECK_CLASS(MPI_ERR_RANK,
                    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, &dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &g),
                    "Dist_graph_create with a source out of range");
        src = 0, dst = -3;
        CHECK_CLASS(MPI_ERR_RANK,
                    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, &dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &g),
                    "Dist_graph_create with a destination out of range");
        CHECK_CLASS(MPI_ERR_ARG,
                    MPI_Dist_graph_create(MPI_COMM_WORLD, -1, &src, &deg, &dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &g),
                    "Dist_graph_create with n < 0");
    }

    /* Constructors on an intercommunicator. */
    {
        MPI_Comm half, ic, g;
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 3, &ic));
        MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
        int d1[1] = {1}, p1[1] = {0}, src = 0, deg = 0, dst = 0;
        CHECK_CLASS(MPI_ERR_COMM, MPI_Cart_create(ic, 1, d1, p1, 0, &g),
                    "Cart_create on an intercomm");
        CHECK_CLASS(MPI_ERR_COMM, MPI_Cart_map(ic, 1, d1, p1, &nr), "Cart_map on an intercomm");
        CHECK_CLASS(MPI_ERR_COMM, MPI_Graph_create(ic, 1, idx, edg, 0, &g),
                    "Graph_create on an intercomm");
        CHECK_CLASS(MPI_ERR_COMM, MPI_Graph_map(ic, 1, idx, edg, &nr), "Graph_map on an intercomm");
        CHECK_CLASS(MPI_ERR_COMM,
                    MPI_Dist_graph_create(ic, 0, &src, &deg, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                          &g),
                    "Dist_graph_create on an intercomm");
        CHECK_CLASS(MPI_ERR_COMM,
                    MPI_Dist_graph_create_adjacent(ic, 0, &src, MPI_UNWEIGHTED, 0, &dst,
                                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
                    "Dist_graph_create_adjacent on an intercomm");
        MPI_Comm_free(&ic);
        MPI_Comm_free(&half);
    }
    MPI_Finalize();
    return 0;
}
