/* order: the non-overtaking rule.
 *
 * Every rank other than 0 sends NMSG messages of mixed sizes (0 B .. 256 KiB, so some are
 * above any eager limit) to rank 0 on the same communicator and tag. Rank 0 must receive
 * each sender's messages in the order they were sent, whatever the protocol of each
 * message. Phases:
 *   A  blocking Send; rank 0 receives round-robin over the senders (specific source)
 *   B  all sends as Isend at once; rank 0 drains one sender after the other, so later
 *      senders' messages wait in the unexpected queue
 *   C  rank 0 pre-posts every Irecv (exact sizes) before anything is sent
 *   D  sends start before rank 0 posts anything; rank 0 posts half, makes progress,
 *      posts the rest (mix of unexpected and posted matches, buffers larger than needed)
 * Message i of sender s in phase p has size size_of(s, i) and a payload pattern seeded by
 * (p, s, i), so a message delivered out of order shows as a wrong count or wrong bytes;
 * the failure names the sequence number actually received.
 */
#include "t_util.h"

#define NMSG  40
#define TAG   7
#define SLACK 64

static const int size_table[] = {0,    1,     7,      64,    255,   256,    257,
                                 1000, 4096,  8191,   16389, 65536, 100000, 262144,
                                 3,    32768, 131071, 12,    2048,  200000, 4097};
#define NSIZES  ((int)(sizeof size_table / sizeof size_table[0]))
#define MAXSIZE 262144

static int size_of(int s, int i)
{
    return size_table[(i + 3 * s) % NSIZES];
}

/* Which sequence number of sender s (phase p) does this (count, data) look like? */
static int identify(int p, int s, const unsigned char *buf, int count)
{
    int j;
    for (j = 0; j < NMSG; j++)
        if (size_of(s, j) == count &&
            t_find_mismatch(buf, (size_t)count, t_seed((uint64_t)p, (uint64_t)s, (uint64_t)j)) ==
                (size_t)-1)
            return j;
    return -1;
}

static void check_msg(char phase, int s, int i, const unsigned char *buf, const MPI_Status *st)
{
    int p = phase - 'A';
    int count = t_count(st, MPI_BYTE);
    char what[160];
    int ok = count == size_of(s, i) &&
             t_find_mismatch(buf, (size_t)count, t_seed((uint64_t)p, (uint64_t)s, (uint64_t)i)) ==
                 (size_t)-1;
    CHECK_INT(s, st->MPI_SOURCE,
              t_fmt(what, sizeof what, "phase %c msg %d from %d: MPI_SOURCE", phase, i, s));
    CHECK_INT(TAG, st->MPI_TAG,
              t_fmt(what, sizeof what, "phase %c msg %d from %d: MPI_TAG", phase, i, s));
    if (!ok) {
        int j = identify(p, s, buf, count);
        if (j >= 0)
            t_fail("phase %c: message from rank %d: expected seq %d, got seq %d (overtaken)", phase,
                   s, i, j);
        CHECK_INT(size_of(s, i), count,
                  t_fmt(what, sizeof what, "phase %c msg %d from %d: byte count", phase, i, s));
        t_check_fill(buf, (size_t)count, t_seed((uint64_t)p, (uint64_t)s, (uint64_t)i),
                     t_fmt(what, sizeof what, "phase %c msg %d from %d: payload", phase, i, s));
    }
}

/* Sender side: messages of phase p, either blocking or all at once. */
static void send_all(char phase, int blocking, int barrier_after_post)
{
    int p = phase - 'A', i;
    unsigned char *bufs[NMSG];
    MPI_Request reqs[NMSG];
    for (i = 0; i < NMSG; i++) {
        bufs[i] = t_malloc((size_t)size_of(t_rank, i));
        t_fill(bufs[i], (size_t)size_of(t_rank, i),
               t_seed((uint64_t)p, (uint64_t)t_rank, (uint64_t)i));
    }
    if (blocking) {
        for (i = 0; i < NMSG; i++)
            MPI_Send(bufs[i], size_of(t_rank, i), MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
    } else {
        for (i = 0; i < NMSG; i++)
            MPI_Isend(bufs[i], size_of(t_rank, i), MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &reqs[i]);
        if (barrier_after_post)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE);
    }
    for (i = 0; i < NMSG; i++)
        free(bufs[i]);
}

int main(int argc, char **argv)
{
    int s, i, n;
    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    n = t_size - 1; /* senders */

    /* Phase A: blocking sends, round-robin specific-source receives. */
    if (t_rank == 0) {
        unsigned char *buf = t_malloc(MAXSIZE);
        MPI_Status st;
        for (i = 0; i < NMSG; i++)
            for (s = 1; s <= n; s++) {
                MPI_Recv(buf, MAXSIZE, MPI_BYTE, s, TAG, MPI_COMM_WORLD, &st);
                check_msg('A', s, i, buf, &st);
            }
        free(buf);
    } else {
        send_all('A', 1, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase B: everything in flight at once; drain sender by sender. */
    if (t_rank == 0) {
        unsigned char *buf = t_malloc(MAXSIZE);
        MPI_Status st;
        for (s = 1; s <= n; s++)
            for (i = 0; i < NMSG; i++) {
                MPI_Recv(buf, MAXSIZE, MPI_BYTE, s, TAG, MPI_COMM_WORLD, &st);
                check_msg('B', s, i, buf, &st);
            }
        free(buf);
    } else {
        send_all('B', 0, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase C: all receives posted before any send starts. */
    if (t_rank == 0) {
        int total = n * NMSG, k;
        unsigned char **bufs = t_malloc(sizeof(unsigned char *) * (size_t)total);
        MPI_Request *reqs = t_malloc(sizeof(MPI_Request) * (size_t)total);
        MPI_Status *sts = t_malloc(sizeof(MPI_Status) * (size_t)total);
        /* Post in sender-interleaved order so that posted receives of different sources mix. */
        for (i = 0; i < NMSG; i++)
            for (s = 1; s <= n; s++) {
                k = (s - 1) * NMSG + i;
                bufs[k] = t_malloc((size_t)size_of(s, i));
                MPI_Irecv(bufs[k], size_of(s, i), MPI_BYTE, s, TAG, MPI_COMM_WORLD, &reqs[k]);
            }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(total, reqs, sts);
        for (s = 1; s <= n; s++)
            for (i = 0; i < NMSG; i++) {
                k = (s - 1) * NMSG + i;
                check_msg('C', s, i, bufs[k], &sts[k]);
                free(bufs[k]);
            }
        free(bufs);
        free(reqs);
        free(sts);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        send_all('C', 1, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase D: sends already in flight; receives posted in two halves. */
    if (t_rank == 0) {
        int total = n * NMSG, k, half = NMSG / 2, flag, spin;
        unsigned char **bufs = t_malloc(sizeof(unsigned char *) * (size_t)total);
        MPI_Request *reqs = t_malloc(sizeof(MPI_Request) * (size_t)total);
        MPI_Status *sts = t_malloc(sizeof(MPI_Status) * (size_t)total);
        MPI_Barrier(MPI_COMM_WORLD);
        for (s = 1; s <= n; s++)
            for (i = 0; i < NMSG; i++) {
                k = (s - 1) * NMSG + i;
                bufs[k] = t_malloc((size_t)size_of(s, i) + SLACK);
            }
        for (s = 1; s <= n; s++)
            for (i = 0; i < half; i++) {
                k = (s - 1) * NMSG + i;
                MPI_Irecv(bufs[k], size_of(s, i) + SLACK, MPI_BYTE, s, TAG, MPI_COMM_WORLD,
                          &reqs[k]);
            }
        /* Let some messages arrive unexpected while the first half is posted. */
        for (spin = 0; spin < 50; spin++) {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG + 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            CHECK_INT(0, flag, "phase D: Iprobe for a tag nobody sends: flag");
        }
        for (s = 1; s <= n; s++)
            for (i = half; i < NMSG; i++) {
                k = (s - 1) * NMSG + i;
                MPI_Irecv(bufs[k], size_of(s, i) + SLACK, MPI_BYTE, s, TAG, MPI_COMM_WORLD,
                          &reqs[k]);
            }
        MPI_Waitall(total, reqs, sts);
        for (s = 1; s <= n; s++)
            for (i = 0; i < NMSG; i++) {
                k = (s - 1) * NMSG + i;
                check_msg('D', s, i, bufs[k], &sts[k]);
                free(bufs[k]);
            }
        free(bufs);
        free(reqs);
        free(sts);
    } else {
        send_all('D', 0, 1);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
