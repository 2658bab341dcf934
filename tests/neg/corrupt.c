/* A peer that corrupts the shared region must not make this rank touch memory outside the
 * region or its own buffers, and must be reported, not crash it. Two channels (ranks 0 and
 * 1) live in this process on one region; the test plays the faulty peer by writing into the
 * region directly, then lets the victim's channel progress. */
#include "test_util.h"

#include "shm/shm_chan.h"
#include "shm/shm_ring.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

typedef struct events {
    int messages, failed, failed_peer, failed_err;
    ivc_inmsg_t last;
} events_t;

static void on_message(void *arg, ivc_inmsg_t *m)
{
    events_t *e = arg;
    e->messages++;
    e->last = *m;
}

static void on_failed(void *arg, int peer, int err)
{
    events_t *e = arg;
    e->failed++;
    e->failed_peer = peer;
    e->failed_err = err;
}

static int op_status;
static int op_done_calls;
static void op_done(ivc_chan_op_t *op, int status)
{
    op_status = status;
    op_done_calls++;
}

static char path[64];
static ivc_region_t region;
static ivc_shm_chan_t *ch[2];
static events_t ev[2];

static int check_words;    /* the channels' IVC_CHECKSUM: the build's default (on with ASan) */
static int no_check_words; /* setup_plain: off whatever the default, for short records */

static void setup(void)
{
    memset(ev, 0, sizeof(ev));
    if (region.base)
        ivc_region_detach(&region, 1);
    if (ivc_region_create(path, 16u << 20, 1, 2, &region) != 0)
        T_FAIL("region");
    ivc_shm_config_t cfg;
    if (ivc_shm_config_load(&cfg) != 0)
        T_FAIL("config");
    if (no_check_words)
        cfg.checksum = 0;
    check_words = cfg.checksum;
    uint32_t local[2] = {0, 1};
    for (int r = 0; r < 2; r++) {
        ivc_chan_upcalls_t up = {on_message, on_failed, &ev[r]};
        if (ivc_shm_chan_create(&region, &cfg, (uint32_t)r, local, 2, &up, &ch[r]) != 0)
            T_FAIL("create %d", r);
    }
    for (int r = 0; r < 2; r++)
        if (ivc_shm_chan_connect(ch[r]) != 0)
            T_FAIL("connect %d", r);
}

/* Channels without check words, so that small eager messages go as short records. */
static void setup_plain(void)
{
    no_check_words = 1;
    setup();
    no_check_words = 0;
}

static void teardown(void)
{
    ivc_shm_chan_destroy(ch[0]);
    ivc_shm_chan_destroy(ch[1]);
}

/* What the other rank writes for `receiver`: its slot for it, in its own block (each rank
 * writes its records, chunks and counters into its own block: region_layout.h). */
static uint8_t *inbox(int receiver)
{
    uint64_t off = ivc_load_relaxed(&ivc_region_member(&region, (uint32_t)(1 - receiver))->rx_off);
    return region.base + off + 4096;
}

static ivc_rec_t *first_record(int receiver)
{
    return (ivc_rec_t *)(inbox(receiver) + sizeof(ivc_inbox_ctl_t));
}

/* An eager send: a short record (region_layout.h), or with `sync` (the receiver is to
 * acknowledge it) or check words a full one. */
static void send_eager_as(const char *text, int sync)
{
    static ivc_chan_op_t op;
    memset(&op, 0, sizeof(op));
    op.env = (ivc_env_t){
        .ctx = 0, .src = 0, .tag = 5, .flags = sync ? IVC_ENV_SYNC : 0, .len = strlen(text)};
    op.data = (ivc_data_t){(void *)text, strlen(text), NULL, strlen(text)};
    op.done = op_done;
    int rc = ivc_shm_chan_ops.send(ivc_shm_chan_endpoint(ch[0], 1), &op);
    T_EQ(sync ? 0 : 1, rc, sync ? "synchronous send waits" : "eager send completes at once");
    T_EQ(sync || check_words ? IVC_REC_EAGER : IVC_REC_SHORT, first_record(1)->kind,
         "the record's form");
}

static void send_eager(const char *text)
{
    send_eager_as(text, 0);
}

static void send_eager_full(const char *text)
{
    send_eager_as(text, 1);
}

static void expect_failure(int victim, int peer, const char *what)
{
    for (int i = 0; i < 3; i++)
        ivc_shm_chan_ops.progress(ch[victim]);
    if (ev[victim].failed != 1)
        T_FAIL("%s: expected the peer to be reported once, got %d reports", what,
               ev[victim].failed);
    T_EQ(peer, ev[victim].failed_peer, what);
    T_EQ(-EPROTO, ev[victim].failed_err, what);
    fprintf(stderr, "  %s: reported\n", what);
}

int main(void)
{
    snprintf(path, sizeof(path), "/dev/shm/ivc-neg-corrupt-%d", (int)getpid());

    /* 0. The well-behaved case works, with the build's default and without check words
     *    (a short record). */
    for (int plain = 0; plain < 2; plain++) {
        if (plain)
            setup_plain();
        else
            setup();
        send_eager("hello");
        ivc_shm_chan_ops.progress(ch[1]);
        T_EQ(1, ev[1].messages, "a valid record is delivered");
        T_EQ(5, ev[1].last.env.len, "its length");
        T_TRUE(memcmp(ev[1].last.data, "hello", 5) == 0, "its payload");
        T_EQ(5, ev[1].last.env.tag, "its tag");
        teardown();
    }

    /* 1. A record whose payload length runs past the largest record. */
    setup();
    send_eager_full("hello");
    first_record(1)->paylen = 0x7fffffff;
    expect_failure(1, 0, "record length beyond the ring");
    T_EQ(0, ev[1].messages, "nothing delivered from a corrupt record");
    teardown();

    /* 1b. A short record longer than a short record may be, and one that asks for an
     *     acknowledgement it has no handle for. */
    setup_plain();
    send_eager("hello");
    ((ivc_rec_short_t *)first_record(1))->paylen = 0xffff;
    expect_failure(1, 0, "short record beyond its largest length");
    T_EQ(0, ev[1].messages, "nothing delivered from a corrupt record");
    teardown();
    setup_plain();
    send_eager("hello");
    ((ivc_rec_short_t *)first_record(1))->flags = IVC_ENV_SYNC;
    expect_failure(1, 0, "synchronous short record");
    teardown();

    /* 1c. A pad record where a line starts: it would cover nothing. */
    setup_plain();
    send_eager("hello");
    first_record(1)->kind = IVC_REC_PAD;
    expect_failure(1, 0, "pad record at the start of a line");
    T_EQ(0, ev[1].messages, "nothing delivered");
    teardown();

    /* 2. An eager record whose length fields disagree. */
    setup();
    send_eager_full("hello");
    first_record(1)->arg = 1u << 30;
    expect_failure(1, 0, "eager record with inconsistent lengths");
    T_EQ(0, ev[1].messages, "nothing delivered");
    teardown();

    /* 3. A record out of sequence. */
    setup();
    send_eager_full("hello");
    first_record(1)->seq = 12345;
    expect_failure(1, 0, "record out of sequence");
    teardown();

    /* 4. An unknown record kind. */
    setup();
    send_eager("hello");
    first_record(1)->kind = 99;
    expect_failure(1, 0, "unknown record kind");
    teardown();

    /* 5. A clear-to-send naming a send that does not exist (a forged cookie): the faulty
     *    receiver (rank 1) writes it into rank 0's inbox. */
    setup();
    {
        ivc_rxblock_t *blk = (ivc_rxblock_t *)(inbox(0) - 4096);
        shm_ring_tx_t tx = {
            .ring = inbox(0) + sizeof(ivc_inbox_ctl_t),
            .size = blk->ring_size,
            .max_record = blk->ring_slack,
            .ctl = (ivc_inbox_ctl_t *)inbox(1) /* rank 0's consumer counters, in its block */};
        int err = 0;
        ivc_rec_t *rec = shm_ring_reserve(&tx, 64, &err);
        T_TRUE(rec != NULL, "room for a forged record");
        rec->kind = IVC_REC_CTS;
        rec->flags = 0;
        rec->rsvd = 0;
        rec->paylen = 0;
        rec->ctx = 0;
        rec->src = 0;
        rec->tag = 0;
        rec->seq = 0; /* rank 1's first record: the sequence check passes */
        rec->cookie = 0xdeadbeef00000007ull;
        rec->arg = 100;
        shm_ring_clear_next(&tx, 64);
        shm_ring_commit(&tx, rec, 64);
    }
    expect_failure(0, 1, "clear-to-send with a forged cookie");
    teardown();

    /* 6. A rendezvous whose pipeline counter jumps beyond the chunks: the receiver must not
     *    read beyond the pipeline nor write beyond its buffer. */
    setup();
    {
        static char big[200000], dst[200000 + 128];
        for (size_t i = 0; i < sizeof(big); i++)
            big[i] = (char)t_pattern(1, i);
        memset(dst, 0x5a, sizeof(dst));
        static ivc_chan_op_t sop, rop;
        sop.env = (ivc_env_t){.ctx = 0, .src = 0, .tag = 1, .flags = 0, .len = sizeof(big)};
        sop.data = (ivc_data_t){big, sizeof(big), NULL, sizeof(big)};
        sop.done = op_done;
        T_EQ(0, ivc_shm_chan_ops.send(ivc_shm_chan_endpoint(ch[0], 1), &sop), "rndv send starts");
        ivc_shm_chan_ops.progress(ch[1]);
        T_EQ(1, ev[1].messages, "request-to-send delivered");
        T_TRUE(ev[1].last.rndv, "it is a rendezvous");
        rop.data = (ivc_data_t){dst + 64, sizeof(big), NULL, sizeof(big)};
        rop.done = op_done;
        T_EQ(0, ivc_shm_chan_ops.recv_rndv(ivc_shm_chan_endpoint(ch[1], 0), &ev[1].last, &rop),
             "pull starts");
        ivc_inbox_ctl_t *ctl = (ivc_inbox_ctl_t *)inbox(1);
        ivc_store_relaxed(&ctl->pipe_filled, 1000000);
        op_done_calls = 0;
        expect_failure(1, 0, "impossible pipeline counter");
        T_EQ(1, op_done_calls, "the pending receive is completed");
        T_EQ(-EPROTO, op_status, "with the protocol error");
        for (int i = 0; i < 64; i++)
            if (dst[i] != 0x5a || dst[64 + sizeof(big) + i] != 0x5a)
                T_FAIL("a guard byte around the receive buffer changed");
    }
    teardown();

    /* 7. A membership slot pointing outside the region, and a receive block whose geometry
     *    lies: connect refuses both. */
    setup();
    ivc_shm_chan_destroy(ch[0]);
    ivc_shm_chan_destroy(ch[1]);
    {
        ivc_member_t *m = ivc_region_member(&region, 1);
        uint64_t saved = ivc_load_relaxed(&m->rx_off);
        ivc_shm_config_t cfg;
        ivc_shm_config_load(&cfg);
        uint32_t local[2] = {0, 1};
        ivc_chan_upcalls_t up = {on_message, on_failed, &ev[0]};
        T_EQ(0, ivc_shm_chan_create(&region, &cfg, 0, local, 2, &up, &ch[0]), "create");
        ivc_store_relaxed(&m->rx_off, region.size - 8);
        T_EQ(-EPROTO, ivc_shm_chan_connect(ch[0]), "block offset at the end of the region");
        ivc_store_relaxed(&m->rx_off, saved);
        ivc_rxblock_t *blk = (ivc_rxblock_t *)(region.base + saved);
        blk->inbox_stride = 1ull << 41;
        T_EQ(-EPROTO, ivc_shm_chan_connect(ch[0]), "block larger than the region");
        ivc_shm_geometry_t geo;
        ivc_shm_geometry(&cfg, 2, &geo);
        blk->inbox_stride = geo.inbox_stride;
        blk->nsenders = 5;
        T_EQ(-EPROTO, ivc_shm_chan_connect(ch[0]), "wrong number of inboxes");
        blk->nsenders = 1;
        blk->ring_slack = blk->ring_size;
        T_EQ(-EPROTO, ivc_shm_chan_connect(ch[0]), "largest record as large as the ring");
        ivc_shm_chan_destroy(ch[0]);
        fprintf(stderr, "  invalid receive blocks: refused\n");
    }
    ivc_region_detach(&region, 1);
    printf("corrupt: ok\n");
    return 0;
}
