/* procnull: communication with MPI_PROC_NULL.
 *
 * Every send mode (Send, Ssend, Rsend, Isend, Issend) to MPI_PROC_NULL succeeds at
 * once; receives (Recv, Irecv + first Test, Irecv in a Waitall) from MPI_PROC_NULL
 * complete at once without touching the buffer, with status MPI_SOURCE = MPI_PROC_NULL,
 * MPI_TAG = MPI_ANY_TAG and count 0; Probe/Iprobe on MPI_PROC_NULL likewise (Iprobe
 * flag true). Sendrecv and Sendrecv_replace with MPI_PROC_NULL on one or both sides, in
 * a non-periodic chain (rank r sends to r+1, receives from r-1) with data checked.
 *
 * --lenient (only for validating this test against MPICH 4.0.2): MPICH before 4.2 returns
 * MPI_SOURCE = 0 and MPI_TAG = 0 for a nonblocking receive from MPI_PROC_NULL
 * (pmodels/mpich#6805); with this argument those two fields are not checked there.
 */
#include "t_util.h"

static int lenient = 0;

#define N    1000
#define SENT 0x11

static void check_null_status_nb(const MPI_Status *st, const char *what, int nonblocking)
{
    char w[160];
    if (!(nonblocking && lenient)) {
        CHECK_INT(MPI_PROC_NULL, st->MPI_SOURCE, t_fmt(w, sizeof w, "%s: MPI_SOURCE", what));
        CHECK_INT(MPI_ANY_TAG, st->MPI_TAG, t_fmt(w, sizeof w, "%s: MPI_TAG", what));
    }
    CHECK_INT(0, t_count(st, MPI_BYTE), t_fmt(w, sizeof w, "%s: Get_count(BYTE)", what));
    CHECK_INT(0, t_count(st, MPI_INT), t_fmt(w, sizeof w, "%s: Get_count(INT)", what));
}

static void check_null_status(const MPI_Status *st, const char *what)
{
    check_null_status_nb(st, what, 0);
}

static void garble(MPI_Status *st)
{
    memset(st, 0x5a, sizeof *st);
    st->MPI_SOURCE = -999;
    st->MPI_TAG = -999;
}

int main(int argc, char **argv)
{
    int buf[N], i, flag, prev, next;
    MPI_Request r[3];
    MPI_Status st, sts[3];
    MPI_Datatype vec;
    char what[120];

    MPI_Init(&argc, &argv);
    t_init();
    if (argc > 1 && strcmp(argv[1], "--lenient") == 0)
        lenient = 1;
    prev = t_rank > 0 ? t_rank - 1 : MPI_PROC_NULL;
    next = t_rank < t_size - 1 ? t_rank + 1 : MPI_PROC_NULL;
    MPI_Type_vector(10, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);

    /* Sends of every mode. */
    for (i = 0; i < N; i++)
        buf[i] = i;
    CHECK_MPI(MPI_Send(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(buf, N, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Rsend(buf, N, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(buf, 1, vec, MPI_PROC_NULL, 3, MPI_COMM_WORLD));
    MPI_Isend(buf, N, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &r[0]);
    MPI_Issend(buf, N, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &r[1]);
    MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
    CHECK_INT(1, flag, "first Testall of Isend+Issend to MPI_PROC_NULL: flag");

    /* Blocking receive. */
    memset(buf, SENT, sizeof buf);
    garble(&st);
    CHECK_MPI(MPI_Recv(buf, N, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv from MPI_PROC_NULL");
    t_check_bytes(buf, sizeof buf, SENT, "Recv from MPI_PROC_NULL: buffer");
    garble(&st);
    CHECK_MPI(MPI_Recv(buf, 1, vec, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv(vector, ANY_TAG) from MPI_PROC_NULL");
    t_check_bytes(buf, sizeof buf, SENT, "Recv(vector) from MPI_PROC_NULL: buffer");

    /* Irecv: complete at the first Test. */
    garble(&st);
    MPI_Irecv(buf, N, MPI_INT, MPI_PROC_NULL, 8, MPI_COMM_WORLD, &r[0]);
    flag = 0;
    MPI_Test(&r[0], &flag, &st);
    CHECK_INT(1, flag, "first Test of an Irecv from MPI_PROC_NULL: flag");
    CHECK_TRUE(r[0] == MPI_REQUEST_NULL, "Irecv from MPI_PROC_NULL: request after Test");
    check_null_status_nb(&st, "Irecv from MPI_PROC_NULL + Test", 1);
    t_check_bytes(buf, sizeof buf, SENT, "Irecv from MPI_PROC_NULL: buffer");

    /* In a Waitall next to real traffic (a self message). */
    {
        int self_out = 4242, self_in = 0;
        MPI_Irecv(buf, N, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&self_in, 1, MPI_INT, t_rank, 9, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(&self_out, 1, MPI_INT, t_rank, 9, MPI_COMM_WORLD, &r[2]);
        garble(&sts[0]);
        MPI_Waitall(3, r, sts);
        check_null_status_nb(&sts[0], "Irecv from MPI_PROC_NULL in a Waitall", 1);
        CHECK_INT(t_rank, sts[1].MPI_SOURCE,
                  "self receive next to a MPI_PROC_NULL receive: MPI_SOURCE");
        CHECK_INT(4242, self_in, "self receive next to a MPI_PROC_NULL receive: data");
    }

    /* Probe / Iprobe. */
    garble(&st);
    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 10, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Probe(MPI_PROC_NULL)");
    garble(&st);
    flag = 0;
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK_INT(1, flag, "Iprobe(MPI_PROC_NULL): flag");
    check_null_status(&st, "Iprobe(MPI_PROC_NULL)");

    /* Sendrecv with both sides null. */
    memset(buf, SENT, sizeof buf);
    garble(&st);
    CHECK_MPI(MPI_Sendrecv(buf, 10, MPI_INT, MPI_PROC_NULL, 11, buf + 10, 10, MPI_INT,
                           MPI_PROC_NULL, 11, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv(PROC_NULL, PROC_NULL)");
    t_check_bytes(buf, sizeof buf, SENT, "Sendrecv(PROC_NULL, PROC_NULL): buffer");
    garble(&st);
    CHECK_MPI(MPI_Sendrecv_replace(buf, N, MPI_INT, MPI_PROC_NULL, 12, MPI_PROC_NULL, 12,
                                   MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv_replace(PROC_NULL, PROC_NULL)");
    t_check_bytes(buf, sizeof buf, SENT, "Sendrecv_replace(PROC_NULL, PROC_NULL): buffer");

    /* A non-periodic chain: the ends talk to MPI_PROC_NULL. */
    {
        int out[N], in[N];
        for (i = 0; i < N; i++)
            out[i] = t_rank * 100000 + i;
        memset(in, SENT, sizeof in);
        garble(&st);
        MPI_Sendrecv(out, N, MPI_INT, next, 13, in, N, MPI_INT, prev, 13, MPI_COMM_WORLD, &st);
        if (prev == MPI_PROC_NULL) {
            check_null_status(&st, "chain Sendrecv at rank 0");
            t_check_bytes(in, sizeof in, SENT, "chain Sendrecv at rank 0: buffer");
        } else {
            CHECK_INT(prev, st.MPI_SOURCE, "chain Sendrecv: MPI_SOURCE");
            CHECK_INT(13, st.MPI_TAG, "chain Sendrecv: MPI_TAG");
            CHECK_INT(N, t_count(&st, MPI_INT), "chain Sendrecv: Get_count");
            for (i = 0; i < N; i++)
                CHECK_INT(prev * 100000 + i, in[i],
                          t_fmt(what, sizeof what, "chain Sendrecv: int %d", i));
        }
        /* Sendrecv_replace the other way round. */
        garble(&st);
        MPI_Sendrecv_replace(out, N, MPI_INT, prev, 14, next, 14, MPI_COMM_WORLD, &st);
        if (next == MPI_PROC_NULL) {
            check_null_status(&st, "chain Sendrecv_replace at the last rank");
            for (i = 0; i < N; i++)
                CHECK_INT(t_rank * 100000 + i, out[i],
                          t_fmt(what, sizeof what,
                                "chain Sendrecv_replace at the last rank: int %d unchanged", i));
        } else {
            CHECK_INT(next, st.MPI_SOURCE, "chain Sendrecv_replace: MPI_SOURCE");
            CHECK_INT(N, t_count(&st, MPI_INT), "chain Sendrecv_replace: Get_count");
            for (i = 0; i < N; i++)
                CHECK_INT(next * 100000 + i, out[i],
                          t_fmt(what, sizeof what, "chain Sendrecv_replace: int %d", i));
        }
    }

    MPI_Type_free(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
