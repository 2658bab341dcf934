/* probe: MPI_Probe / MPI_Iprobe.
 *
 *  - With nothing sent yet, Iprobe (wildcard and specific) returns flag = false.
 *  - Every rank (rank 0 too, to itself) sends K messages to rank 0; message i of sender s
 *    has tag 100 + i and a size (0 B .. 300 KB, so both protocols) known from a hash.
 *  - Rank 0 takes them with rotating probe styles: Probe(s, ANY_TAG), Probe(ANY, ANY),
 *    an Iprobe(ANY, ANY) poll, Probe(s, tag), Probe(ANY, tag), Iprobe(s, ANY_TAG) poll.
 *    It checks the probe status (source, tag, Get_count in MPI_BYTE and MPI_INT, with
 *    MPI_UNDEFINED for sizes not a multiple of 4), that a wildcard-tag probe returns the
 *    oldest pending message of that source, that probing twice returns the same message,
 *    then receives exactly that message into a buffer of exactly the probed size.
 *  - Iprobe for a tag nobody uses returns false while other messages are pending.
 *  - Once everything is received, Iprobe returns false again.
 */
#include "t_util.h"

#define K          24
#define TAG0       100
#define UNUSED_TAG 999

static int size_of(int s, int i)
{
    uint64_t h = t_seed(77, (uint64_t)s, (uint64_t)i);
    switch (h % 8) {
    case 0: return 0;
    case 1:
    case 2:
    case 3: return (int)((h >> 8) % 300);
    case 4:
    case 5: return (int)((h >> 8) % 20000);
    default: return 100000 + (int)((h >> 8) % 200000);
    }
}

static uint64_t seed_of(int s, int i)
{
    return t_seed(78, (uint64_t)s, (uint64_t)i);
}

static int lowest_pending(const unsigned char *got, int s)
{
    int i;
    for (i = 0; i < K; i++)
        if (!got[s * K + i])
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    unsigned char *sbufs[K];
    MPI_Request sreqs[K];
    int i, flag;
    MPI_Status st;
    char what[200];

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);

    /* Nothing has been sent by anyone yet. */
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    CHECK_INT(0, flag, "Iprobe(ANY_SOURCE, ANY_TAG) before any send: flag");
    MPI_Iprobe((t_rank + 1) % t_size, TAG0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK_INT(0, flag, "Iprobe(specific) before any send: flag");
    MPI_Barrier(MPI_COMM_WORLD);

    for (i = 0; i < K; i++) {
        int n = size_of(t_rank, i);
        sbufs[i] = t_malloc((size_t)n);
        t_fill(sbufs[i], (size_t)n, seed_of(t_rank, i));
        MPI_Isend(sbufs[i], n, MPI_BYTE, 0, TAG0 + i, MPI_COMM_WORLD, &sreqs[i]);
    }

    if (t_rank == 0) {
        int total = K * t_size, k, s = 0, rot = 0;
        unsigned char *got = t_malloc((size_t)total);
        memset(got, 0, (size_t)total);
        for (k = 0; k < total; k++) {
            int mode = k % 6, want_s = MPI_ANY_SOURCE, want_t = MPI_ANY_TAG, src, idx, n, lp;
            MPI_Status st2;
            unsigned char *buf;

            /* A specific source that still has messages, rotating. */
            for (;;) {
                s = rot++ % t_size;
                if (lowest_pending(got, s) >= 0)
                    break;
            }
            switch (mode) {
            case 0: /* Probe(s, ANY_TAG) */
                want_s = s;
                MPI_Probe(s, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                break;
            case 1: /* Probe(ANY, ANY) */
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                break;
            case 2: /* Iprobe(ANY, ANY) poll */
                do
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
                while (!flag);
                break;
            case 3: /* Probe(s, tag) for the newest pending message of s */
                want_s = s;
                for (i = K - 1; got[s * K + i]; i--) {
                }
                want_t = TAG0 + i;
                MPI_Probe(s, want_t, MPI_COMM_WORLD, &st);
                break;
            case 4: /* Probe(ANY, tag) */
                want_t = TAG0 + lowest_pending(got, s);
                MPI_Probe(MPI_ANY_SOURCE, want_t, MPI_COMM_WORLD, &st);
                break;
            default: /* Iprobe(s, ANY_TAG) poll */
                want_s = s;
                do
                    MPI_Iprobe(s, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
                while (!flag);
                break;
            }
            src = st.MPI_SOURCE;
            idx = st.MPI_TAG - TAG0;
            if (src < 0 || src >= t_size)
                t_fail("probe mode %d: status.MPI_SOURCE: expected a rank in [0,%d), got %d", mode,
                       t_size, src);
            if (idx < 0 || idx >= K)
                t_fail("probe mode %d: status.MPI_TAG: expected a tag in [%d,%d), got %d", mode,
                       TAG0, TAG0 + K, st.MPI_TAG);
            if (want_s != MPI_ANY_SOURCE)
                CHECK_INT(want_s, src,
                          t_fmt(what, sizeof what, "probe mode %d: status.MPI_SOURCE", mode));
            if (want_t != MPI_ANY_TAG)
                CHECK_INT(want_t, st.MPI_TAG,
                          t_fmt(what, sizeof what, "probe mode %d: status.MPI_TAG", mode));
            CHECK_INT(0, got[src * K + idx],
                      t_fmt(what, sizeof what, "probe mode %d: msg %d from %d already received",
                            mode, idx, src));
            lp = lowest_pending(got, src);
            if (want_t == MPI_ANY_TAG)
                CHECK_INT(lp, idx,
                          t_fmt(what, sizeof what,
                                "probe mode %d: wildcard-tag probe of source %d: message index",
                                mode, src));
            n = size_of(src, idx);
            CHECK_INT(n, t_count(&st, MPI_BYTE),
                      t_fmt(what, sizeof what,
                            "probe mode %d: Get_count(MPI_BYTE) of msg %d from %d", mode, idx,
                            src));
            CHECK_INT(n % 4 ? MPI_UNDEFINED : n / 4, t_count(&st, MPI_INT),
                      t_fmt(what, sizeof what,
                            "probe mode %d: Get_count(MPI_INT) of msg %d from %d", mode, idx, src));

            /* Probing again returns the same message. */
            MPI_Probe(src, st.MPI_TAG, MPI_COMM_WORLD, &st2);
            CHECK_INT(st.MPI_TAG, st2.MPI_TAG, "second probe: MPI_TAG");
            CHECK_INT(n, t_count(&st2, MPI_BYTE), "second probe: Get_count");
            MPI_Iprobe(src, want_t == MPI_ANY_TAG ? MPI_ANY_TAG : want_t, MPI_COMM_WORLD, &flag,
                       &st2);
            CHECK_INT(1, flag, "Iprobe of an already probed message: flag");
            CHECK_INT(st.MPI_TAG, st2.MPI_TAG, "Iprobe of an already probed message: MPI_TAG");

            /* A tag nobody uses is not pending. */
            MPI_Iprobe(MPI_ANY_SOURCE, UNUSED_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            CHECK_INT(0, flag, "Iprobe(ANY_SOURCE, unused tag) with other messages pending: flag");

            /* Receive exactly the probed message into an exactly sized buffer. */
            buf = t_malloc((size_t)n);
            MPI_Recv(buf, n, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD, &st2);
            CHECK_INT(src, st2.MPI_SOURCE, "Recv after probe: MPI_SOURCE");
            CHECK_INT(st.MPI_TAG, st2.MPI_TAG, "Recv after probe: MPI_TAG");
            CHECK_INT(n, t_count(&st2, MPI_BYTE), "Recv after probe: Get_count");
            t_check_fill(buf, (size_t)n, seed_of(src, idx),
                         t_fmt(what, sizeof what, "payload of msg %d from %d", idx, src));
            free(buf);
            got[src * K + idx] = 1;
        }
        free(got);
    }

    MPI_Waitall(K, sreqs, MPI_STATUSES_IGNORE);
    for (i = 0; i < K; i++)
        free(sbufs[i]);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Everything has been received: nothing is pending anywhere. */
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    CHECK_INT(0, flag, "Iprobe(ANY_SOURCE, ANY_TAG) after everything was received: flag");

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
