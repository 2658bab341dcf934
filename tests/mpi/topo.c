/* Virtual topologies against computed expectations: Dims_create (balanced, non-increasing,
 * fixed entries kept, impossible requests refused); a 2-D Cartesian grid with one periodic
 * dimension: Cart_get, Cartdim_get, Cart_rank/Cart_coords round trip (also wrapped
 * coordinates), Cart_shift in both dimensions (MPI_PROC_NULL at the open edge), a halo
 * exchange over the shifts, Cart_sub rows and columns, ranks beyond the grid get
 * MPI_COMM_NULL; Topo_test; Comm_dup keeps the topology; a ring graph (Graph_create,
 * Graphdims_get, Graph_get, Graph_neighbors(_count)); Dist_graph_create_adjacent with
 * weights and unweighted, Dist_graph_neighbors(_count). */
#include "t_util.h"

static void dims_case(int nnodes, int nd, const int *in, const int *exp)
{
    int d[4];
    char w[64];
    memcpy(d, in, (size_t)nd * sizeof(int));
    CHECK_MPI(MPI_Dims_create(nnodes, nd, d));
    for (int i = 0; i < nd; i++)
        CHECK_INT(exp[i], d[i], t_fmt(w, sizeof w, "Dims_create(%d, %d)[%d]", nnodes, nd, i));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(4);
    char w[160];
    dims_case(12, 2, (int[]){0, 0}, (int[]){4, 3});
    dims_case(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
    dims_case(12, 3, (int[]){0, 3, 0}, (int[]){2, 3, 2});
    dims_case(7, 2, (int[]){0, 0}, (int[]){7, 1});
    dims_case(36, 2, (int[]){0, 0}, (int[]){6, 6});
    dims_case(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {5, 0};
    CHECK_TRUE(MPI_Dims_create(12, 2, bad) != MPI_SUCCESS, "Dims_create(12, {5, 0}) fails");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* Grid: rows x cols with rows*cols <= size (an extra rank may be left out). */
    int cols = 2, rows = t_size / cols, n = rows * cols;
    int dims[2] = {rows, cols}, periods[2] = {1, 0};
    MPI_Comm cart;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    if (t_rank >= n) {
        CHECK_TRUE(cart == MPI_COMM_NULL, "a rank beyond the grid gets MPI_COMM_NULL");
    } else {
        int st, nd, gd[2], gp[2], gc[2], r;
        CHECK_MPI(MPI_Topo_test(cart, &st));
        CHECK_INT(MPI_CART, st, "Topo_test");
        CHECK_MPI(MPI_Cartdim_get(cart, &nd));
        CHECK_INT(2, nd, "Cartdim_get");
        CHECK_MPI(MPI_Cart_get(cart, 2, gd, gp, gc));
        CHECK_INT(rows, gd[0], "dims[0]");
        CHECK_INT(0, gp[1], "periods[1]");
        CHECK_INT(t_rank / cols, gc[0], "my row (row-major)");
        CHECK_INT(t_rank % cols, gc[1], "my column");
        for (int q = 0; q < n; q++) {
            int c[2];
            CHECK_MPI(MPI_Cart_coords(cart, q, 2, c));
            CHECK_MPI(MPI_Cart_rank(cart, c, &r));
            CHECK_INT(q, r, "Cart_rank(Cart_coords(q))");
        }
        int wrap[2] = {-1, 1};
        CHECK_MPI(MPI_Cart_rank(cart, wrap, &r));
        CHECK_INT((rows - 1) * cols + 1, r, "wrapped row coordinate");
        int src, dst;
        CHECK_MPI(MPI_Cart_shift(cart, 0, 1, &src, &dst));
        CHECK_INT(((gc[0] + rows - 1) % rows) * cols + gc[1], src, "shift dim 0 source");
        CHECK_INT(((gc[0] + 1) % rows) * cols + gc[1], dst, "shift dim 0 dest");
        /* Halo exchange along the periodic dimension. */
        int got = -1;
        MPI_Sendrecv(&t_rank, 1, MPI_INT, dst, 1, &got, 1, MPI_INT, src, 1, cart,
                     MPI_STATUS_IGNORE);
        CHECK_INT(src, got, "halo from the shift source");
        CHECK_MPI(MPI_Cart_shift(cart, 1, 1, &src, &dst));
        CHECK_INT(gc[1] == 0 ? MPI_PROC_NULL : t_rank - 1, src, "shift dim 1 source (open)");
        CHECK_INT(gc[1] == cols - 1 ? MPI_PROC_NULL : t_rank + 1, dst, "shift dim 1 dest (open)");
        /* Rows and columns. */
        MPI_Comm row, col;
        int keep_row[2] = {0, 1}, keep_col[2] = {1, 0}, sz;
        CHECK_MPI(MPI_Cart_sub(cart, keep_row, &row));
        CHECK_MPI(MPI_Comm_size(row, &sz));
        CHECK_INT(cols, sz, "row size");
        CHECK_MPI(MPI_Comm_rank(row, &r));
        CHECK_INT(gc[1], r, "rank in my row");
        CHECK_MPI(MPI_Cartdim_get(row, &nd));
        CHECK_INT(1, nd, "row is a 1-D grid");
        int rsum = 0;
        MPI_Allreduce(&t_rank, &rsum, 1, MPI_INT, MPI_SUM, row);
        CHECK_INT(gc[0] * cols * cols + cols * (cols - 1) / 2, rsum, "sum over my row");
        CHECK_MPI(MPI_Cart_sub(cart, keep_col, &col));
        CHECK_MPI(MPI_Comm_size(col, &sz));
        CHECK_INT(rows, sz, "column size");
        CHECK_MPI(MPI_Comm_rank(col, &r));
        CHECK_INT(gc[0], r, "rank in my column");
        MPI_Comm dup;
        CHECK_MPI(MPI_Comm_dup(cart, &dup));
        CHECK_MPI(MPI_Topo_test(dup, &st));
        CHECK_INT(MPI_CART, st, "Comm_dup keeps the topology");
        CHECK_MPI(MPI_Cart_get(dup, 2, gd, gp, gc));
        CHECK_INT(rows, gd[0], "dims of the duplicate");
        MPI_Comm_free(&dup);
        MPI_Comm_free(&row);
        MPI_Comm_free(&col);
        MPI_Comm_free(&cart);
    }
    int st;
    CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK_INT(MPI_UNDEFINED, st, "Topo_test of WORLD");

    /* Ring graph over every rank. */
    int *index = t_malloc((size_t)t_size * sizeof(int)),
        *edges = t_malloc(2 * (size_t)t_size * sizeof(int));
    for (int i = 0; i < t_size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + t_size - 1) % t_size;
        edges[2 * i + 1] = (i + 1) % t_size;
    }
    MPI_Comm graph;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, t_size, index, edges, 0, &graph));
    int nn, ne, cnt, nb[2];
    CHECK_MPI(MPI_Topo_test(graph, &st));
    CHECK_INT(MPI_GRAPH, st, "Topo_test graph");
    CHECK_MPI(MPI_Graphdims_get(graph, &nn, &ne));
    CHECK_INT(t_size, nn, "graph nodes");
    CHECK_INT(2 * t_size, ne, "graph edges");
    int *gi = t_malloc((size_t)t_size * sizeof(int)),
        *ge = t_malloc(2 * (size_t)t_size * sizeof(int));
    CHECK_MPI(MPI_Graph_get(graph, t_size, 2 * t_size, gi, ge));
    for (int i = 0; i < 2 * t_size; i++)
        CHECK_INT(edges[i], ge[i], t_fmt(w, sizeof w, "Graph_get edge %d", i));
    CHECK_MPI(MPI_Graph_neighbors_count(graph, t_rank, &cnt));
    CHECK_INT(2, cnt, "neighbors count");
    CHECK_MPI(MPI_Graph_neighbors(graph, t_rank, 2, nb));
    CHECK_INT((t_rank + t_size - 1) % t_size, nb[0], "left neighbour");
    CHECK_INT((t_rank + 1) % t_size, nb[1], "right neighbour");
    MPI_Comm_free(&graph);

    /* Distributed graph: receive from the two previous ranks, send to the next one. */
    int srcs[2] = {(t_rank + t_size - 1) % t_size, (t_rank + t_size - 2) % t_size};
    int sw[2] = {10, 20}, dsts[1] = {(t_rank + 1) % t_size}, dw[1] = {30};
    MPI_Comm dg;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, sw, 1, dsts, dw,
                                             MPI_INFO_NULL, 0, &dg));
    int ind, outd, wt, rs[2], rsw[2], rd[1], rdw[1];
    CHECK_MPI(MPI_Topo_test(dg, &st));
    CHECK_INT(MPI_DIST_GRAPH, st, "Topo_test dist graph");
    CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &ind, &outd, &wt));
    CHECK_INT(2, ind, "indegree");
    CHECK_INT(1, outd, "outdegree");
    CHECK_INT(1, wt, "weighted");
    CHECK_MPI(MPI_Dist_graph_neighbors(dg, 2, rs, rsw, 1, rd, rdw));
    CHECK_INT(srcs[1], rs[1], "second source");
    CHECK_INT(20, rsw[1], "second source weight");
    CHECK_INT(dsts[0], rd[0], "destination");
    CHECK_INT(30, rdw[0], "destination weight");
    int got = -1;
    MPI_Sendrecv(&t_rank, 1, MPI_INT, rd[0], 2, &got, 1, MPI_INT, rs[0], 2, dg, MPI_STATUS_IGNORE);
    CHECK_INT(srcs[0], got, "message along the dist graph");
    MPI_Comm_free(&dg);
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &ind, &outd, &wt));
    CHECK_INT(0, wt, "unweighted");
    MPI_Comm_free(&dg);
    free(index);
    free(edges);
    free(gi);
    free(ge);
    MPI_Finalize();
    return 0;
}
