/* forge: what a peer publishes for one copy is checked, never followed blindly.
 *
 * Two shm channels in this process on one region (ranks 0 and 1). Rank 1's published shared
 * heap is a block F the test reserves (written into its receive block before connect), so
 * rank 0 sees a heap of its peer's that is not its own. The test then writes records into
 * rank 0's inbox as rank 1 would (its first record, sequence 0) and checks what rank 0 does:
 *  - request-to-send naming bytes outside F (past its end; rank 0's own receive block), or
 *    without its 8-byte offset: rank 1 is reported (-EPROTO), nothing is copied;
 *  - a valid one (inside F, odd offset and length): rank 0 copies straight out of F into its
 *    receive and answers read-done with the bytes copied;
 *  - clear-to-send naming a buffer outside F for a real send of rank 0: reported, the send
 *    fails; a valid one: rank 0 writes its message into F and answers write-done;
 *  - write-done for no receive, read-done for a send that offered no buffer: reported;
 *  - a heap published over rank 0's receive block: connect refuses it. */
#include "test_util.h"

#include "shm/shm_chan.h"
#include "shm/shm_ring.h"

#include <errno.h>
#include <stdlib.h>
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
static uint64_t F_off, F_len = 1u << 20;

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

/* Returns connect's result for rank 0; rank 1 publishes heap [heap_off, +heap_len). */
static int setup_heap(uint64_t heap_off, int use_rx0)
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
    cfg.checksum = 0;
    cfg.one_copy = 1;
    uint32_t local[2] = {0, 1};
    for (int r = 0; r < 2; r++) {
        ivc_chan_upcalls_t up = {on_message, on_failed, &ev[r]};
        if (ivc_shm_chan_create(&region, &cfg, (uint32_t)r, local, 2, &up, &ch[r]) != 0)
            T_FAIL("create %d", r);
    }
    if (ivc_region_alloc(&region, F_len, 4096, &F_off) != 0)
        T_FAIL("reserving F");
    uint64_t rx0 = ivc_load_relaxed(&ivc_region_member(&region, 0)->rx_off);
    block(1)->heap_off = use_rx0 ? rx0 : heap_off ? heap_off : F_off;
    block(1)->heap_len = F_len;
    int rc = ivc_shm_chan_connect(ch[0]);
    if (rc == 0 && ivc_shm_chan_connect(ch[1]) != 0)
        T_FAIL("connect 1");
    return rc;
}

static void setup(void)
{
    if (setup_heap(0, 0) != 0)
        T_FAIL("connect 0");
}

static void teardown(void)
{
    ivc_shm_chan_destroy(ch[0]);
    ivc_shm_chan_destroy(ch[1]);
    ch[0] = ch[1] = NULL;
}

/* Writes rank 1's record number `pos` (ring position in bytes) into rank 0's inbox. */
static void forge(uint64_t pos, uint32_t seq, uint8_t kind, uint64_t arg, uint64_t cookie,
                  const void *payload, uint32_t paylen)
{
    ivc_rec_t *rec = (ivc_rec_t *)(inbox(0) + sizeof(ivc_inbox_ctl_t) + pos);
    memset((uint8_t *)rec + 8, 0, sizeof(*rec) - 8);
    rec->kind = kind;
    rec->paylen = paylen;
    rec->tag = 5;
    rec->seq = seq;
    rec->arg = arg;
    rec->cookie = cookie;
    if (paylen)
        memcpy(rec + 1, payload, paylen);
    ivc_store_release(&rec->stamp, pos + 1);
}

/* Rank 0's record at ring position pos in rank 1's inbox. */
static const ivc_rec_t *sent_by_0(uint64_t pos)
{
    const ivc_rec_t *rec = (const ivc_rec_t *)(inbox(1) + sizeof(ivc_inbox_ctl_t) + pos);
    return ivc_load_acquire(&rec->stamp) == pos + 1 ? rec : NULL;
}

static void progress0(void)
{
    for (int i = 0; i < 4; i++)
        ivc_shm_chan_ops.progress(ch[0]);
}

static void expect_reported(const char *what)
{
    progress0();
    if (ev[0].failed != 1)
        T_FAIL("%s: expected rank 1 to be reported once, got %d reports", what, ev[0].failed);
    T_EQ(1, ev[0].failed_peer, what);
    T_EQ(-EPROTO, ev[0].failed_err, what);
    fprintf(stderr, "  %s: reported\n", what);
}

static uint8_t sbuf[100000], rbuf[100000 + 64];

static void rts_heap(uint64_t at, uint64_t len, uint32_t paylen, const char *what)
{
    setup();
    forge(0, 0, IVC_REC_RTS_HEAP, len, 0x1234, &at, paylen);
    expect_reported(what);
    T_EQ(0, ev[0].messages, "no message handed up");
    teardown();
}

/* Rank 0 starts a rendezvous send of n bytes from private memory; returns its cookie. */
static ivc_chan_op_t sop;
static uint64_t start_send(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        sbuf[i] = t_pattern(3, i);
    memset(&sop, 0, sizeof(sop));
    sop.env = (ivc_env_t){.ctx = 0, .src = 0, .tag = 1, .flags = 0, .len = n};
    sop.data = (ivc_data_t){sbuf, n, NULL, n};
    sop.done = op_done;
    T_EQ(0, ivc_shm_chan_ops.send(ivc_shm_chan_endpoint(ch[0], 1), &sop), "send starts");
    const ivc_rec_t *rts = sent_by_0(0);
    T_TRUE(rts != NULL && rts->kind == IVC_REC_RTS, "a plain request-to-send from private memory");
    return rts->cookie;
}

int main(void)
{
    snprintf(path, sizeof(path), "/dev/shm/ivc-test-forge-%d", (int)getpid());
    /* No heap of this process's own: rank 1's is the test's F. */
    setenv("IVC_RMA_ARENA", "0", 1);
    setenv("IVC_SHARED_HEAP", "off", 1);
    uint64_t rts_bytes = shm_ring_record_bytes_x(0, 0);

    /* ---- request-to-send ---- */
    setup();
    uint64_t rx0 = ivc_load_relaxed(&ivc_region_member(&region, 0)->rx_off);
    teardown();
    rts_heap(F_off + F_len - 100, 200, 8, "request-to-send running past the peer's heap");
    rts_heap(rx0 + 4096, 64, 8, "request-to-send naming the receiver's own block");
    rts_heap(F_off, UINT64_MAX - 10, 8, "request-to-send of an impossible length");
    rts_heap(F_off, 64, 4, "request-to-send with a 4-byte offset");

    setup();
    uint64_t at = F_off + 123, n = 5001;
    for (uint64_t i = 0; i < n; i++)
        region.base[at + i] = t_pattern(7, i);
    forge(0, 0, IVC_REC_RTS_HEAP, n, 0x4321, &at, 8);
    progress0();
    T_EQ(1, ev[0].messages, "a valid offer is handed up");
    T_TRUE(ev[0].last.rndv && ev[0].last.chan_arg == at, "as a rendezvous carrying the offset");
    ivc_chan_op_t rop;
    memset(&rop, 0, sizeof(rop));
    memset(rbuf, 0x5a, sizeof(rbuf));
    rop.data = (ivc_data_t){rbuf, n, NULL, n};
    rop.done = op_done;
    T_EQ(0, ivc_shm_chan_ops.recv_rndv(ivc_shm_chan_endpoint(ch[0], 1), &ev[0].last, &rop),
         "recv_rndv");
    progress0();
    T_EQ(1, done_calls, "the receive completes");
    T_EQ(0, done_status, "without error");
    for (uint64_t i = 0; i < n; i++)
        if (rbuf[i] != t_pattern(7, i))
            T_FAIL("byte %llu copied out of the peer's heap is wrong", (unsigned long long)i);
    T_EQ(0x5a, rbuf[n], "nothing beyond the receive");
    const ivc_rec_t *rd = sent_by_0(0);
    T_TRUE(rd != NULL && rd->kind == IVC_REC_RDONE && rd->cookie == 0x4321 && rd->arg == n,
           "read-done with the sender's cookie and the bytes copied");
    T_EQ(0, ev[0].failed, "nobody reported");
    fprintf(stderr, "  a valid offer: copied once, read-done sent\n");
    teardown();

    /* ---- clear-to-send ---- */
    setup();
    uint64_t cookie = start_send(90000);
    uint64_t bad = F_off + F_len - 10;
    forge(0, 0, IVC_REC_CTS_HEAP, 90000, cookie, &bad, 8);
    expect_reported("clear-to-send naming memory past the peer's heap");
    T_EQ(1, done_calls, "the send is failed");
    T_EQ(-EPROTO, done_status, "with -EPROTO");
    teardown();

    setup();
    cookie = start_send(90000);
    uint64_t dst = F_off + 4096 + 5;
    memset(region.base + dst - 1, 0x77, 90002);
    forge(0, 0, IVC_REC_CTS_HEAP, 90000, cookie, &dst, 8);
    progress0();
    T_EQ(0, ev[0].failed, "a valid clear-to-send: nobody reported");
    T_EQ(1, done_calls, "the send completes");
    T_EQ(0, done_status, "without error");
    for (uint64_t i = 0; i < 90000; i++)
        if (region.base[dst + i] != t_pattern(3, i))
            T_FAIL("byte %llu written into the peer's heap is wrong", (unsigned long long)i);
    T_EQ(0x77, region.base[dst - 1], "nothing before the receive buffer");
    T_EQ(0x77, region.base[dst + 90000], "nothing after it");
    const ivc_rec_t *wd = sent_by_0(rts_bytes);
    T_TRUE(wd != NULL && wd->kind == IVC_REC_WDONE && wd->arg == 90000,
           "write-done with the bytes written");
    fprintf(stderr, "  a valid clear-to-send: written once, write-done sent\n");
    teardown();

    /* ---- completions nobody asked for ---- */
    setup();
    forge(0, 0, IVC_REC_WDONE, 100, 0, NULL, 0);
    expect_reported("write-done for no receive");
    teardown();

    setup();
    cookie = start_send(90000);
    forge(0, 0, IVC_REC_RDONE, 90000, cookie, NULL, 0);
    expect_reported("read-done for a send that offered no buffer");
    T_EQ(-EPROTO, done_status, "the send is failed");
    teardown();

    /* ---- the heap a peer publishes ---- */
    T_EQ(-EPROTO, setup_heap(0, 1), "a peer heap over this rank's receive block is refused");
    teardown();
    T_EQ(-EPROTO, setup_heap(F_off + 100, 0), "a peer heap not on a page boundary is refused");
    teardown();
    fprintf(stderr, "  published heaps over own blocks or unaligned: refused at connect\n");

    ivc_region_detach(&region, 1);
    printf("PASS\n");
    return 0;
}
