/* comm_split_type: the MPI-4 split types of MPI_Comm_split_type.
 *
 *  - MPI_COMM_TYPE_HW_GUIDED and MPI_COMM_TYPE_RESOURCE_GUIDED give MPI_COMM_NULL without
 *    info, with MPI_INFO_NULL, an empty info, an unrelated key and an unknown
 *    "mpi_hw_resource_type"; with "mpi_shared_memory" the same groups as
 *    MPI_COMM_TYPE_SHARED (the ranks sharing this rank's region, IVC_REGION) and the info
 *    unchanged; one rank at a time with the others passing MPI_UNDEFINED gets a
 *    communicator of itself alone;
 *  - RESOURCE_GUIDED with "mpi_pset_name": mpi://WORLD (everyone), mpi://SELF (alone),
 *    ivc://host (as SHARED), an unknown name (MPI_COMM_NULL);
 *  - MPI_COMM_TYPE_HW_UNGUIDED: a strict subset of the communicator with
 *    "mpi_hw_resource_type" set in info, the SHARED groups when the ranks span several
 *    regions (hosts configuration), else MPI_COMM_NULL; splitting again ends in
 *    MPI_COMM_NULL;
 *  - an unknown split type is MPI_ERR_ARG.
 * Every new communicator is checked against the expected members (the sum and the
 * smallest of their world ranks, by Allreduce over it) and its size. */
#include "../t_util.h"

#include <stdlib.h>
#include <string.h>

static int me, np;
static char w[200];

/* Checks that c holds exactly the world ranks for which member(r) is true. */
static void check_members(MPI_Comm c, int (*member)(int), const char *what)
{
    int n = 0, sum = 0, min = -1;
    for (int r = 0; r < np; r++)
        if (member(r)) {
            n++;
            sum += r;
            if (min < 0)
                min = r;
        }
    CHECK_TRUE(c != MPI_COMM_NULL, what);
    int size, got[2], mine[2] = {me, -me}; /* -me: MAX gives the lowest rank */
    CHECK_MPI(MPI_Comm_size(c, &size));
    CHECK_INT(n, size, t_fmt(w, sizeof(w), "%s: size", what));
    CHECK_MPI(MPI_Allreduce(&me, &got[0], 1, MPI_INT, MPI_SUM, c));
    CHECK_INT(sum, got[0], t_fmt(w, sizeof(w), "%s: sum of world ranks", what));
    CHECK_MPI(MPI_Allreduce(&mine[1], &got[1], 1, MPI_INT, MPI_MAX, c));
    CHECK_INT(min, -got[1], t_fmt(w, sizeof(w), "%s: lowest world rank", what));
}

/* Ranks sharing this rank's region: those the launcher gave the same IVC_REGION. */
static char *regions; /* np * 256 */
static int same_region(int r)
{
    return strcmp(regions + 256 * r, regions + 256 * me) == 0;
}
static int everyone(int r)
{
    (void)r;
    return 1;
}
static int only_me(int r)
{
    return r == me;
}

static void expect_null(int type, MPI_Info info, const char *what)
{
    MPI_Comm c = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, type, me, info, &c));
    CHECK_TRUE(c == MPI_COMM_NULL, what);
}

static void expect_value(MPI_Info info, const char *key, const char *want, const char *what)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int len = (int)sizeof(v), flag = 0;
    CHECK_MPI(MPI_Info_get_string(info, key, &len, v, &flag));
    CHECK_TRUE(flag && strcmp(v, want) == 0, what);
}

static void guided(int type, const char *tname)
{
    MPI_Info info;
    MPI_Comm c;
    expect_null(type, MPI_INFO_NULL, t_fmt(w, sizeof(w), "%s, MPI_INFO_NULL", tname));
    CHECK_MPI(MPI_Info_create(&info));
    expect_null(type, info, t_fmt(w, sizeof(w), "%s, empty info", tname));
    CHECK_MPI(MPI_Info_set(info, "foo", "bar"));
    expect_null(type, info, t_fmt(w, sizeof(w), "%s, unrelated key", tname));
    CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "@no-such-resource@"));
    expect_null(type, info, t_fmt(w, sizeof(w), "%s, unknown resource", tname));
    CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, type, me, info, &c));
    check_members(c, same_region, t_fmt(w, sizeof(w), "%s, mpi_shared_memory", tname));
    CHECK_MPI(MPI_Comm_free(&c));
    expect_value(info, "mpi_hw_resource_type", "mpi_shared_memory", "info left unchanged");
    for (int root = 0; root < np; root++) {
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, me == root ? type : MPI_UNDEFINED, 0, info,
                                      &c));
        if (me == root) {
            check_members(c, only_me, t_fmt(w, sizeof(w), "%s, root %d alone", tname, root));
            CHECK_MPI(MPI_Comm_free(&c));
        } else {
            CHECK_TRUE(c == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
        }
    }
    CHECK_MPI(MPI_Info_free(&info));
}

static void pset(const char *name, int (*member)(int))
{
    MPI_Info info;
    MPI_Comm c;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpi_pset_name", name));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, me, info, &c));
    if (member == NULL) {
        CHECK_TRUE(c == MPI_COMM_NULL, t_fmt(w, sizeof(w), "pset %s: MPI_COMM_NULL", name));
    } else {
        check_members(c, member, t_fmt(w, sizeof(w), "pset %s", name));
        CHECK_MPI(MPI_Comm_free(&c));
    }
    CHECK_MPI(MPI_Info_free(&info));
}

static void unguided(void)
{
    int nreg = 0;
    for (int r = 0; r < np; r++)
        nreg += same_region(r);
    MPI_Info info;
    MPI_Comm c;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, me, info, &c));
    if (nreg == np) { /* one region: nothing smaller that IVC knows */
        CHECK_TRUE(c == MPI_COMM_NULL, "HW_UNGUIDED in one region: MPI_COMM_NULL");
    } else {
        check_members(c, same_region, "HW_UNGUIDED across regions");
        expect_value(info, "mpi_hw_resource_type", "mpi_shared_memory",
                     "HW_UNGUIDED sets mpi_hw_resource_type");
        MPI_Comm c2;
        CHECK_MPI(MPI_Comm_split_type(c, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c2));
        CHECK_TRUE(c2 == MPI_COMM_NULL, "HW_UNGUIDED inside one region: MPI_COMM_NULL");
        CHECK_MPI(MPI_Comm_free(&c));
    }
    CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    regions = t_malloc(256 * (size_t)np);
    char mine[256] = {0};
    const char *env = getenv("IVC_REGION");
    snprintf(mine, sizeof(mine), "%s", env != NULL ? env : "");
    CHECK_MPI(MPI_Allgather(mine, 256, MPI_CHAR, regions, 256, MPI_CHAR, MPI_COMM_WORLD));

    MPI_Comm c;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &c));
    check_members(c, same_region, "MPI_COMM_TYPE_SHARED");
    CHECK_MPI(MPI_Comm_free(&c));

    guided(MPI_COMM_TYPE_HW_GUIDED, "HW_GUIDED");
    guided(MPI_COMM_TYPE_RESOURCE_GUIDED, "RESOURCE_GUIDED");
    pset("mpi://WORLD", everyone);
    pset("mpi://SELF", only_me);
    pset("ivc://host", same_region);
    pset("mpi://no-such-set", NULL);

    /* HW_UNGUIDED alone on COMM_SELF (must not need the others), then on WORLD */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_SELF, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c));
    CHECK_TRUE(c == MPI_COMM_NULL, "HW_UNGUIDED on MPI_COMM_SELF: MPI_COMM_NULL");
    if (np > 1)
        unguided();

    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK_INT(MPI_ERR_ARG, cls, "unknown split type: error class");

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    free(regions);
    MPI_Finalize();
    return 0;
}
