/* sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace in a ring, with sizes across any
 * eager/rendezvous boundary (0 B .. 1 MiB + 3).
 *
 * For every size n:
 *   a  Sendrecv to the right from the left, receive buffer larger than the message
 *   b  Sendrecv to the left from the right with per-rank different sizes (n + rank % 3)
 *      and tags, received with ANY_SOURCE or ANY_TAG; status and count checked
 *   c  Sendrecv_replace to the right from the left (bytes)
 *   d  Sendrecv to itself
 * Then Sendrecv_replace with a vector datatype (gaps stay untouched), and a shift pattern:
 * for every distance k, Sendrecv to rank + k from rank - k (every pair talks).
 */
#include "t_util.h"

static const int sizes[] = {0,    1,    255,   256,   257,   1023,  1024,   1025,   4095,
                            4096, 4097, 16384, 65535, 65536, 65537, 262144, 1048579};
#define NSZ   ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXN  (1048579 + 8)
#define SLACK 100

int main(int argc, char **argv)
{
    unsigned char *sbuf, *rbuf;
    int i, k, left, right;
    MPI_Status st;
    char what[160];

    MPI_Init(&argc, &argv);
    t_init();
    left = (t_rank + t_size - 1) % t_size;
    right = (t_rank + 1) % t_size;
    sbuf = t_malloc(MAXN);
    rbuf = t_malloc(MAXN + SLACK);

    for (i = 0; i < NSZ; i++) {
        int n = sizes[i], m, mr;

        /* a */
        t_fill(sbuf, (size_t)n, t_seed(1, (uint64_t)n, (uint64_t)t_rank));
        MPI_Sendrecv(sbuf, n, MPI_BYTE, right, 1, rbuf, n + SLACK, MPI_BYTE, left, 1,
                     MPI_COMM_WORLD, &st);
        CHECK_INT(left, st.MPI_SOURCE, t_fmt(what, sizeof what, "a) %d bytes: MPI_SOURCE", n));
        CHECK_INT(1, st.MPI_TAG, t_fmt(what, sizeof what, "a) %d bytes: MPI_TAG", n));
        CHECK_INT(n, t_count(&st, MPI_BYTE), t_fmt(what, sizeof what, "a) %d bytes: Get_count", n));
        t_check_fill(rbuf, (size_t)n, t_seed(1, (uint64_t)n, (uint64_t)left),
                     t_fmt(what, sizeof what, "a) %d bytes from %d", n, left));

        /* b */
        m = n + t_rank % 3;
        mr = n + right % 3;
        t_fill(sbuf, (size_t)m, t_seed(2, (uint64_t)n, (uint64_t)t_rank));
        /* Wildcards that only this message can match: (ANY_SOURCE, its tag) or (right,
         * ANY_TAG); an (ANY, ANY) receive could take the left neighbour's next message. */
        MPI_Sendrecv(sbuf, m, MPI_BYTE, left, 2 + t_rank % 3, rbuf, n + SLACK, MPI_BYTE,
                     i % 2 ? right : MPI_ANY_SOURCE, i % 2 ? MPI_ANY_TAG : 2 + right % 3,
                     MPI_COMM_WORLD, &st);
        CHECK_INT(right, st.MPI_SOURCE, t_fmt(what, sizeof what, "b) %d bytes: MPI_SOURCE", mr));
        CHECK_INT(2 + right % 3, st.MPI_TAG, t_fmt(what, sizeof what, "b) %d bytes: MPI_TAG", mr));
        CHECK_INT(mr, t_count(&st, MPI_BYTE),
                  t_fmt(what, sizeof what, "b) %d bytes: Get_count", mr));
        t_check_fill(rbuf, (size_t)mr, t_seed(2, (uint64_t)n, (uint64_t)right),
                     t_fmt(what, sizeof what, "b) %d bytes from %d", mr, right));

        /* c */
        t_fill(sbuf, (size_t)n, t_seed(3, (uint64_t)n, (uint64_t)t_rank));
        MPI_Sendrecv_replace(sbuf, n, MPI_BYTE, right, 5, left, 5, MPI_COMM_WORLD, &st);
        CHECK_INT(left, st.MPI_SOURCE, t_fmt(what, sizeof what, "c) %d bytes: MPI_SOURCE", n));
        CHECK_INT(n, t_count(&st, MPI_BYTE), t_fmt(what, sizeof what, "c) %d bytes: Get_count", n));
        t_check_fill(sbuf, (size_t)n, t_seed(3, (uint64_t)n, (uint64_t)left),
                     t_fmt(what, sizeof what, "c) replace %d bytes from %d", n, left));

        /* d */
        t_fill(sbuf, (size_t)n, t_seed(4, (uint64_t)n, (uint64_t)t_rank));
        MPI_Sendrecv(sbuf, n, MPI_BYTE, t_rank, 6, rbuf, n, MPI_BYTE, t_rank, 6, MPI_COMM_WORLD,
                     &st);
        CHECK_INT(t_rank, st.MPI_SOURCE,
                  t_fmt(what, sizeof what, "d) self %d bytes: MPI_SOURCE", n));
        CHECK_INT(n, t_count(&st, MPI_BYTE),
                  t_fmt(what, sizeof what, "d) self %d bytes: Get_count", n));
        t_check_fill(rbuf, (size_t)n, t_seed(4, (uint64_t)n, (uint64_t)t_rank),
                     t_fmt(what, sizeof what, "d) self %d bytes", n));
    }

    /* Sendrecv_replace with a vector type: 20000 blocks of 2 ints every 3 ints (160 KB). */
    {
        enum { NB = 20000 };
        MPI_Datatype vec;
        int *v = t_malloc(sizeof(int) * NB * 3);
        MPI_Type_vector(NB, 2, 3, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        for (i = 0; i < NB * 3; i++)
            v[i] = i % 3 == 2 ? -1 : t_rank * 1000000 + i;
        MPI_Sendrecv_replace(v, 1, vec, right, 7, left, 7, MPI_COMM_WORLD, &st);
        CHECK_INT(NB * 2, t_count(&st, MPI_INT), "vector Sendrecv_replace: Get_count(INT)");
        for (i = 0; i < NB * 3; i++)
            CHECK_INT(i % 3 == 2 ? -1 : left * 1000000 + i, v[i],
                      t_fmt(what, sizeof what, "vector Sendrecv_replace: int %d", i));
        MPI_Type_free(&vec);
        free(v);
    }

    /* Shift pattern: every pair exchanges 20000 bytes. */
    for (k = 1; k < t_size; k++) {
        int to = (t_rank + k) % t_size, from = (t_rank + t_size - k) % t_size;
        t_fill(sbuf, 20000, t_seed(5, (uint64_t)k, (uint64_t)t_rank));
        MPI_Sendrecv(sbuf, 20000, MPI_BYTE, to, 8, rbuf, 20000, MPI_BYTE, from, 8, MPI_COMM_WORLD,
                     &st);
        CHECK_INT(from, st.MPI_SOURCE, t_fmt(what, sizeof what, "shift %d: MPI_SOURCE", k));
        t_check_fill(rbuf, 20000, t_seed(5, (uint64_t)k, (uint64_t)from),
                     t_fmt(what, sizeof what, "shift %d: payload from %d", k, from));
    }

    free(sbuf);
    free(rbuf);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
