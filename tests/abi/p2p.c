/* Point-to-point through the MPICH ABI: data, tags, MPI_ANY_SOURCE and MPI_PROC_NULL (whose
 * values IVC's own ABI swaps), status fields and MPI_Get_count, MPI_STATUS(ES)_IGNORE,
 * nonblocking and persistent requests (handles that IVC frees on completion), probes,
 * matched probes, and a 1 MiB message checked word by word. */
#include <string.h>

#include "abi_test.h"

int main(int argc, char **argv)
{
    abi_test_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks, has %d", size);
    int peer = 1 - rank;
    MPI_Status st;

    /* Blocking, with MPI_ANY_SOURCE / MPI_ANY_TAG and the status fields. */
    int v[5];
    if (rank == 0) {
        for (int i = 0; i < 5; i++)
            v[i] = 100 + i;
        OK(MPI_Send(v, 3, MPI_INT, 1, 17, MPI_COMM_WORLD));
    } else {
        memset(v, 0, sizeof(v));
        OK(MPI_Recv(v, 5, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK_INT(st.MPI_SOURCE, 0);
        CHECK_INT(st.MPI_TAG, 17);
        int count = -1;
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_INT(count, 3);
        OK(MPI_Get_elements(&st, MPI_SHORT, &count));
        CHECK_INT(count, 6);
        CHECK_INT(v[0] + v[1] + v[2], 303);
        CHECK_INT(v[3], 0);
        int flag = 1;
        OK(MPI_Test_cancelled(&st, &flag));
        CHECK_INT(flag, 0);
    }

    /* MPI_PROC_NULL: completes at once, status source MPI_PROC_NULL, tag MPI_ANY_TAG. */
    OK(MPI_Send(v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    OK(MPI_Recv(v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_INT(st.MPI_TAG, MPI_ANY_TAG);
    int count = -1;
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_INT(count, 0);

    /* Sendrecv with MPI_STATUS_IGNORE. */
    int out = rank * 10 + 1, in = -1;
    OK(MPI_Sendrecv(&out, 1, MPI_INT, peer, 3, &in, 1, MPI_INT, peer, 3, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    CHECK_INT(in, peer * 10 + 1);

    /* Nonblocking: the handles become MPI_REQUEST_NULL when complete. */
    MPI_Request req[4];
    double dout[2] = {rank + 0.5, rank + 1.5}, din[2] = {0, 0};
    OK(MPI_Irecv(&din[0], 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Irecv(&din[1], 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Isend(&dout[1], 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req[2]));
    OK(MPI_Isend(&dout[0], 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &req[3]));
    MPI_Status sts[4];
    OK(MPI_Waitall(4, req, sts));
    for (int i = 0; i < 4; i++)
        CHECK_INT(req[i], MPI_REQUEST_NULL);
    CHECK(din[0] == peer + 0.5 && din[1] == peer + 1.5, "got %g %g", din[0], din[1]);
    CHECK_INT(sts[0].MPI_TAG, 1);
    CHECK_INT(sts[1].MPI_TAG, 2);
    CHECK_INT(sts[1].MPI_SOURCE, peer);

    /* Waitany / Testall with MPI_STATUSES_IGNORE. */
    OK(MPI_Irecv(&in, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Isend(&out, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &req[1]));
    int idx = -1, done = 0;
    OK(MPI_Waitany(2, req, &idx, &st));
    CHECK(idx == 0 || idx == 1, "index %d", idx);
    CHECK_INT(req[idx], MPI_REQUEST_NULL);
    while (!done)
        OK(MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE));
    CHECK_INT(in, peer * 10 + 1);

    /* Persistent requests stay valid (inactive) after MPI_Wait. */
    MPI_Request ps, pr;
    int pv = 0, pin = -1;
    OK(MPI_Send_init(&pv, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &ps));
    OK(MPI_Recv_init(&pin, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &pr));
    for (int it = 0; it < 3; it++) {
        pv = rank * 100 + it;
        OK(MPI_Start(&pr));
        OK(MPI_Start(&ps));
        OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&pr, &st));
        CHECK(ps != MPI_REQUEST_NULL && pr != MPI_REQUEST_NULL, "persistent request freed");
        CHECK_INT(pin, peer * 100 + it);
    }
    OK(MPI_Request_free(&ps));
    OK(MPI_Request_free(&pr));
    CHECK_INT(ps, MPI_REQUEST_NULL);

    /* Probe, then matched probe and MPI_Mrecv. */
    if (rank == 0) {
        int w[4] = {1, 2, 3, 4};
        OK(MPI_Send(w, 4, MPI_INT, 1, 9, MPI_COMM_WORLD));
        OK(MPI_Send(w, 2, MPI_INT, 1, 10, MPI_COMM_WORLD));
    } else {
        int flag = 0;
        OK(MPI_Probe(0, 9, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK_INT(count, 4);
        int w[4] = {0};
        OK(MPI_Recv(w, 4, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_INT(w[3], 4);
        MPI_Message msg;
        do
            OK(MPI_Improbe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &flag, &msg, &st));
        while (!flag);
        CHECK_INT(st.MPI_SOURCE, 0);
        OK(MPI_Mrecv(w, 2, MPI_INT, &msg, &st));
        CHECK_INT(msg, MPI_MESSAGE_NULL);
        CHECK_INT(w[0] + w[1], 3);
    }

    /* 1 MiB, in both directions at once. */
    size_t n = (1u << 20) / sizeof(unsigned);
    unsigned *big = malloc(n * sizeof(unsigned)), *got = malloc(n * sizeof(unsigned));
    for (size_t i = 0; i < n; i++)
        big[i] = (unsigned)(i * 2654435761u) ^ (unsigned)rank;
    OK(MPI_Sendrecv(big, (int)n, MPI_UNSIGNED, peer, 11, got, (int)n, MPI_UNSIGNED, peer, 11,
                    MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_INT(count, 1 << 20);
    for (size_t i = 0; i < n; i++)
        if (got[i] != ((unsigned)(i * 2654435761u) ^ (unsigned)peer))
            CHECK(0, "word %zu: expected %u, got %u", i,
                  (unsigned)(i * 2654435761u) ^ (unsigned)peer, got[i]);
    free(big);
    free(got);
    abi_test_done("p2p");
    return 0;
}
