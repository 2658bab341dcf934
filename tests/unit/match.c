/* Matching, deterministically: a single rank (no launcher: a singleton job) sends to itself,
 * so the order in which messages arrive and receives are posted is exactly the program's.
 * Checks which receive gets which message for every mix of posted and unexpected, specific
 * and wildcard source/tag, across communicators, with truncation and probes. */
#include <mpi.h>

#include "test_util.h"

#include <string.h>

static void send_val(int v, int tag, MPI_Comm comm)
{
    MPI_Request r;
    MPI_Isend(&v, 1, MPI_INT, 0, tag, comm, &r); /* completes at once: self messages are copied */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static int recv_val(int tag, MPI_Comm comm, int *got_tag)
{
    int v = -1;
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, comm, &st);
    if (got_tag)
        *got_tag = st.MPI_TAG;
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, tag;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 1)
        T_SKIP("a singleton test; run it without ivcrun");

    /* 1. Unexpected messages are matched in arrival order, per tag. */
    send_val(10, 1, MPI_COMM_WORLD);
    send_val(20, 2, MPI_COMM_WORLD);
    send_val(11, 1, MPI_COMM_WORLD);
    T_EQ(20, recv_val(2, MPI_COMM_WORLD, NULL), "tag 2 skips over earlier tag-1 messages");
    T_EQ(10, recv_val(MPI_ANY_TAG, MPI_COMM_WORLD, &tag), "ANY_TAG takes the oldest left");
    T_EQ(1, tag, "its tag");
    T_EQ(11, recv_val(1, MPI_COMM_WORLD, NULL), "then the next tag-1 message");

    /* 2. Posted receives are matched in posting order: a wildcard posted first wins over a
     *    specific one posted later. */
    int a = -1, b = -1, c = -1;
    MPI_Request r[3];
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&b, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r[1]);
    MPI_Irecv(&c, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &r[2]);
    send_val(1, 5, MPI_COMM_WORLD);
    send_val(2, 5, MPI_COMM_WORLD);
    send_val(3, 6, MPI_COMM_WORLD);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    T_EQ(1, a, "first message goes to the first posted (wildcard) receive");
    T_EQ(2, b, "second tag-5 message to the specific receive");
    T_EQ(3, c, "tag-6 message to its receive");

    /* 3. A posted specific receive is not taken by another tag; the message waits. */
    MPI_Irecv(&a, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &r[0]);
    send_val(8, 8, MPI_COMM_WORLD);
    int flag = 1;
    MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    T_EQ(0, flag, "tag-7 receive does not match a tag-8 message");
    T_EQ(8, recv_val(8, MPI_COMM_WORLD, NULL), "the tag-8 message was queued unexpected");
    send_val(7, 7, MPI_COMM_WORLD);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    T_EQ(7, a, "tag-7 receive completes with its message");

    /* 4. Communicators separate traffic with the same tag. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    send_val(100, 3, dup);
    send_val(200, 3, MPI_COMM_WORLD);
    T_EQ(200, recv_val(3, MPI_COMM_WORLD, NULL), "WORLD receive ignores the dup's message");
    T_EQ(100, recv_val(3, dup, NULL), "dup receive gets its own");
    MPI_Comm_free(&dup);

    /* 5. Probe reports the message a receive would get, and leaves it queued. */
    send_val(31, 4, MPI_COMM_WORLD);
    send_val(32, 4, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &flag, &st);
    T_EQ(1, flag, "probe finds a message");
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    T_EQ(1, count, "probed count");
    T_EQ(31, recv_val(4, MPI_COMM_WORLD, NULL), "the probed (oldest) message");
    T_EQ(32, recv_val(4, MPI_COMM_WORLD, NULL), "the next one");
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    T_EQ(0, flag, "nothing left");

    /* 6. Truncation: the bytes that fit arrive, the error is reported, the queue moves on. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int big[4] = {1, 2, 3, 4}, small[2] = {0, 0};
    MPI_Send(big, 4, MPI_INT, 0, 9, MPI_COMM_WORLD);
    send_val(99, 9, MPI_COMM_WORLD);
    int rc = MPI_Recv(small, 2, MPI_INT, 0, 9, MPI_COMM_WORLD, &st);
    int cls;
    MPI_Error_class(rc, &cls);
    T_EQ(MPI_ERR_TRUNCATE, cls, "truncated receive");
    T_EQ(1, small[0], "first element delivered");
    T_EQ(2, small[1], "second element delivered");
    T_EQ(99, recv_val(9, MPI_COMM_WORLD, NULL), "the following message is intact");

    /* 7. A cancelled receive is no longer matched. */
    MPI_Irecv(&a, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &r[0]);
    MPI_Cancel(&r[0]);
    MPI_Wait(&r[0], &st);
    MPI_Test_cancelled(&st, &flag);
    T_EQ(1, flag, "receive reported cancelled");
    send_val(12, 12, MPI_COMM_WORLD);
    T_EQ(12, recv_val(12, MPI_COMM_WORLD, NULL), "the message went to the next receive");

    /* 8. Freeing a communicator with operations pending lets them complete normally. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int out = 77, in = -1;
    MPI_Request pend[2];
    MPI_Isend(&out, 1, MPI_INT, 0, 1, dup, &pend[0]);
    MPI_Irecv(&in, 1, MPI_INT, 0, 1, dup, &pend[1]);
    MPI_Comm_free(&dup);
    T_TRUE(dup == MPI_COMM_NULL, "the handle is nulled");
    MPI_Waitall(2, pend, MPI_STATUSES_IGNORE);
    T_EQ(77, in, "the pending receive on the freed communicator completed");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* its context id may be reused now */
    send_val(5, 1, dup);
    T_EQ(5, recv_val(1, dup, NULL), "a new communicator works after the old one went away");
    MPI_Comm_free(&dup);

    MPI_Finalize();
    printf("match: ok\n");
    return 0;
}
