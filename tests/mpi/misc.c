/* misc: environment calls and self-sends.
 *
 *  - Initialized/Finalized: 0/0 before MPI_Init_thread, 1/0 in between, 1/1 after
 *    MPI_Finalize; Get_version works before Init and after Finalize.
 *  - Init_thread(MPI_THREAD_FUNNELED): SINGLE <= provided <= MULTIPLE, and the thread
 *    level constants are ordered; a provided level above the requested one is reported
 *    (the standard allows it only when the requested level is not supported).
 *  - Get_version: version >= 3 and equal to MPI_VERSION / MPI_SUBVERSION of mpi.h.
 *  - Get_processor_name: non-empty, resultlen == strlen < MPI_MAX_PROCESSOR_NAME.
 *  - Wtime never goes backwards over 100000 calls and advances 0.04..10 s over a 50 ms
 *    sleep; 0 < Wtick < 1.
 *  - Sends to self through MPI_COMM_WORLD, 0 B .. 8 MiB: Isend then Recv; Irecv then
 *    blocking Send; Issend then Recv; 8 queued Isends received in order; Probe of a
 *    self-message.
 */
#include "t_util.h"

/* After MPI_Finalize: no MPI_Abort any more. */
#define CHECK_AFTER(expected, got, what)                                                           \
    do {                                                                                           \
        if ((expected) != (got)) {                                                                 \
            fprintf(stderr, "rank %d: %s: expected %d, got %d\n", t_rank, (what), (int)(expected), \
                    (int)(got));                                                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static const int self_sizes[] = {0, 1, 100, 4096, 65537, 1 << 20, 8 << 20};
#define NSELF ((int)(sizeof self_sizes / sizeof self_sizes[0]))

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, version = -1, subversion = -1, len = -1, i, k;
    char name[MPI_MAX_PROCESSOR_NAME + 64];
    double t0, t1, prev, now, tick;
    unsigned char *sbuf, *rbuf;
    MPI_Request req, reqs[8];
    MPI_Status st;
    char what[160];

    /* ---- before Init ---------------------------------------------------------------- */
    MPI_Initialized(&flag);
    CHECK_AFTER(0, flag, "Initialized before MPI_Init_thread");
    flag = -1;
    MPI_Finalized(&flag);
    CHECK_AFTER(0, flag, "Finalized before MPI_Init_thread");
    MPI_Get_version(&version, &subversion);
    CHECK_AFTER(MPI_VERSION, version, "Get_version before Init: version");

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    t_init();

    flag = -1;
    MPI_Initialized(&flag);
    CHECK_INT(1, flag, "Initialized after Init_thread");
    flag = -1;
    MPI_Finalized(&flag);
    CHECK_INT(0, flag, "Finalized before Finalize");

    /* ---- thread level ------------------------------------------------------------- */
    CHECK_TRUE(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED &&
                   MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
                   MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
               "thread level constants are ordered");
    if (provided < MPI_THREAD_SINGLE || provided > MPI_THREAD_MULTIPLE)
        t_fail("Init_thread: provided: expected a level in [MPI_THREAD_SINGLE=%d, "
               "MPI_THREAD_MULTIPLE=%d], got %d",
               MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE, provided);
    if (provided > MPI_THREAD_FUNNELED && t_rank == 0)
        printf("note: Init_thread(FUNNELED) provided the higher level %d\n", provided);

    /* ---- version, processor name ---------------------------------------------------- */
    version = subversion = -1;
    MPI_Get_version(&version, &subversion);
    CHECK_TRUE(version >= 3, "Get_version: version >= 3");
    CHECK_INT(MPI_VERSION, version, "Get_version: version vs MPI_VERSION");
    CHECK_INT(MPI_SUBVERSION, subversion, "Get_version: subversion vs MPI_SUBVERSION");

    memset(name, 0x7f, sizeof name);
    MPI_Get_processor_name(name, &len);
    if (len <= 0 || len >= MPI_MAX_PROCESSOR_NAME)
        t_fail("Get_processor_name: resultlen: expected 1..%d, got %d", MPI_MAX_PROCESSOR_NAME - 1,
               len);
    CHECK_INT(len, strnlen(name, sizeof name), "Get_processor_name: strlen vs resultlen");

    /* ---- time ------------------------------------------------------------------------ */
    tick = MPI_Wtick();
    CHECK_TRUE(tick > 0.0 && tick < 1.0, "0 < Wtick < 1");
    prev = MPI_Wtime();
    for (i = 0; i < 100000; i++) {
        now = MPI_Wtime();
        if (now < prev)
            t_fail("Wtime call %d: expected >= %.9f, got %.9f", i, prev, now);
        prev = now;
    }
    t0 = MPI_Wtime();
    t_sleep_ms(50);
    t1 = MPI_Wtime();
    if (t1 - t0 < 0.04 || t1 - t0 > 10.0)
        t_fail("Wtime across a 50 ms sleep: expected 0.04 .. 10 s, got %.6f s", t1 - t0);

    /* ---- self-sends -------------------------------------------------------------------- */
    sbuf = t_malloc((size_t)(8 << 20) + 64);
    rbuf = t_malloc((size_t)(8 << 20) + 64);
    for (i = 0; i < NSELF; i++) {
        int n = self_sizes[i];
        uint64_t seed;

        /* Isend then Recv. */
        seed = t_seed(1, (uint64_t)n, (uint64_t)t_rank);
        t_fill(sbuf, (size_t)n, seed);
        MPI_Isend(sbuf, n, MPI_BYTE, t_rank, 1, MPI_COMM_WORLD, &req);
        MPI_Recv(rbuf, n, MPI_BYTE, t_rank, 1, MPI_COMM_WORLD, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK_INT(t_rank, st.MPI_SOURCE,
                  t_fmt(what, sizeof what, "self Isend+Recv %d bytes: MPI_SOURCE", n));
        CHECK_INT(n, t_count(&st, MPI_BYTE),
                  t_fmt(what, sizeof what, "self Isend+Recv %d bytes: Get_count", n));
        t_check_fill(rbuf, (size_t)n, seed,
                     t_fmt(what, sizeof what, "self Isend+Recv %d bytes", n));

        /* Irecv (posted) then blocking Send. */
        seed = t_seed(2, (uint64_t)n, (uint64_t)t_rank);
        t_fill(sbuf, (size_t)n, seed);
        MPI_Irecv(rbuf, n + 64, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &req);
        MPI_Send(sbuf, n, MPI_BYTE, t_rank, 2, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        CHECK_INT(t_rank, st.MPI_SOURCE,
                  t_fmt(what, sizeof what, "self Irecv+Send %d bytes: MPI_SOURCE", n));
        CHECK_INT(n, t_count(&st, MPI_BYTE),
                  t_fmt(what, sizeof what, "self Irecv+Send %d bytes: Get_count", n));
        t_check_fill(rbuf, (size_t)n, seed,
                     t_fmt(what, sizeof what, "self Irecv+Send %d bytes", n));

        /* Issend, Probe, then Recv. */
        seed = t_seed(3, (uint64_t)n, (uint64_t)t_rank);
        t_fill(sbuf, (size_t)n, seed);
        MPI_Issend(sbuf, n, MPI_BYTE, t_rank, 3, MPI_COMM_WORLD, &req);
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK_INT(t_rank, st.MPI_SOURCE,
                  t_fmt(what, sizeof what, "Probe of self Issend %d bytes: MPI_SOURCE", n));
        CHECK_INT(3, st.MPI_TAG,
                  t_fmt(what, sizeof what, "Probe of self Issend %d bytes: MPI_TAG", n));
        CHECK_INT(n, t_count(&st, MPI_BYTE),
                  t_fmt(what, sizeof what, "Probe of self Issend %d bytes: Get_count", n));
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        CHECK_INT(0, flag,
                  t_fmt(what, sizeof what, "self Issend %d bytes, not yet received: Test flag", n));
        MPI_Recv(rbuf, n, MPI_BYTE, t_rank, 3, MPI_COMM_WORLD, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        t_check_fill(rbuf, (size_t)n, seed,
                     t_fmt(what, sizeof what, "self Issend+Recv %d bytes", n));
    }

    /* 8 queued self-messages (sizes up to 1 MiB) come back in order. */
    {
        unsigned char *q[8];
        for (k = 0; k < 8; k++) {
            int n = self_sizes[k % (NSELF - 1)];
            q[k] = t_malloc((size_t)n);
            t_fill(q[k], (size_t)n, t_seed(4, (uint64_t)k, (uint64_t)t_rank));
            MPI_Isend(q[k], n, MPI_BYTE, t_rank, 4, MPI_COMM_WORLD, &reqs[k]);
        }
        for (k = 0; k < 8; k++) {
            int n = self_sizes[k % (NSELF - 1)];
            MPI_Recv(rbuf, 1 << 20, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK_INT(n, t_count(&st, MPI_BYTE),
                      t_fmt(what, sizeof what, "queued self-message %d: Get_count", k));
            t_check_fill(rbuf, (size_t)n, t_seed(4, (uint64_t)k, (uint64_t)t_rank),
                         t_fmt(what, sizeof what, "queued self-message %d", k));
        }
        MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE);
        for (k = 0; k < 8; k++)
            free(q[k]);
    }
    free(sbuf);
    free(rbuf);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();

    /* ---- after Finalize ------------------------------------------------------------- */
    flag = -1;
    MPI_Finalized(&flag);
    CHECK_AFTER(1, flag, "Finalized after Finalize");
    flag = -1;
    MPI_Initialized(&flag);
    CHECK_AFTER(1, flag, "Initialized after Finalize");
    version = -1;
    MPI_Get_version(&version, &subversion);
    CHECK_AFTER(MPI_VERSION, version, "Get_version after Finalize: version");
    return 0;
}
