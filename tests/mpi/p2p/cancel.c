/* MPI_Cancel of sends (src/mpi/p2p/mpi_cancel.c), 2 ranks: rank 0 sends, rank 1 receives.
 *
 *  1. Unmatched: Isend, Issend, Ibsend and a persistent send of 0 B to 1 MiB (eager and
 *     rendezvous) are cancelled; MPI_Wait returns while rank 1 receives nothing, and
 *     MPI_Test_cancelled says so. Rank 1 then finds no trace of them: a marker sent after
 *     them arrives, and no message with their tag is there (the order of a pair would put
 *     it first).
 *  2. Matched first: rank 1 receives the message, tells rank 0, which then cancels: not
 *     cancelled, the data arrived whole.
 *  3. Taken by MPI_Mprobe: rank 1 holds the message, tells rank 0, which cancels and
 *     waits: not cancelled, and rank 1's MPI_Mrecv gets the data (the rendezvous send
 *     completes only then).
 *  4. A receive posted while the send is cancelled, with no synchronisation (rounds of
 *     both sizes): either outcome, but the two ranks must agree: cancelled and the receive
 *     still empty (rank 1 then cancels it), or not cancelled and the data right.
 *  5. To itself: each rank's own unexpected message is cancelled.
 * Every wait must return (a hang is a failure by the test's time limit). */
#include "../t_util.h"

static const int sizes[] = {0, 1, 100, 10000, 1 << 20};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
enum { MODE_ISEND, MODE_ISSEND, MODE_IBSEND, MODE_PERSIST, NMODES };
static const char *mode_name[] = {"Isend", "Issend", "Ibsend", "persistent"};

static char *pattern(int n, int seed)
{
    char *b = malloc((size_t)n + 1);
    for (int i = 0; i < n; i++)
        b[i] = (char)(seed * 31 + i * 7);
    return b;
}

static void check_data(const char *b, int n, int seed, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != (char)(seed * 31 + i * 7))
            t_fail("%s: byte %d of %d: expected %d, got %d", what, i, n,
                   (char)(seed * 31 + i * 7), b[i]);
}

static int cancelled(const MPI_Status *st)
{
    int flag = -1;
    MPI_Test_cancelled(st, &flag);
    return flag;
}

/* Rank 0: starts a send of n bytes in `mode`, returns its request. */
static MPI_Request start_send(int mode, const char *buf, int n, int dest, int tag)
{
    MPI_Request r;
    switch (mode) {
    case MODE_ISEND:
        MPI_Isend(buf, n, MPI_CHAR, dest, tag, MPI_COMM_WORLD, &r);
        break;
    case MODE_ISSEND:
        MPI_Issend(buf, n, MPI_CHAR, dest, tag, MPI_COMM_WORLD, &r);
        break;
    case MODE_IBSEND:
        MPI_Ibsend(buf, n, MPI_CHAR, dest, tag, MPI_COMM_WORLD, &r);
        break;
    default:
        MPI_Send_init(buf, n, MPI_CHAR, dest, tag, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        break;
    }
    return r;
}

static void finish_send(int mode, MPI_Request *r, MPI_Status *st)
{
    MPI_Wait(r, st);
    if (mode == MODE_PERSIST)
        MPI_Request_free(r);
}

static void unmatched(void)
{
    int bsize = (1 << 20) + MPI_BSEND_OVERHEAD;
    void *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    for (int mode = 0; mode < NMODES; mode++) {
        for (int s = 0; s < NSIZES; s++) {
            int n = sizes[s], tag = 100 + mode * 10 + s;
            if (t_rank == 0) {
                char *buf = pattern(n, tag);
                MPI_Request r = start_send(mode, buf, n, 1, tag);
                MPI_Status st;
                MPI_Cancel(&r);
                finish_send(mode, &r, &st);
                if (cancelled(&st) != 1)
                    t_fail("unmatched %s of %d B: expected cancelled, got %d", mode_name[mode],
                           n, cancelled(&st));
                MPI_Send(NULL, 0, MPI_CHAR, 1, 1, MPI_COMM_WORLD); /* the marker */
                free(buf);
            } else {
                MPI_Recv(NULL, 0, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                int flag;
                MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                if (flag)
                    t_fail("unmatched %s of %d B: expected no message after the cancel, got one",
                           mode_name[mode], n);
            }
        }
    }
    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);
    free(bbuf);
}

static void matched_first(void)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], tag = 200 + s;
        if (t_rank == 0) {
            char *buf = pattern(n, tag);
            MPI_Request r;
            MPI_Status st;
            MPI_Isend(buf, n, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &r);
            MPI_Recv(NULL, 0, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Cancel(&r);
            MPI_Wait(&r, &st);
            if (cancelled(&st) != 0)
                t_fail("received %d B: expected not cancelled, got %d", n, cancelled(&st));
            free(buf);
        } else {
            char *buf = malloc((size_t)n + 1);
            MPI_Status st;
            int count;
            MPI_Recv(buf, n, MPI_CHAR, 0, tag, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_CHAR, &count);
            if (count != n)
                t_fail("received message: expected %d B, got %d", n, count);
            check_data(buf, n, tag, "received message");
            MPI_Send(NULL, 0, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
            free(buf);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void mprobed(void)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], tag = 300 + s;
        if (t_rank == 0) {
            char *buf = pattern(n, tag);
            MPI_Request r;
            MPI_Status st;
            MPI_Isend(buf, n, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &r);
            MPI_Recv(NULL, 0, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Cancel(&r);
            MPI_Wait(&r, &st);
            if (cancelled(&st) != 0)
                t_fail("mprobed %d B: expected not cancelled, got %d", n, cancelled(&st));
            free(buf);
        } else {
            MPI_Message msg;
            MPI_Mprobe(0, tag, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
            char *buf = malloc((size_t)n + 1);
            MPI_Status st;
            int count;
            MPI_Mrecv(buf, n, MPI_CHAR, &msg, &st);
            MPI_Get_count(&st, MPI_CHAR, &count);
            if (count != n)
                t_fail("mprobed message: expected %d B, got %d", n, count);
            check_data(buf, n, tag, "mprobed message");
            free(buf);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void racing(int rounds)
{
    int ncancelled = 0;
    for (int i = 0; i < rounds; i++) {
        int n = i % 2 ? 1 << 20 : 64, tag = 400 + i % 50;
        int outcome; /* rank 0's MPI_Test_cancelled */
        if (t_rank == 0) {
            char *buf = pattern(n, i);
            MPI_Request r;
            MPI_Status st;
            MPI_Isend(buf, n, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &r);
            MPI_Cancel(&r);
            MPI_Wait(&r, &st);
            outcome = cancelled(&st);
            ncancelled += outcome == 1;
            MPI_Send(&outcome, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
            free(buf);
        } else {
            char *buf = malloc((size_t)n + 1);
            MPI_Request r;
            MPI_Status st;
            MPI_Irecv(buf, n, MPI_CHAR, 0, tag, MPI_COMM_WORLD, &r);
            MPI_Recv(&outcome, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (outcome == 1) {
                int done;
                MPI_Test(&r, &done, &st);
                if (done)
                    t_fail("round %d (%d B): the sender cancelled, but the receive completed", i,
                           n);
                MPI_Cancel(&r);
                MPI_Wait(&r, &st);
                if (cancelled(&st) != 1)
                    t_fail("round %d: expected the empty receive cancelled, got %d", i,
                           cancelled(&st));
            } else if (outcome == 0) {
                int count;
                MPI_Wait(&r, &st);
                MPI_Get_count(&st, MPI_CHAR, &count);
                if (count != n)
                    t_fail("round %d: expected %d B, got %d", i, n, count);
                check_data(buf, n, i, "raced message");
            } else {
                t_fail("round %d: expected a flag 0 or 1, got %d", i, outcome);
            }
            free(buf);
        }
    }
    if (t_rank == 0)
        printf("p2p_cancel: racing receives: %d of %d sends cancelled\n", ncancelled, rounds);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void to_self(void)
{
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], tag = 500 + s, flag;
        char *buf = pattern(n, tag);
        MPI_Request r;
        MPI_Status st;
        MPI_Isend(buf, n, MPI_CHAR, t_rank, tag, MPI_COMM_WORLD, &r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        if (cancelled(&st) != 1)
            t_fail("send of %d B to itself: expected cancelled, got %d", n, cancelled(&st));
        MPI_Iprobe(t_rank, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag)
            t_fail("send of %d B to itself: expected no message after the cancel, got one", n);
        free(buf);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    if (t_size != 2)
        t_fail("expected 2 ranks, got %d", t_size);
    unmatched();
    MPI_Barrier(MPI_COMM_WORLD);
    matched_first();
    mprobed();
    racing(argc > 1 ? atoi(argv[1]) : 200);
    to_self();
    MPI_Barrier(MPI_COMM_WORLD);
    if (t_rank == 0)
        printf("p2p_cancel: ok\n");
    MPI_Finalize();
    return 0;
}
