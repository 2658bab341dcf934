/* coll_nbc: nonblocking collectives.
 *
 *  - Ibarrier does not complete while a rank is provably absent (Test stays false for
 *    50 ms while the last rank sleeps), then completes.
 *  - Progress through point-to-point: rank 0 starts Ibarrier and only then receives a
 *    rendezvous-sized message that rank 1 sends before entering the barrier (a blocking
 *    implementation would deadlock).
 *  - Ibcast (0 B .. 1 MiB, every root class, a vector datatype) and Iallreduce (SUM, MAX, a
 *    non-commutative user op, MPI_IN_PLACE) with several operations in flight on one
 *    communicator at once, completed by Waitall, Test loops and Waitany in reverse order.
 *  - Blocking collectives between the start and the completion of nonblocking ones, on
 *    the same communicator and on a dup.
 *  - A user operation and a vector datatype freed while their operations are pending.
 */
#include "t_util.h"

static int me, np;

typedef struct {
    uint32_t a, b;
} aff_t;

static void aff_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    aff_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        aff_t r = {x[i].a * y[i].a, x[i].a * y[i].b + x[i].b};
        y[i] = r;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_init();
    me = t_rank;
    np = t_size;
    char w[160];

    /* Ibarrier waits for the absent rank. */
    MPI_Request req;
    int flag = 0;
    if (me == np - 1)
        t_sleep_ms(150);
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    if (me != np - 1) {
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 0.05) {
            CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            CHECK_INT(0, flag, "Ibarrier completed while a rank had not entered");
        }
    }
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_TRUE(req == MPI_REQUEST_NULL, "Wait nulls the request");

    /* Progress of point-to-point while a nonblocking collective is open. */
    if (np >= 2) {
        size_t n = 1 << 20;
        unsigned char *b = t_malloc(n);
        if (me == 0) {
            CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
            memset(b, 0, n);
            CHECK_MPI(MPI_Recv(b, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            t_check_fill(b, n, 77, "message received inside an open Ibarrier");
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else if (me == 1) {
            t_fill(b, n, 77);
            CHECK_MPI(MPI_Send(b, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        free(b);
    }

    /* Many in flight: Ibcasts of several sizes and roots, Iallreduces, an Ibarrier. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UINT32_T, &pair);
    MPI_Type_commit(&pair);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    static const size_t sizes[] = {0, 1, 100, 4096, 70000, 1 << 20};
    enum { NB = sizeof(sizes) / sizeof(sizes[0]) };
    for (int round = 0; round < 6; round++) {
        MPI_Request reqs[NB + 5];
        unsigned char *bufs[NB];
        int nreq = 0;
        for (int k = 0; k < NB; k++) {
            int root = (k + round) % np;
            bufs[k] = t_malloc(sizes[k]);
            if (me == root)
                t_fill(bufs[k], sizes[k], t_seed((uint64_t)round, (uint64_t)k, 1));
            else
                memset(bufs[k], 0, sizes[k]);
            CHECK_MPI(
                MPI_Ibcast(bufs[k], (int)sizes[k], MPI_BYTE, root, MPI_COMM_WORLD, &reqs[nreq++]));
        }
        long sv[3] = {me, me * 2 + round, 1}, sr[3] = {0, 0, 0};
        CHECK_MPI(MPI_Iallreduce(sv, sr, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &reqs[nreq++]));
        int mx = (me * 7 + round) % np, mr = -1;
        CHECK_MPI(MPI_Iallreduce(&mx, &mr, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &reqs[nreq++]));
        aff_t av[40], ar[40];
        for (int i = 0; i < 40; i++)
            av[i] = (aff_t){(uint32_t)(2 * (me + i) + 3), (uint32_t)(me * 5 + i + round)};
        memcpy(ar, av, sizeof(av));
        MPI_Op aff;
        CHECK_MPI(MPI_Op_create(aff_op, 0, &aff));
        CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, ar, 40, pair, aff, MPI_COMM_WORLD, &reqs[nreq++]));
        MPI_Op_free(&aff); /* allowed while the operation is pending */
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[nreq++]));
        /* A blocking collective on a dup and on WORLD while those are open. */
        int one = 1, tot = 0;
        CHECK_MPI(MPI_Allreduce(&one, &tot, 1, MPI_INT, MPI_SUM, dup));
        CHECK_INT(np, tot, "blocking allreduce on a dup inside open nonblocking ones");
        CHECK_MPI(MPI_Allreduce(&one, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK_INT(np, tot, "blocking allreduce on WORLD inside open nonblocking ones");
        switch (round % 3) {
        case 0: CHECK_MPI(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE)); break;
        case 1:
            for (int i = nreq - 1; i >= 0; i--) {
                int f = 0;
                while (!f)
                    CHECK_MPI(MPI_Test(&reqs[i], &f, MPI_STATUS_IGNORE));
            }
            break;
        default:
            for (int left = nreq; left > 0; left--) {
                int idx = -1;
                CHECK_MPI(MPI_Waitany(nreq, reqs, &idx, MPI_STATUS_IGNORE));
                CHECK_TRUE(idx >= 0 && idx < nreq, "Waitany index");
            }
        }
        for (int k = 0; k < NB; k++) {
            t_check_fill(bufs[k], sizes[k], t_seed((uint64_t)round, (uint64_t)k, 1),
                         t_fmt(w, sizeof w, "ibcast round %d size %zu", round, sizes[k]));
            free(bufs[k]);
        }
        CHECK_INT((long)np * (np - 1) / 2, sr[0], "iallreduce sum of ranks");
        CHECK_INT((long)np * (np - 1) + (long)np * round, sr[1], "iallreduce sum 2");
        CHECK_INT(np, sr[2], "iallreduce count");
        int want = 0;
        for (int q = 0; q < np; q++)
            want = (q * 7 + round) % np > want ? (q * 7 + round) % np : want;
        CHECK_INT(want, mr, "iallreduce max");
        for (int i = 0; i < 40; i++) {
            aff_t acc = {(uint32_t)(2 * (0 + i) + 3), (uint32_t)(0 * 5 + i + round)};
            for (int q = 1; q < np; q++) {
                aff_t v = {(uint32_t)(2 * (q + i) + 3), (uint32_t)(q * 5 + i + round)};
                aff_t n2 = {acc.a * v.a, acc.a * v.b + acc.b};
                acc = n2;
            }
            if (ar[i].a != acc.a || ar[i].b != acc.b)
                t_fail("iallreduce user op in place elem %d: expected (%u,%u), got (%u,%u)", i,
                       acc.a, acc.b, ar[i].a, ar[i].b);
        }
    }
    /* Ibcast with a vector datatype at the root. */
    MPI_Datatype vec;
    MPI_Type_vector(100, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int v[300];
    for (int i = 0; i < 300; i++)
        v[i] = me == 1 % np ? i : -1;
    if (me == 1 % np)
        CHECK_MPI(MPI_Ibcast(v, 1, vec, 1 % np, MPI_COMM_WORLD, &req));
    else
        CHECK_MPI(MPI_Ibcast(v, 100, MPI_INT, 1 % np, MPI_COMM_WORLD, &req));
    MPI_Type_free(&vec); /* allowed while the operation is pending */
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 100 && me != 1 % np; i++)
        CHECK_INT(3 * i, v[i], "ibcast vector element");
    MPI_Type_free(&pair);
    MPI_Comm_free(&dup);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_nbc: OK (%d ranks)\n", np);
    MPI_Finalize();
    return 0;
}
