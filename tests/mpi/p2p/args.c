/* args: argument checks of the point-to-point calls that must not crash (MPI_ERRORS_RETURN),
 * between ranks 0 and 1.
 *
 * Checked:
 *  - NULL buffer with a non-zero size: Send, Ssend, Isend, Recv, Irecv, Sendrecv (either
 *    side), Bsend give MPI_ERR_BUFFER; with count 0 a NULL buffer is fine (a 0-byte message
 *    arrives with count 0).
 *  - MPI_BOTTOM (== NULL) with a struct type of absolute addresses (Get_address) still
 *    sends and receives: the data lands at those addresses.
 *  - status == NULL: Recv, Sendrecv, Sendrecv_replace, Probe give MPI_ERR_ARG (MPI_STATUS_IGNORE
 *    is the way to ignore it); a NULL request pointer for Isend/Irecv gives MPI_ERR_ARG.
 *  - After all of these, ordinary messages between the pair still arrive intact.
 */
#include "../t_util.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (t_rank > 1) {
        MPI_Finalize();
        return 0;
    }
    int peer = 1 - t_rank, x[4] = {0, 0, 0, 0};
    MPI_Request r;
    MPI_Status st;

    CHECK_INT(MPI_ERR_BUFFER, MPI_Send(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD), "Send NULL");
    CHECK_INT(MPI_ERR_BUFFER, MPI_Ssend(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD),
              "Ssend NULL");
    CHECK_INT(MPI_ERR_BUFFER, MPI_Isend(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD, &r),
              "Isend NULL");
    CHECK_INT(MPI_ERR_BUFFER, MPI_Recv(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD, &st),
              "Recv NULL");
    CHECK_INT(MPI_ERR_BUFFER, MPI_Irecv(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD, &r),
              "Irecv NULL");
    CHECK_INT(MPI_ERR_BUFFER,
              MPI_Sendrecv(x, 1, MPI_INT, peer, 0, NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD,
                           &st),
              "Sendrecv NULL receive buffer");
    CHECK_INT(MPI_ERR_BUFFER,
              MPI_Sendrecv(NULL, 10, MPI_INT, peer, 0, x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD,
                           &st),
              "Sendrecv NULL send buffer");
    CHECK_INT(MPI_ERR_BUFFER, MPI_Bsend(NULL, 10, MPI_INT, peer, 0, MPI_COMM_WORLD),
              "Bsend NULL");

    CHECK_INT(MPI_ERR_ARG, MPI_Recv(x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, NULL),
              "Recv with status NULL");
    CHECK_INT(MPI_ERR_ARG,
              MPI_Sendrecv(x, 1, MPI_INT, peer, 0, x + 1, 1, MPI_INT, peer, 0, MPI_COMM_WORLD,
                           NULL),
              "Sendrecv with status NULL");
    CHECK_INT(MPI_ERR_ARG,
              MPI_Sendrecv_replace(x, 1, MPI_INT, peer, 0, peer, 0, MPI_COMM_WORLD, NULL),
              "Sendrecv_replace with status NULL");
    CHECK_INT(MPI_ERR_ARG, MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, NULL),
              "Probe with status NULL");
    CHECK_INT(MPI_ERR_ARG, MPI_Isend(x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, NULL),
              "Isend with a NULL request");
    CHECK_INT(MPI_ERR_ARG, MPI_Irecv(x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, NULL),
              "Irecv with a NULL request");

    /* Count 0 with NULL is a valid empty message. */
    if (t_rank == 0) {
        CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, peer, 1, MPI_COMM_WORLD));
    } else {
        st.MPI_TAG = -1;
        CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, peer, 1, MPI_COMM_WORLD, &st));
        CHECK_INT(1, st.MPI_TAG, "empty message: tag");
        CHECK_INT(0, t_count(&st, MPI_INT), "empty message: count");
    }

    /* MPI_BOTTOM with absolute addresses: two separate variables. */
    int a = 0, b = 0;
    double c = 0;
    MPI_Aint disp[2];
    MPI_Get_address(&a, &disp[0]);
    MPI_Get_address(&c, &disp[1]);
    int lens[2] = {1, 1};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, abs_t;
    MPI_Type_create_struct(2, lens, disp, types, &abs_t);
    MPI_Type_commit(&abs_t);
    if (t_rank == 0) {
        a = 31337;
        c = 2.5;
        CHECK_MPI(MPI_Send(MPI_BOTTOM, 1, abs_t, peer, 2, MPI_COMM_WORLD));
    } else {
        CHECK_MPI(MPI_Recv(MPI_BOTTOM, 1, abs_t, peer, 2, MPI_COMM_WORLD, &st));
        CHECK_INT(31337, a, "MPI_BOTTOM receive: int");
        CHECK_TRUE(c == 2.5, "MPI_BOTTOM receive: double");
        CHECK_INT(0, b, "MPI_BOTTOM receive: neighbour untouched");
    }
    MPI_Type_free(&abs_t);

    /* The pair still works. */
    int v[100];
    for (int round = 0; round < 3; round++) {
        if (t_rank == 0) {
            for (int i = 0; i < 100; i++)
                v[i] = round * 1000 + i;
            CHECK_MPI(MPI_Send(v, 100, MPI_INT, peer, 3, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Recv(v, 100, MPI_INT, peer, 3, MPI_COMM_WORLD, &st));
            for (int i = 0; i < 100; i++)
                CHECK_INT(round * 1000 + i, v[i], "message after the errors");
        }
    }
    MPI_Finalize();
    return 0;
}
