/* ssend: synchronous and ready send modes.
 *
 * 1  Issend cannot complete before the receive is matched, deterministically: rank 0
 *    Issends message A to rank 1, then Tests it for ~100 ms and it must stay incomplete,
 *    because rank 1 first waits in Recv for message B, which rank 0 sends only after
 *    that loop. Then rank 1 receives A, and rank 0's Issend completes. For 0 B, 100 B
 *    and 300 KB (both protocols).
 * 2  Issend to an already posted receive completes; data checked.
 * 3  Blocking Ssend, with the receive posted late (after 50 ms), delivers correct data.
 * 4  Non-overtaking across modes: Issend then Isend on the same tag arrive in order.
 * 5  Rsend with the receive pre-posted (a barrier in between guarantees it), also into
 *    an ANY_SOURCE receive; data checked.
 */
#include "t_util.h"

#define TAG_A 10
#define TAG_B 11
#define TAG_C 12
#define TAG_D 13
#define TAG_R 14

static const int sizes[] = {0, 100, 300000};
#define NSZ  3
#define MAXN 300000

static void check_data(const unsigned char *buf, const MPI_Status *st, int n, uint64_t seed,
                       const char *what)
{
    char w[160];
    CHECK_INT(n, t_count(st, MPI_BYTE), t_fmt(w, sizeof w, "%s, %d bytes: Get_count", what, n));
    CHECK_INT(0, st->MPI_SOURCE, t_fmt(w, sizeof w, "%s, %d bytes: MPI_SOURCE", what, n));
    t_check_fill(buf, (size_t)n, seed, t_fmt(w, sizeof w, "%s, %d bytes: payload", what, n));
}

int main(int argc, char **argv)
{
    unsigned char *buf, *buf2;
    MPI_Request req, reqs[2];
    MPI_Status st;
    int i, flag, token = 0;
    char what[160];

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    buf = t_malloc(MAXN);
    buf2 = t_malloc(MAXN);

    for (i = 0; i < NSZ; i++) {
        int n = sizes[i];
        uint64_t seed = t_seed(1, (uint64_t)n, 0);

        /* 1: Issend stays incomplete while the receiver is busy elsewhere. */
        if (t_rank == 0) {
            double t0;
            int tests = 0;
            t_fill(buf, (size_t)n, seed);
            MPI_Issend(buf, n, MPI_BYTE, 1, TAG_A, MPI_COMM_WORLD, &req);
            t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.1) {
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                tests++;
                if (flag)
                    t_fail("Issend of %d bytes, Test %d after %.3f s, receiver not yet receiving: "
                           "expected "
                           "incomplete, got complete",
                           n, tests, MPI_Wtime() - t0);
                t_sleep_ms(1);
            }
            token = 1234 + i;
            MPI_Send(&token, 1, MPI_INT, 1, TAG_B, MPI_COMM_WORLD);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            CHECK_TRUE(req == MPI_REQUEST_NULL, "Issend request after Wait");
        } else if (t_rank == 1) {
            MPI_Recv(&token, 1, MPI_INT, 0, TAG_B, MPI_COMM_WORLD, &st);
            CHECK_INT(1234 + i, token, "token message B");
            memset(buf, 0, (size_t)n);
            MPI_Recv(buf, MAXN, MPI_BYTE, 0, TAG_A, MPI_COMM_WORLD, &st);
            check_data(buf, &st, n, seed, "Issend message A");
        }

        /* 2: Issend to a posted receive. */
        seed = t_seed(2, (uint64_t)n, 0);
        if (t_rank == 0) {
            t_fill(buf, (size_t)n, seed);
            MPI_Recv(&token, 1, MPI_INT, 1, TAG_B, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE); /* "posted" */
            MPI_Issend(buf, n, MPI_BYTE, 1, TAG_A, MPI_COMM_WORLD, &req);
            do
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            while (!flag);
        } else if (t_rank == 1) {
            memset(buf, 0, (size_t)n);
            MPI_Irecv(buf, MAXN, MPI_BYTE, 0, TAG_A, MPI_COMM_WORLD, &req);
            MPI_Send(&token, 1, MPI_INT, 0, TAG_B, MPI_COMM_WORLD);
            MPI_Wait(&req, &st);
            check_data(buf, &st, n, seed, "Issend to a posted receive");
        }

        /* 3: blocking Ssend, receiver late. */
        seed = t_seed(3, (uint64_t)n, 0);
        if (t_rank == 0) {
            t_fill(buf, (size_t)n, seed);
            MPI_Ssend(buf, n, MPI_BYTE, 1, TAG_C, MPI_COMM_WORLD);
        } else if (t_rank == 1) {
            memset(buf, 0, (size_t)n);
            t_sleep_ms(50);
            MPI_Recv(buf, MAXN, MPI_BYTE, 0, TAG_C, MPI_COMM_WORLD, &st);
            check_data(buf, &st, n, seed, "Ssend");
        }

        /* 4: Issend then Isend, same tag: order kept. */
        seed = t_seed(4, (uint64_t)n, 0);
        if (t_rank == 0) {
            t_fill(buf, (size_t)n, seed);
            t_fill(buf2, 64, seed + 1);
            MPI_Issend(buf, n, MPI_BYTE, 1, TAG_D, MPI_COMM_WORLD, &reqs[0]);
            MPI_Isend(buf2, 64, MPI_BYTE, 1, TAG_D, MPI_COMM_WORLD, &reqs[1]);
            MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        } else if (t_rank == 1) {
            MPI_Recv(buf, MAXN, MPI_BYTE, 0, TAG_D, MPI_COMM_WORLD, &st);
            check_data(buf, &st, n, seed, "first of Issend+Isend (the Issend)");
            MPI_Recv(buf2, MAXN, MPI_BYTE, 0, TAG_D, MPI_COMM_WORLD, &st);
            check_data(buf2, &st, 64, seed + 1, "second of Issend+Isend (the Isend)");
        }

        /* 5: Rsend to a pre-posted receive (specific, then ANY_SOURCE). */
        {
            int k;
            for (k = 0; k < 2; k++) {
                seed = t_seed(5, (uint64_t)n, (uint64_t)k);
                if (t_rank == 1) {
                    memset(buf, 0, (size_t)n);
                    MPI_Irecv(buf, MAXN, MPI_BYTE, k ? MPI_ANY_SOURCE : 0, TAG_R, MPI_COMM_WORLD,
                              &req);
                }
                MPI_Barrier(MPI_COMM_WORLD);
                if (t_rank == 0) {
                    t_fill(buf, (size_t)n, seed);
                    MPI_Rsend(buf, n, MPI_BYTE, 1, TAG_R, MPI_COMM_WORLD);
                } else if (t_rank == 1) {
                    MPI_Wait(&req, &st);
                    check_data(buf, &st, n, seed,
                               t_fmt(what, sizeof what, "Rsend into %s receive",
                                     k ? "ANY_SOURCE" : "specific"));
                }
            }
        }
    }

    free(buf);
    free(buf2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
