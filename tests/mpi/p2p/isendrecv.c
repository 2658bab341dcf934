/* isendrecv: MPI_Isendrecv and MPI_Isendrecv_replace in a ring of all ranks.
 *
 * Checked:
 *  - Ring shifts of 0 B .. 1 MiB + 3 (eager and rendezvous) with Isendrecv completed by
 *    Wait, by a Test loop and, all sizes in flight at once, by Waitall: payload from the
 *    left neighbour, status source/tag/count of the receive.
 *  - Isendrecv_replace with a vector datatype (every other int of the buffer): the ints at
 *    the vector's places come from the left neighbour, the gaps keep their values; the
 *    outgoing data is the buffer as it was at the call.
 *  - Different send and receive tags and MPI_ANY_SOURCE/MPI_ANY_TAG on the receive side;
 *    MPI_PROC_NULL on both sides (status source MPI_PROC_NULL, buffer untouched); self
 *    exchange on COMM_SELF.
 *  - Errors (MPI_ERRORS_RETURN): a bad destination (MPI_ERR_RANK), a bad receive tag
 *    (MPI_ERR_TAG), a negative count (MPI_ERR_COUNT), a NULL request (MPI_ERR_ARG).
 */
#include "../t_util.h"

static const int sizes[] = {0, 1, 100, 4096, 65537, 1048579};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static uint64_t seed(int from, int n, int k)
{
    return t_seed((uint64_t)from, (uint64_t)n, (uint64_t)k);
}

static void check_recv(const MPI_Status *st, const unsigned char *buf, int n, int from, int tag,
                       int k, const char *how)
{
    char w[160];
    CHECK_INT(from, st->MPI_SOURCE, t_fmt(w, sizeof w, "%s %d B: source", how, n));
    CHECK_INT(tag, st->MPI_TAG, t_fmt(w, sizeof w, "%s %d B: tag", how, n));
    CHECK_INT(n, t_count(st, MPI_BYTE), t_fmt(w, sizeof w, "%s %d B: count", how, n));
    t_check_fill(buf, (size_t)n, seed(from, n, k), t_fmt(w, sizeof w, "%s %d B: payload", how, n));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int right = (t_rank + 1) % t_size, left = (t_rank - 1 + t_size) % t_size;
    unsigned char *sb[NSIZES], *rb[NSIZES];
    MPI_Request reqs[NSIZES];
    MPI_Status sts[NSIZES], st;

    for (int i = 0; i < NSIZES; i++) {
        int n = sizes[i], flag = 0;
        sb[i] = t_malloc((size_t)n);
        rb[i] = t_malloc((size_t)n);
        t_fill(sb[i], (size_t)n, seed(t_rank, n, 0));
        CHECK_MPI(MPI_Isendrecv(sb[i], n, MPI_BYTE, right, 1, rb[i], n, MPI_BYTE, left, 1,
                                MPI_COMM_WORLD, &reqs[0]));
        CHECK_MPI(MPI_Wait(&reqs[0], &st));
        CHECK_TRUE(reqs[0] == MPI_REQUEST_NULL, "Wait frees the Isendrecv request");
        check_recv(&st, rb[i], n, left, 1, 0, "Wait");
        /* Different tags, wildcards on the receive side, completed by Test. */
        t_fill(sb[i], (size_t)n, seed(t_rank, n, 1));
        CHECK_MPI(MPI_Isendrecv(sb[i], n, MPI_BYTE, right, 2 + i, rb[i], n, MPI_BYTE,
                                MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[0]));
        while (!flag)
            CHECK_MPI(MPI_Test(&reqs[0], &flag, &st));
        check_recv(&st, rb[i], n, left, 2 + i, 1, "Test");
    }
    /* Everything in flight at once. */
    for (int i = 0; i < NSIZES; i++) {
        t_fill(sb[i], (size_t)sizes[i], seed(t_rank, sizes[i], 2));
        CHECK_MPI(MPI_Isendrecv(sb[i], sizes[i], MPI_BYTE, right, 100 + i, rb[i], sizes[i],
                                MPI_BYTE, left, 100 + i, MPI_COMM_WORLD, &reqs[i]));
    }
    CHECK_MPI(MPI_Waitall(NSIZES, reqs, sts));
    for (int i = 0; i < NSIZES; i++)
        check_recv(&sts[i], rb[i], sizes[i], left, 100 + i, 2, "Waitall");
    for (int i = 0; i < NSIZES; i++) {
        free(sb[i]);
        free(rb[i]);
    }

    /* Isendrecv_replace with a vector type: every other int. */
    enum { NV = 5000 };
    int *v = t_malloc(2 * NV * sizeof(int));
    for (int i = 0; i < 2 * NV; i++)
        v[i] = t_rank * 1000000 + i;
    MPI_Datatype every_other;
    MPI_Type_vector(NV, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    CHECK_MPI(MPI_Isendrecv_replace(v, 1, every_other, right, 9, left, 9, MPI_COMM_WORLD,
                                    &reqs[0]));
    MPI_Type_free(&every_other);
    CHECK_MPI(MPI_Wait(&reqs[0], &st));
    CHECK_INT(left, st.MPI_SOURCE, "Isendrecv_replace: source");
    CHECK_INT(NV, t_count(&st, MPI_INT), "Isendrecv_replace: count in ints");
    for (int i = 0; i < 2 * NV; i++) {
        int want = (i % 2 == 0 ? left : t_rank) * 1000000 + i;
        if (v[i] != want)
            CHECK_INT(want, v[i], "Isendrecv_replace: int of the buffer");
    }
    free(v);

    /* PROC_NULL on both sides; self on COMM_SELF. */
    int a = 5, b = 6;
    CHECK_MPI(MPI_Isendrecv(&a, 1, MPI_INT, MPI_PROC_NULL, 0, &b, 1, MPI_INT, MPI_PROC_NULL, 0,
                            MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Wait(&reqs[0], &st));
    CHECK_INT(MPI_PROC_NULL, st.MPI_SOURCE, "PROC_NULL: source");
    CHECK_INT(6, b, "PROC_NULL: buffer untouched");
    a = 77;
    CHECK_MPI(MPI_Isendrecv_replace(&a, 1, MPI_INT, 0, 3, 0, 3, MPI_COMM_SELF, &reqs[0]));
    CHECK_MPI(MPI_Wait(&reqs[0], &st));
    CHECK_INT(77, a, "self Isendrecv_replace");

    /* Errors. */
    CHECK_INT(MPI_ERR_RANK, MPI_Isendrecv(&a, 1, MPI_INT, t_size, 0, &b, 1, MPI_INT, left, 0,
                                          MPI_COMM_WORLD, &reqs[0]),
              "Isendrecv to rank == size");
    CHECK_INT(MPI_ERR_TAG, MPI_Isendrecv(&a, 1, MPI_INT, right, 0, &b, 1, MPI_INT, left, -3,
                                         MPI_COMM_WORLD, &reqs[0]),
              "Isendrecv with receive tag -3");
    CHECK_INT(MPI_ERR_COUNT, MPI_Isendrecv_replace(&a, -1, MPI_INT, right, 0, left, 0,
                                                   MPI_COMM_WORLD, &reqs[0]),
              "Isendrecv_replace with count -1");
    CHECK_INT(MPI_ERR_ARG, MPI_Isendrecv(&a, 1, MPI_INT, right, 0, &b, 1, MPI_INT, left, 0,
                                         MPI_COMM_WORLD, NULL),
              "Isendrecv with a NULL request");
    MPI_Finalize();
    return 0;
}
