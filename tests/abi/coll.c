/* Collectives, communicator split, groups and a Cartesian topology through the MPICH ABI,
 * on 4 ranks: MPI_IN_PLACE, per-peer datatype arrays (MPI_Alltoallw), nonblocking
 * collectives, MPI_Comm_split's new handles, MPI_Group_translate_ranks and MPI_Cart_shift
 * answering MPI_PROC_NULL (MPICH's -1). */
#include <string.h>

#include "abi_test.h"

int main(int argc, char **argv)
{
    abi_test_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 4, "needs 4 ranks, has %d", size);

    int v = rank == 2 ? 99 : -1;
    OK(MPI_Bcast(&v, 1, MPI_INT, 2, MPI_COMM_WORLD));
    CHECK_INT(v, 99);

    long s = rank + 1, sum = 0;
    OK(MPI_Reduce(&s, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        CHECK_INT(sum, 10);
    double d[2] = {rank, -rank};
    OK(MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(d[0] == 3 && d[1] == 0, "max %g %g", d[0], d[1]);
    struct {
        double v;
        int loc;
    } ml = {rank == 1 ? 5.0 : 1.0, rank}, mlo;
    OK(MPI_Allreduce(&ml, &mlo, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(mlo.v == 5.0 && mlo.loc == 1, "maxloc %g %d", mlo.v, mlo.loc);

    int all[4] = {0};
    all[rank] = rank * rank;
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        CHECK_INT(all[i], i * i);

    int gat[4] = {0}, mine = 10 + rank;
    OK(MPI_Gather(&mine, 1, MPI_INT, gat, 1, MPI_INT, 3, MPI_COMM_WORLD));
    if (rank == 3)
        for (int i = 0; i < 4; i++)
            CHECK_INT(gat[i], 10 + i);

    int sc[10], counts[4] = {1, 2, 3, 4}, displs[4] = {0, 1, 3, 6}, got[4] = {0};
    for (int i = 0; i < 10; i++)
        sc[i] = i * 3;
    OK(MPI_Scatterv(sc, counts, displs, MPI_INT, got, rank + 1, MPI_INT, 0, MPI_COMM_WORLD));
    for (int i = 0; i <= rank; i++)
        CHECK_INT(got[i], (displs[rank] + i) * 3);

    int a2a_s[4], a2a_r[4];
    for (int i = 0; i < 4; i++)
        a2a_s[i] = rank * 100 + i;
    OK(MPI_Alltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        CHECK_INT(a2a_r[i], i * 100 + rank);

    /* Alltoallw: peer i gets one int, as MPI_INT to even peers and 4 bytes to odd ones. */
    MPI_Datatype sty[4], rty[4];
    int sc1[4], sd[4], rc1[4], rd[4];
    for (int i = 0; i < 4; i++) {
        sty[i] = i % 2 ? MPI_BYTE : MPI_INT;
        rty[i] = rank % 2 ? MPI_BYTE : MPI_INT;
        sc1[i] = i % 2 ? 4 : 1;
        rc1[i] = rank % 2 ? 4 : 1;
        sd[i] = rd[i] = i * (int)sizeof(int);
    }
    memset(a2a_r, 0, sizeof(a2a_r));
    OK(MPI_Alltoallw(a2a_s, sc1, sd, sty, a2a_r, rc1, rd, rty, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        CHECK_INT(a2a_r[i], i * 100 + rank);

    int scan = 0, exscan = -7;
    OK(MPI_Scan(&mine, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(scan, 10 * (rank + 1) + rank * (rank + 1) / 2);
    OK(MPI_Exscan(&mine, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (rank > 0)
        CHECK_INT(exscan, 10 * rank + rank * (rank - 1) / 2);
    int rsb_in[4] = {1, 2, 3, 4}, rsb_out = 0;
    OK(MPI_Reduce_scatter_block(rsb_in, &rsb_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(rsb_out, 4 * (rank + 1));

    /* Nonblocking collectives. */
    MPI_Request reqs[2];
    int ia = rank, ib = 0;
    OK(MPI_Iallreduce(&ia, &ib, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]));
    OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    CHECK_INT(ib, 6);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "requests freed");

    /* Split into even and odd ranks, reversed order. */
    MPI_Comm half;
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
    int hr, hs;
    OK(MPI_Comm_rank(half, &hr));
    OK(MPI_Comm_size(half, &hs));
    CHECK_INT(hs, 2);
    CHECK_INT(hr, rank < 2 ? 1 : 0);
    int hsum = 0;
    OK(MPI_Allreduce(&rank, &hsum, 1, MPI_INT, MPI_SUM, half));
    CHECK_INT(hsum, rank % 2 ? 4 : 2);
    int cmp = -1;
    OK(MPI_Comm_compare(half, MPI_COMM_WORLD, &cmp));
    CHECK_INT(cmp, MPI_UNEQUAL);
    MPI_Comm none;
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none));
    if (rank == 0)
        CHECK_INT(none, MPI_COMM_NULL);
    else
        OK(MPI_Comm_free(&none));

    /* Groups: translate, with MPI_PROC_NULL passing through. */
    MPI_Group wg, hg;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    OK(MPI_Comm_group(half, &hg));
    int r1[3] = {0, 1, MPI_PROC_NULL}, r2[3] = {-5, -5, -5};
    OK(MPI_Group_translate_ranks(hg, 3, r1, wg, r2));
    CHECK_INT(r2[0], rank % 2 == 0 ? 2 : 3);
    CHECK_INT(r2[1], rank % 2 == 0 ? 0 : 1);
    CHECK_INT(r2[2], MPI_PROC_NULL);
    int gcmp;
    OK(MPI_Group_compare(wg, wg, &gcmp));
    CHECK_INT(gcmp, MPI_IDENT);
    OK(MPI_Group_free(&hg));
    OK(MPI_Group_free(&wg));
    CHECK_INT(wg, MPI_GROUP_NULL);
    OK(MPI_Comm_free(&half));

    /* A 1-D non-periodic Cartesian grid: the ends shift to MPI_PROC_NULL. */
    MPI_Comm cart;
    int dims[1] = {4}, periods[1] = {0};
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    int src = -9, dst = -9;
    OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK_INT(src, rank == 0 ? MPI_PROC_NULL : rank - 1);
    CHECK_INT(dst, rank == 3 ? MPI_PROC_NULL : rank + 1);
    int topo = -1;
    OK(MPI_Topo_test(cart, &topo));
    CHECK_INT(topo, MPI_CART);
    int fromleft = -1;
    OK(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 0, &fromleft, 1, MPI_INT, src, 0, cart,
                    MPI_STATUS_IGNORE));
    CHECK_INT(fromleft, rank == 0 ? -1 : rank - 1);
    OK(MPI_Comm_free(&cart));
    abi_test_done("coll");
    return 0;
}
