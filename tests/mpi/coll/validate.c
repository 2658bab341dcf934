/* coll_validate: argument errors of the reductions and nonblocking collectives are found
 * at every rank before anything moves.
 *
 *  - Under MPI_ERRORS_RETURN, a predefined operation on a datatype it is not defined on
 *    (MPI_LXOR on MPI_FLOAT, MPI_MAXLOC on MPI_INT, MPI_BAND on MPI_DOUBLE, MPI_SUM on
 *    MPI_2INT, MPI_REPLACE on MPI_INT) gives MPI_ERR_OP at EVERY rank, in Reduce (every
 *    root), Allreduce, Reduce_scatter, Reduce_scatter_block, Scan, Exscan and their
 *    nonblocking and persistent forms; the next correct reduction of each
 *    kind then gives the exact result (a leaf rank that had sent its contribution would
 *    leave a stray message that corrupts it).
 *  - Other classes: MPI_OP_NULL (ERR_OP), MPI_DATATYPE_NULL (ERR_TYPE), negative count
 *    (ERR_COUNT), root out of range (ERR_ROOT), MPI_COMM_NULL (ERR_COMM), NULL request
 *    pointer, count/displacement/type arrays (ERR_ARG), MPI_IN_PLACE off the root
 *    (ERR_BUFFER); a neighbourhood collective without topology (ERR_TOPOLOGY).
 */
#include "../t_util.h"

static int me, np;
static char w[200];

static void expect_class(int cls, int rc, const char *what)
{
    int got = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    if (got != cls)
        t_fail("%s: expected error class %d, got %d (rc %d)", what, cls, got, rc);
}

enum { K_REDUCE, K_ALLREDUCE, K_RS, K_RSB, K_SCAN, K_EXSCAN, K_KINDS };
static const char *kname[] = {"Reduce", "Allreduce", "Reduce_scatter", "Reduce_scatter_block",
                              "Scan", "Exscan"};

/* Calls reduction kind k (blocking, nonblocking + wait, or persistent + start + wait:
 * form 0, 1, 2) with count elements per rank of dt at sb, into rb. */
static int call(int k, int form, const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op,
                int root)
{
    int *rc = t_malloc(sizeof(int) * (size_t)np), r = MPI_SUCCESS;
    for (int q = 0; q < np; q++)
        rc[q] = count;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm c = MPI_COMM_WORLD;
    switch (k * 3 + form) {
    case K_REDUCE * 3: r = MPI_Reduce(sb, rb, count, dt, op, root, c); break;
    case K_REDUCE * 3 + 1: r = MPI_Ireduce(sb, rb, count, dt, op, root, c, &req); break;
    case K_ALLREDUCE * 3: r = MPI_Allreduce(sb, rb, count, dt, op, c); break;
    case K_ALLREDUCE * 3 + 1: r = MPI_Iallreduce(sb, rb, count, dt, op, c, &req); break;
    case K_RS * 3: r = MPI_Reduce_scatter(sb, rb, rc, dt, op, c); break;
    case K_RS * 3 + 1: r = MPI_Ireduce_scatter(sb, rb, rc, dt, op, c, &req); break;
    case K_RSB * 3: r = MPI_Reduce_scatter_block(sb, rb, count, dt, op, c); break;
    case K_RSB * 3 + 1: r = MPI_Ireduce_scatter_block(sb, rb, count, dt, op, c, &req); break;
    case K_SCAN * 3: r = MPI_Scan(sb, rb, count, dt, op, c); break;
    case K_SCAN * 3 + 1: r = MPI_Iscan(sb, rb, count, dt, op, c, &req); break;
    case K_EXSCAN * 3: r = MPI_Exscan(sb, rb, count, dt, op, c); break;
    case K_EXSCAN * 3 + 1: r = MPI_Iexscan(sb, rb, count, dt, op, c, &req); break;
    case K_REDUCE * 3 + 2: r = MPI_Reduce_init(sb, rb, count, dt, op, root, c, MPI_INFO_NULL, &req); break;
    case K_ALLREDUCE * 3 + 2: r = MPI_Allreduce_init(sb, rb, count, dt, op, c, MPI_INFO_NULL, &req); break;
    case K_RS * 3 + 2: r = MPI_Reduce_scatter_init(sb, rb, rc, dt, op, c, MPI_INFO_NULL, &req); break;
    case K_RSB * 3 + 2: r = MPI_Reduce_scatter_block_init(sb, rb, count, dt, op, c, MPI_INFO_NULL, &req); break;
    case K_SCAN * 3 + 2: r = MPI_Scan_init(sb, rb, count, dt, op, c, MPI_INFO_NULL, &req); break;
    case K_EXSCAN * 3 + 2: r = MPI_Exscan_init(sb, rb, count, dt, op, c, MPI_INFO_NULL, &req); break;
    default: t_fail("no form %d of %s", form, kname[k]);
    }
    free(rc);
    if (r != MPI_SUCCESS) {
        CHECK_TRUE(req == MPI_REQUEST_NULL, "a failed call returns no request");
        return r;
    }
    if (form == 2) {
        CHECK_MPI(MPI_Start(&req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Request_free(&req));
    } else if (form == 1) {
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    return MPI_SUCCESS;
}

/* A correct reduction of kind k right after a refused one: exact result. */
static void good(int k, int form, int root)
{
    int count = 300;
    int *sb = t_malloc(sizeof(int) * (size_t)(count * np));
    int *rb = t_malloc(sizeof(int) * (size_t)(count * np));
    for (int i = 0; i < count * np; i++) {
        sb[i] = (me + 1) * 10 + i;
        rb[i] = -1;
    }
    CHECK_MPI(call(k, form, sb, rb, count, MPI_INT, MPI_SUM, root));
    int n = (k == K_RS || k == K_RSB) ? count : count;
    for (int i = 0; i < n; i++) {
        long long all = 0, pre = 0;
        int idx = (k == K_RS || k == K_RSB) ? me * count + i : i;
        for (int q = 0; q < np; q++) {
            all += (q + 1) * 10 + idx;
            if (q < me)
                pre += (q + 1) * 10 + idx;
        }
        long long exp = all;
        if (k == K_SCAN)
            exp = pre + (me + 1) * 10 + idx;
        if (k == K_EXSCAN)
            exp = pre;
        if ((k == K_REDUCE && me != root) || (k == K_EXSCAN && me == 0))
            continue;
        CHECK_INT(exp, rb[i],
                  t_fmt(w, sizeof w, "%s form %d after a refused one [%d]", kname[k], form, i));
    }
    free(sb);
    free(rb);
}

static void bad_pairs(int form)
{
    struct {
        MPI_Op op;
        MPI_Datatype dt;
        const char *name;
    } bad[] = {{MPI_LXOR, MPI_FLOAT, "LXOR/FLOAT"},
               {MPI_MAXLOC, MPI_INT, "MAXLOC/INT"},
               {MPI_BAND, MPI_DOUBLE, "BAND/DOUBLE"},
               {MPI_SUM, MPI_2INT, "SUM/2INT"},
               {MPI_REPLACE, MPI_INT, "REPLACE/INT"}};
    double sb[64 * 8], rb[64 * 8];
    memset(sb, 0, sizeof sb);
    for (int k = 0; k < K_KINDS; k++) {
        for (int b = 0; b < 5; b++) {
            int root = (b + k) % np;
            int rc = call(k, form, sb, rb, 8, bad[b].dt, bad[b].op, root);
            expect_class(MPI_ERR_OP, rc,
                         t_fmt(w, sizeof w, "%s form %d with %s", kname[k], form, bad[b].name));
            good(k, form, root);
        }
    }
}

static void other_classes(void)
{
    int x[64] = {0}, y[64] = {0}, cnt[64], dsp[64];
    MPI_Datatype ty[64];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int i = 0; i < 64; i++) {
        cnt[i] = 1;
        dsp[i] = i;
        ty[i] = MPI_INT;
    }
    MPI_Comm c = MPI_COMM_WORLD;
    expect_class(MPI_ERR_OP, MPI_Iallreduce(x, y, 1, MPI_INT, MPI_OP_NULL, c, &r), "Iallreduce OP_NULL");
    expect_class(MPI_ERR_OP, MPI_Allreduce(x, y, 1, MPI_INT, MPI_OP_NULL, c), "Allreduce OP_NULL");
    expect_class(MPI_ERR_TYPE, MPI_Ireduce(x, y, 1, MPI_DATATYPE_NULL, MPI_SUM, 0, c, &r),
                 "Ireduce DATATYPE_NULL");
    expect_class(MPI_ERR_COUNT, MPI_Iscan(x, y, -1, MPI_INT, MPI_SUM, c, &r), "Iscan count -1");
    expect_class(MPI_ERR_ROOT, MPI_Ibcast(x, 1, MPI_INT, np, c, &r), "Ibcast root np");
    expect_class(MPI_ERR_ROOT, MPI_Igather(x, 1, MPI_INT, y, 1, MPI_INT, -1, c, &r), "Igather root -1");
    expect_class(MPI_ERR_COMM, MPI_Ibarrier(MPI_COMM_NULL, &r), "Ibarrier COMM_NULL");
    expect_class(MPI_ERR_ARG, MPI_Ibarrier(c, NULL), "Ibarrier NULL request");
    expect_class(MPI_ERR_ARG,
                 MPI_Ialltoallv(x, NULL, dsp, MPI_INT, y, cnt, dsp, MPI_INT, c, &r),
                 "Ialltoallv NULL sendcounts");
    expect_class(MPI_ERR_ARG, MPI_Ialltoallw(x, cnt, dsp, ty, y, cnt, dsp, NULL, c, &r),
                 "Ialltoallw NULL recvtypes");
    expect_class(MPI_ERR_ARG, MPI_Iallgatherv(x, 1, MPI_INT, y, cnt, NULL, MPI_INT, c, &r),
                 "Iallgatherv NULL displs");
    if (me == 0)
        expect_class(MPI_ERR_ARG, MPI_Igatherv(x, 1, MPI_INT, y, NULL, dsp, MPI_INT, 0, c, &r),
                     "Igatherv NULL recvcounts at the root");
    if (me != 0) {
        expect_class(MPI_ERR_BUFFER, MPI_Ireduce(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, 0, c, &r),
                     "Ireduce MPI_IN_PLACE off the root");
        expect_class(MPI_ERR_BUFFER, MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, 0, c, &r),
                     "Igather MPI_IN_PLACE off the root");
    }
    expect_class(MPI_ERR_TYPE, MPI_Iallgather(x, 1, MPI_INT, y, 1, MPI_DATATYPE_NULL, c, &r),
                 "Iallgather recvtype NULL");
    expect_class(MPI_ERR_COUNT, MPI_Ireduce_scatter_block(x, y, -2, MPI_INT, MPI_SUM, c, &r),
                 "Ireduce_scatter_block count -2");
    expect_class(MPI_ERR_TOPOLOGY,
                 MPI_Neighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, c),
                 "Neighbor_allgather on a communicator without topology");
    expect_class(MPI_ERR_TOPOLOGY,
                 MPI_Ineighbor_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, c, &r),
                 "Ineighbor_alltoall on a communicator without topology");
    CHECK_TRUE(r == MPI_REQUEST_NULL, "no request from refused calls");
    /* everything still works */
    int one = me + 1, sum = 0;
    CHECK_MPI(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_INT(np * (np + 1) / 2, sum, "Iallreduce after the refused calls");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    bad_pairs(0);
    bad_pairs(1);
    bad_pairs(2);
    other_classes();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
