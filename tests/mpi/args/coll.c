/* args_coll: NULL arguments to the collective calls under MPI_ERRORS_RETURN (3 ranks).
 *
 * Errors are found before anything moves, each rank on its own: where every rank passes the
 * same wrong argument, WORLD is used; arguments that only the root looks at are checked on
 * MPI_COMM_SELF, so that no rank enters a collective that another left with an error.
 * Checked, each against MPICH's class:
 *  - a NULL send or receive buffer with data (count > 0, a type of non-zero size), in the
 *    blocking, nonblocking, persistent and neighbourhood forms, on intra- and
 *    intercommunicators: MPI_ERR_BUFFER;
 *  - NULL count, displacement or datatype arrays, NULL request pointers: MPI_ERR_ARG;
 *  - legal: count 0 with NULL, MPI_IN_PLACE, MPI_BOTTOM with a type of absolute addresses
 *    (Gather on SELF) and absolute byte displacements (Neighbor_alltoallw, data checked);
 *  - afterwards an Allreduce on WORLD gives the exact sum. */
#include "a_util.h"

int main(int argc, char **argv)
{
    a_init(&argc, &argv);
    t_require_ranks(2);
    MPI_Comm w = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    int n = t_size, me = t_rank;
    int x[64], y[64], counts[64], displs[64];
    MPI_Datatype types[64];
    for (int i = 0; i < 64; i++) {
        x[i] = me * 100 + i;
        y[i] = -1;
        counts[i] = 1;
        displs[i] = i;
        types[i] = MPI_INT;
    }
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Info info = MPI_INFO_NULL;

    /* ---- blocking, every rank alike (WORLD) ---- */
    A_EXPECT(MPI_ERR_BUFFER, MPI_Bcast(NULL, 4, MPI_INT, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Bcast_c(NULL, 4, MPI_INT, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allreduce_c(x, NULL, 4, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Reduce(NULL, y, 4, MPI_INT, MPI_SUM, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(NULL, y, 4, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(x, NULL, 4, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(MPI_IN_PLACE, NULL, 4, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Scan(NULL, y, 4, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Exscan(x, NULL, 4, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Reduce_scatter_block(NULL, y, 1, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Reduce_scatter_block(x, NULL, 1, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER,
             MPI_Reduce_scatter_block(MPI_IN_PLACE, NULL, 1, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_ARG, MPI_Reduce_scatter(x, y, NULL, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Reduce_scatter(NULL, y, counts, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Reduce_scatter(x, NULL, counts, MPI_INT, MPI_SUM, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Gather(NULL, 1, MPI_INT, y, 1, MPI_INT, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Gatherv(NULL, 1, MPI_INT, y, counts, displs, MPI_INT, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Scatter(x, 1, MPI_INT, NULL, 1, MPI_INT, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Scatterv(x, counts, displs, MPI_INT, NULL, 1, MPI_INT, 0, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allgather(NULL, 1, MPI_INT, y, 1, MPI_INT, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allgather(x, 1, MPI_INT, NULL, 1, MPI_INT, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, NULL, 1, MPI_INT, w));
    A_EXPECT(MPI_ERR_ARG, MPI_Allgatherv(x, 1, MPI_INT, y, NULL, displs, MPI_INT, w));
    A_EXPECT(MPI_ERR_ARG, MPI_Allgatherv(x, 1, MPI_INT, y, counts, NULL, MPI_INT, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allgatherv(x, 1, MPI_INT, NULL, counts, displs, MPI_INT, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Alltoall(NULL, 1, MPI_INT, y, 1, MPI_INT, w));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Alltoall(x, 1, MPI_INT, NULL, 1, MPI_INT, w));
    A_EXPECT(MPI_ERR_ARG,
             MPI_Alltoallv(x, NULL, displs, MPI_INT, y, counts, displs, MPI_INT, w));
    A_EXPECT(MPI_ERR_ARG,
             MPI_Alltoallv(x, counts, displs, MPI_INT, y, counts, NULL, MPI_INT, w));
    A_EXPECT(MPI_ERR_BUFFER,
             MPI_Alltoallv(NULL, counts, displs, MPI_INT, y, counts, displs, MPI_INT, w));
    A_EXPECT(MPI_ERR_BUFFER,
             MPI_Alltoallv(x, counts, displs, MPI_INT, NULL, counts, displs, MPI_INT, w));
    A_EXPECT(MPI_ERR_ARG, MPI_Alltoallw(x, counts, displs, NULL, y, counts, displs, types, w));
    A_EXPECT(MPI_ERR_ARG, MPI_Alltoallw(x, counts, displs, types, y, NULL, displs, types, w));
    A_EXPECT(MPI_ERR_BUFFER,
             MPI_Alltoallw(NULL, counts, displs, types, y, counts, displs, types, w));
    A_EXPECT(MPI_ERR_BUFFER,
             MPI_Alltoallw(x, counts, displs, types, NULL, counts, displs, types, w));

    /* ---- arguments only the root looks at (SELF) ---- */
    A_EXPECT(MPI_ERR_BUFFER, MPI_Reduce(x, NULL, 2, MPI_INT, MPI_SUM, 0, self));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Gather(x, 1, MPI_INT, NULL, 1, MPI_INT, 0, self));
    A_EXPECT(MPI_ERR_ARG, MPI_Gatherv(x, 1, MPI_INT, y, NULL, displs, MPI_INT, 0, self));
    A_EXPECT(MPI_ERR_ARG, MPI_Gatherv(x, 1, MPI_INT, y, counts, NULL, MPI_INT, 0, self));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Gatherv(x, 1, MPI_INT, NULL, counts, displs, MPI_INT, 0, self));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Scatter(NULL, 1, MPI_INT, y, 1, MPI_INT, 0, self));
    A_EXPECT(MPI_ERR_ARG, MPI_Scatterv(x, NULL, displs, MPI_INT, y, 1, MPI_INT, 0, self));
    A_EXPECT(MPI_ERR_ARG, MPI_Scatterv(x, counts, NULL, MPI_INT, y, 1, MPI_INT, 0, self));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Scatterv(NULL, counts, displs, MPI_INT, y, 1, MPI_INT, 0, self));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Ireduce(x, NULL, 2, MPI_INT, MPI_SUM, 0, self, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Igather(x, 1, MPI_INT, NULL, 1, MPI_INT, 0, self, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Iscatterv(NULL, counts, displs, MPI_INT, y, 1, MPI_INT, 0, self,
                                           &r));

    /* ---- nonblocking ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Ibarrier(w, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Ibcast(NULL, 4, MPI_INT, 0, w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Ibcast(x, 4, MPI_INT, 0, w, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Iallreduce(NULL, y, 4, MPI_INT, MPI_SUM, w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Iallreduce(x, y, 4, MPI_INT, MPI_SUM, w, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Iscan(x, NULL, 4, MPI_INT, MPI_SUM, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Iexscan(NULL, y, 4, MPI_INT, MPI_SUM, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Ireduce_scatter_block(x, NULL, 1, MPI_INT, MPI_SUM, w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Ireduce_scatter(x, y, NULL, MPI_INT, MPI_SUM, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Iallgather(x, 1, MPI_INT, NULL, 1, MPI_INT, w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Iallgatherv(x, 1, MPI_INT, y, counts, NULL, MPI_INT, w, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Ialltoall(NULL, 1, MPI_INT, y, 1, MPI_INT, w, &r));
    A_EXPECT(MPI_ERR_ARG,
             MPI_Ialltoallv(x, counts, NULL, MPI_INT, y, counts, displs, MPI_INT, w, &r));
    A_EXPECT(MPI_ERR_ARG,
             MPI_Ialltoallw(x, counts, displs, types, y, counts, displs, NULL, w, &r));
    A_EXPECT(MPI_ERR_BUFFER,
             MPI_Ialltoallw(x, counts, displs, types, NULL, counts, displs, types, w, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Ialltoall(x, 1, MPI_INT, y, 1, MPI_INT, w, NULL));
    CHECK_TRUE(r == MPI_REQUEST_NULL, "no request handed out by a refused call");

    /* ---- persistent ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Barrier_init(w, info, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Bcast_init(NULL, 4, MPI_INT, 0, w, info, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allreduce_init(x, NULL, 4, MPI_INT, MPI_SUM, w, info, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Allreduce_init(x, y, 4, MPI_INT, MPI_SUM, w, info, NULL));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Allgather_init(NULL, 1, MPI_INT, y, 1, MPI_INT, w, info, &r));
    A_EXPECT(MPI_ERR_ARG, MPI_Alltoallv_init(x, NULL, displs, MPI_INT, y, counts, displs,
                                             MPI_INT, w, info, &r));
    A_EXPECT(MPI_ERR_BUFFER, MPI_Gather_init(x, 1, MPI_INT, NULL, 1, MPI_INT, 0, self, info, &r));

    /* ---- neighbourhood (a periodic ring) ---- */
    {
        MPI_Comm ring;
        int dims[1] = {n}, periods[1] = {1};
        A_OK(MPI_Cart_create(w, 1, dims, periods, 0, &ring));
        MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
        A_EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_allgather(NULL, 1, MPI_INT, y, 1, MPI_INT, ring));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_allgather(x, 1, MPI_INT, NULL, 1, MPI_INT, ring));
        A_EXPECT(MPI_ERR_ARG,
                 MPI_Neighbor_allgatherv(x, 1, MPI_INT, y, NULL, displs, MPI_INT, ring));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_alltoall(NULL, 1, MPI_INT, y, 1, MPI_INT, ring));
        A_EXPECT(MPI_ERR_ARG, MPI_Neighbor_alltoallv(x, counts, NULL, MPI_INT, y, counts, displs,
                                                     MPI_INT, ring));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_alltoallv(x, counts, displs, MPI_INT, NULL, counts,
                                                        displs, MPI_INT, ring));
        MPI_Aint ad[64];
        for (int i = 0; i < 64; i++)
            ad[i] = (MPI_Aint)(i * sizeof(int));
        A_EXPECT(MPI_ERR_ARG, MPI_Neighbor_alltoallw(x, counts, ad, NULL, y, counts, ad, types,
                                                     ring));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_alltoallw(NULL, counts, ad, types, y, counts, ad,
                                                        types, ring));
        A_EXPECT(MPI_ERR_ARG,
                 MPI_Ineighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, ring, NULL));
        A_EXPECT(MPI_ERR_BUFFER,
                 MPI_Ineighbor_alltoall(x, 1, MPI_INT, NULL, 1, MPI_INT, ring, &r));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_allgather_init(NULL, 1, MPI_INT, y, 1, MPI_INT, ring,
                                                             info, &r));
        /* And it works: each rank gets its two neighbours' ranks. */
        int mine = me, got[2] = {-1, -1};
        A_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, ring));
        CHECK_INT((me + n - 1) % n, got[0], "left neighbour");
        CHECK_INT((me + 1) % n, got[1], "right neighbour");
        /* Neighbor_alltoallw from and into MPI_BOTTOM with absolute byte displacements:
         * block 0 goes left, block 1 right. */
        int sb[2] = {me * 10, me * 10 + 1}, rb[2] = {-1, -1};
        MPI_Aint sa[2], ra[2];
        for (int i = 0; i < 2; i++) {
            A_OK(MPI_Get_address(&sb[i], &sa[i]));
            A_OK(MPI_Get_address(&rb[i], &ra[i]));
        }
        A_OK(MPI_Neighbor_alltoallw(MPI_BOTTOM, counts, sa, types, MPI_BOTTOM, counts, ra, types,
                                    ring));
        if (n > 2) { /* with 2 ranks both neighbours are the same rank */
            CHECK_INT(((me + n - 1) % n) * 10 + 1, rb[0], "from the left through MPI_BOTTOM");
            CHECK_INT(((me + 1) % n) * 10, rb[1], "from the right through MPI_BOTTOM");
        }
        A_OK(MPI_Comm_free(&ring));
    }

    /* ---- an intercommunicator: even and odd world ranks ---- */
    if (n >= 2) {
        MPI_Comm half, inter;
        A_OK(MPI_Comm_split(w, me % 2, me, &half));
        A_OK(MPI_Intercomm_create(half, 0, w, me % 2 == 0 ? 1 : 0, 5, &inter));
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        A_EXPECT(MPI_ERR_BUFFER, MPI_Allgather(NULL, 1, MPI_INT, y, 1, MPI_INT, inter));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Allreduce(x, NULL, 2, MPI_INT, MPI_SUM, inter));
        A_EXPECT(MPI_ERR_ARG, MPI_Alltoallv(x, counts, NULL, MPI_INT, y, counts, displs, MPI_INT,
                                            inter));
        A_EXPECT(MPI_ERR_BUFFER, MPI_Ialltoall(x, 1, MPI_INT, NULL, 1, MPI_INT, inter, &r));
        int one = 1, sum = 0, rsize = 0;
        A_OK(MPI_Comm_remote_size(inter, &rsize));
        A_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter));
        CHECK_INT(rsize, sum, "intercommunicator Allreduce after the errors");
        A_OK(MPI_Comm_free(&inter));
        A_OK(MPI_Comm_free(&half));
    }

    /* ---- legal uses of NULL and MPI_IN_PLACE ---- */
    A_OK(MPI_Bcast(NULL, 0, MPI_INT, 0, w));
    A_OK(MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, w));
    A_OK(MPI_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, w));
    {
        MPI_Datatype empty;
        A_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
        A_OK(MPI_Type_commit(&empty));
        A_OK(MPI_Bcast(NULL, 3, empty, 0, w));
        A_OK(MPI_Type_free(&empty));
    }
    {
        int v[2] = {me, 1};
        A_OK(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, w));
        CHECK_INT(n * (n - 1) / 2, v[0], "in-place Allreduce, word 0");
        CHECK_INT(n, v[1], "in-place Allreduce, word 1");
    }
    {
        /* Gather on SELF from MPI_BOTTOM: a struct type holding x[3] by address. */
        MPI_Datatype abs_t;
        MPI_Aint addr;
        int one = 1, out = -1;
        A_OK(MPI_Get_address(&x[3], &addr));
        A_OK(MPI_Type_create_struct(1, &one, &addr, (MPI_Datatype[]){MPI_INT}, &abs_t));
        A_OK(MPI_Type_commit(&abs_t));
        A_OK(MPI_Gather(MPI_BOTTOM, 1, abs_t, &out, 1, MPI_INT, 0, self));
        CHECK_INT(me * 100 + 3, out, "Gather from MPI_BOTTOM");
        A_OK(MPI_Type_free(&abs_t));
    }
    {
        int one = me + 1, sum = 0;
        A_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, w));
        CHECK_INT(n * (n + 1) / 2, sum, "Allreduce after the errors");
    }
    return a_finish("args_coll");
}
