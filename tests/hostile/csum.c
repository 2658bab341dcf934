/* Check words of the shared-memory channel (IVC_CHECKSUM): the function itself (instruction
 * and tables agree, copies are exact, changes are seen), then two channels in this process
 * on one region with the test writing into the region between their steps: data corrupted
 * in a chunk or a record, a stale chunk exposed by a forged counter, a scribbled stamp and
 * mismatched settings are reported (the sender is failed, the receive fails), never
 * delivered; clean transfers, contiguous and not, arrive intact. */
#include "test_util.h"

#include "shm/shm_chan.h"
#include "shm/shm_csum.h"
#include "shm/shm_ring.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* ---- the function ---- */

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_function(void)
{
    static uint8_t src[4096 + 16], a[4096 + 16], b[4096 + 16];
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = (uint8_t)rnd();
    int hw = ivc_shm_csum_select(0);
    fprintf(stderr, "  CRC32C instruction: %s\n", hw ? "used" : "not available (tables)");
    for (int iter = 0; iter < 3000; iter++) {
        uint64_t len = iter < 200 ? (uint64_t)iter : rnd() % 4097;
        uint64_t so = rnd() % 9, seed = rnd();
        ivc_shm_csum_select(0);
        memset(a, 0, sizeof(a));
        uint64_t h1 = ivc_shm_csum_copy(a + 3, src + so, len, seed);
        uint64_t h1n = ivc_shm_csum_copy(NULL, src + so, len, seed);
        ivc_shm_csum_select(1);
        memset(b, 0, sizeof(b));
        uint64_t h2 = ivc_shm_csum_copy(b + 3, src + so, len, seed);
        if (h1 != h2 || h1 != h1n)
            T_FAIL("len %llu seed %llx: instruction %016llx, tables %016llx, no copy %016llx",
                   (unsigned long long)len, (unsigned long long)seed, (unsigned long long)h1,
                   (unsigned long long)h2, (unsigned long long)h1n);
        if (memcmp(a + 3, src + so, len) != 0 || memcmp(b + 3, src + so, len) != 0)
            T_FAIL("len %llu: the copy differs from the source", (unsigned long long)len);
        if (a[2] != 0 || a[3 + len] != 0 || b[3 + len] != 0)
            T_FAIL("len %llu: the copy wrote outside its destination", (unsigned long long)len);
        if (len > 0) {
            /* One flipped bit, a different seed, one byte more or less: all change it. */
            uint64_t bit = rnd() % (len * 8);
            src[so + bit / 8] ^= (uint8_t)(1u << (bit % 8));
            uint64_t h3 = ivc_shm_csum_copy(NULL, src + so, len, seed);
            src[so + bit / 8] ^= (uint8_t)(1u << (bit % 8));
            T_TRUE(h3 != h1, "a flipped bit changes the check word");
            T_TRUE(ivc_shm_csum_copy(NULL, src + so, len, seed ^ 1) != h1, "the seed counts");
            T_TRUE(ivc_shm_csum_copy(NULL, src + so, len - 1, seed) != h1, "the length counts");
        }
    }
    /* Zero bytes of different lengths differ (the tail is zero-padded). */
    static const uint8_t zero[16];
    T_TRUE(ivc_shm_csum_copy(NULL, zero, 5, 0) != ivc_shm_csum_copy(NULL, zero, 6, 0),
           "zero tails of different lengths");
    ivc_shm_csum_select(0);
    fprintf(stderr, "  function: instruction and tables agree, copies exact, changes seen\n");
}

/* ---- two channels ---- */

typedef struct events {
    int messages, failed, failed_peer, failed_err;
    ivc_inmsg_t last;
    uint8_t data[8192];
} events_t;

static void on_message(void *arg, ivc_inmsg_t *m)
{
    events_t *e = arg;
    e->messages++;
    e->last = *m;
    if (!m->rndv && m->env.len <= sizeof(e->data))
        memcpy(e->data, m->data, m->env.len);
}

static void on_failed(void *arg, int peer, int err)
{
    events_t *e = arg;
    e->failed++;
    e->failed_peer = peer;
    e->failed_err = err;
}

static int done_calls, done_status;
static void op_done(ivc_chan_op_t *op, int status)
{
    done_calls++;
    done_status = status;
}

static char path[64];
static ivc_region_t region;
static ivc_shm_chan_t *ch[2];
static events_t ev[2];

/* Rank 0 sends with checksums `c0`, rank 1 with `c1`. */
static void setup(int c0, int c1)
{
    memset(ev, 0, sizeof(ev));
    done_calls = 0;
    if (region.base)
        ivc_region_detach(&region, 1);
    if (ivc_region_create(path, 16u << 20, 1, 2, &region) != 0)
        T_FAIL("region");
    ivc_shm_config_t cfg;
    if (ivc_shm_config_load(&cfg) != 0)
        T_FAIL("config");
    cfg.chunk_size = 4096;
    cfg.nchunks = 4;
    uint32_t local[2] = {0, 1};
    for (int r = 0; r < 2; r++) {
        ivc_chan_upcalls_t up = {on_message, on_failed, &ev[r]};
        cfg.checksum = r == 0 ? c0 : c1;
        if (ivc_shm_chan_create(&region, &cfg, (uint32_t)r, local, 2, &up, &ch[r]) != 0)
            T_FAIL("create %d", r);
    }
    for (int r = 0; r < 2; r++)
        if (ivc_shm_chan_connect(ch[r]) != 0)
            T_FAIL("connect %d", r);
}

static void teardown(void)
{
    ivc_shm_chan_destroy(ch[0]);
    ivc_shm_chan_destroy(ch[1]);
    ch[0] = ch[1] = NULL;
}

/* Rank r's channel block (its geometry, its heap, its slots). */
static ivc_rxblock_t *block(int r)
{
    uint64_t off = ivc_load_relaxed(&ivc_region_member(&region, (uint32_t)r)->rx_off);
    return (ivc_rxblock_t *)(region.base + off);
}

/* What the other rank writes for `receiver`: its slot for it, in its own block (each rank
 * writes records, chunks and counters into its own block: region_layout.h). */
static uint8_t *inbox(int receiver)
{
    return (uint8_t *)block(1 - receiver) + 4096;
}

static uint8_t *chunk(int receiver, uint64_t k)
{
    ivc_rxblock_t *b = block(1 - receiver); /* the sender's block holds the chunks */
    return inbox(receiver) + sizeof(ivc_inbox_ctl_t) + b->ring_size + b->ring_slack +
           (k & (b->nchunks - 1)) * b->chunk_size;
}

static void expect_failure(int victim, int peer, const char *what)
{
    for (int i = 0; i < 4; i++)
        ivc_shm_chan_ops.progress(ch[victim]);
    if (ev[victim].failed != 1)
        T_FAIL("%s: expected the peer to be reported once, got %d reports", what,
               ev[victim].failed);
    T_EQ(peer, ev[victim].failed_peer, what);
    T_EQ(-EPROTO, ev[victim].failed_err, what);
    fprintf(stderr, "  %s: reported\n", what);
}

/* A typemap of 3 bytes at 0 and 5 bytes at 8 in each 16-byte element. */
static ivc_block_t blocks[2] = {{0, 3}, {8, 5}};
static uint64_t prefix[3] = {0, 3, 8};
static const ivc_typemap_t sparse = {8, 16, 0, 2, blocks, prefix, 0};

enum { NBYTES = 100000 };
static uint8_t sbuf[2 * NBYTES + 64], rbuf[2 * NBYTES + 192];

/* Packed byte i of the message lies at user offset (i / 8) * 16 + map(i % 8). */
static uint64_t user_off(uint64_t i, int contig)
{
    if (contig)
        return i;
    uint64_t w = i % 8;
    return (i / 8) * 16 + (w < 3 ? w : 8 + (w - 3));
}

static ivc_chan_op_t sop, rop;

/* Starts a rendezvous of NBYTES from 0 to 1 and lets rank 1 accept it. */
static void start_rndv(int contig)
{
    for (uint64_t i = 0; i < NBYTES; i++)
        sbuf[user_off(i, contig)] = t_pattern(9, i);
    memset(rbuf, 0x5a, sizeof(rbuf));
    memset(&sop, 0, sizeof(sop));
    memset(&rop, 0, sizeof(rop));
    sop.env = (ivc_env_t){.ctx = 0, .src = 0, .tag = 1, .flags = 0, .len = NBYTES};
    sop.data = contig ? (ivc_data_t){sbuf, NBYTES, NULL, NBYTES}
                      : (ivc_data_t){sbuf, NBYTES / 8, &sparse, NBYTES};
    sop.done = op_done;
    T_EQ(0, ivc_shm_chan_ops.send(ivc_shm_chan_endpoint(ch[0], 1), &sop), "rndv send starts");
    ivc_shm_chan_ops.progress(ch[1]);
    T_EQ(1, ev[1].messages, "request-to-send delivered");
    T_TRUE(ev[1].last.rndv, "it is a rendezvous");
    rop.data = contig ? (ivc_data_t){rbuf + 64, NBYTES, NULL, NBYTES}
                      : (ivc_data_t){rbuf + 64, NBYTES / 8, &sparse, NBYTES};
    rop.done = op_done;
    T_EQ(0, ivc_shm_chan_ops.recv_rndv(ivc_shm_chan_endpoint(ch[1], 0), &ev[1].last, &rop),
         "pull starts");
    ivc_shm_chan_ops.progress(ch[0]); /* CTS seen: the sender fills every free chunk */
}

static void check_received(int contig)
{
    for (uint64_t i = 0; i < NBYTES; i++)
        if (rbuf[64 + user_off(i, contig)] != t_pattern(9, i))
            T_FAIL("byte %llu of the message: expected %u, got %u", (unsigned long long)i,
                   t_pattern(9, i), rbuf[64 + user_off(i, contig)]);
    for (int i = 0; i < 64; i++)
        if (rbuf[i] != 0x5a)
            T_FAIL("a guard byte before the receive buffer changed");
}

static void test_rndv_clean(int c0, int c1, int contig)
{
    setup(c0, c1);
    start_rndv(contig);
    for (int i = 0; i < 200 && done_calls < 2; i++) {
        ivc_shm_chan_ops.progress(ch[1]);
        ivc_shm_chan_ops.progress(ch[0]);
    }
    T_EQ(2, done_calls, "both sides complete");
    T_EQ(0, done_status, "successfully");
    T_EQ(0, ev[0].failed + ev[1].failed, "no failure reported");
    check_received(contig);
    teardown();
    fprintf(stderr, "  rendezvous, checksums %d/%d, %s: intact\n", c0, c1,
            contig ? "contiguous" : "non-contiguous");
}

static void test_rndv_corrupt(int contig)
{
    setup(1, 1);
    start_rndv(contig);
    /* Chunk 1 is filled and not drained yet: one byte of it changes in the region. */
    chunk(1, 1)[123] ^= 0x10;
    done_calls = 0;
    ivc_inbox_ctl_t *ctl = (ivc_inbox_ctl_t *)inbox(1);
    T_TRUE(ivc_load_relaxed(&ctl->pipe_filled) >= 2, "the sender filled two chunks");
    expect_failure(1, 0, contig ? "changed byte in a chunk" : "changed byte, non-contiguous");
    T_EQ(1, done_calls, "the receive completes");
    T_EQ(-EPROTO, done_status, "with an error");
    teardown();
}

static void test_stale_chunk(void)
{
    setup(1, 1);
    start_rndv(1);
    /* The counter runs two chunks ahead of what the sender filled: the receiver would read
     * chunks of an earlier lap (here: never written). */
    ivc_inbox_ctl_t *ctl = (ivc_inbox_ctl_t *)inbox(1);
    uint64_t filled = ivc_load_relaxed(&ctl->pipe_filled);
    /* Let the receiver drain what is there, then forge one more. */
    ivc_shm_chan_ops.progress(ch[1]);
    T_EQ(0, ev[1].failed, "genuine chunks pass");
    ivc_store_relaxed(&ctl->pipe_filled, filled + 1);
    done_calls = 0;
    expect_failure(1, 0, "stale chunk behind a forged counter");
    T_EQ(1, done_calls, "the receive completes");
    T_EQ(-EPROTO, done_status, "with an error");
    teardown();
}

static void send_eager(int from, const void *buf, uint64_t len)
{
    static ivc_chan_op_t op;
    memset(&op, 0, sizeof(op));
    op.env = (ivc_env_t){.ctx = 3, .src = from, .tag = 5, .flags = 0, .len = len};
    op.data = (ivc_data_t){(void *)buf, len, NULL, len};
    op.done = op_done;
    T_EQ(1, ivc_shm_chan_ops.send(ivc_shm_chan_endpoint(ch[from], 1 - (uint32_t)from), &op),
         "eager send completes at once");
}

static ivc_rec_t *first_record(int receiver)
{
    return (ivc_rec_t *)(inbox(receiver) + sizeof(ivc_inbox_ctl_t));
}

static void test_eager(void)
{
    static uint8_t msg[4000];
    for (size_t i = 0; i < sizeof(msg); i++)
        msg[i] = t_pattern(3, i);
    /* Clean: every length around the word and line boundaries. */
    setup(1, 1);
    for (uint64_t len = 0; len < 200; len++) {
        send_eager(0, msg, len);
        ivc_shm_chan_ops.progress(ch[1]);
        T_EQ(len + 1, ev[1].messages, "delivered");
        T_EQ(len, ev[1].last.env.len, "its length");
        if (memcmp(ev[1].data, msg, len) != 0)
            T_FAIL("eager message of %llu bytes arrived changed", (unsigned long long)len);
    }
    T_EQ(0, ev[1].failed, "no failure reported");
    teardown();
    fprintf(stderr, "  eager records with check words: intact\n");

    /* A payload byte, then an envelope field, changed after the commit. */
    setup(1, 1);
    send_eager(0, msg, sizeof(msg));
    ((uint8_t *)(first_record(1) + 1))[3999] ^= 1;
    expect_failure(1, 0, "changed payload byte");
    T_EQ(0, ev[1].messages, "nothing delivered");
    teardown();
    setup(1, 1);
    send_eager(0, msg, 10);
    first_record(1)->tag = 6;
    expect_failure(1, 0, "changed tag");
    T_EQ(0, ev[1].messages, "nothing delivered");
    teardown();

    /* A scribbled stamp at the head. */
    setup(0, 0);
    send_eager(0, msg, 10);
    ivc_store_relaxed(&first_record(1)->stamp, 0x1234567890abcdefull);
    expect_failure(1, 0, "scribbled stamp at the head");
    teardown();

    /* Settings that differ: the rank that checks refuses records without check words. */
    setup(0, 1);
    send_eager(0, msg, 10);
    expect_failure(1, 0, "a peer without check words");
    teardown();
    /* The other way round works: the rank without checks still verifies what carries one. */
    setup(1, 0);
    send_eager(0, msg, 100);
    ivc_shm_chan_ops.progress(ch[1]);
    T_EQ(1, ev[1].messages, "checked record accepted by a rank that does not require them");
    T_EQ(0, ev[1].failed, "no failure");
    teardown();
}

static void test_config(void)
{
    ivc_shm_config_t cfg;
    setenv("IVC_EAGER_LIMIT", "0", 1);
    T_EQ(-EINVAL, ivc_shm_config_load(&cfg), "IVC_EAGER_LIMIT=0 is refused");
    setenv("IVC_EAGER_LIMIT", "63", 1);
    T_EQ(-EINVAL, ivc_shm_config_load(&cfg), "IVC_EAGER_LIMIT=63 is refused");
    setenv("IVC_EAGER_LIMIT", "64", 1);
    T_EQ(0, ivc_shm_config_load(&cfg), "IVC_EAGER_LIMIT=64 is accepted");
    unsetenv("IVC_EAGER_LIMIT");
    setenv("IVC_CHECKSUM", "maybe", 1);
    T_EQ(-EINVAL, ivc_shm_config_load(&cfg), "IVC_CHECKSUM=maybe is refused");
    setenv("IVC_CHECKSUM", "on", 1);
    T_EQ(0, ivc_shm_config_load(&cfg), "IVC_CHECKSUM=on");
    T_EQ(1, cfg.checksum, "IVC_CHECKSUM=on");
    unsetenv("IVC_CHECKSUM");
    fprintf(stderr, "  configuration checks: ok\n");
}

int main(void)
{
    snprintf(path, sizeof(path), "/dev/shm/ivc-hostile-csum-%d", (int)getpid());
    test_function();
    test_config();
    test_eager();
    for (int contig = 1; contig >= 0; contig--) {
        test_rndv_clean(1, 1, contig);
        test_rndv_clean(0, 0, contig);
        test_rndv_corrupt(contig);
    }
    test_stale_chunk();
    ivc_region_detach(&region, 1);
    printf("csum: ok\n");
    return 0;
}
