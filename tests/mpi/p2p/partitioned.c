/* partitioned: partitioned point-to-point between ranks 0 (sender) and 1 (receiver).
 *
 * The sender splits 8000 ints into 8 partitions of 1000, the receiver into 4 of 2000
 * (only the totals have to agree). Checked, over 4 rounds of one Psend_init/Precv_init
 * pair with new data each round:
 *  - partitions marked ready one by one in reverse order (Pready), by Pready_range and by
 *    Pready_list, the last one only after a barrier: until then the send request does not
 *    complete (Test false) and no receive partition has arrived (Parrived false), then
 *    every partition arrives, Wait gives source/tag/count and the data is exact;
 *  - the partitioned message does not match an ordinary MPI_ANY_SOURCE/MPI_ANY_TAG
 *    receive posted before it on the same communicator (it stays pending; cancelled);
 *  - Parrived on the inactive request: flag true; Psend_init to MPI_PROC_NULL completes
 *    with all partitions ready;
 *  - errors (MPI_ERRORS_RETURN): Pready of a partition out of range or marked twice
 *    (MPI_ERR_ARG), Pready on a receive request or an inactive send request
 *    (MPI_ERR_REQUEST), Parrived on a send request (MPI_ERR_REQUEST), Precv_init from
 *    MPI_ANY_SOURCE (MPI_ERR_RANK), negative partitions (MPI_ERR_ARG).
 */
#include "../t_util.h"

#define TOTAL 8000
#define SPARTS 8
#define RPARTS 4

static void sender(void)
{
    int *buf = t_malloc(TOTAL * sizeof(int)), x = 0;
    MPI_Request req, nullreq;
    memset(buf, 0, TOTAL * sizeof(int));
    CHECK_MPI(MPI_Psend_init(buf, SPARTS, TOTAL / SPARTS, MPI_INT, 1, 42, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req));
    CHECK_INT(MPI_ERR_REQUEST, MPI_Pready(0, req), "Pready on an inactive request");
    int flag;
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < TOTAL; i++)
            buf[i] = round * 100000 + i;
        CHECK_MPI(MPI_Start(&req));
        if (round == 0) {
            for (int p = SPARTS - 1; p >= 1; p--)
                CHECK_MPI(MPI_Pready(p, req));
            CHECK_INT(MPI_ERR_ARG, MPI_Pready(SPARTS, req), "Pready out of range");
            CHECK_INT(MPI_ERR_ARG, MPI_Pready(3, req), "Pready twice");
        } else if (round == 1) {
            CHECK_MPI(MPI_Pready_range(1, SPARTS - 1, req));
        } else {
            int list[SPARTS - 1];
            for (int i = 0; i < SPARTS - 1; i++)
                list[i] = SPARTS - 1 - i;
            CHECK_MPI(MPI_Pready_list(SPARTS - 1, list, req));
        }
        for (int k = 0; k < 20; k++) {
            CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            CHECK_INT(0, flag, "Test of the send before the last Pready");
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the receiver checked Parrived false */
        CHECK_MPI(MPI_Pready(0, req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Request_free(&req);

    CHECK_MPI(MPI_Psend_init(&x, 2, 0, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &nullreq));
    CHECK_MPI(MPI_Start(&nullreq));
    CHECK_MPI(MPI_Pready_range(0, 1, nullreq));
    CHECK_MPI(MPI_Wait(&nullreq, MPI_STATUS_IGNORE));
    CHECK_INT(MPI_ERR_REQUEST, MPI_Parrived(nullreq, 0, &flag), "Parrived on a send request");
    MPI_Request_free(&nullreq);
    CHECK_INT(MPI_ERR_ARG, MPI_Psend_init(&x, -1, 1, MPI_INT, 1, 1, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &nullreq),
              "Psend_init with -1 partitions");
    free(buf);
}

static void receiver(void)
{
    int *buf = t_malloc(TOTAL * sizeof(int)), other = -1, flag;
    MPI_Request req, plain;
    MPI_Status st;
    CHECK_MPI(MPI_Precv_init(buf, RPARTS, TOTAL / RPARTS, MPI_INT, 0, 42, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req));
    CHECK_MPI(MPI_Parrived(req, 0, &flag));
    CHECK_INT(1, flag, "Parrived on the inactive request");
    CHECK_INT(MPI_ERR_REQUEST, MPI_Pready(0, req), "Pready on a receive request");
    /* An ordinary wildcard receive must not take the partitioned message. */
    CHECK_MPI(MPI_Irecv(&other, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &plain));
    for (int round = 0; round < 4; round++) {
        memset(buf, 0xff, TOTAL * sizeof(int));
        CHECK_MPI(MPI_Start(&req));
        for (int k = 0; k < 20; k++)
            for (int p = 0; p < RPARTS; p++) {
                CHECK_MPI(MPI_Parrived(req, p, &flag));
                CHECK_INT(0, flag, "Parrived before the sender's last Pready");
            }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int p = RPARTS - 1; p >= 0; p--) {
            do {
                CHECK_MPI(MPI_Parrived(req, p, &flag));
            } while (!flag);
            for (int i = p * (TOTAL / RPARTS); i < (p + 1) * (TOTAL / RPARTS); i++)
                if (buf[i] != round * 100000 + i)
                    CHECK_INT(round * 100000 + i, buf[i], "partition data after Parrived");
        }
        CHECK_MPI(MPI_Wait(&req, &st));
        CHECK_INT(0, st.MPI_SOURCE, "Wait: source");
        CHECK_INT(42, st.MPI_TAG, "Wait: tag");
        CHECK_INT(TOTAL, t_count(&st, MPI_INT), "Wait: count");
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK_MPI(MPI_Test(&plain, &flag, MPI_STATUS_IGNORE));
    CHECK_INT(0, flag, "ordinary wildcard receive after the partitioned rounds");
    CHECK_MPI(MPI_Cancel(&plain));
    CHECK_MPI(MPI_Wait(&plain, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(1, flag, "wildcard receive cancelled");
    CHECK_INT(MPI_ERR_ARG, MPI_Parrived(req, RPARTS, &flag), "Parrived out of range");
    MPI_Request_free(&req);
    MPI_Request bad;
    CHECK_INT(MPI_ERR_RANK, MPI_Precv_init(buf, 1, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                                           MPI_INFO_NULL, &bad),
              "Precv_init from MPI_ANY_SOURCE");
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (t_rank == 0)
        sender();
    else if (t_rank == 1)
        receiver();
    else
        for (int i = 0; i < 8; i++)
            MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
