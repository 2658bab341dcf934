/* Matched probes: Mprobe/Improbe take the message off the queue, so a later Probe/Recv
 * with the same envelope gets the next message, never the matched one; Mrecv/Imrecv
 * receive exactly the matched message (eager and rendezvous sizes, a derived datatype);
 * Improbe with nothing pending; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC and an empty
 * receive; ANY_SOURCE from several senders. */
#include "t_util.h"

#define BIG (300 * 1024)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(3);
    char w[128];
    int flag;
    MPI_Message msg;
    MPI_Status st;
    if (t_rank == 0) {
        /* Nothing sent yet on tag 99. */
        CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &msg, &st));
        CHECK_INT(0, flag, "Improbe before anything is sent");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank != 0) {
        /* Each sender: three messages on tag 1 (small, big, small) and one on tag 2. */
        int *big = t_malloc(BIG);
        for (int k = 0; k < 3; k++) {
            int n = k == 1 ? BIG / (int)sizeof(int) : 4;
            for (int i = 0; i < n; i++)
                big[i] = t_rank * 1000000 + k * 100000 + i;
            MPI_Send(big, n, MPI_INT, 0, 1, MPI_COMM_WORLD);
        }
        int v = t_rank;
        MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        free(big);
    } else {
        int *buf = t_malloc(BIG);
        for (int s = 1; s < t_size; s++) {
            for (int k = 0; k < 3; k++) {
                CHECK_MPI(MPI_Mprobe(s, 1, MPI_COMM_WORLD, &msg, &st));
                int n = t_count(&st, MPI_INT);
                CHECK_INT(k == 1 ? BIG / (int)sizeof(int) : 4, n,
                          t_fmt(w, sizeof w, "Mprobe count %d/%d", s, k));
                /* The matched message is no longer visible to Iprobe of the same envelope:
                 * Iprobe now sees the next one (or nothing yet). */
                MPI_Status st2;
                int f2;
                MPI_Iprobe(s, 1, MPI_COMM_WORLD, &f2, &st2);
                if (k == 2)
                    CHECK_INT(0, f2, "no tag-1 message left after the matched last one");
                else if (f2)
                    CHECK_TRUE(t_count(&st2, MPI_INT) != n, "Iprobe sees the next message");
                memset(buf, 0, BIG);
                if (k == 1) {
                    MPI_Request r;
                    CHECK_MPI(MPI_Imrecv(buf, n, MPI_INT, &msg, &r));
                    CHECK_TRUE(msg == MPI_MESSAGE_NULL, "Imrecv consumes the message");
                    CHECK_MPI(MPI_Wait(&r, &st));
                } else {
                    CHECK_MPI(MPI_Mrecv(buf, n, MPI_INT, &msg, &st));
                    CHECK_TRUE(msg == MPI_MESSAGE_NULL, "Mrecv consumes the message");
                }
                CHECK_INT(s, st.MPI_SOURCE, "status source");
                CHECK_INT(1, st.MPI_TAG, "status tag");
                for (int i = 0; i < n; i++)
                    CHECK_INT(s * 1000000 + k * 100000 + i, buf[i],
                              t_fmt(w, sizeof w, "payload %d/%d [%d]", s, k, i));
            }
        }
        /* ANY_SOURCE on tag 2 with Improbe polling, received with a vector-free type. */
        int seen = 0;
        for (int got = 0; got < t_size - 1;) {
            CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &flag, &msg, &st));
            if (!flag)
                continue;
            int v = -1;
            MPI_Datatype one;
            MPI_Type_contiguous(1, MPI_INT, &one);
            MPI_Type_commit(&one);
            CHECK_MPI(MPI_Mrecv(&v, 1, one, &msg, &st));
            MPI_Type_free(&one);
            CHECK_INT(st.MPI_SOURCE, v, "ANY_SOURCE payload is the sender's rank");
            CHECK_TRUE(!(seen & (1 << v)), "each sender once");
            seen |= 1 << v;
            got++;
        }
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK_INT(0, flag, "nothing left");
        free(buf);
    }
    /* MPI_PROC_NULL */
    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK_TRUE(msg == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) gives MPI_MESSAGE_NO_PROC");
    CHECK_INT(MPI_PROC_NULL, st.MPI_SOURCE, "status source of PROC_NULL");
    int x = 5;
    CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
    CHECK_INT(5, x, "receive from MPI_MESSAGE_NO_PROC leaves the buffer");
    CHECK_INT(0, t_count(&st, MPI_INT), "count from MPI_MESSAGE_NO_PROC");
    CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK_TRUE(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL)");
    CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
    MPI_Finalize();
    return 0;
}
