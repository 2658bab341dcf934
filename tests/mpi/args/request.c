/* args_request: NULL arguments to the Wait/Test family, Request_get_status*, Request_free
 * and Cancel under MPI_ERRORS_RETURN (2 ranks; the checks need no communication, so each rank
 * checks on its own, with one receive still pending and one complete).
 *
 * Checked, each against MPICH's class:
 *  - a NULL status (MPI_STATUS_IGNORE is the way to ignore one) or array of statuses
 *    (MPI_STATUSES_IGNORE), a NULL flag, index, outcount or array of indices: MPI_ERR_ARG;
 *    an array may be NULL when the count is 0;
 *  - Request_free(NULL) and Cancel(NULL): MPI_ERR_ARG;
 *  - a refused call leaves the request as it was: the complete one is finished by a correct
 *    call afterwards, the pending one receives its message;
 *  - afterwards messages move intact through Waitall, Waitany, Testsome and Test, with the
 *    statuses filled in, and a cancelled receive reports it. */
#include "a_util.h"

int main(int argc, char **argv)
{
    a_init(&argc, &argv);
    t_require_ranks(2);
    MPI_Comm w = MPI_COMM_WORLD;
    const int P = MPI_PROC_NULL;
    int peer = t_rank == 0 ? 1 : 0, active = t_rank < 2;
    int x = -1, y = 0, flag = 0, idx = 0, out = 0, ind[4] = {0};
    MPI_Status st, sts[4];
    MPI_Request r = MPI_REQUEST_NULL, rd = MPI_REQUEST_NULL, none = MPI_REQUEST_NULL;

    /* r: pending until the peer sends tag 5; rd: complete (from MPI_PROC_NULL). */
    if (active)
        A_OK(MPI_Irecv(&x, 1, MPI_INT, peer, 5, w, &r));
    else
        A_OK(MPI_Irecv(&x, 1, MPI_INT, P, 5, w, &r));
    A_OK(MPI_Irecv(&y, 1, MPI_INT, P, 5, w, &rd));

    /* ---- Wait family ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Wait(&rd, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Wait(&none, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Waitall(1, &rd, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Waitany(1, &rd, NULL, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Waitany(1, &rd, &idx, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Waitsome(1, &rd, NULL, ind, MPI_STATUSES_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Waitsome(1, &rd, &out, NULL, MPI_STATUSES_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Waitsome(1, &rd, &out, ind, NULL));
    CHECK_TRUE(rd != MPI_REQUEST_NULL, "request kept by refused waits");

    /* ---- Test family (on the pending request: nothing may complete by accident) ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Test(&r, NULL, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Test(&r, &flag, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Test(&none, NULL, MPI_STATUS_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Test(&rd, &flag, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Testall(1, &r, NULL, MPI_STATUSES_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Testall(1, &rd, &flag, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Testany(1, &r, NULL, &flag, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Testany(1, &r, &idx, NULL, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Testany(1, &rd, &idx, &flag, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Testsome(1, &r, NULL, ind, MPI_STATUSES_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Testsome(1, &rd, &out, NULL, MPI_STATUSES_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Testsome(1, &rd, &out, ind, NULL));
    CHECK_TRUE(rd != MPI_REQUEST_NULL, "request kept by refused tests");

    /* ---- statuses without completing ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status(rd, NULL, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status(rd, &flag, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status(MPI_REQUEST_NULL, NULL, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status(MPI_REQUEST_NULL, &flag, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status_any(1, &rd, NULL, &flag, &st));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status_any(1, &rd, &idx, &flag, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status_all(1, &rd, NULL, MPI_STATUSES_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status_all(1, &rd, &flag, NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status_some(1, &rd, NULL, ind, MPI_STATUSES_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status_some(1, &rd, &out, NULL, MPI_STATUSES_IGNORE));
    A_EXPECT(MPI_ERR_ARG, MPI_Request_get_status_some(1, &rd, &out, ind, NULL));

    /* ---- freeing and cancelling ---- */
    A_EXPECT(MPI_ERR_ARG, MPI_Request_free(NULL));
    A_EXPECT(MPI_ERR_ARG, MPI_Cancel(NULL));
    A_EXPECT(MPI_ERR_REQUEST, MPI_Request_free(&none));

    /* ---- legal: the ignore constants, count 0 with NULL arrays ---- */
    flag = 0;
    A_OK(MPI_Request_get_status(rd, &flag, MPI_STATUS_IGNORE));
    CHECK_INT(1, flag, "Request_get_status of a complete request");
    A_OK(MPI_Request_get_status_all(1, &rd, &flag, MPI_STATUSES_IGNORE));
    A_OK(MPI_Waitall(0, NULL, NULL));
    A_OK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
    flag = 0;
    A_OK(MPI_Testall(0, NULL, &flag, NULL));
    CHECK_INT(1, flag, "Testall of nothing");
    out = 0;
    A_OK(MPI_Waitsome(0, NULL, &out, NULL, NULL));
    CHECK_INT(MPI_UNDEFINED, out, "Waitsome of nothing");
    A_OK(MPI_Testsome(0, NULL, &out, NULL, NULL));
    CHECK_INT(MPI_UNDEFINED, out, "Testsome of nothing");
    flag = 0;
    A_OK(MPI_Testany(0, NULL, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK_TRUE(flag && idx == MPI_UNDEFINED, "Testany of nothing");
    A_OK(MPI_Waitany(0, NULL, &idx, MPI_STATUS_IGNORE));
    CHECK_INT(MPI_UNDEFINED, idx, "Waitany of nothing");
    A_OK(MPI_Request_get_status_some(0, NULL, &out, NULL, NULL));
    A_OK(MPI_Wait(&none, MPI_STATUS_IGNORE));
    /* The complete request, refused eight times, is finished by a correct call. */
    A_OK(MPI_Wait(&rd, &st));
    CHECK_TRUE(rd == MPI_REQUEST_NULL, "Wait frees the request");
    CHECK_INT(MPI_PROC_NULL, st.MPI_SOURCE, "status of a receive from MPI_PROC_NULL");

    /* ---- messages still move: 1 + 3 per direction, checked ---- */
    if (active) {
        int v[4] = {1000 + t_rank, 2000 + t_rank, 3000 + t_rank, 4000 + t_rank}, in[3] = {0};
        MPI_Request s[4], q[3];
        A_OK(MPI_Isend(&v[0], 1, MPI_INT, peer, 5, w, &s[0]));
        for (int i = 1; i < 4; i++)
            A_OK(MPI_Isend(&v[i], 1, MPI_INT, peer, 5 + i, w, &s[i]));
        for (int i = 0; i < 3; i++)
            A_OK(MPI_Irecv(&in[i], 1, MPI_INT, peer, 6 + i, w, &q[i]));
        /* The request that was pending all along: Test until it completes. */
        flag = 0;
        while (!flag)
            A_OK(MPI_Test(&r, &flag, &st));
        CHECK_INT(1000 + peer, x, "pending receive's value");
        CHECK_INT(peer, st.MPI_SOURCE, "pending receive's source");
        CHECK_INT(5, st.MPI_TAG, "pending receive's tag");
        /* One by Waitany, the others by Testsome with statuses. */
        A_OK(MPI_Waitany(3, q, &idx, &st));
        CHECK_TRUE(idx >= 0 && idx < 3 && q[idx] == MPI_REQUEST_NULL, "Waitany's index");
        CHECK_INT(6 + idx, st.MPI_TAG, "Waitany's status tag");
        int left = 2;
        while (left > 0) {
            A_OK(MPI_Testsome(3, q, &out, ind, sts));
            CHECK_TRUE(out != MPI_UNDEFINED, "Testsome with active requests");
            for (int i = 0; i < out; i++)
                CHECK_INT(6 + ind[i], sts[i].MPI_TAG, "Testsome's status tag");
            left -= out;
        }
        for (int i = 0; i < 3; i++)
            CHECK_INT((2 + i) * 1000 + peer, in[i], "value received after the errors");
        A_OK(MPI_Waitall(4, s, sts));
        for (int i = 0; i < 4; i++)
            CHECK_TRUE(s[i] == MPI_REQUEST_NULL, "Waitall frees every request");
    } else {
        A_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }

    /* ---- a cancelled receive says so ---- */
    A_OK(MPI_Irecv(&x, 1, MPI_INT, peer, 99, w, &r));
    A_OK(MPI_Cancel(&r));
    A_OK(MPI_Wait(&r, &st));
    flag = 0;
    A_OK(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(1, flag, "Test_cancelled after Cancel of an unmatched receive");
    return a_finish("args_request");
}
