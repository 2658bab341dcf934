/* coll_inter: collectives on intercommunicators, against local references.
 *
 * Two intercommunicators from MPI_Intercomm_create: even/odd world ranks, and world rank 1
 * against all the others (groups of 1 and np - 1). On each, for blocks of 0, 3 and 500 ints:
 *  - Barrier; Bcast from every root of both groups (MPI_ROOT / MPI_PROC_NULL in the root's
 *    group: the MPI_PROC_NULL ranks' buffers stay untouched);
 *  - Reduce (SUM to every root; a non-commutative operation keeps the remote group's rank
 *    order), Allreduce (each group gets the other's sum), Reduce_scatter_block and
 *    Reduce_scatter (uneven counts; both groups' totals agree, as the standard requires);
 *  - Gather(v), Scatter(v) from every root, Allgather(v), Alltoall(v, w);
 *  - the nonblocking forms all in flight at once, and a persistent Allreduce started 3 times;
 *  - errors: Scan/Iexscan on an intercommunicator (MPI_ERR_COMM), a root out of range
 *    (MPI_ERR_ROOT), MPI_IN_PLACE (MPI_ERR_BUFFER).
 */
#include "../t_util.h"

static char w[200];

static int val(int g, int r, int i)
{
    return g * 100000000 + r * 100000 + i;
}

typedef struct {
    MPI_Comm ic;
    int g, lr, ln, rn; /* my group (0/1), local rank/size, remote size */
    const char *name;
} ic_t;

/* non-commutative: keeps the left operand's value in element 0 order: (a, b) o (c, d) =
 * (a, b * 31 + d) (mod 2^32) */
static void ord_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a = x[2 * i], b = x[2 * i + 1] * 31u + y[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
}

static void rooted(ic_t *t, int c)
{
    int *buf = t_malloc(sizeof(int) * (size_t)(c * (t->ln + t->rn) + 8));
    int *big = t_malloc(sizeof(int) * (size_t)(2 * c * (t->ln + t->rn) + 8));
    int *cnt = t_malloc(sizeof(int) * (size_t)(t->ln + t->rn)), *dsp = t_malloc(sizeof(int) * (size_t)(t->ln + t->rn));
    for (int rg = 0; rg < 2; rg++) {         /* the root's group */
        int gsize = rg == t->g ? t->ln : t->rn; /* size of the root's group */
        for (int root = 0; root < gsize; root++) {
            int mine = rg == t->g, arg = mine ? (t->lr == root ? MPI_ROOT : MPI_PROC_NULL) : root;
            int other = mine ? t->rn : t->ln; /* size of the non-root group */
            /* Bcast */
            for (int i = 0; i < c; i++)
                buf[i] = arg == MPI_ROOT ? val(rg, root, i) : -1;
            CHECK_MPI(MPI_Bcast(buf, c, MPI_INT, arg, t->ic));
            for (int i = 0; i < c; i++)
                CHECK_INT(arg == MPI_PROC_NULL ? -1 : val(rg, root, i), buf[i],
                          t_fmt(w, sizeof w, "%s Bcast root %d/%d [%d]", t->name, rg, root, i));
            /* Reduce SUM */
            int *sb = big, *rb = buf;
            for (int i = 0; i < c; i++) {
                sb[i] = val(t->g, t->lr, i);
                rb[i] = -1;
            }
            CHECK_MPI(MPI_Reduce(sb, rb, c, MPI_INT, MPI_SUM, arg, t->ic));
            for (int i = 0; i < c; i++) {
                long long s = 0;
                for (int r = 0; r < other; r++)
                    s += val(1 - rg, r, i);
                CHECK_INT(arg == MPI_ROOT ? s : -1, rb[i],
                          t_fmt(w, sizeof w, "%s Reduce root %d/%d [%d]", t->name, rg, root, i));
            }
            /* Gather / Gatherv (gaps of one) */
            for (int i = 0; i < 2 * c * other + 2 * other + 1; i++)
                big[i] = -1;
            for (int r = 0; r < other; r++) {
                cnt[r] = c;
                dsp[r] = r * (c + 1) + 1;
            }
            for (int i = 0; i < c; i++)
                buf[i] = val(t->g, t->lr, i);
            CHECK_MPI(MPI_Gather(buf, c, MPI_INT, big, c, MPI_INT, arg, t->ic));
            for (int r = 0; arg == MPI_ROOT && r < other; r++)
                for (int i = 0; i < c; i++)
                    CHECK_INT(val(1 - rg, r, i), big[r * c + i],
                              t_fmt(w, sizeof w, "%s Gather from %d [%d]", t->name, r, i));
            for (int i = 0; i < 2 * c * other + 2 * other + 1; i++)
                big[i] = -1;
            CHECK_MPI(MPI_Gatherv(buf, c, MPI_INT, big, cnt, dsp, MPI_INT, arg, t->ic));
            for (int r = 0; arg == MPI_ROOT && r < other; r++) {
                CHECK_INT(-1, big[dsp[r] - 1], "Gatherv gap untouched");
                for (int i = 0; i < c; i++)
                    CHECK_INT(val(1 - rg, r, i), big[dsp[r] + i],
                              t_fmt(w, sizeof w, "%s Gatherv from %d [%d]", t->name, r, i));
            }
            if (arg == MPI_PROC_NULL)
                CHECK_INT(-1, big[0], "MPI_PROC_NULL rank gets nothing from Gatherv");
            /* Scatter / Scatterv: the root sends block r = val(rg, r, i) + 7 */
            for (int r = 0; r < other; r++)
                for (int i = 0; i < c; i++) {
                    big[r * c + i] = val(rg, r, i) + 7;
                    big[c * other + dsp[r] + i] = val(rg, r, i) + 9;
                }
            for (int i = 0; i < c + 1; i++)
                buf[i] = -1;
            CHECK_MPI(MPI_Scatter(big, c, MPI_INT, buf, c, MPI_INT, arg, t->ic));
            for (int i = 0; !mine && i < c; i++)
                CHECK_INT(val(rg, t->lr, i) + 7, buf[i], t_fmt(w, sizeof w, "%s Scatter [%d]", t->name, i));
            CHECK_MPI(MPI_Scatterv(big + c * other, cnt, dsp, MPI_INT, buf, c, MPI_INT, arg, t->ic));
            for (int i = 0; !mine && i < c; i++)
                CHECK_INT(val(rg, t->lr, i) + 9, buf[i], t_fmt(w, sizeof w, "%s Scatterv [%d]", t->name, i));
            if (mine)
                CHECK_INT(-1, buf[0], "the root's group receives nothing from Scatter");
        }
    }
    /* a non-commutative Reduce: the remote group's rank order */
    MPI_Op op;
    MPI_Datatype pair;
    CHECK_MPI(MPI_Op_create(ord_op, 0, &op));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    unsigned in[2] = {(unsigned)t->lr, (unsigned)(t->lr + 1)}, out[2] = {99, 99};
    int arg = t->g == 0 ? (t->lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    CHECK_MPI(MPI_Reduce(in, out, 1, pair, op, arg, t->ic));
    if (arg == MPI_ROOT) {
        unsigned b = 1;
        for (int r = 1; r < t->rn; r++)
            b = b * 31u + (unsigned)(r + 1);
        CHECK_INT(0, out[0], "non-commutative Reduce keeps rank 0 leftmost");
        CHECK_INT(b, out[1], "non-commutative Reduce in the remote group's rank order");
    }
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_MPI(MPI_Type_free(&pair));
    free(buf), free(big), free(cnt), free(dsp);
}

static void unrooted(ic_t *t, int c)
{
    int ln = t->ln, rn = t->rn, lr = t->lr, g = t->g;
    int *sb = t_malloc(sizeof(int) * (size_t)(2 * c * (rn + ln) + 8));
    int *rb = t_malloc(sizeof(int) * (size_t)(2 * c * (rn + ln) + 8));
    int *cnt = t_malloc(sizeof(int) * (size_t)(rn + ln)), *dsp = t_malloc(sizeof(int) * (size_t)(rn + ln));
    int *bd = t_malloc(sizeof(int) * (size_t)(rn + ln));
    MPI_Datatype *ty = t_malloc(sizeof(MPI_Datatype) * (size_t)(rn + ln));
    /* Allreduce */
    for (int i = 0; i < c; i++) {
        sb[i] = val(g, lr, i);
        rb[i] = -1;
    }
    CHECK_MPI(MPI_Allreduce(sb, rb, c, MPI_INT, MPI_SUM, t->ic));
    for (int i = 0; i < c; i++) {
        long long s = 0;
        for (int r = 0; r < rn; r++)
            s += val(1 - g, r, i);
        CHECK_INT(s, rb[i], t_fmt(w, sizeof w, "%s Allreduce [%d]", t->name, i));
    }
    /* Reduce_scatter_block: total 6c elements in each group, recvcount 6c / ln */
    int T = 6 * c * (ln * rn), rcb = T / ln;
    int *tb = t_malloc(sizeof(int) * (size_t)(T + 2)), *tr = t_malloc(sizeof(int) * (size_t)(T + 2));
    for (int i = 0; i < T; i++)
        tb[i] = val(g, lr, i);
    for (int i = 0; i <= rcb; i++)
        tr[i] = -1;
    CHECK_MPI(MPI_Reduce_scatter_block(tb, tr, rcb, MPI_INT, MPI_SUM, t->ic));
    for (int i = 0; i < rcb; i++) {
        long long s = 0;
        for (int r = 0; r < rn; r++)
            s += val(1 - g, r, lr * rcb + i);
        CHECK_INT(s, tr[i], t_fmt(w, sizeof w, "%s Reduce_scatter_block [%d]", t->name, i));
    }
    CHECK_INT(-1, tr[rcb], "Reduce_scatter_block writes only its block");
    /* Reduce_scatter: uneven counts over the local group, same total */
    int first = 0;
    for (int r = 0; r < ln; r++)
        cnt[r] = rcb;
    if (ln > 1 && rcb > 0) {
        cnt[0] -= 1;
        cnt[1] += 1;
    }
    for (int r = 0; r < lr; r++)
        first += cnt[r];
    for (int i = 0; i <= rcb + 1; i++)
        tr[i] = -1;
    CHECK_MPI(MPI_Reduce_scatter(tb, tr, cnt, MPI_INT, MPI_SUM, t->ic));
    for (int i = 0; i < cnt[lr]; i++) {
        long long s = 0;
        for (int r = 0; r < rn; r++)
            s += val(1 - g, r, first + i);
        CHECK_INT(s, tr[i], t_fmt(w, sizeof w, "%s Reduce_scatter [%d]", t->name, i));
    }
    CHECK_INT(-1, tr[cnt[lr]], "Reduce_scatter writes only its count");
    /* Allgather(v) */
    for (int i = 0; i < c; i++)
        sb[i] = val(g, lr, i);
    for (int i = 0; i < 2 * c * rn + 2 * rn; i++)
        rb[i] = -1;
    CHECK_MPI(MPI_Allgather(sb, c, MPI_INT, rb, c, MPI_INT, t->ic));
    for (int r = 0; r < rn; r++)
        for (int i = 0; i < c; i++)
            CHECK_INT(val(1 - g, r, i), rb[r * c + i], t_fmt(w, sizeof w, "%s Allgather %d [%d]", t->name, r, i));
    for (int r = 0; r < rn; r++) {
        cnt[r] = c;
        dsp[r] = r * (c + 1) + 1;
        bd[r] = dsp[r] * (int)sizeof(int);
        ty[r] = MPI_INT;
    }
    for (int i = 0; i < 2 * c * rn + 2 * rn; i++)
        rb[i] = -1;
    CHECK_MPI(MPI_Allgatherv(sb, c, MPI_INT, rb, cnt, dsp, MPI_INT, t->ic));
    for (int r = 0; r < rn; r++) {
        CHECK_INT(-1, rb[dsp[r] - 1], "Allgatherv gap untouched");
        for (int i = 0; i < c; i++)
            CHECK_INT(val(1 - g, r, i), rb[dsp[r] + i], t_fmt(w, sizeof w, "%s Allgatherv %d [%d]", t->name, r, i));
    }
    /* Alltoall(v, w): block for remote rank r = val(g, lr, r * 600 + i) */
    for (int r = 0; r < rn; r++)
        for (int i = 0; i < c; i++) {
            sb[r * c + i] = val(g, lr, r * 600 + i);
            sb[c * rn + dsp[r] + i] = val(g, lr, r * 600 + i) + 5;
        }
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 2 * c * rn + 2 * rn; i++)
            rb[i] = -1;
        if (k == 0)
            CHECK_MPI(MPI_Alltoall(sb, c, MPI_INT, rb, c, MPI_INT, t->ic));
        else if (k == 1)
            CHECK_MPI(MPI_Alltoallv(sb + c * rn, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, t->ic));
        else
            CHECK_MPI(MPI_Alltoallw(sb + c * rn, cnt, bd, ty, rb, cnt, bd, ty, t->ic));
        for (int r = 0; r < rn; r++)
            for (int i = 0; i < c; i++)
                CHECK_INT(val(1 - g, r, lr * 600 + i) + (k ? 5 : 0), rb[k ? dsp[r] + i : r * c + i],
                          t_fmt(w, sizeof w, "%s Alltoall form %d from %d [%d]", t->name, k, r, i));
    }
    free(sb), free(rb), free(cnt), free(dsp), free(bd), free(ty), free(tb), free(tr);
}

static void nonblocking(ic_t *t, int c)
{
    int ln = t->ln, rn = t->rn, lr = t->lr, g = t->g;
    int *a = t_malloc(sizeof(int) * (size_t)(c + 1)), *ar = t_malloc(sizeof(int) * (size_t)(c + 1));
    int *bc = t_malloc(sizeof(int) * (size_t)(c + 1)), *ag = t_malloc(sizeof(int) * (size_t)(c * rn + 1));
    int *a2s = t_malloc(sizeof(int) * (size_t)(c * rn + 1)), *a2r = t_malloc(sizeof(int) * (size_t)(c * rn + 1));
    int *rd = t_malloc(sizeof(int) * (size_t)(c + 1));
    for (int i = 0; i < c; i++) {
        a[i] = val(g, lr, i);
        ar[i] = rd[i] = -1;
        bc[i] = g == 0 && lr == 0 ? val(0, 0, i) : -1;
    }
    for (int r = 0; r < rn; r++)
        for (int i = 0; i < c; i++)
            a2s[r * c + i] = val(g, lr, r * 600 + i);
    int broot = g == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int rroot = g == 1 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request rq[6];
    CHECK_MPI(MPI_Ibarrier(t->ic, &rq[0]));
    CHECK_MPI(MPI_Ibcast(bc, c, MPI_INT, broot, t->ic, &rq[1]));
    CHECK_MPI(MPI_Iallreduce(a, ar, c, MPI_INT, MPI_SUM, t->ic, &rq[2]));
    CHECK_MPI(MPI_Ireduce(a, rd, c, MPI_INT, MPI_MAX, rroot, t->ic, &rq[3]));
    CHECK_MPI(MPI_Iallgather(a, c, MPI_INT, ag, c, MPI_INT, t->ic, &rq[4]));
    CHECK_MPI(MPI_Ialltoall(a2s, c, MPI_INT, a2r, c, MPI_INT, t->ic, &rq[5]));
    CHECK_MPI(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < c; i++) {
        long long s = 0;
        int mx = 0;
        for (int r = 0; r < rn; r++) {
            s += val(1 - g, r, i);
            mx = val(1 - g, r, i) > mx ? val(1 - g, r, i) : mx;
        }
        CHECK_INT(broot == MPI_PROC_NULL ? -1 : val(0, 0, i), bc[i], t_fmt(w, sizeof w, "%s Ibcast [%d]", t->name, i));
        CHECK_INT(s, ar[i], t_fmt(w, sizeof w, "%s Iallreduce [%d]", t->name, i));
        CHECK_INT(rroot == MPI_ROOT ? mx : -1, rd[i], t_fmt(w, sizeof w, "%s Ireduce [%d]", t->name, i));
        for (int r = 0; r < rn; r++) {
            CHECK_INT(val(1 - g, r, i), ag[r * c + i], t_fmt(w, sizeof w, "%s Iallgather [%d]", t->name, i));
            CHECK_INT(val(1 - g, r, lr * 600 + i), a2r[r * c + i], t_fmt(w, sizeof w, "%s Ialltoall [%d]", t->name, i));
        }
    }
    /* persistent Allreduce, three rounds */
    MPI_Request p;
    CHECK_MPI(MPI_Allreduce_init(a, ar, c, MPI_INT, MPI_SUM, t->ic, MPI_INFO_NULL, &p));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < c; i++)
            a[i] = val(g, lr, i) + round;
        CHECK_MPI(MPI_Start(&p));
        CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
        for (int i = 0; i < c; i++) {
            long long s = 0;
            for (int r = 0; r < rn; r++)
                s += val(1 - g, r, i) + round;
            CHECK_INT(s, ar[i], t_fmt(w, sizeof w, "%s Allreduce_init round %d [%d]", t->name, round, i));
        }
    }
    CHECK_MPI(MPI_Request_free(&p));
    (void)ln;
    free(a), free(ar), free(bc), free(ag), free(a2s), free(a2r), free(rd);
}

static void errors(ic_t *t)
{
    int x[4] = {0}, y[4] = {0}, cls;
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Comm_set_errhandler(t->ic, MPI_ERRORS_RETURN));
    MPI_Error_class(MPI_Scan(x, y, 1, MPI_INT, MPI_SUM, t->ic), &cls);
    CHECK_INT(MPI_ERR_COMM, cls, "Scan on an intercommunicator");
    MPI_Error_class(MPI_Iexscan(x, y, 1, MPI_INT, MPI_SUM, t->ic, &r), &cls);
    CHECK_INT(MPI_ERR_COMM, cls, "Iexscan on an intercommunicator");
    MPI_Error_class(MPI_Bcast(x, 1, MPI_INT, t->rn, t->ic), &cls);
    CHECK_INT(MPI_ERR_ROOT, cls, "Bcast with root = remote size");
    MPI_Error_class(MPI_Allreduce(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, t->ic), &cls);
    CHECK_INT(MPI_ERR_BUFFER, cls, "Allreduce MPI_IN_PLACE on an intercommunicator");
    MPI_Error_class(MPI_Allreduce(x, y, 1, MPI_FLOAT, MPI_BXOR, t->ic), &cls);
    CHECK_INT(MPI_ERR_OP, cls, "Allreduce BXOR/FLOAT on an intercommunicator");
    CHECK_TRUE(r == MPI_REQUEST_NULL, "no request from a refused call");
    CHECK_MPI(MPI_Barrier(t->ic));
}

static void run(int color, const char *name)
{
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm local;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
    int rleader = -1; /* lowest world rank of the other group */
    for (int r = 0; r < np && rleader < 0; r++) {
        int cr = name[0] == 'e' ? r % 2 : r == 1;
        if (cr != color)
            rleader = r;
    }
    ic_t t = {.name = name, .g = color};
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rleader, 42, &t.ic));
    MPI_Comm_rank(t.ic, &t.lr);
    MPI_Comm_size(t.ic, &t.ln);
    MPI_Comm_remote_size(t.ic, &t.rn);
    static const int cs[] = {0, 3, 500};
    for (int k = 0; k < 3; k++) {
        CHECK_MPI(MPI_Barrier(t.ic));
        rooted(&t, cs[k]);
        unrooted(&t, cs[k]);
        nonblocking(&t, cs[k]);
    }
    errors(&t);
    CHECK_MPI(MPI_Comm_free(&t.ic));
    CHECK_MPI(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    run(t_rank % 2, "even/odd");
    run(t_rank == 1, "1 vs rest");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
