/* persistent: persistent point-to-point requests (Send/Ssend/Rsend/Recv_init, Start,
 * Startall) between ranks 0 and 1.
 *
 * Checked:
 *  - 12 rounds of a ping-pong with one Send_init/Recv_init pair per side, 100 B and
 *    300 KB (rendezvous), new data each round: payload, status source/tag/count; the
 *    requests stay allocated and inactive after Wait (handle unchanged).
 *  - Startall over [Recv_init, Ssend_init] and Waitall; Rsend_init into a receive posted
 *    before a barrier; a vector datatype freed after Send_init keeps serving Start.
 *  - Wait/Test/Waitany/Waitall/Testsome on inactive persistent requests: at once, empty
 *    status, MPI_UNDEFINED index/outcount where the standard says so.
 *  - Request_get_status on an active persistent receive: flag, status, and the request
 *    stays active (Wait then gives the same status).
 *  - Cancel of a started persistent receive (Test_cancelled true), and the same request
 *    started again receives normally.
 *  - Request_free of an active persistent receive: it still receives the first message
 *    (a second message with the same tag goes to a later Recv).
 *  - Recv_init from MPI_PROC_NULL: status source MPI_PROC_NULL.
 *  - Errors (MPI_ERRORS_RETURN): Start of a non-persistent or an active request
 *    (MPI_ERR_REQUEST), Startall with a null entry (MPI_ERR_REQUEST), Send_init to a bad
 *    rank (MPI_ERR_RANK), Recv_init with a negative count (MPI_ERR_COUNT), Send_init with a
 *    bad tag (MPI_ERR_TAG).
 */
#include "../t_util.h"

static void check_empty(const MPI_Status *st, const char *what)
{
    char w[160];
    CHECK_INT(MPI_ANY_SOURCE, st->MPI_SOURCE, t_fmt(w, sizeof w, "%s: MPI_SOURCE", what));
    CHECK_INT(MPI_ANY_TAG, st->MPI_TAG, t_fmt(w, sizeof w, "%s: MPI_TAG", what));
    CHECK_INT(0, t_count(st, MPI_BYTE), t_fmt(w, sizeof w, "%s: Get_count", what));
}

static void pingpong(int n)
{
    int peer = 1 - t_rank;
    unsigned char *sbuf = t_malloc((size_t)n), *rbuf = t_malloc((size_t)n);
    MPI_Request sreq, rreq;
    char w[120];
    memset(sbuf, 0, (size_t)n);
    CHECK_MPI(MPI_Send_init(sbuf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &sreq));
    CHECK_MPI(MPI_Recv_init(rbuf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &rreq));
    MPI_Request s0 = sreq, r0 = rreq;
    for (int round = 0; round < 12; round++) {
        MPI_Status st;
        t_fill(sbuf, (size_t)n, t_seed((uint64_t)t_rank, (uint64_t)round, (uint64_t)n));
        memset(rbuf, 0, (size_t)n);
        if (t_rank == 0) {
            CHECK_MPI(MPI_Start(&sreq));
            CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Start(&rreq));
            CHECK_MPI(MPI_Wait(&rreq, &st));
        } else {
            CHECK_MPI(MPI_Start(&rreq));
            CHECK_MPI(MPI_Wait(&rreq, &st));
            CHECK_MPI(MPI_Start(&sreq));
            CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        }
        CHECK_TRUE(sreq == s0 && rreq == r0, "persistent handles unchanged by Wait");
        CHECK_INT(peer, st.MPI_SOURCE, t_fmt(w, sizeof w, "%d B round %d: source", n, round));
        CHECK_INT(7, st.MPI_TAG, t_fmt(w, sizeof w, "%d B round %d: tag", n, round));
        CHECK_INT(n, t_count(&st, MPI_BYTE), t_fmt(w, sizeof w, "%d B round %d: count", n, round));
        t_check_fill(rbuf, (size_t)n, t_seed((uint64_t)peer, (uint64_t)round, (uint64_t)n),
                     t_fmt(w, sizeof w, "%d B round %d: payload", n, round));
    }
    CHECK_MPI(MPI_Request_free(&sreq));
    CHECK_MPI(MPI_Request_free(&rreq));
    CHECK_TRUE(sreq == MPI_REQUEST_NULL && rreq == MPI_REQUEST_NULL, "Request_free nulls");
    free(sbuf);
    free(rbuf);
}

static void startall_ssend(void)
{
    int peer = 1 - t_rank, out[64], in[64];
    MPI_Request reqs[2];
    MPI_Status sts[2];
    CHECK_MPI(MPI_Recv_init(in, 64, MPI_INT, peer, 11, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Ssend_init(out, 64, MPI_INT, peer, 11, MPI_COMM_WORLD, &reqs[1]));
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 64; i++)
            out[i] = t_rank * 100000 + round * 1000 + i;
        CHECK_MPI(MPI_Startall(2, reqs));
        CHECK_MPI(MPI_Waitall(2, reqs, sts));
        CHECK_INT(peer, sts[0].MPI_SOURCE, "Startall: recv source");
        CHECK_INT(64, t_count(&sts[0], MPI_INT), "Startall: recv count");
        for (int i = 0; i < 64; i++)
            CHECK_INT(peer * 100000 + round * 1000 + i, in[i], "Startall: payload");
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
}

static void rsend_and_vector(void)
{
    int peer = 1 - t_rank;
    double mat[10][4], col[10];
    MPI_Request req;
    if (t_rank == 0) {
        /* Rsend_init: the receive is posted before the barrier. */
        MPI_Datatype colt;
        MPI_Type_vector(10, 1, 4, MPI_DOUBLE, &colt);
        MPI_Type_commit(&colt);
        CHECK_MPI(MPI_Rsend_init(&mat[0][1], 1, colt, peer, 3, MPI_COMM_WORLD, &req));
        MPI_Type_free(&colt); /* the request keeps it */
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 10; i++)
                for (int j = 0; j < 4; j++)
                    mat[i][j] = round * 1000 + i * 10 + j;
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
    } else {
        CHECK_MPI(MPI_Recv_init(col, 10, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &req));
        for (int round = 0; round < 3; round++) {
            CHECK_MPI(MPI_Start(&req));
            MPI_Barrier(MPI_COMM_WORLD);
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < 10; i++)
                CHECK_INT(round * 1000 + i * 10 + 1, (int)col[i], "vector column");
        }
    }
    MPI_Request_free(&req);
}

static void inactive(void)
{
    int x = 0;
    MPI_Request req, arr[3];
    MPI_Status st, sts[3];
    int flag = -1, index = -5, outcount = -5, idx[3];
    CHECK_MPI(MPI_Recv_init(&x, 1, MPI_INT, 1 - t_rank, 99, MPI_COMM_WORLD, &req));
    st.MPI_SOURCE = 1234;
    CHECK_MPI(MPI_Wait(&req, &st));
    check_empty(&st, "Wait on inactive");
    CHECK_TRUE(req != MPI_REQUEST_NULL, "Wait keeps an inactive request");
    st.MPI_SOURCE = 1234;
    CHECK_MPI(MPI_Test(&req, &flag, &st));
    CHECK_INT(1, flag, "Test on inactive: flag");
    check_empty(&st, "Test on inactive");
    arr[0] = MPI_REQUEST_NULL;
    arr[1] = req;
    arr[2] = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Waitany(3, arr, &index, &st));
    CHECK_INT(MPI_UNDEFINED, index, "Waitany over null+inactive: index");
    check_empty(&st, "Waitany over null+inactive");
    CHECK_MPI(MPI_Testany(3, arr, &index, &flag, &st));
    CHECK_INT(MPI_UNDEFINED, index, "Testany over null+inactive: index");
    CHECK_INT(1, flag, "Testany over null+inactive: flag");
    CHECK_MPI(MPI_Testsome(3, arr, &outcount, idx, sts));
    CHECK_INT(MPI_UNDEFINED, outcount, "Testsome over null+inactive: outcount");
    CHECK_MPI(MPI_Waitall(3, arr, sts));
    check_empty(&sts[1], "Waitall inactive entry");
    CHECK_TRUE(arr[1] == req, "Waitall keeps the inactive request");
    CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
    CHECK_INT(1, flag, "Request_get_status on inactive: flag");
    CHECK_MPI(MPI_Request_free(&req));
}

static void get_status_cancel_free(void)
{
    int peer = 1 - t_rank, x = -1, y = -1;
    MPI_Request req;
    MPI_Status st;
    int flag;
    if (t_rank == 1) {
        int v = 4242;
        MPI_Barrier(MPI_COMM_WORLD); /* 0 has started its receive */
        MPI_Send(&v, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD); /* 0 cancelled */
        v = 777;
        MPI_Send(&v, 1, MPI_INT, 0, 22, MPI_COMM_WORLD);
        /* Two messages for the freed active receive and for a later Recv. */
        MPI_Barrier(MPI_COMM_WORLD);
        v = 1001;
        MPI_Send(&v, 1, MPI_INT, 0, 23, MPI_COMM_WORLD);
        v = 1002;
        MPI_Send(&v, 1, MPI_INT, 0, 23, MPI_COMM_WORLD);
        return;
    }
    CHECK_MPI(MPI_Recv_init(&x, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Start(&req));
    MPI_Barrier(MPI_COMM_WORLD);
    do {
        CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
    } while (!flag);
    CHECK_INT(21, st.MPI_TAG, "Request_get_status: tag");
    CHECK_INT(peer, st.MPI_SOURCE, "Request_get_status: source");
    CHECK_INT(4242, x, "Request_get_status: payload");
    /* Still active: Start must fail, Wait gives the same status. */
    MPI_Request tmp = req;
    CHECK_INT(MPI_ERR_REQUEST, MPI_Start(&tmp), "Start of an active request");
    st.MPI_TAG = -7;
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_INT(21, st.MPI_TAG, "Wait after Request_get_status: tag");

    /* Cancel a started receive nobody will match, then reuse the request. */
    MPI_Request creq;
    CHECK_MPI(MPI_Recv_init(&y, 1, MPI_INT, peer, 22, MPI_COMM_WORLD, &creq));
    CHECK_MPI(MPI_Start(&creq));
    CHECK_MPI(MPI_Cancel(&creq));
    CHECK_MPI(MPI_Wait(&creq, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(1, flag, "Test_cancelled of a cancelled persistent receive");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Start(&creq));
    CHECK_MPI(MPI_Wait(&creq, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(0, flag, "Test_cancelled after restart");
    CHECK_INT(777, y, "restarted receive: payload");
    MPI_Request_free(&creq);
    MPI_Request_free(&req);

    /* Request_free of an active receive: it still takes the first message. */
    int first = 0, second = 0;
    CHECK_MPI(MPI_Recv_init(&first, 1, MPI_INT, peer, 23, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Request_free(&req));
    CHECK_TRUE(req == MPI_REQUEST_NULL, "Request_free of an active request nulls the handle");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Recv(&second, 1, MPI_INT, peer, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_INT(1002, second, "Recv after a freed active persistent receive");
    CHECK_INT(1001, first, "freed active persistent receive: payload");
}

static void proc_null_and_errors(void)
{
    int x = 5;
    MPI_Request req, plain, arr[2];
    MPI_Status st;
    CHECK_MPI(MPI_Recv_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_INT(MPI_PROC_NULL, st.MPI_SOURCE, "Recv_init from PROC_NULL: source");
    CHECK_INT(5, x, "Recv_init from PROC_NULL: buffer untouched");

    CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &plain));
    CHECK_INT(MPI_ERR_REQUEST, MPI_Start(&plain), "Start of a non-persistent request");
    CHECK_MPI(MPI_Wait(&plain, MPI_STATUS_IGNORE));
    arr[0] = req;
    arr[1] = MPI_REQUEST_NULL;
    CHECK_INT(MPI_ERR_REQUEST, MPI_Startall(2, arr), "Startall with a null entry");
    MPI_Request bad;
    CHECK_INT(MPI_ERR_RANK, MPI_Send_init(&x, 1, MPI_INT, t_size, 0, MPI_COMM_WORLD, &bad),
              "Send_init to rank == size");
    CHECK_INT(MPI_ERR_COUNT, MPI_Recv_init(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &bad),
              "Recv_init with count -1");
    CHECK_INT(MPI_ERR_TAG, MPI_Send_init(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &bad),
              "Send_init with tag -5");
    CHECK_INT(MPI_ERR_BUFFER, MPI_Send_init(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &bad),
              "Send_init of a NULL buffer");
    MPI_Request_free(&req);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    /* Error classes are checked where calls must fail; CHECK_MPI catches the others. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (t_rank >= 2) {
        /* Extra ranks only take part in the barriers. */
        for (int i = 0; i < 6; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    pingpong(100);
    pingpong(300000);
    startall_ssend();
    rsend_and_vector();
    inactive();
    get_status_cancel_free();
    proc_null_and_errors();
    MPI_Finalize();
    return 0;
}
