/* storm: a seeded random message storm.
 *
 * Every rank posts NSEND Isends (default 100; argument 1 changes it, argument 2 the seed)
 * to random peers (itself included) with random tags 0..7 and random sizes from 0 B to
 * 1 MiB, skewed to small. The plan of every rank is a function of (seed, rank), so each
 * receiver regenerates what every sender will send it; the per-pair counts are also
 * agreed with an Allgather and cross-checked against that.
 *
 * Receivers consume their messages with a random mix of
 *   blocking Recv(ANY, ANY), Recv(src, ANY), Recv(src, tag), Recv(ANY, tag),
 *   batches of Irecv(ANY, ANY) or Irecv(src, ANY) completed with Waitall, Waitany,
 *   Waitsome, Testall, Testany or Testsome,
 *   Probe(ANY, ANY) followed by a Recv of exactly the probed size.
 * Every message of 24 bytes or more carries {sender, receiver, seq, tag, checksum}; seq
 * numbers messages per (sender, receiver) pair. The non-overtaking rule says exactly which
 * message each receive must get: the oldest not yet received from that source that the
 * receive's tag admits (batches are checked in posting order). The receiver checks that
 * seq, the tag, Get_count, the header and every payload byte. At the end, totals of
 * messages, bytes and checksums sent and received must agree across the job.
 */
#include "t_util.h"

#define NTAGS  8
#define BATCH  8
#define MAXMSG (1 << 20)
#define HDR    24

typedef struct {
    int dest, size, tag, seq;
} plan_t;

typedef struct {
    uint32_t sender, receiver, seq, tag;
    uint64_t checksum;
} hdr_t;

static int nsend = 100;
static uint64_t base_seed = 20240601;

static int rand_size(t_prng *p)
{
    uint64_t r = t_prng_below(p, 100);
    if (r < 45)
        return (int)t_prng_range(p, 0, 64);
    if (r < 70)
        return (int)t_prng_range(p, 65, 4096);
    if (r < 85)
        return (int)t_prng_range(p, 4097, 65536);
    if (r < 97)
        return (int)t_prng_range(p, 65537, 262144);
    return (int)t_prng_range(p, 262145, MAXMSG);
}

/* The plan of sender s: nsend messages; seq numbered per destination. */
static void make_plan(int s, plan_t *plan)
{
    t_prng p;
    int k, *seq = calloc((size_t)t_size, sizeof(int));
    t_prng_init(&p, base_seed, (uint64_t)s);
    for (k = 0; k < nsend; k++) {
        plan[k].dest = (int)t_prng_below(&p, (uint64_t)t_size);
        plan[k].size = rand_size(&p);
        plan[k].tag = (int)t_prng_below(&p, NTAGS);
        plan[k].seq = seq[plan[k].dest]++;
    }
    free(seq);
}

static uint64_t msg_seed(int s, int r, int seq)
{
    return t_seed(base_seed ^ 0x5757, (uint64_t)(s * 65536 + r), (uint64_t)seq);
}

static void make_msg(unsigned char *buf, int s, int r, const plan_t *m)
{
    uint64_t seed = msg_seed(s, r, m->seq);
    if (m->size < HDR) {
        t_fill(buf, (size_t)m->size, seed);
    } else {
        hdr_t h;
        t_fill(buf + HDR, (size_t)m->size - HDR, seed);
        h.sender = (uint32_t)s;
        h.receiver = (uint32_t)r;
        h.seq = (uint32_t)m->seq;
        h.tag = (uint32_t)m->tag;
        h.checksum = t_checksum(buf + HDR, (size_t)m->size - HDR);
        memcpy(buf, &h, HDR);
    }
}

/* Receiver state. */
static plan_t **expect; /* expect[s][i]: i-th message s sends to me */
static int *nexpect;    /* per sender */
static unsigned char **consumed;
static int *remaining; /* per sender */
static int total_remaining;
static long long recv_bytes;
static uint64_t recv_sum;

static const char *mode_name[] = {"Recv(ANY,ANY)", "Recv(src,ANY)",  "Recv(src,tag)",
                                  "Recv(ANY,tag)", "batch(ANY,ANY)", "batch(src,ANY)",
                                  "Probe+Recv"};

/* Account for one completed receive: want_tag is the receive's tag (or ANY_TAG). */
static void consume(int mode, int want_src, int want_tag, const MPI_Status *st,
                    const unsigned char *buf)
{
    int s = st->MPI_SOURCE, count = t_count(st, MPI_BYTE), i;
    const plan_t *m;
    char what[200];
    const char *mn = mode_name[mode];

    if (s < 0 || s >= t_size)
        t_fail("%s: status.MPI_SOURCE: expected a rank in [0,%d), got %d", mn, t_size, s);
    if (want_src != MPI_ANY_SOURCE)
        CHECK_INT(want_src, s, t_fmt(what, sizeof what, "%s: status.MPI_SOURCE", mn));
    if (want_tag != MPI_ANY_TAG)
        CHECK_INT(want_tag, st->MPI_TAG, t_fmt(what, sizeof what, "%s: status.MPI_TAG", mn));
    /* The oldest message from s not yet received that this receive admits. */
    for (i = 0; i < nexpect[s]; i++)
        if (!consumed[s][i] && (want_tag == MPI_ANY_TAG || expect[s][i].tag == want_tag))
            break;
    if (i == nexpect[s])
        t_fail("%s: message from %d (tag %d, %d bytes): expected none to be left, got one more", mn,
               s, st->MPI_TAG, count);
    m = &expect[s][i];
    if (count >= HDR) {
        hdr_t h;
        memcpy(&h, buf, HDR);
        CHECK_INT(s, h.sender,
                  t_fmt(what, sizeof what, "%s: header sender of a message from %d", mn, s));
        CHECK_INT(t_rank, h.receiver,
                  t_fmt(what, sizeof what, "%s: header receiver of a message from %d", mn, s));
        CHECK_INT(m->seq, h.seq,
                  t_fmt(what, sizeof what, "%s: seq of the next message from %d", mn, s));
        CHECK_INT(h.checksum, t_checksum(buf + HDR, (size_t)count - HDR),
                  t_fmt(what, sizeof what, "%s: checksum of msg %d from %d", mn, m->seq, s));
    }
    CHECK_INT(m->tag, st->MPI_TAG,
              t_fmt(what, sizeof what, "%s: tag of msg %d from %d", mn, m->seq, s));
    CHECK_INT(m->size, count,
              t_fmt(what, sizeof what, "%s: Get_count of msg %d from %d", mn, m->seq, s));
    if (count < HDR)
        t_check_fill(buf, (size_t)count, msg_seed(s, t_rank, m->seq),
                     t_fmt(what, sizeof what, "%s: payload of msg %d from %d", mn, m->seq, s));
    else
        t_check_fill(buf + HDR, (size_t)count - HDR, msg_seed(s, t_rank, m->seq),
                     t_fmt(what, sizeof what, "%s: payload of msg %d from %d", mn, m->seq, s));
    consumed[s][i] = 1;
    remaining[s]--;
    total_remaining--;
    recv_bytes += count;
    recv_sum += t_checksum(buf, (size_t)count) & 0xffffffffffULL;
}

static int random_src_with_remaining(t_prng *p)
{
    int s;
    do
        s = (int)t_prng_below(p, (uint64_t)t_size);
    while (remaining[s] == 0);
    return s;
}

/* Tag of a random not-yet-received message (from src, or from anyone if src < 0). */
static int random_pending_tag(t_prng *p, int src)
{
    for (;;) {
        int s = src >= 0 ? src : random_src_with_remaining(p);
        int i = (int)t_prng_below(p, (uint64_t)nexpect[s]);
        if (nexpect[s] && !consumed[s][i])
            return expect[s][i].tag;
    }
}

static void complete_batch(t_prng *p, int k, MPI_Request *reqs, MPI_Status *sts)
{
    int how = (int)t_prng_below(p, 6), done = 0, idx, flag, n, j,
        *indices = t_malloc(sizeof(int) * BATCH);
    MPI_Status tmp[BATCH];
    switch (how) {
    case 0: MPI_Waitall(k, reqs, sts); break;
    case 1:
        while (done < k) {
            MPI_Waitany(k, reqs, &idx, &tmp[0]);
            if (idx == MPI_UNDEFINED || idx < 0 || idx >= k)
                t_fail("Waitany with %d of %d requests done: index: expected [0,%d), got %d", done,
                       k, k, idx);
            sts[idx] = tmp[0];
            done++;
        }
        break;
    case 2:
        while (done < k) {
            MPI_Waitsome(k, reqs, &n, indices, tmp);
            if (n == MPI_UNDEFINED || n < 1)
                t_fail("Waitsome with %d of %d requests done: outcount: expected >= 1, got %d",
                       done, k, n);
            for (j = 0; j < n; j++)
                sts[indices[j]] = tmp[j];
            done += n;
        }
        break;
    case 3:
        do
            MPI_Testall(k, reqs, &flag, sts);
        while (!flag);
        break;
    case 4:
        while (done < k) {
            MPI_Testany(k, reqs, &idx, &flag, &tmp[0]);
            if (flag) {
                if (idx == MPI_UNDEFINED || idx < 0 || idx >= k)
                    t_fail("Testany with %d of %d requests done: index: expected [0,%d), got %d",
                           done, k, k, idx);
                sts[idx] = tmp[0];
                done++;
            }
        }
        break;
    default:
        while (done < k) {
            MPI_Testsome(k, reqs, &n, indices, tmp);
            if (n == MPI_UNDEFINED)
                t_fail("Testsome with %d of %d requests done: outcount: expected >= 0, got "
                       "MPI_UNDEFINED",
                       done, k);
            for (j = 0; j < n; j++)
                sts[indices[j]] = tmp[j];
            done += n;
        }
        break;
    }
    for (j = 0; j < k; j++)
        CHECK_TRUE(reqs[j] == MPI_REQUEST_NULL, "completed request is MPI_REQUEST_NULL");
    free(indices);
}

int main(int argc, char **argv)
{
    plan_t *myplan, *tmp;
    unsigned char **sbufs, **rbufs;
    MPI_Request *sreqs;
    int s, k, *planned, *allplanned;
    long long sent_bytes = 0, totals[4], sums[4];
    uint64_t sent_sum = 0;
    t_prng rp;
    char what[160];

    MPI_Init(&argc, &argv);
    t_init();
    t_require_ranks(2);
    if (argc > 1)
        nsend = atoi(argv[1]);
    if (argc > 2)
        base_seed = strtoull(argv[2], NULL, 0);

    /* My sends. */
    myplan = t_malloc(sizeof(plan_t) * (size_t)nsend);
    make_plan(t_rank, myplan);
    planned = calloc((size_t)t_size, sizeof(int));
    allplanned = t_malloc(sizeof(int) * (size_t)t_size * (size_t)t_size);
    for (k = 0; k < nsend; k++)
        planned[myplan[k].dest]++;
    MPI_Allgather(planned, t_size, MPI_INT, allplanned, t_size, MPI_INT, MPI_COMM_WORLD);

    /* What everyone sends me. */
    expect = t_malloc(sizeof(plan_t *) * (size_t)t_size);
    nexpect = calloc((size_t)t_size, sizeof(int));
    consumed = t_malloc(sizeof(unsigned char *) * (size_t)t_size);
    remaining = calloc((size_t)t_size, sizeof(int));
    tmp = t_malloc(sizeof(plan_t) * (size_t)nsend);
    for (s = 0; s < t_size; s++) {
        make_plan(s, tmp);
        expect[s] = t_malloc(sizeof(plan_t) * (size_t)nsend);
        for (k = 0; k < nsend; k++)
            if (tmp[k].dest == t_rank)
                expect[s][nexpect[s]++] = tmp[k];
        consumed[s] = calloc((size_t)nexpect[s] + 1, 1);
        remaining[s] = nexpect[s];
        total_remaining += nexpect[s];
        CHECK_INT(
            allplanned[s * t_size + t_rank], nexpect[s],
            t_fmt(what, sizeof what, "messages from %d: Allgather'ed plan vs regenerated plan", s));
    }
    free(tmp);

    MPI_Barrier(MPI_COMM_WORLD);

    /* Post all sends. */
    sbufs = t_malloc(sizeof(unsigned char *) * (size_t)nsend);
    sreqs = t_malloc(sizeof(MPI_Request) * (size_t)nsend);
    for (k = 0; k < nsend; k++) {
        sbufs[k] = t_malloc((size_t)myplan[k].size);
        make_msg(sbufs[k], t_rank, myplan[k].dest, &myplan[k]);
        sent_bytes += myplan[k].size;
        sent_sum += t_checksum(sbufs[k], (size_t)myplan[k].size) & 0xffffffffffULL;
        MPI_Isend(sbufs[k], myplan[k].size, MPI_BYTE, myplan[k].dest, myplan[k].tag, MPI_COMM_WORLD,
                  &sreqs[k]);
    }

    /* Receive everything with a random mix of styles. */
    rbufs = t_malloc(sizeof(unsigned char *) * BATCH);
    for (k = 0; k < BATCH; k++)
        rbufs[k] = t_malloc(MAXMSG);
    t_prng_init(&rp, base_seed, 100000 + (uint64_t)t_rank);
    while (total_remaining > 0) {
        int mode = (int)t_prng_below(&rp, 7), src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;
        MPI_Status st;
        switch (mode) {
        case 0:
        case 1:
        case 2:
        case 3:
            if (mode == 1 || mode == 2)
                src = random_src_with_remaining(&rp);
            if (mode == 2)
                tag = random_pending_tag(&rp, src);
            if (mode == 3)
                tag = random_pending_tag(&rp, -1);
            MPI_Recv(rbufs[0], MAXMSG, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st);
            consume(mode, src, tag, &st, rbufs[0]);
            break;
        case 4:
        case 5: {
            MPI_Request reqs[BATCH];
            MPI_Status sts[BATCH];
            int n, j, avail;
            if (mode == 5)
                src = random_src_with_remaining(&rp);
            avail = mode == 5 ? remaining[src] : total_remaining;
            n = 1 + (int)t_prng_below(&rp, BATCH);
            if (n > avail)
                n = avail;
            for (j = 0; j < n; j++)
                MPI_Irecv(rbufs[j], MAXMSG, MPI_BYTE, src, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[j]);
            complete_batch(&rp, n, reqs, sts);
            for (j = 0; j < n; j++)
                consume(mode, src, MPI_ANY_TAG, &sts[j], rbufs[j]);
            break;
        }
        default: {
            int n;
            unsigned char *buf;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            n = t_count(&st, MPI_BYTE);
            buf = t_malloc((size_t)n);
            src = st.MPI_SOURCE;
            tag = st.MPI_TAG;
            MPI_Recv(buf, n, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st);
            consume(mode, src, tag, &st, buf);
            free(buf);
            break;
        }
        }
    }

    MPI_Waitall(nsend, sreqs, MPI_STATUSES_IGNORE);
    for (k = 0; k < nsend; k++)
        free(sbufs[k]);

    /* Job-wide totals. */
    totals[0] = nsend;
    totals[1] = sent_bytes;
    totals[2] = (long long)sent_sum;
    totals[3] = 0;
    for (s = 0; s < t_size; s++)
        totals[3] += nexpect[s];
    MPI_Allreduce(totals, sums, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(sums[0], sums[3], "messages sent vs received, whole job");
    totals[0] = recv_bytes;
    totals[1] = (long long)recv_sum;
    MPI_Allreduce(totals, totals + 2, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(sums[1], totals[2], "bytes sent vs received, whole job");
    CHECK_INT(sums[2], totals[3], "sum of checksums sent vs received, whole job");

    for (k = 0; k < BATCH; k++)
        free(rbufs[k]);
    for (s = 0; s < t_size; s++) {
        free(expect[s]);
        free(consumed[s]);
    }
    free(expect);
    free(nexpect);
    free(consumed);
    free(remaining);
    free(rbufs);
    free(sbufs);
    free(sreqs);
    free(myplan);
    free(planned);
    free(allplanned);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
