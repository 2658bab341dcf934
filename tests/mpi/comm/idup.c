/* MPI_Comm_idup / idup_with_info and communicator info hints:
 * - idup of WORLD: a working copy (size, rank order, messages isolated from the parent),
 *   attributes copied at the call, hints copied;
 * - two idups on different communicators started in opposite orders on even and odd ranks,
 *   completed by Waitall, and again by single Waits in the order each rank started them
 *   (a blocking agreement inside idup would deadlock there);
 * - idups on overlapping pair communicators (each rank in two) in opposite orders;
 * - an idup kept open across a blocking Comm_dup and an Allreduce, and 12 idups of one
 *   communicator in flight at once: every new communicator's messages stay on it;
 * - idup of an intercommunicator;
 * - Comm_set_info / Comm_get_info (set hints come back, set_info merges, dup keeps them,
 *   dup_with_info and idup_with_info replace them);
 * - MPI_ERR_COMM for MPI_COMM_NULL. Any NP >= 2. */
#include "../t_util.h"

#define CHECK_CLASS(expected, call, what)                                                          \
    do {                                                                                           \
        int t_c_ = (call);                                                                         \
        if (t_c_ != MPI_SUCCESS)                                                                   \
            MPI_Error_class(t_c_, &t_c_);                                                          \
        CHECK_INT((expected), t_c_, (what));                                                       \
    } while (0)

/* Every communicator of cs (all intracommunicators over the same ranks in the same order)
 * carries one message per rank to its right neighbour, all on tag 5; the receives go in
 * reverse order, so a message that strayed onto another communicator is seen. */
static void check_isolated(MPI_Comm *cs, int n, const char *what)
{
    char w[160];
    int size, rank;
    MPI_Comm_size(cs[0], &size);
    MPI_Comm_rank(cs[0], &rank);
    MPI_Request *rq = t_malloc((size_t)n * sizeof(MPI_Request));
    int *out = t_malloc((size_t)n * sizeof(int)), in;
    for (int i = 0; i < n; i++) {
        int s2, r2;
        MPI_Comm_size(cs[i], &s2);
        MPI_Comm_rank(cs[i], &r2);
        CHECK_INT(size, s2, t_fmt(w, sizeof w, "%s: size of communicator %d", what, i));
        CHECK_INT(rank, r2, t_fmt(w, sizeof w, "%s: rank in communicator %d", what, i));
        out[i] = 1000 * i + rank;
        CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, (rank + 1) % size, 5, cs[i], &rq[i]));
    }
    for (int i = n - 1; i >= 0; i--) {
        CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 5, cs[i], MPI_STATUS_IGNORE));
        CHECK_INT(1000 * i + (rank + size - 1) % size, in,
                  t_fmt(w, sizeof w, "%s: message on communicator %d", what, i));
    }
    CHECK_MPI(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
    free(rq);
    free(out);
}

static void check_hint(MPI_Comm c, const char *key, const char *val, const char *what)
{
    MPI_Info got;
    CHECK_MPI(MPI_Comm_get_info(c, &got));
    char buf[64] = "";
    int flag = 0;
    CHECK_MPI(MPI_Info_get(got, key, sizeof buf - 1, buf, &flag));
    if (val == NULL) {
        CHECK_INT(0, flag, what);
    } else {
        CHECK_INT(1, flag, what);
        if (strcmp(buf, val) != 0)
            t_fail("%s: expected %s = %s, got %s", what, key, val, buf);
    }
    MPI_Info_free(&got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int odd = t_rank % 2;

    /* Basic idup, with an attribute and a hint to copy. */
    int key;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_Comm base;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    static int attrval;
    CHECK_MPI(MPI_Comm_set_attr(base, key, &attrval));
    MPI_Info hints;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "mpi_assert_no_any_tag", "true");
    CHECK_MPI(MPI_Comm_set_info(base, hints));
    MPI_Info_free(&hints);
    check_hint(base, "mpi_assert_no_any_tag", "true", "Comm_get_info after set_info");

    MPI_Comm d1;
    MPI_Request r1;
    CHECK_MPI(MPI_Comm_idup(base, &d1, &r1));
    CHECK_MPI(MPI_Comm_set_attr(base, key, NULL)); /* after the call: not seen by d1 */
    CHECK_MPI(MPI_Wait(&r1, MPI_STATUS_IGNORE));
    CHECK_TRUE(r1 == MPI_REQUEST_NULL, "idup request freed by Wait");
    void *v = NULL;
    int flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(d1, key, &v, &flag));
    CHECK_INT(1, flag, "attribute copied by idup");
    CHECK_TRUE(v == &attrval, "attribute value copied at the idup call");
    check_hint(d1, "mpi_assert_no_any_tag", "true", "hint copied by idup");
    MPI_Comm cs[16] = {base, d1};
    check_isolated(cs, 2, "idup of a dup");

    /* Opposite orders on even and odd ranks: Waitall, then single Waits. */
    for (int mode = 0; mode < 2; mode++) {
        MPI_Comm a, b, na, nb;
        MPI_Request q[2];
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
        if (odd) {
            CHECK_MPI(MPI_Comm_idup(b, &nb, &q[0]));
            CHECK_MPI(MPI_Comm_idup(a, &na, &q[1]));
        } else {
            CHECK_MPI(MPI_Comm_idup(a, &na, &q[0]));
            CHECK_MPI(MPI_Comm_idup(b, &nb, &q[1]));
        }
        if (mode == 0) {
            CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        } else {
            CHECK_MPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
        }
        MPI_Comm set[5] = {MPI_COMM_WORLD, a, b, na, nb};
        check_isolated(set, 5, mode == 0 ? "opposite orders, Waitall" : "opposite orders, Wait");
        MPI_Comm_free(&na);
        MPI_Comm_free(&nb);
        MPI_Comm_free(&a);
        MPI_Comm_free(&b);
    }

    /* Overlapping pairs: pair k = {k, k+1}; rank r is in pair r-1 and pair r. */
    if (t_size >= 3) {
        MPI_Comm lo = MPI_COMM_NULL, hi = MPI_COMM_NULL, nlo, nhi;
        for (int k = 0; k + 1 < t_size; k++) {
            MPI_Comm c;
            int in = t_rank == k || t_rank == k + 1;
            CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, 0, &c));
            if (t_rank == k)
                hi = c;
            else if (t_rank == k + 1)
                lo = c;
        }
        MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        nlo = nhi = MPI_COMM_NULL;
        if (odd) {
            if (lo != MPI_COMM_NULL)
                CHECK_MPI(MPI_Comm_idup(lo, &nlo, &q[0]));
            if (hi != MPI_COMM_NULL)
                CHECK_MPI(MPI_Comm_idup(hi, &nhi, &q[1]));
        } else {
            if (hi != MPI_COMM_NULL)
                CHECK_MPI(MPI_Comm_idup(hi, &nhi, &q[1]));
            if (lo != MPI_COMM_NULL)
                CHECK_MPI(MPI_Comm_idup(lo, &nlo, &q[0]));
        }
        CHECK_MPI(MPI_Wait(&q[odd ? 0 : 1], MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&q[odd ? 1 : 0], MPI_STATUS_IGNORE));
        if (lo != MPI_COMM_NULL) {
            MPI_Comm set[2] = {lo, nlo};
            check_isolated(set, 2, "idup of the lower pair");
        }
        if (hi != MPI_COMM_NULL) {
            MPI_Comm set[2] = {hi, nhi};
            check_isolated(set, 2, "idup of the upper pair");
        }
        MPI_Comm *all[4] = {&lo, &hi, &nlo, &nhi};
        for (int i = 0; i < 4; i++)
            if (*all[i] != MPI_COMM_NULL)
                MPI_Comm_free(all[i]);
    }

    /* An idup open across a blocking dup and an allreduce; then 12 at once. */
    {
        MPI_Comm n1, n2;
        MPI_Request q;
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &n1, &q));
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &n2));
        int one = 1, sum = 0;
        CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, n2));
        CHECK_INT(t_size, sum, "allreduce on a dup made while an idup is open");
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        MPI_Comm set[3] = {MPI_COMM_WORLD, n1, n2};
        check_isolated(set, 3, "idup across a blocking dup");
        MPI_Comm_free(&n1);
        MPI_Comm_free(&n2);

        MPI_Request qs[12];
        cs[0] = MPI_COMM_WORLD;
        for (int i = 1; i <= 12; i++)
            CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &cs[i], &qs[i - 1]));
        /* completed in a rank-dependent order */
        for (int i = 0; i < 12; i++) {
            int k = (i * 5 + t_rank) % 12, done = 0;
            while (!done)
                CHECK_MPI(MPI_Test(&qs[k], &done, MPI_STATUS_IGNORE));
        }
        check_isolated(cs, 13, "12 idups in flight");
        for (int i = 1; i <= 12; i++)
            MPI_Comm_free(&cs[i]);
    }

    /* Intercommunicator: even and odd halves. */
    {
        MPI_Comm half, ic, nic;
        MPI_Request q;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, odd, 0, &half));
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, odd ? 0 : 1, 11, &ic));
        CHECK_MPI(MPI_Comm_idup(ic, &nic, &q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        int inter = 0, rs = 0, rank;
        CHECK_MPI(MPI_Comm_test_inter(nic, &inter));
        CHECK_INT(1, inter, "idup of an intercomm is an intercomm");
        CHECK_MPI(MPI_Comm_remote_size(nic, &rs));
        CHECK_INT(odd ? (t_size + 1) / 2 : t_size / 2, rs, "remote size of the idup");
        MPI_Comm_rank(nic, &rank);
        /* local rank 0s exchange on both; received in reverse order */
        if (rank == 0) {
            int a = 10 + t_rank, b = 20 + t_rank, ga, gb;
            MPI_Request sq[2];
            CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, 0, 1, ic, &sq[0]));
            CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, 0, 1, nic, &sq[1]));
            CHECK_MPI(MPI_Recv(&gb, 1, MPI_INT, 0, 1, nic, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Recv(&ga, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
            CHECK_INT(20 + (odd ? 0 : 1), gb, "message on the idup of the intercomm");
            CHECK_INT(10 + (odd ? 0 : 1), ga, "message on the intercomm");
            MPI_Waitall(2, sq, MPI_STATUSES_IGNORE);
        }
        MPI_Comm_free(&nic);
        MPI_Comm_free(&ic);
        MPI_Comm_free(&half);
    }

    /* Hints: merge, dup keeps, dup_with_info / idup_with_info replace. */
    {
        MPI_Info i2;
        MPI_Info_create(&i2);
        MPI_Info_set(i2, "mpi_assert_allow_overtaking", "true");
        CHECK_MPI(MPI_Comm_set_info(base, i2));
        check_hint(base, "mpi_assert_no_any_tag", "true", "set_info keeps earlier hints");
        check_hint(base, "mpi_assert_allow_overtaking", "true", "set_info adds hints");
        MPI_Comm dd, dw, iw;
        CHECK_MPI(MPI_Comm_dup(base, &dd));
        check_hint(dd, "mpi_assert_allow_overtaking", "true", "Comm_dup keeps the hints");
        MPI_Info i3;
        MPI_Info_create(&i3);
        MPI_Info_set(i3, "mpi_assert_exact_length", "true");
        CHECK_MPI(MPI_Comm_dup_with_info(base, i3, &dw));
        check_hint(dw, "mpi_assert_exact_length", "true", "dup_with_info sets its hints");
        check_hint(dw, "mpi_assert_no_any_tag", NULL, "dup_with_info drops the parent's hints");
        MPI_Request q;
        CHECK_MPI(MPI_Comm_idup_with_info(base, i3, &iw, &q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        check_hint(iw, "mpi_assert_exact_length", "true", "idup_with_info sets its hints");
        check_hint(iw, "mpi_assert_allow_overtaking", NULL,
                   "idup_with_info drops the parent's hints");
        MPI_Comm set[4] = {base, dd, dw, iw};
        check_isolated(set, 4, "dups with hints");
        check_hint(MPI_COMM_SELF, "mpi_assert_exact_length", NULL, "COMM_SELF has no hints");
        MPI_Info_free(&i2);
        MPI_Info_free(&i3);
        MPI_Comm_free(&dd);
        MPI_Comm_free(&dw);
        MPI_Comm_free(&iw);
    }

    /* Errors. */
    MPI_Comm x;
    MPI_Request q;
    MPI_Info info;
    CHECK_CLASS(MPI_ERR_COMM, MPI_Comm_idup(MPI_COMM_NULL, &x, &q), "Comm_idup(COMM_NULL)");
    CHECK_CLASS(MPI_ERR_COMM, MPI_Comm_get_info(MPI_COMM_NULL, &info), "Comm_get_info(COMM_NULL)");
    CHECK_CLASS(MPI_ERR_COMM, MPI_Comm_set_info(MPI_COMM_NULL, MPI_INFO_NULL),
                "Comm_set_info(COMM_NULL)");

    MPI_Comm_free(&d1);
    MPI_Comm_free(&base);
    MPI_Comm_free_keyval(&key);
    MPI_Finalize();
    return 0;
}
