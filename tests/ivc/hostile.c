/* libivc under a writer that scribbles over its structures: every call reports (-EPROTO,
 * or the error the damage amounts to), none crashes, none hangs (the watchdog turns a hang
 * into a failure).
 *
 * First targeted damage, one structure at a time, with the report each must give: ring
 * positions of a channel (both directions), a datagram header, a barrier's counter, a
 * lock word with an impossible owner, a dead endpoint's log, the directory (a new process
 * refuses it). Then a random phase: workers run channels, datagrams, barriers and
 * minitransactions with timeouts while a scribbler writes random words over the whole of
 * libivc's area; each worker must end by itself, whatever its calls returned. */
#include "ivc_test.h"

#include "ivc/lib.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

static uint64_t ivclib_now_test_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Two handles of this process connected: connect waits for the accept, so b accepts on a
 * thread (one handle per thread). */
#include <pthread.h>
struct acc {
    ivc_t *b;
    uint32_t port;
    ivc_chan_t *ch;
    int rc;
};
static void *acceptor(void *arg)
{
    struct acc *a = arg;
    a->rc = ivc_accept(a->b, a->port, 20000, &a->ch);
    return NULL;
}
static void pair(ivc_t *a, ivc_t *b, uint32_t port, ivc_chan_t **ca, ivc_chan_t **cb)
{
    struct acc ac = {b, port, NULL, 0};
    pthread_t t;
    pthread_create(&t, NULL, acceptor, &ac);
    T_RC(ivc_connect(a, ivc_id(b), port, 20000, ca));
    pthread_join(t, NULL);
    T_RC(ac.rc);
    *cb = ac.ch;
}

static void targeted(void)
{
    ivc_t *a = t_open("ha"), *b = t_open("hb");
    ivc_chan_t *ca, *cb;
    pair(a, b, 1, &ca, &cb);
    /* The a->b ring's producer position runs ahead by more than the ring. */
    T_EQ(5, ivc_write(ca, "hello", 5), "write");
    ivc_store_relaxed(&cb->rx.ctl->tail, 1ull << 40);
    T_EQ(-EPROTO, ivc_read(cb, (char[8]){0}, 8), "read of an impossible position");
    T_EQ(-EPROTO, ivc_read(cb, (char[8]){0}, 8), "and it stays reported");
    /* The b->a ring's consumer position moves behind the producer's by more than the ring. */
    ivc_store_relaxed(&cb->tx.ctl->head, (uint64_t)-100000);
    uint8_t big[70000];
    memset(big, 1, sizeof(big));
    ssize_t n = ivc_write(cb, big, sizeof(big));
    T_TRUE(n == -EPROTO || n > 0, "write against a scribbled consumer position");
    n = ivc_write(cb, big, sizeof(big));
    T_EQ(-EPROTO, ivc_write(cb, big, sizeof(big)), "write after the damage");
    ivc_chan_close(ca);
    ivc_chan_close(cb);

    /* A datagram header claiming more than the lane holds. */
    ivc_port_t *p;
    T_RC(ivc_port_open(b, 9, &p));
    T_EQ(3, ivc_sendto(a, ivc_id(b), 9, "abc", 3), "send");
    ivclib_ring_t *lane = NULL;
    for (uint32_t i = 0; i < p->nlanes; i++)
        if (ivc_load_relaxed(&p->rx[i].ctl->tail) != 0)
            lane = &p->rx[i];
    T_TRUE(lane != NULL, "the sender's lane");
    ivclib_dgram_hdr_t bad = {1u << 30, 0};
    memcpy(lane->data, &bad, sizeof(bad));
    char buf[64];
    T_EQ(-EPROTO, ivc_recvfrom(p, buf, sizeof(buf), NULL), "impossible datagram length");
    T_EQ(-EAGAIN, ivc_recvfrom(p, buf, sizeof(buf), NULL), "the lane was reset");
    /* The sender's next datagram still arrives. */
    T_EQ(3, ivc_sendto(a, ivc_id(b), 9, "xyz", 3), "send after the reset");
    T_EQ(3, ivc_recvfrom_wait(p, buf, sizeof(buf), NULL, 20000), "received after the reset");
    ivc_port_close(p);

    /* A barrier counter beyond the participants. */
    ivc_barrier_t *ba, *bb;
    T_RC(ivc_barrier_open(a, "hb", 2, &ba));
    T_RC(ivc_barrier_open(b, "hb", 2, &bb));
    ivc_store_relaxed(&ba->sh->arrived, 1000);
    T_EQ(-EPROTO, ivc_barrier_wait(ba, IVC_WAIT_BLOCK, 1000), "overwritten counter");
    ivc_barrier_close(ba);
    ivc_barrier_close(bb);

    /* Lock words: an impossible owner, and an owner that is not alive. */
    uint64_t off;
    T_RC(ivc_shm_get(a, "hmtx", 64, &off, NULL));
    uint32_t idx = (uint32_t)((off / 64) & (a->nlocks - 1));
    uint64_t v = 1, r;
    ivc_mtx_item_t it = {off, 8, IVC_MTX_WRITE | IVC_MTX_READ, NULL, &v, &r};
    ivc_store_relaxed(ivclib_lock(a, idx), 0xdeadbeefdeadbeefull);
    T_EQ(IVC_MTX_COMMITTED, ivc_mtx_retry(a, &it, 1, 20000), "lock with an impossible owner");
    ivc_store_relaxed(ivclib_lock(a, idx), ivclib_who(a->nendpoints - 1, 12345));
    T_EQ(IVC_MTX_COMMITTED, ivc_mtx_retry(a, &it, 1, 20000), "lock of an endpoint not alive");
    /* ... whose log is garbage claiming to be valid. */
    uint32_t dead = a->nendpoints - 1;
    uint64_t dwho = ivclib_who(dead, 777);
    ivclib_log_t *log = ivclib_log(a, dead);
    log->who = dwho;
    log->nrec = 3;
    log->bytes = 1u << 30;
    ivc_store_release(&log->state, IVCLIB_LOG_VALID);
    ivc_store_relaxed(ivclib_lock(a, idx), dwho);
    T_EQ(IVC_MTX_COMMITTED, ivc_mtx_retry(a, &it, 1, 20000), "lock of a dead owner, bad log");
    T_EQ(IVCLIB_LOG_EMPTY, ivc_load_relaxed(&log->state), "the bad log was dropped");

    /* The directory's geometry: a new process refuses it; open handles go on. */
    ivclib_dir_t *d = ivclib_dir(a);
    uint32_t keep = d->nchannels;
    d->nchannels = 7777777;
    ivc_t *c;
    T_EQ(-EPROTO, ivc_open(t_region, "hc", 0, &c), "damaged directory refused");
    d->nchannels = keep;
    pair(a, b, 2, &ca, &cb);
    T_EQ(2, ivc_write(ca, "ok", 2), "handles opened before go on");
    ivc_chan_close(ca);
    ivc_chan_close(cb);
    /* An endpoint name without a NUL and with control bytes is copied safely. */
    memset(ivclib_ep(a, ivc_id(b))->name, 7, IVCLIB_NAME_MAX);
    ivc_peer_t peers[8];
    T_EQ(1, ivc_peers(a, peers, 8), "peers");
    T_EQ(IVCLIB_NAME_MAX - 1, strlen(peers[0].name), "name cut");
    T_TRUE(peers[0].name[0] == '?', "control bytes replaced");
    ivc_close(a);
    ivc_close(b);
}

/* ---- the random phase ---- */

static int worker(void *arg)
{
    unsigned me = (unsigned)(uintptr_t)arg;
    char name[16];
    snprintf(name, sizeof(name), "w%u", me);
    ivc_t *ivc;
    if (ivc_open(t_region, name, 0, &ivc) != 0)
        return 0; /* refused: fine, that is a report */
    uint64_t end = ivclib_now_test_ns() + 1500000000ull;
    ivc_port_t *p = NULL;
    ivc_port_open(ivc, 50, &p);
    ivc_barrier_t *b = NULL;
    ivc_barrier_open(ivc, "rb", 2, &b);
    uint64_t off = 0;
    ivc_shm_get(ivc, "rmtx", 4096, &off, NULL);
    int peer = ivc_lookup(ivc, me ? "w0" : "w1", 2000);
    ivc_chan_t *ch = NULL;
    if (peer >= 0) {
        if (me == 0)
            ivc_accept(ivc, 5, 2000, &ch);
        else
            ivc_connect(ivc, (uint32_t)peer, 5, 2000, &ch);
    }
    uint8_t buf[3000];
    memset(buf, me, sizeof(buf));
    while (ivclib_now_test_ns() < end) {
        if (ch != NULL) {
            ivc_write(ch, buf, sizeof(buf));
            ivc_read(ch, buf, sizeof(buf));
        }
        if (peer >= 0)
            ivc_sendto(ivc, (uint32_t)peer, 50, buf, 100);
        if (p != NULL)
            ivc_recvfrom(p, buf, sizeof(buf), NULL);
        if (b != NULL)
            ivc_barrier_wait(b, IVC_WAIT_BLOCK, 5);
        if (off != 0) {
            uint64_t v = me, r;
            ivc_mtx_item_t it = {off + (me * 64) % 4096, 8, IVC_MTX_WRITE | IVC_MTX_READ, NULL,
                                 &v, &r};
            ivc_mtx_retry(ivc, &it, 1, 5);
        }
        ivc_peer_t pl[4];
        ivc_peers(ivc, pl, 4);
        ivc_pollent_t pe = {IVC_POLL_CHAN, ch, NULL, 0, IVC_POLLIN, 0};
        if (ch != NULL)
            ivc_poll(ivc, &pe, 1, 0);
    }
    ivc_chan_close(ch);
    ivc_close(ivc);
    return 0;
}

static int scribbler(void *arg)
{
    (void)arg;
    ivc_t *ivc = t_open("scribbler");
    uint64_t lo = ivc->dir_off;
    uint64_t hi = ivc_load_relaxed(&ivc_region_hdr(&ivc->region)->heap_next);
    if (hi > ivc->region.size)
        hi = ivc->region.size;
    uint64_t x = 88172645463325252ull, end = ivclib_now_test_ns() + 1500000000ull;
    usleep(200000); /* let the workers connect */
    while (ivclib_now_test_ns() < end) {
        for (int k = 0; k < 64; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t at = lo + (x % (hi - lo)) / 8 * 8;
            if (at >= ivc->ep_off + ivc->id * sizeof(ivclib_ep_t) &&
                at < ivc->ep_off + (ivc->id + 1) * sizeof(ivclib_ep_t))
                continue; /* its own slot: it wants to stay alive to scribble */
            uint64_t val = (x >> 3) & 1 ? x : x & 0xff;
            memcpy(ivc->region.base + at, &val, 8);
        }
        usleep(100);
    }
    ivc_close(ivc);
    return 0;
}

int main(void)
{
    t_region_init("hostile", 110);
    targeted();
    pid_t w0 = t_fork(worker, (void *)(uintptr_t)0), w1 = t_fork(worker, (void *)(uintptr_t)1);
    pid_t s = t_fork(scribbler, NULL);
    T_EQ(0, t_wait(w0), "worker 0 ends by itself");
    T_EQ(0, t_wait(w1), "worker 1 ends by itself");
    T_EQ(0, t_wait(s), "scribbler");
    printf("hostile: ok\n");
    return 0;
}
