/* coll_icoll: every nonblocking collective against locally computed references.
 *
 *  - Ireduce (every root, also in place at the root), Iallreduce, Iscan, Iexscan (SUM on
 *    int, a non-commutative user operation on a vector type), Ireduce_scatter (uneven and
 *    zero counts) and Ireduce_scatter_block, each also in place; counts 0 .. 70000.
 *  - Igather(v), Iscatter(v) (every root, uneven/zero counts, gaps that stay untouched,
 *    in place at the root), Iallgather(v) (also in place), Ialltoall(v, w) (also in place),
 *    with a strided vector type on one side.
 *  - All of them in flight at once on one communicator (plus a blocking Allreduce in the
 *    middle), completed by Waitall in one call and by Test loops in reverse order.
 */
#include "../t_util.h"

static int me, np;
static char w[200];

/* The value that rank r contributes at index i. */
static int val(int r, int i)
{
    return (int)((r + 1) * 1000 + (i * 7) % 1013);
}

typedef struct {
    int a, b;
} aff_t;

/* Non-commutative: composition of affine maps x -> a x + b (mod 2^32 via unsigned). */
static void aff_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    /* elements are (a, b) int pairs spaced by the datatype's extent */
    MPI_Aint lb = 0, ext = (MPI_Aint)sizeof(aff_t);
    if (dt != NULL)
        MPI_Type_get_extent(*dt, &lb, &ext);
    for (int i = 0; i < *len; i++) {
        int *x = (int *)((char *)in + i * ext), *y = (int *)((char *)inout + i * ext);
        unsigned a = (unsigned)x[0] * (unsigned)y[0];
        unsigned b = (unsigned)x[0] * (unsigned)y[1] + (unsigned)x[1];
        y[0] = (int)a;
        y[1] = (int)b;
    }
}

static aff_t aff_of(int r, int i)
{
    aff_t v = {2 * r + 1 + (i % 5), r * 3 + i};
    return v;
}

/* reference: x(0) op x(1) op ... op x(hi-1) for element i (lo <= ranks < hi) */
static aff_t aff_ref(int lo, int hi, int i)
{
    aff_t acc = aff_of(lo, i);
    for (int r = lo + 1; r < hi; r++) {
        aff_t x = acc, y = aff_of(r, i);
        int one = 1;
        aff_op(&x, &y, &one, NULL);
        acc = y;
    }
    return acc;
}

static void wait_some(MPI_Request *reqs, int n, int mode)
{
    if (mode == 0) {
        CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
        return;
    }
    for (int k = n - 1; k >= 0; k--) {
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Test(&reqs[k], &flag, MPI_STATUS_IGNORE));
        CHECK_TRUE(reqs[k] == MPI_REQUEST_NULL, "Test nulls a completed request");
    }
}

static void test_reductions(int count, int mode)
{
    MPI_Request rq[8];
    int nr = 0;
    int *sb = t_malloc(sizeof(int) * (size_t)(count * np + 1));
    int *red = t_malloc(sizeof(int) * (size_t)(count + 1));
    int *all = t_malloc(sizeof(int) * (size_t)(count + 1));
    int *ipl = t_malloc(sizeof(int) * (size_t)(count + 1));
    int *scan = t_malloc(sizeof(int) * (size_t)(count + 1));
    int *exs = t_malloc(sizeof(int) * (size_t)(count + 1));
    int *rsb = t_malloc(sizeof(int) * (size_t)(count + 1));
    int root = count % np;
    for (int i = 0; i < count * np; i++)
        sb[i] = val(me, i);
    for (int i = 0; i < count; i++) {
        red[i] = all[i] = scan[i] = rsb[i] = -1;
        exs[i] = -7;
        ipl[i] = val(me, i);
    }
    CHECK_MPI(MPI_Ireduce(sb, red, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &rq[nr++]));
    CHECK_MPI(MPI_Iallreduce(sb, all, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[nr++]));
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, ipl, count, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                             &rq[nr++]));
    CHECK_MPI(MPI_Iscan(sb, scan, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[nr++]));
    CHECK_MPI(MPI_Iexscan(sb, exs, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[nr++]));
    CHECK_MPI(MPI_Ireduce_scatter_block(sb, rsb, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        &rq[nr++]));
    /* a blocking collective while they are open */
    int one = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(np, sum, "blocking Allreduce among open nonblocking ones");
    wait_some(rq, nr, mode);
    for (int i = 0; i < count; i++) {
        long long s = 0, pre = 0;
        int mx = 0;
        for (int r = 0; r < np; r++) {
            s += val(r, i);
            if (r < me)
                pre += val(r, i);
            if (val(r, i) > mx)
                mx = val(r, i);
        }
        if (me == root)
            CHECK_INT(s, red[i], t_fmt(w, sizeof w, "Ireduce count %d root %d [%d]", count, root, i));
        CHECK_INT(s, all[i], t_fmt(w, sizeof w, "Iallreduce count %d [%d]", count, i));
        CHECK_INT(mx, ipl[i], t_fmt(w, sizeof w, "Iallreduce in place MAX count %d [%d]", count, i));
        CHECK_INT(pre + val(me, i), scan[i], t_fmt(w, sizeof w, "Iscan count %d [%d]", count, i));
        CHECK_INT(me == 0 ? -7 : pre, exs[i],
                  t_fmt(w, sizeof w, "Iexscan count %d [%d] (rank 0 untouched)", count, i));
        long long bs = 0;
        for (int r = 0; r < np; r++)
            bs += val(r, me * count + i);
        CHECK_INT(bs, rsb[i], t_fmt(w, sizeof w, "Ireduce_scatter_block count %d [%d]", count, i));
    }
    if (me != root && count > 0)
        CHECK_INT(-1, red[0], "Ireduce leaves non-root receive buffers alone");
    free(sb);
    free(red);
    free(all);
    free(ipl);
    free(scan);
    free(exs);
    free(rsb);
}

/* In place at the root for Ireduce; in place Iscan/Iexscan/Ireduce_scatter(_block);
 * Ireduce_scatter with uneven and zero counts. */
static void test_reductions_in_place(int base)
{
    int *rc = t_malloc(sizeof(int) * (size_t)np);
    int total = 0, first = 0;
    for (int r = 0; r < np; r++) {
        rc[r] = (r % 3 == 1) ? 0 : base + r;
        if (r == me)
            first = total;
        total += rc[r];
    }
    int *b = t_malloc(sizeof(int) * (size_t)(total + 1));
    int *c = t_malloc(sizeof(int) * (size_t)(total + 1));
    int *d = t_malloc(sizeof(int) * (size_t)(base + 1));
    int *e = t_malloc(sizeof(int) * (size_t)(base + 1));
    int *f = t_malloc(sizeof(int) * (size_t)(base * np + 1));
    for (int root = 0; root < np; root++) {
        for (int i = 0; i < base; i++)
            d[i] = val(me, i);
        MPI_Request r;
        if (me == root)
            CHECK_MPI(MPI_Ireduce(MPI_IN_PLACE, d, base, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &r));
        else
            CHECK_MPI(MPI_Ireduce(d, NULL, base, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < base; i++) {
            long long s = 0;
            for (int q = 0; q < np; q++)
                s += val(q, i);
            CHECK_INT(me == root ? s : val(me, i), d[i],
                      t_fmt(w, sizeof w, "Ireduce in place root %d [%d]", root, i));
        }
    }
    MPI_Request rq[4];
    for (int i = 0; i < total; i++) {
        b[i] = val(me, i);
        c[i] = -1;
    }
    for (int i = 0; i < base; i++)
        d[i] = e[i] = val(me, i);
    for (int i = 0; i < base * np; i++)
        f[i] = val(me, i);
    CHECK_MPI(MPI_Ireduce_scatter(MPI_IN_PLACE, b, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Iscan(MPI_IN_PLACE, d, base, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Iexscan(MPI_IN_PLACE, e, base, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]));
    CHECK_MPI(MPI_Ireduce_scatter_block(MPI_IN_PLACE, f, base, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        &rq[3]));
    /* the caller's count array may go away once the call returned */
    for (int r = 0; r < np; r++)
        rc[r] = -99;
    CHECK_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    for (int r = 0; r < np; r++)
        rc[r] = (r % 3 == 1) ? 0 : base + r;
    for (int i = 0; i < rc[me]; i++) {
        long long s = 0;
        for (int q = 0; q < np; q++)
            s += val(q, first + i);
        CHECK_INT(s, b[i], t_fmt(w, sizeof w, "Ireduce_scatter in place [%d]", i));
    }
    for (int i = 0; i < base; i++) {
        long long pre = 0, bs = 0;
        for (int q = 0; q < me; q++)
            pre += val(q, i);
        for (int q = 0; q < np; q++)
            bs += val(q, me * base + i);
        CHECK_INT(pre + val(me, i), d[i], t_fmt(w, sizeof w, "Iscan in place [%d]", i));
        if (me > 0)
            CHECK_INT(pre, e[i], t_fmt(w, sizeof w, "Iexscan in place [%d]", i));
        CHECK_INT(bs, f[i], t_fmt(w, sizeof w, "Ireduce_scatter_block in place [%d]", i));
    }
    free(rc);
    free(b);
    free(c);
    free(d);
    free(e);
    free(f);
}

/* Non-commutative user operation on a strided type: ranks must combine in order. */
static void test_user_op(int count)
{
    MPI_Op op;
    MPI_Datatype pair, vec;
    CHECK_MPI(MPI_Op_create(aff_op, 0, &op));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_create_resized(pair, 0, 3 * sizeof(int), &vec)); /* gap of one int */
    CHECK_MPI(MPI_Type_commit(&vec));
    int *in = t_malloc(sizeof(int) * 3 * (size_t)(count + 1));
    int *out = t_malloc(sizeof(int) * 3 * (size_t)(count + 1));
    int *sc = t_malloc(sizeof(int) * 3 * (size_t)(count + 1));
    int *rd = t_malloc(sizeof(int) * 3 * (size_t)(count + 1));
    for (int i = 0; i < count; i++) {
        aff_t v = aff_of(me, i);
        in[3 * i] = v.a;
        in[3 * i + 1] = v.b;
        in[3 * i + 2] = out[3 * i + 2] = sc[3 * i + 2] = rd[3 * i + 2] = -5;
    }
    MPI_Request rq[3];
    CHECK_MPI(MPI_Iallreduce(in, out, count, vec, op, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Iscan(in, sc, count, vec, op, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Ireduce(in, rd, count, vec, op, np - 1, MPI_COMM_WORLD, &rq[2]));
    CHECK_MPI(MPI_Op_free(&op)); /* pending operations keep their own copy */
    CHECK_MPI(MPI_Type_free(&vec));
    CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < count; i++) {
        aff_t all = aff_ref(0, np, i), pre = aff_ref(0, me + 1, i);
        CHECK_INT(all.a, out[3 * i], t_fmt(w, sizeof w, "Iallreduce user op a[%d]", i));
        CHECK_INT(all.b, out[3 * i + 1], t_fmt(w, sizeof w, "Iallreduce user op b[%d]", i));
        CHECK_INT(-5, out[3 * i + 2], "Iallreduce leaves the gap of a strided type");
        CHECK_INT(pre.a, sc[3 * i], t_fmt(w, sizeof w, "Iscan user op a[%d]", i));
        CHECK_INT(pre.b, sc[3 * i + 1], t_fmt(w, sizeof w, "Iscan user op b[%d]", i));
        CHECK_INT(-5, sc[3 * i + 2], "Iscan leaves the gap");
        if (me == np - 1) {
            CHECK_INT(all.a, rd[3 * i], t_fmt(w, sizeof w, "Ireduce user op a[%d]", i));
            CHECK_INT(all.b, rd[3 * i + 1], t_fmt(w, sizeof w, "Ireduce user op b[%d]", i));
        }
    }
    CHECK_MPI(MPI_Type_free(&pair));
    free(in);
    free(out);
    free(sc);
    free(rd);
}

/* Data movement: value of block element j sent from rank r to rank q. */
static int mv(int r, int q, int j)
{
    return r * 100000 + q * 1000 + j;
}

static void test_moves(int blk, int mode)
{
    int n = np, root = blk % np;
    MPI_Datatype vec0, vec; /* blk ints with stride 2, extent 2 * blk ints */
    CHECK_MPI(MPI_Type_vector(blk > 0 ? blk : 1, 1, 2, MPI_INT, &vec0));
    CHECK_MPI(MPI_Type_create_resized(vec0, 0, (MPI_Aint)(2 * (blk > 0 ? blk : 1) * sizeof(int)),
                                      &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    CHECK_MPI(MPI_Type_free(&vec0));
    int nvec = blk > 0 ? 1 : 0;
    size_t big = (size_t)(2 * blk + 1) * (size_t)n;
    int *s_one = t_malloc(sizeof(int) * (size_t)(blk + 1));
    int *s_all = t_malloc(sizeof(int) * (size_t)(blk * n + 1));
    int *g = t_malloc(sizeof(int) * big), *sc = t_malloc(sizeof(int) * (size_t)(blk + 1));
    int *ag = t_malloc(sizeof(int) * (size_t)(blk * n + 1));
    int *a2a = t_malloc(sizeof(int) * (size_t)(blk * n + 1));
    int *a2s = t_malloc(sizeof(int) * big);
    for (int j = 0; j < blk; j++)
        s_one[j] = mv(me, root, j);
    for (int q = 0; q < n; q++)
        for (int j = 0; j < blk; j++) {
            s_all[q * blk + j] = mv(me, q, j);
            a2s[(size_t)q * 2 * blk + 2 * (size_t)j] = mv(me, q, j);
            a2s[(size_t)q * 2 * blk + 2 * (size_t)j + 1] = -3;
        }
    for (size_t k = 0; k < big; k++)
        g[k] = -1;
    for (int k = 0; k < blk * n; k++)
        ag[k] = a2a[k] = -1;
    for (int j = 0; j < blk; j++)
        sc[j] = -1;
    /* root data for scatter: block q for rank q */
    MPI_Request rq[6];
    int nr = 0;
    /* Igather into a strided type at the root (one vec per rank); gaps stay -1. */
    CHECK_MPI(MPI_Igather(s_one, blk, MPI_INT, g, nvec, vec, root, MPI_COMM_WORLD, &rq[nr++]));
    CHECK_MPI(MPI_Iscatter(s_all, blk, MPI_INT, sc, blk, MPI_INT, root, MPI_COMM_WORLD, &rq[nr++]));
    CHECK_MPI(MPI_Iallgather(s_one, blk, MPI_INT, ag, blk, MPI_INT, MPI_COMM_WORLD, &rq[nr++]));
    /* Ialltoall with a strided send type */
    CHECK_MPI(MPI_Ialltoall(a2s, nvec, vec, a2a, blk, MPI_INT, MPI_COMM_WORLD, &rq[nr++]));
    wait_some(rq, nr, mode);
    if (blk > 0 && me == root) {
        int64_t ext = 2 * blk;
        for (int q = 0; q < n; q++)
            for (int j = 0; j < blk; j++) {
                CHECK_INT(mv(q, root, j), g[q * ext + 2 * j],
                          t_fmt(w, sizeof w, "Igather blk %d from %d [%d]", blk, q, j));
                CHECK_INT(-1, g[q * ext + 2 * j + 1], "Igather leaves gaps of a vector type");
            }
    }
    for (int j = 0; j < blk; j++)
        CHECK_INT(mv(root, me, j), sc[j], t_fmt(w, sizeof w, "Iscatter blk %d [%d]", blk, j));
    for (int q = 0; q < n; q++)
        for (int j = 0; j < blk; j++) {
            CHECK_INT(mv(q, root, j), ag[q * blk + j],
                      t_fmt(w, sizeof w, "Iallgather blk %d from %d [%d]", blk, q, j));
            CHECK_INT(mv(q, me, j), a2a[q * blk + j],
                      t_fmt(w, sizeof w, "Ialltoall blk %d from %d [%d]", blk, q, j));
        }
    /* in place: Igather/Iscatter at the root, Iallgather, Ialltoall */
    for (int q = 0; q < n; q++)
        for (int j = 0; j < blk; j++) {
            ag[q * blk + j] = q == me ? mv(me, 0, j) : -1;
            a2a[q * blk + j] = mv(me, q, j);
            s_all[q * blk + j] = me == root ? (q == root ? mv(root, root, j) : -1) : -1;
        }
    nr = 0;
    if (me == root) {
        CHECK_MPI(MPI_Igather(MPI_IN_PLACE, blk, MPI_INT, s_all, blk, MPI_INT, root, MPI_COMM_WORLD,
                              &rq[nr++]));
    } else {
        CHECK_MPI(MPI_Igather(s_one, blk, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD,
                              &rq[nr++]));
    }
    CHECK_MPI(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, blk, MPI_INT, MPI_COMM_WORLD,
                             &rq[nr++]));
    CHECK_MPI(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a2a, blk, MPI_INT, MPI_COMM_WORLD,
                            &rq[nr++]));
    wait_some(rq, nr, mode);
    for (int q = 0; q < n; q++)
        for (int j = 0; j < blk; j++) {
            if (me == root)
                CHECK_INT(mv(q, root, j), s_all[q * blk + j],
                          t_fmt(w, sizeof w, "Igather in place blk %d from %d [%d]", blk, q, j));
            CHECK_INT(mv(q, 0, j), ag[q * blk + j],
                      t_fmt(w, sizeof w, "Iallgather in place blk %d from %d [%d]", blk, q, j));
            CHECK_INT(mv(q, me, j), a2a[q * blk + j],
                      t_fmt(w, sizeof w, "Ialltoall in place blk %d from %d [%d]", blk, q, j));
        }
    /* Iscatter in place at the root: the root's block stays where it is */
    for (int q = 0; q < n; q++)
        for (int j = 0; j < blk; j++)
            s_all[q * blk + j] = mv(root, q, j);
    for (int j = 0; j < blk; j++)
        sc[j] = -1;
    if (me == root)
        CHECK_MPI(MPI_Iscatter(s_all, blk, MPI_INT, MPI_IN_PLACE, blk, MPI_INT, root,
                               MPI_COMM_WORLD, &rq[0]));
    else
        CHECK_MPI(MPI_Iscatter(NULL, 0, MPI_INT, sc, blk, MPI_INT, root, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    for (int j = 0; j < blk; j++)
        if (me != root)
            CHECK_INT(mv(root, me, j), sc[j], t_fmt(w, sizeof w, "Iscatter in place [%d]", j));
        else
            CHECK_INT(mv(root, root, j), s_all[root * blk + j], "Iscatter in place root block");
    CHECK_MPI(MPI_Type_free(&vec));
    free(s_one);
    free(s_all);
    free(g);
    free(sc);
    free(ag);
    free(a2a);
    free(a2s);
}

/* v and w forms: rank r sends cnt(r, q) = (r + q) % 4 * k elements to q (0 for some). */
static int cnt(int r, int q, int k)
{
    return ((r + 2 * q) % 4) * k;
}

static void test_v(int k)
{
    int n = np, root = (k + 1) % np;
    int *sc = t_malloc(sizeof(int) * (size_t)n), *sd = t_malloc(sizeof(int) * (size_t)n);
    int *rc = t_malloc(sizeof(int) * (size_t)n), *rd = t_malloc(sizeof(int) * (size_t)n);
    int *swd = t_malloc(sizeof(int) * (size_t)n), *rwd = t_malloc(sizeof(int) * (size_t)n);
    MPI_Datatype *st = t_malloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Datatype *rt = t_malloc(sizeof(MPI_Datatype) * (size_t)n);
    int stot = 0, rtot = 0;
    for (int q = 0; q < n; q++) {
        sc[q] = cnt(me, q, k);
        sd[q] = stot;
        stot += sc[q] + 1; /* one-int gap after each block */
        rc[q] = cnt(q, me, k);
        rd[q] = rtot;
        rtot += rc[q] + 2;
        swd[q] = sd[q] * (int)sizeof(int);
        rwd[q] = rd[q] * (int)sizeof(int);
        st[q] = rt[q] = MPI_INT;
    }
    int *sbuf = t_malloc(sizeof(int) * (size_t)(stot + 1));
    int *rv = t_malloc(sizeof(int) * (size_t)(rtot + 1)), *rw = t_malloc(sizeof(int) * (size_t)(rtot + 1));
    for (int q = 0; q < n; q++)
        for (int j = 0; j < sc[q]; j++)
            sbuf[sd[q] + j] = mv(me, q, j);
    for (int i = 0; i < rtot; i++)
        rv[i] = rw[i] = -1;
    /* Igatherv / Iscatterv at root: counts cnt(q, root, k) */
    int *gc = t_malloc(sizeof(int) * (size_t)n), *gd = t_malloc(sizeof(int) * (size_t)n);
    int gtot = 0;
    for (int q = 0; q < n; q++) {
        gc[q] = cnt(q, root, k);
        gd[q] = gtot + 1;
        gtot += gc[q] + 1;
    }
    int *gb = t_malloc(sizeof(int) * (size_t)(gtot + 1)), *gs = t_malloc(sizeof(int) * (size_t)(gtot + 1));
    int *mine = t_malloc(sizeof(int) * (size_t)(4 * k + 1)), *got = t_malloc(sizeof(int) * (size_t)(4 * k + 1));
    for (int j = 0; j < cnt(me, root, k); j++)
        mine[j] = mv(me, root, j);
    for (int i = 0; i < gtot; i++)
        gb[i] = -1;
    for (int q = 0; q < n; q++)
        for (int j = 0; j < gc[q]; j++)
            gs[gd[q] + j] = mv(root, q, j) + 7;
    for (int j = 0; j <= 4 * k; j++)
        got[j] = -1;
    MPI_Request rq[5];
    CHECK_MPI(MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Ialltoallw(sbuf, sc, swd, st, rw, rc, rwd, rt, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Igatherv(mine, cnt(me, root, k), MPI_INT, gb, gc, gd, MPI_INT, root,
                           MPI_COMM_WORLD, &rq[2]));
    CHECK_MPI(MPI_Iscatterv(gs, gc, gd, MPI_INT, got, cnt(me, root, k), MPI_INT, root,
                            MPI_COMM_WORLD, &rq[3]));
    /* Iallgatherv: rank q contributes gc[q] elements */
    int *agb = t_malloc(sizeof(int) * (size_t)(gtot + 1));
    for (int i = 0; i < gtot; i++)
        agb[i] = -1;
    CHECK_MPI(MPI_Iallgatherv(mine, cnt(me, root, k), MPI_INT, agb, gc, gd, MPI_INT,
                              MPI_COMM_WORLD, &rq[4]));
    /* the argument arrays may change once the calls returned */
    for (int q = 0; q < n; q++) {
        sc[q] = rc[q] = gc[q] = 0;
        sd[q] = rd[q] = gd[q] = swd[q] = rwd[q] = -1000000;
        st[q] = rt[q] = MPI_DATATYPE_NULL;
    }
    CHECK_MPI(MPI_Waitall(5, rq, MPI_STATUSES_IGNORE));
    rtot = 0;
    for (int q = 0; q < n; q++) {
        int c = cnt(q, me, k);
        for (int j = 0; j < c; j++) {
            CHECK_INT(mv(q, me, j), rv[rtot + j], t_fmt(w, sizeof w, "Ialltoallv from %d [%d]", q, j));
            CHECK_INT(mv(q, me, j), rw[rtot + j], t_fmt(w, sizeof w, "Ialltoallw from %d [%d]", q, j));
        }
        CHECK_INT(-1, rv[rtot + c], "Ialltoallv gap untouched");
        CHECK_INT(-1, rw[rtot + c + 1], "Ialltoallw gap untouched");
        rtot += c + 2;
    }
    gtot = 0;
    for (int q = 0; q < n; q++) {
        int c = cnt(q, root, k);
        CHECK_INT(-1, agb[gtot], "Iallgatherv gap untouched");
        if (me == root)
            CHECK_INT(-1, gb[gtot], "Igatherv gap untouched");
        for (int j = 0; j < c; j++) {
            if (me == root)
                CHECK_INT(mv(q, root, j), gb[gtot + 1 + j],
                          t_fmt(w, sizeof w, "Igatherv from %d [%d]", q, j));
            CHECK_INT(mv(q, root, j), agb[gtot + 1 + j],
                      t_fmt(w, sizeof w, "Iallgatherv from %d [%d]", q, j));
        }
        gtot += c + 1;
    }
    for (int j = 0; j < cnt(me, root, k); j++)
        CHECK_INT(mv(root, me, j) + 7, got[j], t_fmt(w, sizeof w, "Iscatterv [%d]", j));
    CHECK_INT(-1, got[cnt(me, root, k)], "Iscatterv writes no more than its count");
    free(sc), free(sd), free(rc), free(rd), free(swd), free(rwd), free(st), free(rt);
    free(sbuf), free(rv), free(rw), free(gc), free(gd), free(gb), free(gs), free(mine), free(got);
    free(agb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    static const int counts[] = {0, 1, 5, 1000, 70000};
    for (int c = 0; c < 5; c++) {
        test_reductions(counts[c], c % 2);
        test_moves(counts[c] / 4, c % 2);
    }
    test_reductions_in_place(0);
    test_reductions_in_place(3);
    test_reductions_in_place(5000);
    test_user_op(1);
    test_user_op(3000);
    for (int k = 0; k < 4; k++)
        test_v(k == 3 ? 4000 : k);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
