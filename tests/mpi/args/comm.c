/* args_comm: NULL arguments to the communicator queries, names and predefined attributes,
 * and to the group, topology, intercommunicator, attribute and communicator-creation calls
 * under MPI_ERRORS_RETURN (3 ranks).
 *
 * Collective calls (Cart_create, Comm_split_type, Dist_graph_create ...) get the same wrong
 * argument at every rank, so every rank returns at once. Checked against MPICH's classes:
 * NULL outputs and NULL arrays that the call reads: MPI_ERR_ARG (also for MPI_Dims_create);
 * the topology built afterwards still answers correctly. */
#include "a_util.h"

int main(int argc, char **argv)
{
    a_init(&argc, &argv);
    t_require_ranks(2);
    MPI_Comm w = MPI_COMM_WORLD, c = MPI_COMM_NULL;
    int n = t_size, me = t_rank, v = 0, v2 = 0, v3 = 0, arr[8] = {0}, arr2[8] = {0};
    MPI_Group g = MPI_GROUP_NULL, wg;
    MPI_Request r = MPI_REQUEST_NULL;
    A_OK(MPI_Comm_group(w, &wg));

    /* ---- groups ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_group(w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_size(wg, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_rank(wg, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_free(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_incl(wg, 1, NULL, &g));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_incl(wg, 1, (int[]){0}, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_excl(wg, 1, NULL, &g));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_excl(wg, 1, (int[]){0}, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_range_incl(wg, 1, NULL, &g));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_range_incl(wg, 1, (int[][3]){{0, 0, 1}}, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_range_excl(wg, 1, NULL, &g));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_range_excl(wg, -1, (int[][3]){{0, 0, 1}}, &g));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_translate_ranks(wg, 1, NULL, wg, arr));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_translate_ranks(wg, 1, (int[]){0}, wg, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_compare(wg, wg, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_union(wg, wg, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_intersection(wg, wg, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Group_difference(wg, wg, NULL));
    CHECK_TRUE(g == MPI_GROUP_NULL, "no group handed out by a refused call");
    A_OK(MPI_Group_translate_ranks(wg, 0, NULL, wg, NULL)); /* nothing to translate */

    /* ---- the communicator itself: queries, dup/split, names, predefined attributes ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_rank(w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_size(w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_compare(w, MPI_COMM_SELF, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_test_inter(w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_dup(w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_split(w, 0, me, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_split(w, MPI_UNDEFINED, me, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_set_name(w, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_get_name(w, NULL, &v));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_get_name(w, (char[MPI_MAX_OBJECT_NAME]){0}, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_get_name(MPI_COMM_NULL, NULL, &v));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_get_name(MPI_COMM_NULL, (char[MPI_MAX_OBJECT_NAME]){0}, NULL));
    {
        void *val = NULL;
        int flag = 0;
        const int keys[] = {MPI_TAG_UB, MPI_HOST,          MPI_IO,          MPI_WTIME_IS_GLOBAL,
                            MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            A_EXPECT(MPI_ERR_ARG, MPI_Comm_get_attr(w, keys[k], NULL, &flag));
            A_EXPECT(MPI_ERR_ARG, MPI_Comm_get_attr(w, keys[k], &val, NULL));
        }
        /* The legal calls answer. */
        A_OK(MPI_Comm_get_attr(w, MPI_TAG_UB, &val, &flag));
        CHECK_TRUE(flag && val != NULL && *(int *)val >= 32767, "MPI_TAG_UB attribute");
        A_OK(MPI_Comm_rank(w, &v));
        CHECK_INT(me, v, "Comm_rank after refused calls");
        A_OK(MPI_Comm_size(w, &v));
        CHECK_INT(n, v, "Comm_size after refused calls");
        A_OK(MPI_Comm_compare(w, MPI_COMM_SELF, &v));
        CHECK_INT(MPI_UNEQUAL, v, "Comm_compare(WORLD, SELF)");
        A_OK(MPI_Comm_test_inter(w, &v));
        CHECK_INT(0, v, "Comm_test_inter(WORLD)");
        char name[MPI_MAX_OBJECT_NAME];
        A_OK(MPI_Comm_get_name(w, name, &v));
        CHECK_TRUE(strcmp(name, "MPI_COMM_WORLD") == 0, "name kept by a refused Comm_set_name");
        CHECK_INT((int)strlen("MPI_COMM_WORLD"), v, "name length");
        A_OK(MPI_Comm_get_name(MPI_COMM_NULL, name, &v));
        CHECK_TRUE(strcmp(name, "MPI_COMM_NULL") == 0, "MPI_COMM_NULL's name");
        /* A refused dup or split (every rank alike) leaves the next one working. */
        MPI_Comm d = MPI_COMM_NULL, s = MPI_COMM_NULL;
        A_OK(MPI_Comm_dup(w, &d));
        A_OK(MPI_Comm_split(d, me % 2, -me, &s));
        A_OK(MPI_Comm_set_name(s, "half"));
        A_OK(MPI_Comm_get_name(s, name, &v));
        CHECK_TRUE(strcmp(name, "half") == 0, "Comm_set_name");
        A_OK(MPI_Comm_size(s, &v));
        CHECK_INT(me % 2 == 0 ? (n + 1) / 2 : n / 2, v, "size of a split half");
        A_OK(MPI_Comm_rank(s, &v2));
        int sum = 0;
        A_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, s));
        int expect = 0;
        for (int i = me % 2; i < n; i += 2)
            expect += i;
        CHECK_INT(expect, sum, "Allreduce over a split half");
        /* key -me: the highest world rank comes first */
        CHECK_INT((n - 1 - me) / 2, v2, "rank in a split half ordered by key");
        A_OK(MPI_Comm_free(&s));
        A_OK(MPI_Comm_free(&d));
    }

    /* ---- communicators from groups and splits (collective: every rank alike) ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_create(w, wg, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_create_group(w, wg, 0, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_split_type(w, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_dup_with_info(w, MPI_INFO_NULL, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_idup(w, NULL, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_idup(w, &c, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Comm_idup_with_info(w, MPI_INFO_NULL, NULL, &r));
    CHECK_TRUE(r == MPI_REQUEST_NULL, "no request handed out by a refused Comm_idup");

    /* ---- Cartesian topologies ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Dims_create(n, 2, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_create(w, 1, NULL, (int[]){1}, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_create(w, 1, (int[]){n}, NULL, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_create(w, 1, (int[]){n}, (int[]){1}, 0, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_map(w, 1, NULL, (int[]){1}, &v));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_map(w, 1, (int[]){n}, (int[]){1}, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Topo_test(w, NULL));
    MPI_Comm cart;
    A_OK(MPI_Cart_create(w, 1, (int[]){n}, (int[]){1}, 0, &cart));
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    A_EXPECT(MPI_ERR_ARG, MPI_Cartdim_get(cart, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_get(cart, 1, NULL, arr, arr2));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_get(cart, 1, arr, NULL, arr2));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_get(cart, 1, arr, arr2, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_rank(cart, NULL, &v));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_rank(cart, (int[]){0}, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_coords(cart, 0, 1, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_shift(cart, 0, 1, NULL, &v));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_shift(cart, 0, 1, &v, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_sub(cart, NULL, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Cart_sub(cart, (int[]){1}, NULL));
    A_OK(MPI_Cart_get(cart, 0, NULL, NULL, NULL)); /* nothing asked for */
    A_OK(MPI_Cart_shift(cart, 0, 1, &v, &v2));
    CHECK_INT((me + n - 1) % n, v, "Cart_shift source");
    CHECK_INT((me + 1) % n, v2, "Cart_shift destination");
    A_OK(MPI_Topo_test(cart, &v));
    CHECK_INT(MPI_CART, v, "Topo_test");
    A_OK(MPI_Comm_free(&cart));

    /* ---- graphs: a ring ---- */
    int index[64], edges[128];
    for (int i = 0; i < n && i < 64; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + n - 1) % n;
        edges[2 * i + 1] = (i + 1) % n;
    }
    A_EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, n, NULL, edges, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, n, index, NULL, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Graph_create(w, n, index, edges, 0, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Graph_map(w, n, index, edges, NULL));
    MPI_Comm graph;
    A_OK(MPI_Graph_create(w, n, index, edges, 0, &graph));
    MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN);
    A_EXPECT(MPI_ERR_ARG, MPI_Graphdims_get(graph, NULL, &v));
    A_EXPECT(MPI_ERR_ARG, MPI_Graphdims_get(graph, &v, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Graph_get(graph, 2, 2, NULL, arr));
    A_EXPECT(MPI_ERR_ARG, MPI_Graph_get(graph, 2, 2, arr, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Graph_neighbors_count(graph, 0, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Graph_neighbors(graph, 0, 2, NULL));
    A_OK(MPI_Graph_neighbors(graph, 0, 2, arr));
    CHECK_INT(n - 1, arr[0], "Graph_neighbors of 0, first");
    A_OK(MPI_Comm_free(&graph));

    /* ---- distributed graphs: each rank to its right neighbour ---- */
    int right = (me + 1) % n, left = (me + n - 1) % n, wt = 7;
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, 1, NULL, MPI_UNWEIGHTED, 1, &right,
                                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, 1, &left, MPI_UNWEIGHTED, 1, NULL,
                                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, 1, &left, NULL, 1, &right, &wt,
                                                         MPI_INFO_NULL, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(w, 1, &left, MPI_UNWEIGHTED, 1, &right,
                                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(w, 1, NULL, (int[]){1}, &right, MPI_UNWEIGHTED,
                                                MPI_INFO_NULL, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(w, 1, &me, NULL, &right, MPI_UNWEIGHTED,
                                                MPI_INFO_NULL, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(w, 1, &me, (int[]){1}, NULL, MPI_UNWEIGHTED,
                                                MPI_INFO_NULL, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(w, 1, &me, (int[]){1}, &right, NULL,
                                                MPI_INFO_NULL, 0, &c));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(w, 1, &me, (int[]){1}, &right, MPI_UNWEIGHTED,
                                                MPI_INFO_NULL, 0, NULL));
    MPI_Comm dg;
    A_OK(MPI_Dist_graph_create_adjacent(w, 1, &left, &wt, 1, &right, &wt, MPI_INFO_NULL, 0, &dg));
    MPI_Comm_set_errhandler(dg, MPI_ERRORS_RETURN);
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors_count(dg, NULL, &v2, &v3));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors_count(dg, &v, NULL, &v3));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors_count(dg, &v, &v2, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors(dg, 1, NULL, arr, 1, arr2, arr2));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors(dg, 1, arr, NULL, 1, arr2, arr2));
    A_EXPECT(MPI_ERR_ARG, MPI_Dist_graph_neighbors(dg, 1, arr, arr, 1, NULL, arr2));
    A_OK(MPI_Dist_graph_neighbors(dg, 1, arr, MPI_UNWEIGHTED, 1, arr2, MPI_UNWEIGHTED));
    CHECK_INT(left, arr[0], "Dist_graph_neighbors source");
    CHECK_INT(right, arr2[0], "Dist_graph_neighbors destination");
    A_OK(MPI_Comm_free(&dg));

    /* ---- intercommunicators ---- */
    {
        MPI_Comm half, inter;
        A_OK(MPI_Comm_split(w, me % 2, me, &half));
        A_EXPECT(MPI_ERR_ARG, MPI_Intercomm_create(half, 0, w, me % 2 == 0 ? 1 : 0, 3, NULL));
        A_OK(MPI_Intercomm_create(half, 0, w, me % 2 == 0 ? 1 : 0, 3, &inter));
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_remote_size(inter, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_remote_group(inter, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Intercomm_merge(inter, 0, NULL));
        A_OK(MPI_Comm_remote_size(inter, &v));
        CHECK_INT(me % 2 == 0 ? n / 2 : (n + 1) / 2, v, "remote size");
        A_OK(MPI_Comm_free(&inter));
        A_OK(MPI_Comm_free(&half));
    }

    /* ---- attributes and keyvals ---- */
    {
        int kv = MPI_KEYVAL_INVALID, flag = 0;
        void *val = NULL;
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                                     MPI_COMM_NULL_DELETE_FN, NULL, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_free_keyval(NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, NULL, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Keyval_free(NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN,
                                                    NULL, NULL));
        A_EXPECT(MPI_ERR_ARG, MPI_Win_free_keyval(NULL));
        A_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
        A_OK(MPI_Comm_set_attr(w, kv, &v));
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_get_attr(w, kv, NULL, &flag));
        A_EXPECT(MPI_ERR_ARG, MPI_Comm_get_attr(w, kv, &val, NULL));
        A_OK(MPI_Comm_get_attr(w, kv, &val, &flag));
        CHECK_TRUE(flag && val == (void *)&v, "attribute kept");
        A_OK(MPI_Comm_delete_attr(w, kv));
        A_OK(MPI_Comm_free_keyval(&kv));
    }

    A_OK(MPI_Group_free(&wg));
    return a_finish("args_comm");
}
