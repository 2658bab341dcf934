/* requests: completion calls over request arrays.
 *
 * Rank 1 is a server driven by commands from rank 0 ("send me tag T with N bytes",
 * "receive tag T with N bytes from me and acknowledge"), so rank 0 decides exactly which
 * of its requests can complete at any moment. Checked:
 *  - Test/Testall/Testany/Testsome report nothing complete while no message exists
 *    (Testany index MPI_UNDEFINED, Testsome outcount 0), then complete once it is sent;
 *    a false Testall leaves all requests active.
 *  - Waitall over [Irecv, NULL, Isend, NULL, Irecv]: statuses filled (source, tag,
 *    count), null entries get an empty status, all handles become MPI_REQUEST_NULL.
 *  - Waitany returns the only completable index, then MPI_UNDEFINED when all are null;
 *    Waitsome likewise (outcount, indices, then MPI_UNDEFINED).
 *  - All-null and zero-length arrays: Waitall/Testall succeed with empty statuses,
 *    Waitany/Testany give MPI_UNDEFINED, Waitsome/Testsome give outcount MPI_UNDEFINED,
 *    Wait/Test on MPI_REQUEST_NULL give an empty status.
 *  - Request_free on an active Isend (eager and rendezvous sizes): handle becomes
 *    MPI_REQUEST_NULL and the data still arrives intact.
 *  - ANY_SOURCE/ANY_TAG receives in a Waitall get the right status per request.
 */
#include "t_util.h"

#define TAG_CMD 1
#define TAG_ACK 2

enum { OP_STOP, OP_SEND, OP_RECV };

static uint64_t seed_of(int tag, int n)
{
    return t_seed(99, (uint64_t)tag, (uint64_t)n);
}

/* ---- rank 1 ---------------------------------------------------------------------- */
static void server(void)
{
    MPI_Request pend[256];
    unsigned char *bufs[256];
    int npend = 0, cmd[3], i;
    for (;;) {
        MPI_Recv(cmd, 3, MPI_INT, 0, TAG_CMD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (cmd[0] == OP_STOP)
            break;
        if (npend >= 256)
            t_fail("server: pending requests: expected < 256, got %d", npend);
        bufs[npend] = t_malloc((size_t)cmd[2]);
        if (cmd[0] == OP_SEND) {
            t_fill(bufs[npend], (size_t)cmd[2], seed_of(cmd[1], cmd[2]));
            MPI_Isend(bufs[npend], cmd[2], MPI_BYTE, 0, cmd[1], MPI_COMM_WORLD, &pend[npend]);
        } else {
            MPI_Status st;
            char what[100];
            MPI_Recv(bufs[npend], cmd[2], MPI_BYTE, 0, cmd[1], MPI_COMM_WORLD, &st);
            CHECK_INT(cmd[2], t_count(&st, MPI_BYTE),
                      t_fmt(what, sizeof what, "server: tag %d: Get_count", cmd[1]));
            t_check_fill(bufs[npend], (size_t)cmd[2], seed_of(cmd[1], cmd[2]),
                         t_fmt(what, sizeof what, "server: tag %d: payload", cmd[1]));
            MPI_Isend(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD, &pend[npend]);
        }
        npend++;
    }
    MPI_Waitall(npend, pend, MPI_STATUSES_IGNORE);
    for (i = 0; i < npend; i++)
        free(bufs[i]);
}

/* ---- rank 0 ---------------------------------------------------------------------- */
static void command(int op, int tag, int n)
{
    int cmd[3] = {op, tag, n};
    MPI_Send(cmd, 3, MPI_INT, 1, TAG_CMD, MPI_COMM_WORLD);
}

static void check_empty(const MPI_Status *st, const char *what)
{
    char w[160];
    CHECK_INT(MPI_ANY_SOURCE, st->MPI_SOURCE,
              t_fmt(w, sizeof w, "%s: empty status MPI_SOURCE", what));
    CHECK_INT(MPI_ANY_TAG, st->MPI_TAG, t_fmt(w, sizeof w, "%s: empty status MPI_TAG", what));
    CHECK_INT(0, t_count(st, MPI_BYTE), t_fmt(w, sizeof w, "%s: empty status Get_count", what));
}

static void check_recv(const MPI_Status *st, const unsigned char *buf, int tag, int n,
                       const char *what)
{
    char w[160];
    CHECK_INT(1, st->MPI_SOURCE, t_fmt(w, sizeof w, "%s: MPI_SOURCE", what));
    CHECK_INT(tag, st->MPI_TAG, t_fmt(w, sizeof w, "%s: MPI_TAG", what));
    CHECK_INT(n, t_count(st, MPI_BYTE), t_fmt(w, sizeof w, "%s: Get_count", what));
    t_check_fill(buf, (size_t)n, seed_of(tag, n), t_fmt(w, sizeof w, "%s: payload", what));
}

static void garble(MPI_Status *st, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        memset(&st[i], 0x5a, sizeof st[i]);
        st[i].MPI_SOURCE = -999;
        st[i].MPI_TAG = -999;
    }
}

static void client(void)
{
    enum { BIG = 200000 };
    unsigned char *b[5];
    MPI_Request r[5];
    MPI_Status sts[5], st;
    int i, flag, idx, out, indices[5];
    char what[120];

    for (i = 0; i < 5; i++)
        b[i] = t_malloc(BIG);

    /* -- pending vs complete with Test, Testall, Testany, Testsome ------------------- */
    MPI_Irecv(b[0], BIG, MPI_BYTE, 1, 30, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    MPI_Test(&r[0], &flag, &st);
    CHECK_INT(0, flag, "Test of a receive nobody has sent to: flag");
    MPI_Testall(2, r, &flag, sts);
    CHECK_INT(0, flag, "Testall of [pending, NULL]: flag");
    idx = -5;
    MPI_Testany(2, r, &idx, &flag, &st);
    CHECK_INT(0, flag, "Testany of [pending, NULL]: flag");
    CHECK_INT(MPI_UNDEFINED, idx, "Testany of [pending, NULL]: index");
    out = -5;
    MPI_Testsome(2, r, &out, indices, sts);
    CHECK_INT(0, out, "Testsome of [pending, NULL]: outcount");
    CHECK_TRUE(r[0] != MPI_REQUEST_NULL, "pending request stays active after false tests");
    command(OP_SEND, 30, 1000);
    do
        MPI_Test(&r[0], &flag, &st);
    while (!flag);
    CHECK_TRUE(r[0] == MPI_REQUEST_NULL, "request after a true Test");
    check_recv(&st, b[0], 30, 1000, "Test");

    /* Testall stays false until all are complete, and leaves requests alone meanwhile. */
    MPI_Irecv(b[0], BIG, MPI_BYTE, 1, 70, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(b[1], BIG, MPI_BYTE, 1, 71, MPI_COMM_WORLD, &r[1]);
    command(OP_SEND, 70, 64);
    for (i = 0; i < 20; i++) {
        MPI_Testall(2, r, &flag, sts);
        CHECK_INT(0, flag, "Testall with one of two messages sent: flag");
        CHECK_TRUE(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL,
                   "requests after a false Testall");
        t_sleep_ms(1);
    }
    command(OP_SEND, 71, BIG);
    garble(sts, 2);
    do
        MPI_Testall(2, r, &flag, sts);
    while (!flag);
    CHECK_TRUE(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL,
               "requests after a true Testall");
    check_recv(&sts[0], b[0], 70, 64, "Testall [0]");
    check_recv(&sts[1], b[1], 71, BIG, "Testall [1]");

    /* Testany / Testsome once something is there. */
    MPI_Irecv(b[0], BIG, MPI_BYTE, 1, 72, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(b[1], BIG, MPI_BYTE, 1, 73, MPI_COMM_WORLD, &r[1]);
    r[2] = MPI_REQUEST_NULL;
    command(OP_SEND, 73, 5000);
    do
        MPI_Testany(3, r, &idx, &flag, &st);
    while (!flag);
    CHECK_INT(1, idx, "Testany with only [1] completable: index");
    check_recv(&st, b[1], 73, 5000, "Testany");
    CHECK_TRUE(r[1] == MPI_REQUEST_NULL, "request completed by Testany is MPI_REQUEST_NULL");
    command(OP_SEND, 72, 7);
    do
        MPI_Testsome(3, r, &out, indices, sts);
    while (out == 0);
    CHECK_INT(1, out, "Testsome with only [0] completable: outcount");
    CHECK_INT(0, indices[0], "Testsome with only [0] completable: index");
    check_recv(&sts[0], b[0], 72, 7, "Testsome");
    MPI_Testsome(3, r, &out, indices, sts);
    CHECK_INT(MPI_UNDEFINED, out, "Testsome once all are null: outcount");

    /* -- Waitall over a mixed array ------------------------------------------------- */
    t_fill(b[2], 5000, seed_of(23, 5000));
    MPI_Irecv(b[0], BIG, MPI_BYTE, 1, 21, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    MPI_Isend(b[2], 5000, MPI_BYTE, 1, 23, MPI_COMM_WORLD, &r[2]);
    r[3] = MPI_REQUEST_NULL;
    MPI_Irecv(b[4], BIG, MPI_BYTE, 1, 22, MPI_COMM_WORLD, &r[4]);
    command(OP_SEND, 21, 1000);
    command(OP_RECV, 23, 5000);
    command(OP_SEND, 22, BIG);
    garble(sts, 5);
    MPI_Waitall(5, r, sts);
    for (i = 0; i < 5; i++)
        CHECK_TRUE(
            r[i] == MPI_REQUEST_NULL,
            t_fmt(what, sizeof what, "Waitall: request %d afterwards is MPI_REQUEST_NULL", i));
    check_recv(&sts[0], b[0], 21, 1000, "Waitall [0]");
    check_empty(&sts[1], "Waitall [1] (null)");
    check_empty(&sts[3], "Waitall [3] (null)");
    check_recv(&sts[4], b[4], 22, BIG, "Waitall [4]");
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    /* -- Waitany: only one index completable at a time -------------------------------- */
    r[0] = MPI_REQUEST_NULL;
    MPI_Irecv(b[1], BIG, MPI_BYTE, 1, 40, MPI_COMM_WORLD, &r[1]);
    r[2] = MPI_REQUEST_NULL;
    MPI_Irecv(b[3], BIG, MPI_BYTE, 1, 41, MPI_COMM_WORLD, &r[3]);
    MPI_Irecv(b[4], BIG, MPI_BYTE, 1, 42, MPI_COMM_WORLD, &r[4]);
    {
        static const int order_tag[3] = {42, 40, 41}, order_idx[3] = {4, 1, 3},
                         order_n[3] = {0, 300, BIG};
        for (i = 0; i < 3; i++) {
            command(OP_SEND, order_tag[i], order_n[i]);
            MPI_Waitany(5, r, &idx, &st);
            CHECK_INT(order_idx[i], idx, t_fmt(what, sizeof what, "Waitany step %d: index", i));
            CHECK_TRUE(r[idx] == MPI_REQUEST_NULL,
                       "request completed by Waitany is MPI_REQUEST_NULL");
            check_recv(&st, b[idx], order_tag[i], order_n[i],
                       t_fmt(what, sizeof what, "Waitany step %d", i));
        }
    }
    garble(&st, 1);
    MPI_Waitany(5, r, &idx, &st);
    CHECK_INT(MPI_UNDEFINED, idx, "Waitany once all are null: index");
    check_empty(&st, "Waitany once all are null");

    /* -- Waitsome -------------------------------------------------------------------- */
    MPI_Irecv(b[0], BIG, MPI_BYTE, 1, 50, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    MPI_Irecv(b[2], BIG, MPI_BYTE, 1, 51, MPI_COMM_WORLD, &r[2]);
    MPI_Irecv(b[3], BIG, MPI_BYTE, 1, 52, MPI_COMM_WORLD, &r[3]);
    command(OP_SEND, 51, 4097);
    MPI_Waitsome(4, r, &out, indices, sts);
    CHECK_INT(1, out, "Waitsome with only [2] completable: outcount");
    CHECK_INT(2, indices[0], "Waitsome with only [2] completable: index");
    check_recv(&sts[0], b[2], 51, 4097, "Waitsome");
    command(OP_SEND, 50, 10);
    command(OP_SEND, 52, 100000);
    {
        int seen0 = 0, seen3 = 0, j;
        while (!(seen0 && seen3)) {
            MPI_Waitsome(4, r, &out, indices, sts);
            if (out < 1 || out > 2)
                t_fail("Waitsome with [0] and [3] completable: outcount: expected 1 or 2, got %d",
                       out);
            for (j = 0; j < out; j++) {
                if (indices[j] == 0 && !seen0) {
                    seen0 = 1;
                    check_recv(&sts[j], b[0], 50, 10, "Waitsome [0]");
                } else if (indices[j] == 3 && !seen3) {
                    seen3 = 1;
                    check_recv(&sts[j], b[3], 52, 100000, "Waitsome [3]");
                } else {
                    t_fail("Waitsome: index: expected a not yet completed 0 or 3, got %d",
                           indices[j]);
                }
            }
        }
    }
    MPI_Waitsome(4, r, &out, indices, sts);
    CHECK_INT(MPI_UNDEFINED, out, "Waitsome once all are null: outcount");

    /* -- all-null and empty arrays ---------------------------------------------------- */
    for (i = 0; i < 3; i++)
        r[i] = MPI_REQUEST_NULL;
    garble(sts, 3);
    CHECK_MPI(MPI_Waitall(3, r, sts));
    for (i = 0; i < 3; i++)
        check_empty(&sts[i], "Waitall of nulls");
    garble(sts, 3);
    flag = 0;
    MPI_Testall(3, r, &flag, sts);
    CHECK_INT(1, flag, "Testall of nulls: flag");
    for (i = 0; i < 3; i++)
        check_empty(&sts[i], "Testall of nulls");
    garble(&st, 1);
    MPI_Waitany(3, r, &idx, &st);
    CHECK_INT(MPI_UNDEFINED, idx, "Waitany of nulls: index");
    check_empty(&st, "Waitany of nulls");
    garble(&st, 1);
    flag = 0;
    MPI_Testany(3, r, &idx, &flag, &st);
    CHECK_INT(1, flag, "Testany of nulls: flag");
    CHECK_INT(MPI_UNDEFINED, idx, "Testany of nulls: index");
    check_empty(&st, "Testany of nulls");
    MPI_Waitsome(3, r, &out, indices, sts);
    CHECK_INT(MPI_UNDEFINED, out, "Waitsome of nulls: outcount");
    MPI_Testsome(3, r, &out, indices, sts);
    CHECK_INT(MPI_UNDEFINED, out, "Testsome of nulls: outcount");
    garble(&st, 1);
    MPI_Wait(&r[0], &st);
    check_empty(&st, "Wait on MPI_REQUEST_NULL");
    garble(&st, 1);
    flag = 0;
    MPI_Test(&r[0], &flag, &st);
    CHECK_INT(1, flag, "Test on MPI_REQUEST_NULL: flag");
    check_empty(&st, "Test on MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Waitall(0, r, sts));
    MPI_Waitany(0, r, &idx, &st);
    CHECK_INT(MPI_UNDEFINED, idx, "Waitany of 0 requests: index");
    MPI_Testall(0, r, &flag, sts);
    CHECK_INT(1, flag, "Testall of 0 requests: flag");

    /* -- Request_free on active sends ------------------------------------------------- */
    {
        static const int fsz[2] = {100, BIG};
        for (i = 0; i < 2; i++) {
            t_fill(b[i], (size_t)fsz[i], seed_of(60 + i, fsz[i]));
            MPI_Isend(b[i], fsz[i], MPI_BYTE, 1, 60 + i, MPI_COMM_WORLD, &r[i]);
            MPI_Request_free(&r[i]);
            CHECK_TRUE(r[i] == MPI_REQUEST_NULL,
                       "Request_free sets the handle to MPI_REQUEST_NULL");
            command(OP_RECV, 60 + i, fsz[i]);
        }
        /* Once the server acknowledges, the sends are done and the buffers may go. */
        MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    /* -- wildcards in a Waitall --------------------------------------------------------- */
    MPI_Irecv(b[0], BIG, MPI_BYTE, MPI_ANY_SOURCE, 80, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(b[1], BIG, MPI_BYTE, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &r[1]);
    MPI_Irecv(b[2], BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[2]);
    command(OP_SEND, 80, 33);
    command(OP_SEND, 81, 66666);
    command(OP_SEND, 82, 0);
    garble(sts, 3);
    MPI_Waitall(3, r, sts);
    check_recv(&sts[0], b[0], 80, 33, "Waitall wildcard [0]");
    check_recv(&sts[1], b[1], 81, 66666, "Waitall wildcard [1]");
    check_recv(&sts[2], b[2], 82, 0, "Waitall wildcard [2]");

    command(OP_STOP, 0, 0);
    for (i = 0; i < 5; i++)
        free(b[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    if (t_rank == 0)
        client();
    else if (t_rank == 1)
        server();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
