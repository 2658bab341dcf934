/* coll_length: ranks that disagree on a collective's counts (erroneous: "the amount of data
 * sent must be equal to the amount of data received", MPI-4.1 section 6.1) get
 * MPI_ERR_TRUNCATE where the mismatch shows, and no rank hangs (MPICH's errors/coll/
 * bcastlength, ibcastlength, alltoalllength; before the fix the ranks below a mismatched
 * receive in the broadcast tree waited forever, and an Ialltoall whose own block was
 * mismatched failed at once at that rank, whose peers then waited for it forever).
 *
 *  - Bcast and Ibcast, the root with 1 element and the others 10, then the reverse: every
 *    non-root gets MPI_ERR_TRUNCATE (the rank below a mismatched one in the tree included);
 *    run with IVC_COLL_ROOTED_P2P so that the blocking Bcast takes the point-to-point tree
 *    on any machine;
 *  - the same above IVC_COLL_ROOTED_P2P, where the blocking Bcast runs through the root's
 *    shared-memory area (the root's length word): 100000 against 20000 elements both ways
 *    (more than the area holds, so the root reuses its slots and waits for acknowledgements
 *    the readers must give), from a malloc buffer and from MPI_Alloc_mem (the direct path
 *    of a root buffer in the shared heap); before the fix a larger root hung every rank;
 *  - Ialltoall, rank 0 sending twice the count every rank receives: every rank gets
 *    MPI_ERR_TRUNCATE (rank 0 from its own block);
 *  - Iallgather, rank 1 sending 2 elements where every rank receives 1: every rank gets
 *    MPI_ERR_TRUNCATE;
 *  - after each, a correct collective on the same communicator delivers checked data (no
 *    stray message of the failed one is left to match it).
 */
#include "../t_util.h"

static int me, np;

static void expect_truncate(int rc, const char *what)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TRUNCATE)
        t_fail("%s: rank %d expected MPI_ERR_TRUNCATE (%d), got class %d (rc %d)", what, me,
               MPI_ERR_TRUNCATE, cls, rc);
}

static int ibcast(void *buf, int count, int root)
{
    MPI_Request req;
    int rc = MPI_Ibcast(buf, count, MPI_INT, root, MPI_COMM_WORLD, &req);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* A correct broadcast and allreduce afterwards deliver what they should. */
static void check_after(const char *what)
{
    int v[4] = {0, 0, 0, 0};
    if (me == np - 1)
        for (int i = 0; i < 4; i++)
            v[i] = 1000 + i;
    CHECK_MPI(MPI_Bcast(v, 4, MPI_INT, np - 1, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        if (v[i] != 1000 + i)
            t_fail("%s: Bcast afterwards: v[%d] expected %d got %d", what, i, 1000 + i, v[i]);
    int sum = 0, one = me + 1;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(np * (np + 1) / 2, sum, "Allreduce afterwards");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    t_require_ranks(4);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int buf[10] = {0};

    for (int nb = 0; nb < 2; nb++) {
        const char *name = nb ? "Ibcast" : "Bcast";
        for (int rev = 0; rev < 2; rev++) {
            int count = (me == 0) != rev ? 1 : 10;
            for (int i = 0; i < 10; i++)
                buf[i] = me == 0 ? 7 + i : -1;
            int rc = nb ? ibcast(buf, count, 0) : MPI_Bcast(buf, count, MPI_INT, 0, MPI_COMM_WORLD);
            char what[64];
            t_fmt(what, sizeof(what), "%s, root count %d, others %d", name, rev ? 10 : 1,
                  rev ? 1 : 10);
            if (me != 0)
                expect_truncate(rc, what);
            check_after(what);
        }
    }

    /* Above IVC_COLL_ROOTED_P2P (64K here): the shared-memory broadcast. */
    for (int am = 0; am < 2; am++) {
        for (int rev = 0; rev < 2; rev++) {
            int big = 100000, small = 20000;
            int count = (me == 0) != rev ? small : big;
            int *b = NULL;
            if (am)
                CHECK_MPI(MPI_Alloc_mem((MPI_Aint)sizeof(int) * big, MPI_INFO_NULL, &b));
            else
                b = t_malloc(sizeof(int) * (size_t)big);
            for (int i = 0; i < big; i++)
                b[i] = me == 0 ? i : -1;
            int rc = MPI_Bcast(b, count, MPI_INT, 0, MPI_COMM_WORLD);
            char what[96];
            t_fmt(what, sizeof(what), "Bcast (%s), root count %d, others %d",
                  am ? "MPI_Alloc_mem" : "malloc", rev ? big : small, rev ? small : big);
            if (me != 0)
                expect_truncate(rc, what);
            else
                CHECK_MPI(rc);
            check_after(what);
            if (am)
                MPI_Free_mem(b);
            else
                free(b);
        }
    }

    int *sbuf = t_malloc(sizeof(int) * 20 * (size_t)np),
        *rbuf = t_malloc(sizeof(int) * 10 * (size_t)np);
    for (int i = 0; i < 20 * np; i++)
        sbuf[i] = i;
    MPI_Request req;
    int rc =
        MPI_Ialltoall(sbuf, me == 0 ? 20 : 10, MPI_INT, rbuf, 10, MPI_INT, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    expect_truncate(rc, "Ialltoall, rank 0 sending 20 where 10 are received");
    check_after("Ialltoall");

    rc = MPI_Iallgather(sbuf, me == 1 ? 2 : 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    expect_truncate(rc, "Iallgather, rank 1 sending 2 where 1 is received");
    check_after("Iallgather");

    free(sbuf);
    free(rbuf);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Finalize();
    if (me == 0)
        printf("coll_length: ok\n");
    return 0;
}
