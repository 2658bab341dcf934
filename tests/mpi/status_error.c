/* status_error: calls that complete one operation leave the MPI_ERROR field of the user's
 * status as it was (MPI 4.0 section 3.2.5: it is set only in arrays of statuses, when a
 * call returns MPI_ERR_IN_STATUS). MPICH's test suite checks this (pt2pt/mprobe.c).
 *
 * Rank 0 sends one message per case to rank 1 (eager and rendezvous sizes); rank 1
 * receives it with Recv, Irecv+Wait, Irecv+Test, Irecv+Waitany, Irecv+Testany,
 * Probe+Recv, Iprobe+Recv, Mprobe+Mrecv, Improbe+Imrecv+Wait and Sendrecv, each status
 * prefilled with a marker in MPI_ERROR, and checks source, tag, count, data and that the
 * marker stayed. Then the same for MPI_PROC_NULL (Recv, Probe, Iprobe, Mprobe, Improbe,
 * Mrecv of the no-proc message). Every case is also checked to return MPI_SUCCESS.
 * Ranks beyond 1 only take part in the final barrier.
 */
#include "t_util.h"

#define MARK   MPI_ERR_DIMS
#define NCASES 10

static void prefill(MPI_Status *st)
{
    memset(st, 0x5a, sizeof *st);
    st->MPI_ERROR = MARK;
}

static void check_status(const MPI_Status *st, int src, int tag, int count, const char *what)
{
    char w[160];
    CHECK_INT(src, st->MPI_SOURCE, t_fmt(w, sizeof w, "%s: MPI_SOURCE", what));
    CHECK_INT(tag, st->MPI_TAG, t_fmt(w, sizeof w, "%s: MPI_TAG", what));
    CHECK_INT(count, t_count(st, MPI_INT), t_fmt(w, sizeof w, "%s: Get_count", what));
    CHECK_INT(MARK, st->MPI_ERROR, t_fmt(w, sizeof w, "%s: MPI_ERROR changed", what));
}

/* Receives case k's message (tag k, n ints) the k-th way and checks status and data. */
static void receive_case(int k, int n, int *buf)
{
    static const char *names[NCASES] = {
        "Recv",       "Irecv+Wait",  "Irecv+Test",   "Irecv+Waitany",  "Irecv+Testany",
        "Probe+Recv", "Iprobe+Recv", "Mprobe+Mrecv", "Improbe+Imrecv", "Sendrecv"};
    char what[160];
    t_fmt(what, sizeof what, "%s of %d ints", names[k], n);
    MPI_Status st, pst;
    MPI_Request r;
    MPI_Message m;
    int flag = 0, idx = -1;
    prefill(&st);
    prefill(&pst);
    memset(buf, 0, (size_t)n * sizeof(int));
    switch (k) {
    case 0: CHECK_MPI(MPI_Recv(buf, n, MPI_INT, 0, k, MPI_COMM_WORLD, &st)); break;
    case 1:
        CHECK_MPI(MPI_Irecv(buf, n, MPI_INT, 0, k, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, &st));
        break;
    case 2:
        CHECK_MPI(MPI_Irecv(buf, n, MPI_INT, 0, k, MPI_COMM_WORLD, &r));
        while (!flag)
            CHECK_MPI(MPI_Test(&r, &flag, &st));
        break;
    case 3:
        CHECK_MPI(MPI_Irecv(buf, n, MPI_INT, 0, k, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Waitany(1, &r, &idx, &st));
        CHECK_INT(0, idx, "Waitany index");
        break;
    case 4:
        CHECK_MPI(MPI_Irecv(buf, n, MPI_INT, 0, k, MPI_COMM_WORLD, &r));
        while (!flag)
            CHECK_MPI(MPI_Testany(1, &r, &idx, &flag, &st));
        CHECK_INT(0, idx, "Testany index");
        break;
    case 5:
        CHECK_MPI(MPI_Probe(0, k, MPI_COMM_WORLD, &pst));
        CHECK_MPI(MPI_Recv(buf, n, MPI_INT, 0, k, MPI_COMM_WORLD, &st));
        break;
    case 6:
        while (!flag)
            CHECK_MPI(MPI_Iprobe(0, k, MPI_COMM_WORLD, &flag, &pst));
        CHECK_MPI(MPI_Recv(buf, n, MPI_INT, 0, k, MPI_COMM_WORLD, &st));
        break;
    case 7:
        CHECK_MPI(MPI_Mprobe(0, k, MPI_COMM_WORLD, &m, &pst));
        CHECK_MPI(MPI_Mrecv(buf, n, MPI_INT, &m, &st));
        break;
    case 8:
        while (!flag)
            CHECK_MPI(MPI_Improbe(0, k, MPI_COMM_WORLD, &flag, &m, &pst));
        CHECK_MPI(MPI_Imrecv(buf, n, MPI_INT, &m, &r));
        CHECK_MPI(MPI_Wait(&r, &st));
        break;
    case 9:
        CHECK_MPI(
            MPI_Sendrecv(NULL, 0, MPI_INT, 0, 99, buf, n, MPI_INT, 0, k, MPI_COMM_WORLD, &st));
        break;
    }
    check_status(&st, 0, k, n, what);
    if (k >= 5 && k <= 8) {
        char pw[200];
        check_status(&pst, 0, k, n, t_fmt(pw, sizeof pw, "%s (the probe's status)", what));
    }
    for (int i = 0; i < n; i++)
        if (buf[i] != k * 1000003 + i)
            t_fail("%s: int %d: expected %d, got %d", what, i, k * 1000003 + i, buf[i]);
}

static void proc_null_cases(void)
{
    MPI_Status st;
    MPI_Message m;
    MPI_Request r;
    int x = 7, flag = 0;
    prefill(&st);
    CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Recv from MPI_PROC_NULL");
    prefill(&st);
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Irecv+Wait from MPI_PROC_NULL");
    prefill(&st);
    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Probe on MPI_PROC_NULL");
    prefill(&st);
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
    CHECK_TRUE(flag, "Iprobe on MPI_PROC_NULL: flag");
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Iprobe on MPI_PROC_NULL");
    prefill(&st);
    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Mprobe on MPI_PROC_NULL");
    CHECK_TRUE(m == MPI_MESSAGE_NO_PROC, "Mprobe on MPI_PROC_NULL: MPI_MESSAGE_NO_PROC");
    prefill(&st);
    CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Mrecv of MPI_MESSAGE_NO_PROC");
    flag = 0;
    prefill(&st);
    CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK_TRUE(flag, "Improbe on MPI_PROC_NULL: flag");
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Improbe on MPI_PROC_NULL");
    CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
    CHECK_INT(7, x, "receives from MPI_PROC_NULL leave the buffer");
}

int main(int argc, char **argv)
{
    static const int sizes[] = {1, 1000, 300000}; /* eager, eager, rendezvous */
    MPI_Init(&argc, &argv);
    t_init();
    if (t_size < 2)
        t_skip("needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *buf = t_malloc(300000 * sizeof(int));
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s];
        for (int k = 0; k < NCASES; k++) {
            if (t_rank == 0) {
                for (int i = 0; i < n; i++)
                    buf[i] = k * 1000003 + i;
                if (k == 9) /* Sendrecv: rank 1's empty message comes first */
                    CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Send(buf, n, MPI_INT, 1, k, MPI_COMM_WORLD));
            } else if (t_rank == 1) {
                receive_case(k, n, buf);
            }
        }
    }
    if (t_rank == 1)
        proc_null_cases();
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("status_error: PASS\n");
    MPI_Finalize();
    return 0;
}
