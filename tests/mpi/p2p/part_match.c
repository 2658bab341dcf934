/* part_match: which partitioned receive a partitioned send meets (MPI-4.1 section 4.2.1:
 * Psend_init and Precv_init pair up in the order of the init calls per communicator, peer
 * and tag, once for all rounds, whatever the order of the Starts and Preadys).
 *
 * Rank 0 makes three sends, rank 1 three receives of 512 ints each, every buffer filled
 * with its own value (1, 2, 3), and 3 rounds run with the sender starting its requests
 * in an order that differs from the init order each round:
 *  - same communicator, same tag: send i must land in receive i (init order);
 *  - same communicator, tags 0/1/2 initialized in reverse order on the sender: by tag;
 *  - three duplicates of WORLD initialized in reverse order on the sender: by communicator.
 * Every element and the status (source, tag) of each receive is checked. Before the fix
 * the messages matched in the order of the Starts: "expected 1, got 3".
 */
#include "../t_util.h"

#define N      512
#define ROUNDS 3

static int bufs[3][N];

static void run(const char *what, MPI_Comm comms[3], const int tags[3], const int init_order[3])
{
    static const int start_order[ROUNDS][3] = {{2, 0, 1}, {1, 2, 0}, {0, 1, 2}};
    MPI_Request reqs[3];
    MPI_Status st[3];
    char msg[128];
    for (int k = 0; k < 3; k++) {
        int i = t_rank == 0 ? init_order[k] : k;
        if (t_rank == 0)
            CHECK_MPI(MPI_Psend_init(bufs[i], 4, N / 4, MPI_INT, 1, tags[i], comms[i],
                                     MPI_INFO_NULL, &reqs[i]));
        else
            CHECK_MPI(MPI_Precv_init(bufs[i], 2, N / 2, MPI_INT, 0, tags[i], comms[i],
                                     MPI_INFO_NULL, &reqs[i]));
    }
    for (int round = 0; round < ROUNDS; round++) {
        if (t_rank == 0) {
            for (int k = 0; k < 3; k++) {
                int i = start_order[round][k];
                CHECK_MPI(MPI_Start(&reqs[i]));
                for (int j = 0; j < N; j++)
                    bufs[i][j] = 1 + i + 10 * round;
                CHECK_MPI(MPI_Pready_range(0, 3, reqs[i]));
            }
            CHECK_MPI(MPI_Waitall(3, reqs, st));
        } else {
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < N; j++)
                    bufs[i][j] = -1;
                CHECK_MPI(MPI_Start(&reqs[i]));
            }
            CHECK_MPI(MPI_Waitall(3, reqs, st));
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < N; j++)
                    if (bufs[i][j] != 1 + i + 10 * round)
                        CHECK_INT(1 + i + 10 * round, bufs[i][j],
                                  t_fmt(msg, sizeof msg, "%s: round %d, receive %d, element %d",
                                        what, round, i, j));
                CHECK_INT(0, st[i].MPI_SOURCE, t_fmt(msg, sizeof msg, "%s: source", what));
                CHECK_INT(tags[i], st[i].MPI_TAG, t_fmt(msg, sizeof msg, "%s: tag", what));
            }
        }
    }
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Request_free(&reqs[i]));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    if (t_rank < 2) {
        MPI_Comm world[3] = {MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_COMM_WORLD}, dups[3];
        static const int same[3] = {5, 5, 5}, diff[3] = {0, 1, 2};
        static const int in_order[3] = {0, 1, 2}, reversed[3] = {2, 1, 0};
        run("same communicator and tag", world, same, in_order);
        run("tags initialized in reverse order", world, diff, reversed);
        for (int i = 0; i < 3; i++)
            CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, t_rank, &dups[i]));
        run("communicators initialized in reverse order", dups, same, reversed);
        for (int i = 0; i < 3; i++)
            MPI_Comm_free(&dups[i]);
    } else {
        MPI_Comm c;
        for (int i = 0; i < 3; i++) {
            MPI_Comm_split(MPI_COMM_WORLD, 0, t_rank, &c);
            MPI_Comm_free(&c);
        }
    }
    MPI_Finalize();
    return 0;
}
