/* Intercommunicators, checked against expectations computed here. WORLD is split by
 * parity (group A = even world ranks, group B = odd); MPI_Intercomm_create joins them with
 * WORLD as peer communicator. Checked: Comm_test_inter, Comm_size/rank (local group),
 * Comm_remote_size, Comm_group/Comm_remote_group (exact world members, in order);
 * point-to-point from every local rank to every remote rank (specific and ANY_SOURCE
 * receives, Probe, status.MPI_SOURCE a remote rank); Intercomm_merge with high = 0/1 and
 * with equal flags (order of the union, messages and an allreduce on the result);
 * Comm_dup (isolated from the original, attributes copied, CONGRUENT); Comm_split (colors
 * and keys on both sides, MPI_UNDEFINED and colors without partner give MPI_COMM_NULL);
 * Comm_create (a subgroup on one side); Comm_compare; and the error classes of
 * intercommunicator misuse under MPI_ERRORS_RETURN. Any NP >= 2. */
#include "../t_util.h"

#define CHECK_CLASS(expected, call, what)                                                          \
    do {                                                                                           \
        int t_c_ = (call);                                                                         \
        if (t_c_ != MPI_SUCCESS)                                                                   \
            MPI_Error_class(t_c_, &t_c_);                                                          \
        CHECK_INT((expected), t_c_, (what));                                                       \
    } while (0)

static int par;         /* this rank's group: 0 (A, even) or 1 (B, odd) */
static int nA, nB;      /* group sizes */
static int nl, nr;      /* local / remote group sizes */

/* World rank of rank i of the group of parity p. */
static int wof(int p, int i)
{
    return 2 * i + p;
}

/* Checks that ic joins local members lw (nlw) and remote members rw (nrw), world ranks in
 * rank order, with messages both ways between every pair and an ANY_SOURCE round. */
static void check_inter(MPI_Comm ic, const int *lw, int nlw, const int *rw, int nrw,
                        const char *what)
{
    char w[200];
    int flag = -1, size, rsize, rank;
    CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
    CHECK_INT(1, flag, t_fmt(w, sizeof w, "%s: test_inter", what));
    CHECK_MPI(MPI_Comm_size(ic, &size));
    CHECK_INT(nlw, size, t_fmt(w, sizeof w, "%s: Comm_size (local group)", what));
    CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
    CHECK_INT(nrw, rsize, t_fmt(w, sizeof w, "%s: Comm_remote_size", what));
    CHECK_MPI(MPI_Comm_rank(ic, &rank));
    CHECK_INT(t_rank, lw[rank], t_fmt(w, sizeof w, "%s: my rank's world rank", what));

    MPI_Group wg, lg, rg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    CHECK_MPI(MPI_Comm_group(ic, &lg));
    CHECK_MPI(MPI_Comm_remote_group(ic, &rg));
    int idx[64], tr[64];
    for (int i = 0; i < 64; i++)
        idx[i] = i;
    int gs;
    MPI_Group_size(lg, &gs);
    CHECK_INT(nlw, gs, t_fmt(w, sizeof w, "%s: local group size", what));
    MPI_Group_translate_ranks(lg, nlw, idx, wg, tr);
    for (int i = 0; i < nlw; i++)
        CHECK_INT(lw[i], tr[i], t_fmt(w, sizeof w, "%s: local group member %d", what, i));
    MPI_Group_size(rg, &gs);
    CHECK_INT(nrw, gs, t_fmt(w, sizeof w, "%s: remote group size", what));
    MPI_Group_translate_ranks(rg, nrw, idx, wg, tr);
    for (int i = 0; i < nrw; i++)
        CHECK_INT(rw[i], tr[i], t_fmt(w, sizeof w, "%s: remote group member %d", what, i));
    MPI_Group_rank(rg, &gs);
    CHECK_INT(MPI_UNDEFINED, gs, t_fmt(w, sizeof w, "%s: my rank in the remote group", what));
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);

    /* Every local rank sends 1000 * (its world rank) + j to every remote rank j, tag j. */
    MPI_Request *rq = t_malloc((size_t)nrw * sizeof(MPI_Request));
    int *out = t_malloc((size_t)nrw * sizeof(int)), *in = t_malloc((size_t)nrw * sizeof(int));
    for (int j = 0; j < nrw; j++) {
        out[j] = 1000 * t_rank + j;
        CHECK_MPI(MPI_Isend(&out[j], 1, MPI_INT, j, j, ic, &rq[j]));
    }
    for (int j = 0; j < nrw; j++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&in[j], 1, MPI_INT, j, rank, ic, &st));
        CHECK_INT(j, st.MPI_SOURCE, t_fmt(w, sizeof w, "%s: status source", what));
        CHECK_INT(1000 * rw[j] + rank, in[j], t_fmt(w, sizeof w, "%s: data from %d", what, j));
    }
    CHECK_MPI(MPI_Waitall(nrw, rq, MPI_STATUSES_IGNORE));
    /* Remote rank 0 sends one message to every local rank; received with ANY_SOURCE after
     * a Probe. */
    if (rank == 0)
        for (int j = 0; j < nrw; j++)
            CHECK_MPI(MPI_Send(&rw[j], 1, MPI_INT, j, 77, ic));
    MPI_Status st;
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 77, ic, &st));
    CHECK_INT(0, st.MPI_SOURCE, t_fmt(w, sizeof w, "%s: probe source", what));
    int v = -1;
    /* (not MPI_ANY_TAG: a remote rank may already send the caller's next messages) */
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 77, ic, &st));
    CHECK_INT(0, st.MPI_SOURCE, t_fmt(w, sizeof w, "%s: ANY_SOURCE source", what));
    CHECK_INT(77, st.MPI_TAG, t_fmt(w, sizeof w, "%s: ANY_SOURCE tag", what));
    CHECK_INT(t_rank, v, t_fmt(w, sizeof w, "%s: ANY_SOURCE data", what));
    free(rq);
    free(out);
    free(in);
}

/* Checks an intracommunicator whose members are world ranks mw (n) in rank order. */
static void check_intra(MPI_Comm c, const int *mw, int n, const char *what)
{
    char w[200];
    int size, rank, flag = -1;
    CHECK_MPI(MPI_Comm_test_inter(c, &flag));
    CHECK_INT(0, flag, t_fmt(w, sizeof w, "%s: test_inter", what));
    CHECK_MPI(MPI_Comm_size(c, &size));
    CHECK_INT(n, size, t_fmt(w, sizeof w, "%s: size", what));
    CHECK_MPI(MPI_Comm_rank(c, &rank));
    CHECK_INT(t_rank, mw[rank], t_fmt(w, sizeof w, "%s: rank order", what));
    int got = -1, me = t_rank;
    CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, (rank + 1) % n, 3, &got, 1, MPI_INT,
                           (rank + n - 1) % n, 3, c, MPI_STATUS_IGNORE));
    CHECK_INT(mw[(rank + n - 1) % n], got, t_fmt(w, sizeof w, "%s: ring message", what));
    long sum = 0, lme = t_rank, exp = 0;
    CHECK_MPI(MPI_Allreduce(&lme, &sum, 1, MPI_LONG, MPI_SUM, c));
    for (int i = 0; i < n; i++)
        exp += mw[i];
    CHECK_INT(exp, sum, t_fmt(w, sizeof w, "%s: allreduce", what));
    /* rank-weighted: proves the order, not just the membership */
    long wsum = 0, wme = (long)t_rank * (rank + 1), wexp = 0;
    CHECK_MPI(MPI_Allreduce(&wme, &wsum, 1, MPI_LONG, MPI_SUM, c));
    for (int i = 0; i < n; i++)
        wexp += (long)mw[i] * (i + 1);
    CHECK_INT(wexp, wsum, t_fmt(w, sizeof w, "%s: weighted allreduce", what));
}

static int copies, deletes;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm c, int k, void *val, void *extra)
{
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    par = t_rank % 2;
    nA = (t_size + 1) / 2;
    nB = t_size / 2;
    nl = par ? nB : nA;
    nr = par ? nA : nB;
    int lw[64], rw[64];
    for (int i = 0; i < nl; i++)
        lw[i] = wof(par, i);
    for (int i = 0; i < nr; i++)
        rw[i] = wof(!par, i);

    MPI_Comm half, ic;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, par, t_rank, &half));
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, par ? 0 : 1, 42, &ic));
    check_inter(ic, lw, nl, rw, nr, "Intercomm_create");

    /* A second one at once, leaders the last ranks of each group, another tag. */
    MPI_Comm ic2;
    CHECK_MPI(MPI_Intercomm_create(half, nl - 1, MPI_COMM_WORLD, wof(!par, nr - 1), 43, &ic2));
    check_inter(ic2, lw, nl, rw, nr, "Intercomm_create (last ranks lead)");

    /* Merge: high decides the order; with equal flags both sides agree on one. */
    int mw[64], res;
    MPI_Comm m;
    for (int high = 0; high < 3; high++) {
        int h = high == 2 ? 0 : (high ? !par : par); /* 0: A first, 1: B first, 2: equal */
        CHECK_MPI(MPI_Intercomm_merge(ic, h, &m));
        int first = high == 1 ? 1 : 0, k = 0;
        if (high == 2) {
            /* Either order is valid; take the one rank 0 of the union sees, but it must be
             * one of the two and the same everywhere (checked by the ring and sums). */
            int r0;
            MPI_Comm_rank(m, &r0);
            int me_first = r0 < nl;
            first = me_first ? par : !par;
        }
        for (int i = 0; i < (first ? nB : nA); i++)
            mw[k++] = wof(first, i);
        for (int i = 0; i < (first ? nA : nB); i++)
            mw[k++] = wof(!first, i);
        check_intra(m, mw, t_size, high == 0 ? "merge A low" : high == 1 ? "merge B low"
                                                                          : "merge equal high");
        int ident = 1;
        for (int i = 0; i < t_size; i++)
            ident &= mw[i] == i;
        CHECK_MPI(MPI_Comm_compare(m, MPI_COMM_WORLD, &res));
        CHECK_INT(ident ? MPI_CONGRUENT : MPI_SIMILAR, res, "Comm_compare(merged, WORLD)");
        MPI_Comm_free(&m);
    }

    /* Dup: isolation, attributes, compare. */
    int key;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
    static char base[4];
    CHECK_MPI(MPI_Comm_set_attr(ic, key, base));
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(ic, &d));
    check_inter(d, lw, nl, rw, nr, "Comm_dup");
    void *val = NULL;
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(d, key, &val, &flag));
    CHECK_INT(1, flag, "attribute copied by dup of an intercomm");
    CHECK_TRUE(val == base + 1, "copied attribute value");
    CHECK_INT(1, copies, "copy callbacks");
    CHECK_MPI(MPI_Comm_compare(ic, d, &res));
    CHECK_INT(MPI_CONGRUENT, res, "Comm_compare(ic, dup)");
    CHECK_MPI(MPI_Comm_compare(ic, ic, &res));
    CHECK_INT(MPI_IDENT, res, "Comm_compare(ic, ic)");
    CHECK_MPI(MPI_Comm_compare(ic, MPI_COMM_WORLD, &res));
    CHECK_INT(MPI_UNEQUAL, res, "Comm_compare(ic, WORLD)");
    CHECK_MPI(MPI_Comm_compare(ic, ic2, &res));
    CHECK_INT(MPI_CONGRUENT, res, "Comm_compare(ic, ic2)");
    {
        /* Same tag on ic and d: each receive gets its own communicator's message. */
        int a = 100 + t_rank, b = 200 + t_rank, ga = -1, gb = -1;
        MPI_Request q[2];
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, 0, 9, ic, &q[0]));
        CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, 0, 9, d, &q[1]));
        MPI_Comm_rank(ic, &res);
        if (res == 0) {
            for (int j = 0; j < nr; j++) {
                CHECK_MPI(MPI_Recv(&gb, 1, MPI_INT, j, 9, d, MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Recv(&ga, 1, MPI_INT, j, 9, ic, MPI_STATUS_IGNORE));
                CHECK_INT(200 + rw[j], gb, "message on the dup");
                CHECK_INT(100 + rw[j], ga, "message on the original");
            }
        }
        CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    }
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_INT(1, deletes, "delete callback at free of the dup");

    /* Split: color = local rank % 2, key = -local rank (reversed order). */
    int lrank;
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm s;
    CHECK_MPI(MPI_Comm_split(ic, lrank % 2, -lrank, &s));
    {
        int slw[64], srw[64], a = 0, b = 0;
        for (int i = nl - 1; i >= 0; i--)
            if (i % 2 == lrank % 2)
                slw[a++] = lw[i];
        for (int i = nr - 1; i >= 0; i--)
            if (i % 2 == lrank % 2)
                srw[b++] = rw[i];
        if (b == 0) {
            CHECK_TRUE(s == MPI_COMM_NULL, "split color without remote partner gives COMM_NULL");
        } else {
            CHECK_TRUE(s != MPI_COMM_NULL, "split gives an intercommunicator");
            check_inter(s, slw, a, srw, b, "Comm_split of an intercomm");
            MPI_Comm_free(&s);
        }
    }
    /* Group B passes MPI_UNDEFINED everywhere: nobody gets a communicator. */
    CHECK_MPI(MPI_Comm_split(ic, par ? MPI_UNDEFINED : 0, 0, &s));
    CHECK_TRUE(s == MPI_COMM_NULL, "split with one side undefined gives COMM_NULL");

    /* Create: group A drops its rank 0 (when it has more than one), B keeps everyone. */
    MPI_Group lg, sub;
    MPI_Comm_group(ic, &lg);
    int drop = 0;
    if (par == 0 && nA > 1)
        MPI_Group_excl(lg, 1, &drop, &sub);
    else
        sub = lg;
    MPI_Comm cr;
    CHECK_MPI(MPI_Comm_create(ic, sub, &cr));
    {
        int off = par == 0 && nA > 1 ? 1 : 0, roff = par == 1 && nA > 1 ? 1 : 0;
        if (par == 0 && nA > 1 && lrank == 0) {
            CHECK_TRUE(cr == MPI_COMM_NULL, "Comm_create: a non-member gets COMM_NULL");
        } else {
            CHECK_TRUE(cr != MPI_COMM_NULL, "Comm_create: a member gets the intercomm");
            check_inter(cr, lw + off, nl - off, rw + roff, nr - roff,
                        "Comm_create of an intercomm");
            MPI_Comm_free(&cr);
        }
    }
    if (sub != lg)
        MPI_Group_free(&sub);
    MPI_Group_free(&lg);

    /* Errors. */
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int ival;
    MPI_Group g;
    CHECK_CLASS(MPI_ERR_COMM, MPI_Comm_remote_size(MPI_COMM_WORLD, &ival),
                "Comm_remote_size of an intracomm");
    CHECK_CLASS(MPI_ERR_COMM, MPI_Comm_remote_group(half, &g), "Comm_remote_group of an intracomm");
    CHECK_CLASS(MPI_ERR_COMM, MPI_Intercomm_merge(half, 0, &m), "Intercomm_merge of an intracomm");
    CHECK_CLASS(MPI_ERR_COMM, MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 1, &m),
                "Intercomm_create over an intercomm");
    CHECK_CLASS(MPI_ERR_RANK, MPI_Intercomm_create(half, nl, MPI_COMM_WORLD, 0, 1, &m),
                "Intercomm_create with local_leader out of range");
    /* Both leaders see a bad remote_leader: every rank of both groups gets MPI_ERR_RANK. */
    CHECK_CLASS(MPI_ERR_RANK, MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, t_size, 1, &m),
                "Intercomm_create with remote_leader out of range");
    CHECK_CLASS(MPI_ERR_TAG, MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, par ? 0 : 1, -5, &m),
                "Intercomm_create with a negative tag");
    int dims[1] = {1}, periods[1] = {0};
    CHECK_CLASS(MPI_ERR_COMM, MPI_Cart_create(ic, 1, dims, periods, 0, &m),
                "Cart_create on an intercomm");
    CHECK_CLASS(MPI_ERR_COMM, MPI_Comm_create_group(ic, MPI_GROUP_EMPTY, 0, &m),
                "Comm_create_group on an intercomm");
    CHECK_MPI(MPI_Topo_test(ic, &ival));
    CHECK_INT(MPI_UNDEFINED, ival, "Topo_test of an intercomm");
    CHECK_CLASS(MPI_ERR_RANK, MPI_Send(&ival, 1, MPI_INT, nr, 0, ic),
                "Send to a rank past the remote group");
    MPI_Win win;
    CHECK_CLASS(MPI_ERR_COMM, MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, ic, &win),
                "Win_create on an intercomm");

    CHECK_MPI(MPI_Comm_free(&ic2));
    CHECK_MPI(MPI_Comm_free(&ic));
    CHECK_INT(2, deletes, "delete callback at free of the intercomm");
    MPI_Comm_free_keyval(&key);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
