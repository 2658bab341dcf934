/* coll_alias: send and receive buffers that are the same memory are refused with
 * MPI_ERR_BUFFER by every rank that passes them, before anything moves (MPICH's
 * errors/coll/noalias, nb_noalias, noalias3, reduce_local; before the fix IVC ran them and
 * returned MPI_SUCCESS, or crashed on MPI_Reduce_local(MPI_IN_PLACE, ...)).
 *
 *  - every rank aliased: Allreduce, Scan, Exscan, Reduce_scatter_block, Reduce_scatter,
 *    Allgather (the send buffer at this rank's block), Allgatherv, Alltoall, Alltoallv,
 *    Alltoallw, blocking and nonblocking (no request comes back);
 *  - the root alone aliased: Reduce, Gather, Gatherv, Scatter, Scatterv (and Igather,
 *    Iscatter): the root gets MPI_ERR_BUFFER, the others, whose buffers are fine, then meet
 *    the root's corrected call, whose result is checked;
 *  - what stays legal: MPI_IN_PLACE, count 0 with one buffer (all counts 0 in the v and w
 *    forms too), a root-only receive buffer
 *    equal to another rank's send buffer address (Reduce with recvbuf == sendbuf off the
 *    root), results checked;
 *  - MPI_Reduce_local: MPI_IN_PLACE as either buffer, and inbuf == inoutbuf, give
 *    MPI_ERR_BUFFER; a correct call then sums.
 */
#include "../t_util.h"

static int me, np;

static void expect_buffer(int rc, const char *what)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_BUFFER)
        t_fail("%s: expected MPI_ERR_BUFFER (%d), got class %d (rc %d)", what, MPI_ERR_BUFFER, cls,
               rc);
}

static void expect_refused_i(int rc, MPI_Request req, const char *what)
{
    expect_buffer(rc, what);
    CHECK_TRUE(req == MPI_REQUEST_NULL, "no request from a refused call");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n = np * 4;
    int *buf = t_malloc(sizeof(int) * (size_t)n), *rbuf = t_malloc(sizeof(int) * (size_t)n);
    int *cnt = t_malloc(sizeof(int) * (size_t)np), *dsp = t_malloc(sizeof(int) * (size_t)np);
    MPI_Datatype *types = t_malloc(sizeof(MPI_Datatype) * (size_t)np);
    int *bdsp = t_malloc(sizeof(int) * (size_t)np);
    for (int r = 0; r < np; r++) {
        cnt[r] = 1;
        dsp[r] = r;
        bdsp[r] = r * (int)sizeof(int);
        types[r] = MPI_INT;
    }
    for (int i = 0; i < n; i++)
        buf[i] = i;
    MPI_Request req;

    /* Every rank aliased. */
    expect_buffer(MPI_Allreduce(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Allreduce");
    expect_buffer(MPI_Scan(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Scan");
    expect_buffer(MPI_Exscan(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "Exscan");
    expect_buffer(MPI_Reduce_scatter_block(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                  "Reduce_scatter_block");
    expect_buffer(MPI_Reduce_scatter(buf, buf, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                  "Reduce_scatter");
    expect_buffer(MPI_Allgather(&buf[me], 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD),
                  "Allgather, send buffer at this rank's block");
    expect_buffer(MPI_Allgatherv(&buf[me], 1, MPI_INT, buf, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
                  "Allgatherv, send buffer at this rank's block");
    expect_buffer(MPI_Alltoall(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD), "Alltoall");
    expect_buffer(MPI_Alltoallv(buf, cnt, dsp, MPI_INT, buf, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
                  "Alltoallv");
    expect_buffer(MPI_Alltoallw(buf, cnt, bdsp, types, buf, cnt, bdsp, types, MPI_COMM_WORLD),
                  "Alltoallw");
    req = MPI_REQUEST_NULL;
    expect_refused_i(MPI_Iallreduce(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req), req,
                     "Iallreduce");
    req = MPI_REQUEST_NULL;
    expect_refused_i(MPI_Iallgather(&buf[me], 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD, &req),
                     req, "Iallgather");
    req = MPI_REQUEST_NULL;
    expect_refused_i(MPI_Ialltoall(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD, &req), req,
                     "Ialltoall");
    req = MPI_REQUEST_NULL;
    expect_refused_i(MPI_Iscan(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req), req, "Iscan");

    /* The root alone aliased: it is refused; the others' call meets its corrected one. */
    for (int root = 0; root < np; root++) {
        int x = me + 1, sum = -1;
        int rc = MPI_Reduce(&x, me == root ? (void *)&x : NULL, 1, MPI_INT, MPI_SUM, root,
                            MPI_COMM_WORLD);
        if (me == root) {
            expect_buffer(rc, "Reduce at the root");
            CHECK_MPI(MPI_Reduce(&x, &sum, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            CHECK_INT(np * (np + 1) / 2, sum, "Reduce after the refused one");
        } else {
            CHECK_MPI(rc);
        }
        for (int i = 0; i < n; i++)
            rbuf[i] = -1;
        int v = 100 + me;
        rc = MPI_Gather(me == root ? &rbuf[me] : &v, 1, MPI_INT, rbuf, 1, MPI_INT, root,
                        MPI_COMM_WORLD);
        if (me == root) {
            expect_buffer(rc, "Gather, root's send buffer at its own block");
            CHECK_MPI(MPI_Gather(&v, 1, MPI_INT, rbuf, 1, MPI_INT, root, MPI_COMM_WORLD));
            for (int r = 0; r < np; r++)
                CHECK_INT(100 + r, rbuf[r], "Gather after the refused one");
        } else {
            CHECK_MPI(rc);
        }
        rc = MPI_Gatherv(me == root ? rbuf : &v, 1, MPI_INT, rbuf, cnt, dsp, MPI_INT, root,
                         MPI_COMM_WORLD);
        if (me == root) {
            expect_buffer(rc, "Gatherv, root's send buffer is its receive buffer");
            CHECK_MPI(MPI_Gatherv(&v, 1, MPI_INT, rbuf, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(rc);
        }
        for (int i = 0; i < n; i++)
            buf[i] = 200 + i;
        int got = -1;
        rc = MPI_Scatter(buf, 1, MPI_INT, me == root ? (void *)&buf[me] : &got, 1, MPI_INT, root,
                         MPI_COMM_WORLD);
        if (me == root) {
            expect_buffer(rc, "Scatter, root's receive buffer at its own block");
            CHECK_MPI(MPI_Scatter(buf, 1, MPI_INT, &got, 1, MPI_INT, root, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(rc);
        }
        CHECK_INT(200 + me, got, "Scatter after the refused one");
        got = -1;
        rc = MPI_Scatterv(buf, cnt, dsp, MPI_INT, me == root ? (void *)buf : &got, 1, MPI_INT, root,
                          MPI_COMM_WORLD);
        if (me == root) {
            expect_buffer(rc, "Scatterv, root's receive buffer is its send buffer");
            CHECK_MPI(MPI_Scatterv(buf, cnt, dsp, MPI_INT, &got, 1, MPI_INT, root, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(rc);
        }
        CHECK_INT(200 + me, got, "Scatterv after the refused one");
        req = MPI_REQUEST_NULL;
        rc = MPI_Igather(me == root ? rbuf : &v, 1, MPI_INT, rbuf, 1, MPI_INT, root, MPI_COMM_WORLD,
                         &req);
        if (me == root) {
            expect_refused_i(rc, req, "Igather at the root");
            CHECK_MPI(MPI_Igather(&v, 1, MPI_INT, rbuf, 1, MPI_INT, root, MPI_COMM_WORLD, &req));
        } else {
            CHECK_MPI(rc);
        }
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (me == root)
            for (int r = 0; r < np; r++)
                CHECK_INT(100 + r, rbuf[r], "Igather after the refused one");
    }

    /* What stays legal. */
    int x = me + 1;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(np * (np + 1) / 2, x, "Allreduce in place");
    CHECK_MPI(MPI_Allreduce(buf, buf, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    x = me + 1;
    int y = -1;
    /* Off the root the receive buffer is not significant: passing the send buffer is fine. */
    CHECK_MPI(
        MPI_Reduce(&x, me == 0 ? (void *)&y : (void *)&x, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (me == 0)
        CHECK_INT(np * (np + 1) / 2, y, "Reduce with recvbuf == sendbuf off the root");
    for (int i = 0; i < n; i++)
        buf[i] = me == 0 ? i : -1;
    CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 1, MPI_INT, MPI_COMM_WORLD));
    /* The v forms with every count 0 move nothing: one address for both is no alias (mpi4py's
     * testAlltoallv3 passes its empty arrays so). Nor is a Reduce_scatter whose block here is
     * empty. */
    int *zero = t_malloc(sizeof(int) * (size_t)np);
    for (int r = 0; r < np; r++)
        zero[r] = 0;
    CHECK_MPI(MPI_Alltoallv(buf, zero, dsp, MPI_INT, buf, zero, dsp, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Alltoallw(buf, zero, bdsp, types, buf, zero, bdsp, types, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Reduce_scatter(buf, buf, zero, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    free(zero);

    /* MPI_Reduce_local. */
    int in[4] = {1, 2, 3, 4}, io[4] = {10, 20, 30, 40};
    expect_buffer(MPI_Reduce_local(MPI_IN_PLACE, io, 4, MPI_INT, MPI_SUM),
                  "Reduce_local with MPI_IN_PLACE as inbuf");
    expect_buffer(MPI_Reduce_local(in, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM),
                  "Reduce_local with MPI_IN_PLACE as inoutbuf");
    expect_buffer(MPI_Reduce_local(io, io, 4, MPI_INT, MPI_SUM),
                  "Reduce_local with inbuf == inoutbuf");
    CHECK_MPI(MPI_Reduce_local(in, io, 4, MPI_INT, MPI_SUM));
    for (int i = 0; i < 4; i++)
        CHECK_INT(11 * (i + 1), io[i], "Reduce_local sum");

    free(buf);
    free(rbuf);
    free(cnt);
    free(dsp);
    free(bdsp);
    free(types);
    MPI_Finalize();
    return 0;
}
