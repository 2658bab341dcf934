/* Two shared-memory channels (ranks 0 and 1) in one process on one region, with a small
 * geometry (4 KiB rings, two 1 KiB chunks) so that every fuzz input runs on a fresh pair
 * quickly. Used by the geometry and ring targets. */
#ifndef IVC_FUZZ_CHAN_H
#define IVC_FUZZ_CHAN_H

#include "fuzz_util.h"

#include "shm/shm_chan.h"
#include "shm/shm_ring.h"

#include <stdlib.h>

typedef struct fz_events {
    int messages, failed;
    ivc_inmsg_t rts; /* last request-to-send, for a later pull */
    int have_rts;
} fz_events_t;

static char fz_path[64];
static ivc_region_t fz_region;
static ivc_shm_chan_t *fz_ch[2];
static fz_events_t fz_ev[2];
static ivc_shm_config_t fz_cfg;

static void fz_on_message(void *arg, ivc_inmsg_t *m)
{
    fz_events_t *e = arg;
    e->messages++;
    if (m->rndv) {
        e->rts = *m;
        e->have_rts = 1;
    } else if (m->env.len > 0) {
        /* Touch every byte the channel handed up, as the MPI layer's copy would. */
        volatile uint8_t sink = 0;
        for (uint64_t i = 0; i < m->env.len; i++)
            sink ^= ((const uint8_t *)m->data)[i];
        (void)sink;
    }
}

static void fz_on_failed(void *arg, int peer, int err)
{
    ((fz_events_t *)arg)->failed++;
}

static void fz_cleanup(void)
{
    unlink(fz_path);
}

/* Creates the region and both channels; connects them when `connect`. Returns 0 or -1. */
static int fz_setup(int checksum, int connect)
{
    static int once;
    if (!once) {
        once = 1;
        fuzz_quiet();
        /* FUZZ_TAG (run.sh: its pid) lets the runner remove what a crashed run left. */
        snprintf(fz_path, sizeof(fz_path), "/dev/shm/ivc-fuzz-chan-%s-%d",
                 getenv("FUZZ_TAG") ? getenv("FUZZ_TAG") : "x", (int)getpid());
        atexit(fz_cleanup);
        unsetenv("IVC_EAGER_LIMIT");
        if (ivc_shm_config_load(&fz_cfg) != 0)
            abort();
        fz_cfg.eager_limit = 256;
        fz_cfg.ring_size = 4096;
        fz_cfg.chunk_size = 1024;
        fz_cfg.nchunks = 2;
    }
    memset(fz_ev, 0, sizeof(fz_ev));
    if (ivc_region_create(fz_path, 1u << 20, 1, 2, &fz_region) != 0)
        abort();
    fz_cfg.checksum = checksum;
    uint32_t local[2] = {0, 1};
    for (int r = 0; r < 2; r++) {
        ivc_chan_upcalls_t up = {fz_on_message, fz_on_failed, &fz_ev[r]};
        if (ivc_shm_chan_create(&fz_region, &fz_cfg, (uint32_t)r, local, 2, &up, &fz_ch[r]) != 0)
            abort();
    }
    if (connect)
        for (int r = 0; r < 2; r++)
            if (ivc_shm_chan_connect(fz_ch[r]) != 0)
                abort();
    return 0;
}

static void fz_teardown(void)
{
    ivc_shm_chan_destroy(fz_ch[0]);
    ivc_shm_chan_destroy(fz_ch[1]);
    fz_ch[0] = fz_ch[1] = NULL;
    ivc_region_detach(&fz_region, 1);
}

/* Receive block of `rank` and the inbox in it that `sender` writes. */
static uint8_t *fz_block(int rank)
{
    uint64_t off = ivc_load_relaxed(&ivc_region_member(&fz_region, (uint32_t)rank)->rx_off);
    return fz_region.base + off;
}

/* ---- operations with static memory: a pool of sends and pulls ---- */

#define FZ_OPS 8
#define FZ_BUF 8192

typedef struct fz_op {
    ivc_chan_op_t op;
    int busy;
    uint8_t buf[FZ_BUF];
} fz_op_t;

static fz_op_t fz_send[2][FZ_OPS], fz_recv[2][FZ_OPS];

static void fz_done(ivc_chan_op_t *op, int status)
{
    ((fz_op_t *)op)->busy = 0; /* op is the first member */
}

static fz_op_t *fz_free_op(fz_op_t *pool)
{
    for (int i = 0; i < FZ_OPS; i++)
        if (!pool[i].busy)
            return &pool[i];
    return NULL;
}

/* Rank `from` sends `len` bytes (eager or rendezvous) to the other rank. */
static void fz_do_send(int from, uint64_t len, uint8_t fill)
{
    fz_op_t *o = fz_free_op(fz_send[from]);
    if (o == NULL)
        return;
    if (len > FZ_BUF)
        len = FZ_BUF;
    memset(o->buf, fill, len);
    memset(&o->op, 0, sizeof(o->op));
    o->op.env = (ivc_env_t){.ctx = 1, .src = from, .tag = fill, .flags = fill & 1u, .len = len};
    o->op.data = (ivc_data_t){o->buf, len, NULL, len};
    o->op.done = fz_done;
    void *ep = ivc_shm_chan_endpoint(fz_ch[from], 1u - (uint32_t)from);
    o->busy = 1;
    int rc = ivc_shm_chan_ops.send(ep, &o->op);
    if (rc != 0)
        o->busy = 0; /* completed at once or refused */
}

/* Rank `at` pulls the last request-to-send it saw into up to `cap` bytes. */
static void fz_do_pull(int at, uint64_t cap)
{
    if (!fz_ev[at].have_rts)
        return;
    fz_op_t *o = fz_free_op(fz_recv[at]);
    if (o == NULL)
        return;
    if (cap > FZ_BUF)
        cap = FZ_BUF;
    fz_ev[at].have_rts = 0;
    memset(&o->op, 0, sizeof(o->op));
    o->op.data = (ivc_data_t){o->buf, cap, NULL, cap};
    o->op.done = fz_done;
    void *ep = ivc_shm_chan_endpoint(fz_ch[at], 1u - (uint32_t)at);
    o->busy = 1;
    if (ivc_shm_chan_ops.recv_rndv(ep, &fz_ev[at].rts, &o->op) != 0)
        o->busy = 0;
}

static void fz_reset_ops(void)
{
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < FZ_OPS; i++)
            fz_send[r][i].busy = fz_recv[r][i].busy = 0;
}

#endif
