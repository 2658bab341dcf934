/* Groups and communicators made from them, checked against expectations computed here:
 * Comm_group, Group_size/rank, incl/excl (reversed and strided), range_incl/excl,
 * translate_ranks (also MPI_PROC_NULL and MPI_UNDEFINED), compare (IDENT/SIMILAR/UNEQUAL),
 * union/intersection/difference (order as the standard defines), MPI_GROUP_EMPTY;
 * Comm_create (members get a working communicator with the group's order, others
 * MPI_COMM_NULL), Comm_create_group (called by the members only), Comm_split_type
 * (MPI_COMM_TYPE_SHARED: every rank of a simulated job shares the region; MPI_UNDEFINED). */
#include "t_util.h"

/* The error class of a call's return code (another MPI may return codes, not classes). */
#define CHECK_CLASS(expected, call, what)                                                          \
    do {                                                                                           \
        int t_c_ = (call);                                                                         \
        if (t_c_ != MPI_SUCCESS)                                                                   \
            MPI_Error_class(t_c_, &t_c_);                                                          \
        CHECK_INT((expected), t_c_, (what));                                                       \
    } while (0)

/* --lenient: skip checks of behaviour the standard allows but does not require (used to
 * validate the test itself against MPICH, see README.md). */
static int t_lenient;

static void check_comm(MPI_Comm c, const int *world_of, int n, const char *what)
{
    char w[160];
    int size, rank;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    CHECK_INT(n, size, t_fmt(w, sizeof w, "%s: size", what));
    CHECK_INT(t_rank, world_of[rank], t_fmt(w, sizeof w, "%s: rank order", what));
    /* Traffic: everyone sends its world rank to its right neighbour in c. */
    int got = -1, me = t_rank;
    MPI_Sendrecv(&me, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT, (rank + size - 1) % size,
                 5, c, MPI_STATUS_IGNORE);
    CHECK_INT(world_of[(rank + size - 1) % size], got, t_fmt(w, sizeof w, "%s: message", what));
    int sum = 0;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c);
    int exp = 0;
    for (int i = 0; i < n; i++)
        exp += world_of[i];
    CHECK_INT(exp, sum, t_fmt(w, sizeof w, "%s: allreduce", what));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_lenient = argc > 1 && strcmp(argv[1], "--lenient") == 0;
    t_require_ranks(3);
    int n = t_size, res, r;
    MPI_Group world, rev, odd, even, g;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_MPI(MPI_Group_size(world, &r));
    CHECK_INT(n, r, "Group_size of WORLD");
    CHECK_MPI(MPI_Group_rank(world, &r));
    CHECK_INT(t_rank, r, "Group_rank of WORLD");

    int *ranks = t_malloc((size_t)n * sizeof(int)), *out = t_malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        ranks[i] = n - 1 - i;
    CHECK_MPI(MPI_Group_incl(world, n, ranks, &rev));
    CHECK_MPI(MPI_Group_rank(rev, &r));
    CHECK_INT(n - 1 - t_rank, r, "rank in the reversed group");
    CHECK_MPI(MPI_Group_compare(world, rev, &res));
    CHECK_INT(MPI_SIMILAR, res, "compare(world, reversed)");
    CHECK_MPI(MPI_Group_compare(world, world, &res));
    CHECK_INT(MPI_IDENT, res, "compare(world, world)");

    int ne = 0, no = 0;
    for (int i = 0; i < n; i++)
        if (i % 2)
            ranks[no++] = i;
    CHECK_MPI(MPI_Group_incl(world, no, ranks, &odd));
    CHECK_MPI(MPI_Group_excl(world, no, ranks, &even));
    CHECK_MPI(MPI_Group_size(even, &ne));
    CHECK_INT(n - no, ne, "size of the even group");
    CHECK_MPI(MPI_Group_rank(odd, &r));
    CHECK_INT(t_rank % 2 ? t_rank / 2 : MPI_UNDEFINED, r, "rank in the odd group");
    CHECK_MPI(MPI_Group_compare(odd, even, &res));
    CHECK_INT(MPI_UNEQUAL, res, "compare(odd, even)");

    /* range_incl (n-1, 0, -2) == reversed every-other; range_excl of the evens == odds. */
    int range[1][3] = {{n - 1, 0, -2}};
    CHECK_MPI(MPI_Group_range_incl(world, 1, range, &g));
    CHECK_MPI(MPI_Group_size(g, &r));
    CHECK_INT((n + 1) / 2, r, "range_incl size");
    int q[2] = {0, 1}, qt[2];
    CHECK_MPI(MPI_Group_translate_ranks(g, 2, q, world, qt));
    CHECK_INT(n - 1, qt[0], "range_incl first");
    CHECK_INT(n - 3, qt[1], "range_incl second");
    MPI_Group_free(&g);
    int exr[1][3] = {{0, n - 1, 2}};
    CHECK_MPI(MPI_Group_range_excl(world, 1, exr, &g));
    CHECK_MPI(MPI_Group_compare(g, odd, &res));
    CHECK_INT(MPI_IDENT, res, "range_excl of the evens is the odds");
    MPI_Group_free(&g);

    /* translate: world -> odd */
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    ranks[0] = MPI_PROC_NULL;
    CHECK_MPI(MPI_Group_translate_ranks(world, n, ranks, odd, out));
    CHECK_INT(MPI_PROC_NULL, out[0], "translate MPI_PROC_NULL");
    for (int i = 1; i < n; i++)
        CHECK_INT(i % 2 ? i / 2 : MPI_UNDEFINED, out[i], "translate world -> odd");

    /* union(odd, even) = odds then evens; intersection(world, odd) = odd;
     * difference(world, odd) = even; difference(odd, odd) = empty. */
    CHECK_MPI(MPI_Group_union(odd, even, &g));
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world, out));
    for (int i = 0; i < n; i++)
        CHECK_INT(i < no ? 2 * i + 1 : 2 * (i - no), out[i], "union order");
    MPI_Group_free(&g);
    CHECK_MPI(MPI_Group_intersection(world, odd, &g));
    CHECK_MPI(MPI_Group_compare(g, odd, &res));
    CHECK_INT(MPI_IDENT, res, "intersection(world, odd)");
    MPI_Group_free(&g);
    CHECK_MPI(MPI_Group_difference(world, odd, &g));
    CHECK_MPI(MPI_Group_compare(g, even, &res));
    CHECK_INT(MPI_IDENT, res, "difference(world, odd)");
    MPI_Group_free(&g);
    CHECK_MPI(MPI_Group_difference(odd, odd, &g));
    CHECK_MPI(MPI_Group_size(g, &r));
    CHECK_INT(0, r, "difference(odd, odd) is empty");
    CHECK_MPI(MPI_Group_compare(g, MPI_GROUP_EMPTY, &res));
    CHECK_INT(MPI_IDENT, res, "empty group compares to MPI_GROUP_EMPTY");
    MPI_Group_free(&g);

    /* Errors. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {0, 0};
    if (!t_lenient) /* MPICH 4.0 accepts repeated ranks */
        CHECK_CLASS(MPI_ERR_RANK, MPI_Group_incl(world, 2, bad, &g), "incl with a repeated rank");
    bad[0] = n;
    CHECK_CLASS(MPI_ERR_RANK, MPI_Group_incl(world, 1, bad, &g), "incl out of range");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* Comm_create with the reversed group: everyone is a member, order reversed. */
    MPI_Comm c;
    int *wo = t_malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        wo[i] = n - 1 - i;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, rev, &c));
    check_comm(c, wo, n, "Comm_create(reversed)");
    MPI_Comm_free(&c);
    /* Comm_create with the odd group: evens get MPI_COMM_NULL. */
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, odd, &c));
    for (int i = 0; i < no; i++)
        wo[i] = 2 * i + 1;
    if (t_rank % 2) {
        CHECK_TRUE(c != MPI_COMM_NULL, "odd member gets a communicator");
        check_comm(c, wo, no, "Comm_create(odd)");
        MPI_Comm_free(&c);
    } else {
        CHECK_TRUE(c == MPI_COMM_NULL, "non-member gets MPI_COMM_NULL");
    }
    /* Comm_create_group: only the evens call it, twice with different tags. */
    if (t_rank % 2 == 0) {
        for (int i = 0; i < n - no; i++)
            wo[i] = 2 * i;
        for (int k = 0; k < 2; k++) {
            CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, even, 10 + k, &c));
            check_comm(c, wo, n - no, "Comm_create_group(even)");
            MPI_Comm_free(&c);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Split by type: shared = the ranks the launcher gave the same region (IVC_REGION;
     * everyone when unset), key reverses the order. */
    const char *reg = getenv("IVC_REGION");
    uint64_t myreg = t_checksum(reg ? reg : "", reg ? strlen(reg) : 0);
    uint64_t *regs = t_malloc((size_t)n * sizeof(uint64_t));
    MPI_Allgather(&myreg, 1, MPI_UINT64_T, regs, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    int ns = 0;
    for (int i = n - 1; i >= 0; i--)
        if (regs[i] == myreg)
            wo[ns++] = i;
    CHECK_MPI(
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, n - t_rank, MPI_INFO_NULL, &c));
    check_comm(c, wo, ns, "Comm_split_type(SHARED)");
    MPI_Comm_free(&c);
    /* Rank 0 opts out: its region's other ranks form a group without it. */
    CHECK_MPI(MPI_Comm_split_type(
        MPI_COMM_WORLD, t_rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    if (t_rank == 0) {
        CHECK_TRUE(c == MPI_COMM_NULL, "MPI_UNDEFINED split type gives MPI_COMM_NULL");
    } else {
        ns = 0;
        for (int i = 1; i < n; i++)
            if (regs[i] == myreg)
                wo[ns++] = i;
        check_comm(c, wo, ns, "Comm_split_type without rank 0");
        MPI_Comm_free(&c);
    }
    free(regs);

    MPI_Group_free(&rev);
    MPI_Group_free(&odd);
    MPI_Group_free(&even);
    MPI_Group_free(&world);
    CHECK_TRUE(world == MPI_GROUP_NULL, "Group_free nulls the handle");
    free(ranks);
    free(out);
    free(wo);
    MPI_Finalize();
    return 0;
}
