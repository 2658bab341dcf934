/* anysrc: MPI_ANY_SOURCE and MPI_ANY_TAG receives.
 *
 * Every message starts with a header {sender, seq, tag, size} followed by a pattern seeded
 * by (phase, sender, seq). Rank 0 checks status.MPI_SOURCE, status.MPI_TAG and
 * MPI_Get_count against the header and the plan, and that each sender's messages arrive
 * in sending order (the non-overtaking rule holds under wildcards too).
 *   1  ANY_SOURCE + ANY_TAG, blocking; every rank (rank 0 included, to itself) sends
 *   2  zero-byte messages under ANY_SOURCE + ANY_TAG: source, tag and count 0
 *   3  ANY_SOURCE + specific tag: tags 1 and 2 interleaved by each sender; rank 0 takes
 *      all tag-2 messages first, then all tag-1 messages; order within a tag holds
 *   4  specific source + ANY_TAG, senders drained in reverse order: tags come in the
 *      order they were sent
 *   5  pre-posted ANY_SOURCE + ANY_TAG Irecvs (posted before anything is sent)
 */
#include "t_util.h"

#define M       30
#define MAXSIZE 131072

typedef struct {
    int32_t sender, seq, tag, size;
} hdr_t;

static const int size_table[] = {16,   17,   100,  255,   256,   257,   1024,
                                 4095, 4096, 4097, 20000, 65536, 70001, 131072};
#define NSIZES ((int)(sizeof size_table / sizeof size_table[0]))

static int size_of(int s, int i)
{
    return size_table[(i * 5 + s) % NSIZES];
}

static int tag_of(int phase, int s, int i)
{
    if (phase == 3)
        return 1 + (i % 2);
    return (s * 7 + i * 3) % 11 + 10 * phase;
}

static void make_msg(unsigned char *buf, int phase, int s, int i)
{
    hdr_t h;
    int size = size_of(s, i);
    h.sender = s;
    h.seq = i;
    h.tag = tag_of(phase, s, i);
    h.size = size;
    memcpy(buf, &h, sizeof h);
    t_fill(buf + sizeof h, (size_t)size - sizeof h,
           t_seed((uint64_t)phase, (uint64_t)s, (uint64_t)i));
}

/* Check a received message; next[] holds the expected next seq per sender. */
static void check_msg(int phase, const unsigned char *buf, const MPI_Status *st, int *next,
                      int want_tag)
{
    hdr_t h;
    char what[160];
    int s = st->MPI_SOURCE, count = t_count(st, MPI_BYTE);
    if (s < 0 || s >= t_size)
        t_fail("phase %d: status.MPI_SOURCE: expected a rank in [0,%d), got %d", phase, t_size, s);
    if (count < (int)sizeof h)
        t_fail("phase %d: message from %d: expected at least %d bytes, got %d", phase, s,
               (int)sizeof h, count);
    memcpy(&h, buf, sizeof h);
    CHECK_INT(h.sender, s,
              t_fmt(what, sizeof what, "phase %d: status.MPI_SOURCE vs header", phase));
    CHECK_INT(next[s], h.seq,
              t_fmt(what, sizeof what, "phase %d: seq of next message from %d", phase, s));
    CHECK_INT(
        h.tag, st->MPI_TAG,
        t_fmt(what, sizeof what, "phase %d: status.MPI_TAG of msg %d from %d", phase, h.seq, s));
    CHECK_INT(tag_of(phase, s, h.seq), st->MPI_TAG,
              t_fmt(what, sizeof what, "phase %d: planned tag of msg %d from %d", phase, h.seq, s));
    if (want_tag != MPI_ANY_TAG)
        CHECK_INT(want_tag, st->MPI_TAG,
                  t_fmt(what, sizeof what, "phase %d: tag asked for", phase));
    CHECK_INT(size_of(s, h.seq), count,
              t_fmt(what, sizeof what, "phase %d: Get_count of msg %d from %d", phase, h.seq, s));
    t_check_fill(buf + sizeof h, (size_t)count - sizeof h,
                 t_seed((uint64_t)phase, (uint64_t)s, (uint64_t)h.seq),
                 t_fmt(what, sizeof what, "phase %d: payload of msg %d from %d", phase, h.seq, s));
    next[s]++;
}

/* Post all M messages of this phase to rank 0 as Isends. */
static void post_sends(int phase, unsigned char **bufs, MPI_Request *reqs)
{
    int i;
    for (i = 0; i < M; i++) {
        bufs[i] = t_malloc((size_t)size_of(t_rank, i));
        make_msg(bufs[i], phase, t_rank, i);
        MPI_Isend(bufs[i], size_of(t_rank, i), MPI_BYTE, 0, tag_of(phase, t_rank, i),
                  MPI_COMM_WORLD, &reqs[i]);
    }
}

static void finish_sends(unsigned char **bufs, MPI_Request *reqs)
{
    int i;
    MPI_Waitall(M, reqs, MPI_STATUSES_IGNORE);
    for (i = 0; i < M; i++)
        free(bufs[i]);
}

int main(int argc, char **argv)
{
    unsigned char *sbufs[M];
    MPI_Request sreqs[M];
    unsigned char *buf;
    int *next, s, k, nsend;
    MPI_Status st;
    char what[160];

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    buf = t_malloc(MAXSIZE);
    next = t_malloc(sizeof(int) * (size_t)t_size);

    /* Phase 1: all ranks (0 too) send; rank 0 receives with ANY_SOURCE/ANY_TAG. */
    post_sends(1, sbufs, sreqs);
    if (t_rank == 0) {
        memset(next, 0, sizeof(int) * (size_t)t_size);
        for (k = 0; k < M * t_size; k++) {
            MPI_Recv(buf, MAXSIZE, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            check_msg(1, buf, &st, next, MPI_ANY_TAG);
        }
        for (s = 0; s < t_size; s++)
            CHECK_INT(M, next[s], t_fmt(what, sizeof what, "phase 1: messages from %d", s));
    }
    finish_sends(sbufs, sreqs);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase 2: zero-byte messages with wildcards. */
    if (t_rank == 0) {
        memset(next, 0, sizeof(int) * (size_t)t_size);
        for (k = 1; k < t_size; k++) {
            memset(&st, 0x5a, sizeof st);
            MPI_Recv(buf, MAXSIZE, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_SOURCE < 1 || st.MPI_SOURCE >= t_size)
                t_fail("phase 2: status.MPI_SOURCE: expected a rank in [1,%d), got %d", t_size,
                       st.MPI_SOURCE);
            CHECK_INT(0, next[st.MPI_SOURCE],
                      "phase 2: zero-byte messages already seen from this source");
            next[st.MPI_SOURCE]++;
            CHECK_INT(1000 + st.MPI_SOURCE, st.MPI_TAG,
                      "phase 2: status.MPI_TAG of zero-byte message");
            CHECK_INT(0, t_count(&st, MPI_BYTE),
                      "phase 2: Get_count(MPI_BYTE) of zero-byte message");
            CHECK_INT(0, t_count(&st, MPI_DOUBLE),
                      "phase 2: Get_count(MPI_DOUBLE) of zero-byte message");
        }
    } else {
        MPI_Send(NULL, 0, MPI_BYTE, 0, 1000 + t_rank, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase 3: ANY_SOURCE with a specific tag; tag 2 drained before tag 1. */
    if (t_rank != 0) {
        post_sends(3, sbufs, sreqs);
    } else {
        int *next2 = t_malloc(sizeof(int) * (size_t)t_size);
        nsend = t_size - 1;
        for (s = 0; s < t_size; s++) {
            next[s] = 0;  /* even seqs carry tag 1 */
            next2[s] = 1; /* odd seqs carry tag 2 */
        }
        for (k = 0; k < nsend * (M / 2); k++) {
            MPI_Recv(buf, MAXSIZE, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
            check_msg(3, buf, &st, next2, 2);
            next2[st.MPI_SOURCE]++; /* skip the tag-1 message in between */
        }
        for (k = 0; k < nsend * (M - M / 2); k++) {
            MPI_Recv(buf, MAXSIZE, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
            check_msg(3, buf, &st, next, 1);
            next[st.MPI_SOURCE]++;
        }
        for (s = 1; s < t_size; s++) {
            CHECK_INT(M + (M % 2), next[s],
                      t_fmt(what, sizeof what, "phase 3: tag-1 seqs from %d", s));
            CHECK_INT(M + 1 - (M % 2), next2[s],
                      t_fmt(what, sizeof what, "phase 3: tag-2 seqs from %d", s));
        }
        free(next2);
    }
    if (t_rank != 0)
        finish_sends(sbufs, sreqs);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase 4: specific source, ANY_TAG; drain the highest rank first. */
    if (t_rank != 0) {
        post_sends(4, sbufs, sreqs);
        finish_sends(sbufs, sreqs);
    } else {
        memset(next, 0, sizeof(int) * (size_t)t_size);
        for (s = t_size - 1; s >= 1; s--)
            for (k = 0; k < M; k++) {
                MPI_Recv(buf, MAXSIZE, MPI_BYTE, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                CHECK_INT(s, st.MPI_SOURCE,
                          "phase 4: status.MPI_SOURCE of a specific-source receive");
                check_msg(4, buf, &st, next, MPI_ANY_TAG);
            }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase 5: pre-posted wildcard receives. */
    if (t_rank == 0) {
        int total = (t_size - 1) * M;
        unsigned char *big = t_malloc((size_t)total * MAXSIZE);
        MPI_Request *reqs = t_malloc(sizeof(MPI_Request) * (size_t)total);
        MPI_Status *sts = t_malloc(sizeof(MPI_Status) * (size_t)total);
        for (k = 0; k < total; k++)
            MPI_Irecv(big + (size_t)k * MAXSIZE, MAXSIZE, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                      MPI_COMM_WORLD, &reqs[k]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(total, reqs, sts);
        memset(next, 0, sizeof(int) * (size_t)t_size);
        /* Receives posted earlier match earlier messages of each sender. */
        for (k = 0; k < total; k++)
            check_msg(5, big + (size_t)k * MAXSIZE, &sts[k], next, MPI_ANY_TAG);
        for (s = 1; s < t_size; s++)
            CHECK_INT(M, next[s], t_fmt(what, sizeof what, "phase 5: messages from %d", s));
        free(big);
        free(reqs);
        free(sts);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        post_sends(5, sbufs, sreqs);
        finish_sends(sbufs, sreqs);
    }

    free(buf);
    free(next);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
