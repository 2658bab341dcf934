/* coll_acklen: where a reader acknowledges a shared-memory publication follows from the size
 * it expects (src/mpi/coll/coll_impl.h: one word for publications that fit the tag's line,
 * another for longer ones), so a reader whose count does not match the publisher's writes
 * the other word. The publisher adds both up, so that it still reuses the bank.
 *
 * Broadcasts of 8 bytes from rank 0 (one line), where rank np - 1 asks for 512 (a longer
 * publication): it gets MPI_ERR_TRUNCATE, the others the data; then the reverse (rank 0
 * sends 512, rank np - 1 asks for 8). Each way runs more times than there are banks, each
 * followed by a correct Bcast and Allreduce that are checked, so every bank is written again
 * after a mismatched acknowledgement: a publisher that looked only at the word of its own
 * size would wait there forever (the test's timeout).
 *
 * Run with IVC_COLL_ROOTED_P2P=off, so that the broadcasts use the collective area with more
 * ranks than cores. */
#include "t_util.h"

#define ROUNDS 24 /* three times the banks of an area */

static int me, np;

static void mismatch(int rounds, int sent, int asked)
{
    char w[128];
    unsigned char b[512];
    for (int k = 0; k < rounds; k++) {
        int n = me == np - 1 ? asked : sent;
        t_fill(b, (size_t)n, t_seed(7, (uint64_t)k, (uint64_t)sent));
        if (me != 0)
            memset(b, 0, sizeof b);
        int rc = MPI_Bcast(b, n, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (me == np - 1) {
            int cls = MPI_SUCCESS;
            MPI_Error_class(rc, &cls);
            CHECK_INT(MPI_ERR_TRUNCATE, cls,
                      t_fmt(w, sizeof w, "Bcast of %d asked as %d", sent, asked));
        } else {
            CHECK_MPI(rc);
            if (me != 0)
                t_check_fill(b, (size_t)sent, t_seed(7, (uint64_t)k, (uint64_t)sent),
                             t_fmt(w, sizeof w, "Bcast %d of %d bytes", k, sent));
        }
        /* A correct one from the same root, and a reduction in which everyone publishes. */
        t_fill(b, 64, t_seed(8, (uint64_t)k, 0));
        if (me != 0)
            memset(b, 0, 64);
        CHECK_MPI(MPI_Bcast(b, 64, MPI_BYTE, 0, MPI_COMM_WORLD));
        t_check_fill(b, 64, t_seed(8, (uint64_t)k, 0), t_fmt(w, sizeof w, "Bcast %d after", k));
        long v = me + k, sum = 0;
        CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK_INT((long)np * (np - 1) / 2 + (long)np * k, sum, "Allreduce after");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    if (np < 3)
        t_fail("needs at least 3 ranks (2 broadcast point-to-point)");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mismatch(ROUNDS, 8, 512);
    mismatch(ROUNDS, 512, 8);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        printf("coll_acklen: OK (%d ranks)\n", np);
    MPI_Finalize();
    return 0;
}
