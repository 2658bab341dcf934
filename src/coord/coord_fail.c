/* Peer failures: the liveness monitor, the job-wide record in the region, and what the
 * channels and the MPI layer are told.
 *
 * Detection needs no launcher. A thread per rank wakes every IVC_HEARTBEAT_PERIOD ms,
 * advances this rank's heartbeat word and looks at every co-located peer still JOINED:
 *  - its lock on the region file (regions that are files: simulated VMs, containers and
 *    hand-started ranks on one kernel): the kernel releases it when the process ends, so a
 *    kill -9 is seen within one period. Only trusted for a peer whose kernel is this one's
 *    (the slot's kernel_id): file locks do not cross kernels;
 *  - its heartbeat: a peer whose word has not moved for IVC_LIVENESS_TIMEOUT ms is declared
 *    silent (a dead or hung process, or a VM its host paused for that long: the two cannot
 *    be told apart from outside, so a pause longer than the timeout counts as a failure,
 *    and a rank that comes back to find itself declared failed ends itself, so that the
 *    survivors' view stays true). A rank busy computing keeps beating: the thread beats,
 *    not the progress engine. When the monitor itself was not scheduled for a while (its own
 *    VM paused, the host overloaded) it restarts every peer's clock instead of blaming them.
 * The first rank to see a failure writes it into the victim's slot (FAILED, how, by whom,
 * what: ivc_region_member_fail); every monitor sees the slot change, so the whole region
 * learns it from one detector. Failures seen by the channels (a protocol violation, a
 * broken network connection) are recorded the same way, and so are those of the launcher.
 *
 * The thread never calls into the channels or the MPI layer: it raises a flag that the next
 * ivc_coord_progress() (on the thread that progresses) turns into channel failures, which
 * reach the MPI layer through on_peer_failed once per peer. */
#define _GNU_SOURCE
#include "coord_fail.h"

#include "../region/door.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const ivc_cfg_entry_t fail_entries[] = {
    {"LIVENESS_TIMEOUT", "5000",
     "ms a co-located rank's heartbeat may stand still before the rank is declared failed "
     "(dead, hung, or its VM paused that long); 0 = never by heartbeat (a file region's "
     "locks still see processes that end)",
     IVC_CFG_UINT, 0, 3600000, offsetof(ivc_fail_config_t, timeout_ms)},
    {"HEARTBEAT_PERIOD", "100", "ms between heartbeats and liveness checks", IVC_CFG_UINT, 10,
     10000, offsetof(ivc_fail_config_t, period_ms)},
};

const ivc_cfg_table_t ivc_fail_config_table = {"failure detection", fail_entries,
                                               sizeof(fail_entries) / sizeof(fail_entries[0])};

typedef struct fail_state {
    ivc_fail_config_t cfg;
    const ivc_region_t *region;
    uint32_t me, world;
    pthread_t thread;
    int running;
    IVC_ATOMIC(uint32_t) stop;
    /* Monitor thread only. */
    uint64_t *last_beat; /* per rank: heartbeat value last seen */
    uint64_t *since_ns;  /* per rank: when it last changed */
    uint8_t *seen;       /* per rank: FAILED slot already flagged */
    int repaired;        /* this rank's own slot was put back once (said once) */
    /* Progressing thread only. */
    uint8_t *known; /* per rank: failure handled (channels told, MPI told) */
    IVC_ATOMIC(uint32_t) nfailed;
    ivc_chan_upcalls_t up; /* the MPI layer's */
} fail_state_t;

static fail_state_t fs;

static uint32_t how_of_err(int err)
{
    switch (err) {
    case -EPROTO: return IVC_FAIL_PROTOCOL;
    case -ECONNRESET: return IVC_FAIL_NETWORK;
    default: return IVC_FAIL_EXITED;
    }
}

/* ---- the monitor thread ---- */

static void declare(uint32_t rank, uint32_t how, const char *what)
{
    /* Once the job is aborted its ranks end without finalizing: no failures to blame. (A
     * rank ends on an abort only after the word is there, so a check made after its end
     * was seen finds the word.) */
    uint32_t arank;
    int acode;
    if (ivc_region_aborted(fs.region, &arank, &acode))
        return;
    if (ivc_region_member_fail(fs.region, rank, how, fs.me, what)) {
        ivc_error("rank %u %s (%s); recorded in the region", rank, ivc_region_fail_how_text(how), what);
        ivc_store_release(&ivc_coord.fail_pending, 1);
        ivc_door_wake_self(); /* a rank asleep in a wait hears of it now */
    }
}

/* This rank's own slot says it is gone although it is running: declared failed by a peer
 * (it was silent too long, e.g. its VM was paused), or written by someone else. Ending is
 * the only answer that keeps every survivor's view of the job true. */
static void self_check(void)
{
    uint32_t was;
    if (ivc_region_member_repair(fs.region, &was)) {
        /* Where the region has sections no rank's declaration stands behind it: a forgery
         * (another rank, or a process outside the job, wrote the file). Said once. */
        if (!fs.repaired)
            ivc_warn("this rank's slot in the membership table was set to %s by another writer, "
                     "with no declaration in any rank's section behind it: put back",
                     was == IVC_MEMBER_FAILED     ? "FAILED"
                     : was == IVC_MEMBER_ABORTED  ? "ABORTED"
                     : was == IVC_MEMBER_FINALIZED ? "FINALIZED"
                                                  : "another state");
        fs.repaired = 1;
        return;
    }
    uint32_t st = ivc_region_member_get(fs.region, fs.me);
    if (st == IVC_MEMBER_JOINED || st == IVC_MEMBER_FINALIZED)
        return;
    uint32_t how, by;
    char what[IVC_FAIL_WHAT_LEN];
    if (ivc_region_member_failure(fs.region, fs.me, &how, &by, what)) {
        if (by == IVC_FAIL_BY_LAUNCHER)
            ivc_error("the launcher declared this rank failed (%s); ending", what);
        else
            ivc_error("rank %u declared this rank failed (%s: %s); ending", by, ivc_region_fail_how_text(how),
                      what);
    } else if (st == IVC_MEMBER_ABORTED && ivc_load_acquire(&ivc_coord.aborting)) {
        return; /* this rank is aborting: its own doing */
    } else {
        ivc_error("this rank's slot in the membership table says %s, which this rank did not "
                  "write: the region was overwritten; ending",
                  st == IVC_MEMBER_ABORTED ? "ABORTED" : "an unknown state");
    }
    fflush(stderr);
    _exit(1);
}

static void monitor_round(uint64_t now, int restart_clocks)
{
    const ivc_region_t *r = fs.region;
    for (uint32_t p = 0; p < fs.world; p++) {
        if (p == fs.me)
            continue;
        uint32_t st = ivc_region_member_get(r, p);
        if (st == IVC_MEMBER_FAILED) {
            if (!fs.seen[p]) {
                fs.seen[p] = 1;
                ivc_store_release(&ivc_coord.fail_pending, 1);
                ivc_door_wake_self();
            }
            continue;
        }
        if (st != IVC_MEMBER_JOINED)
            continue;
        if (ivc_region_lock_held(r, p) == 0 && ivc_region_member_get(r, p) == IVC_MEMBER_JOINED) {
            /* Unlocked, and still JOINED after the lock check: a rank that finalizes or
             * aborts changes its state before its lock goes. */
            declare(p, IVC_FAIL_EXITED, "process gone");
            continue;
        }
        uint64_t beat = ivc_load_relaxed(&ivc_region_member(r, p)->heartbeat);
        if (beat != fs.last_beat[p] || restart_clocks || fs.since_ns[p] == 0) {
            fs.last_beat[p] = beat;
            fs.since_ns[p] = now;
        } else if (fs.cfg.timeout_ms != 0 && now - fs.since_ns[p] > fs.cfg.timeout_ms * 1000000ull) {
            char what[48];
            snprintf(what, sizeof(what), "silent %llu ms",
                     (unsigned long long)((now - fs.since_ns[p]) / 1000000));
            declare(p, IVC_FAIL_SILENT, what);
        }
    }
}

/* The liveness thread's sleep between rounds, which a stop cuts short: a migrating rank
 * stops and restarts the thread (coord_move.c), and must not wait out a period for it. */
static pthread_mutex_t nap_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nap_cv;
static pthread_once_t nap_once = PTHREAD_ONCE_INIT;

static void nap_init(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&nap_cv, &a);
    pthread_condattr_destroy(&a);
}

static void nap(uint64_t ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t t = (uint64_t)ts.tv_nsec + ns;
    ts.tv_sec += (time_t)(t / 1000000000u);
    ts.tv_nsec = (long)(t % 1000000000u);
    pthread_mutex_lock(&nap_mu);
    while (!ivc_load_acquire(&fs.stop) && pthread_cond_timedwait(&nap_cv, &nap_mu, &ts) == 0)
        ;
    pthread_mutex_unlock(&nap_mu);
}

static void *monitor_main(void *arg)
{
    (void)arg;
    ivc_member_t *mine = ivc_region_member(fs.region, fs.me);
    uint64_t period = fs.cfg.period_ms * 1000000ull, last = ivc_now_ns();
    while (!ivc_load_acquire(&fs.stop)) {
        ivc_store_relaxed(&mine->heartbeat, ivc_load_relaxed(&mine->heartbeat) + 1);
        uint64_t now = ivc_now_ns();
        ivc_region_member_scan(fs.region); /* declarations in sections (region.h) */
        /* Not scheduled for 4 periods: this rank was paused, not its peers. */
        monitor_round(now, now - last > 4 * period);
        self_check();
        last = now;
        nap(period);
    }
    return NULL;
}

int ivc_coord_fail_init(const ivc_region_t *r, uint32_t me, const ivc_chan_upcalls_t *up)
{
    memset(&fs, 0, sizeof(fs));
    int rc = ivc_cfg_load(&ivc_fail_config_table, &fs.cfg);
    if (rc != 0)
        return rc;
    fs.region = r;
    fs.me = me;
    fs.world = r != NULL ? r->world_size : 1;
    fs.up = *up;
    fs.known = calloc(fs.world, 1);
    fs.seen = calloc(fs.world, 1);
    fs.last_beat = calloc(fs.world, sizeof(*fs.last_beat));
    fs.since_ns = calloc(fs.world, sizeof(*fs.since_ns));
    if (fs.known == NULL || fs.seen == NULL || fs.last_beat == NULL || fs.since_ns == NULL)
        return -ENOMEM;
    return 0;
}

int ivc_coord_fail_start(void)
{
    if (fs.region == NULL || fs.running)
        return 0;
    pthread_once(&nap_once, nap_init);
    int rc = pthread_create(&fs.thread, NULL, monitor_main, NULL);
    if (rc != 0) {
        ivc_error("cannot start the liveness thread: %s", strerror(rc));
        return -rc;
    }
    fs.running = 1;
    return 0;
}

void ivc_coord_fail_stop(void)
{
    if (fs.running) {
        pthread_mutex_lock(&nap_mu);
        ivc_store_release(&fs.stop, 1);
        pthread_cond_signal(&nap_cv);
        pthread_mutex_unlock(&nap_mu);
        pthread_join(fs.thread, NULL);
        fs.running = 0;
    }
}

int ivc_coord_fail_restart(void)
{
    ivc_coord_fail_stop();
    ivc_store_relaxed(&fs.stop, 0);
    if (fs.world > 0 && fs.seen != NULL) {
        memset(fs.seen, 0, fs.world);
        memset(fs.last_beat, 0, fs.world * sizeof(*fs.last_beat));
        memset(fs.since_ns, 0, fs.world * sizeof(*fs.since_ns));
    }
    return ivc_coord_fail_start();
}

void ivc_coord_fail_free(void)
{
    ivc_coord_fail_stop();
    free(fs.known);
    free(fs.seen);
    free(fs.last_beat);
    free(fs.since_ns);
    memset(&fs, 0, sizeof(fs));
}

/* ---- the progressing thread ---- */

/* Channels' upcall: a peer failed. Records it in the region (if nobody did: a protocol
 * violation or a network failure this rank saw first) and tells the MPI layer, once. */
void ivc_coord_on_peer_failed(void *arg, int peer, int err)
{
    (void)arg;
    if (peer < 0 || (uint32_t)peer >= fs.world || fs.known == NULL || fs.known[peer])
        return;
    fs.known[peer] = 1;
    ivc_store_release(&fs.nfailed, ivc_load_relaxed(&fs.nfailed) + 1);
    if (fs.region != NULL)
        ivc_region_member_fail(fs.region, (uint32_t)peer, how_of_err(err), fs.me,
                               err == -EPROTO ? "protocol violation" : "connection lost");
    /* Migration mode: operations with a peer may be pending on both channels at once (those
     * in flight on the old one complete there: coord_move.h), and the channel that saw the
     * failure fails only its own. Each channel reports back here at most once, and `known`
     * is already set, so this does not recurse. */
    ivc_coord_t *c = &ivc_coord;
    if (c->migrate) {
        if (c->shm != NULL)
            ivc_shm_chan_fail_peer(c->shm, (uint32_t)peer, err);
        if (c->net != NULL)
            ivc_net_chan_fail_peer(c->net, (uint32_t)peer, err);
    }
    if (fs.up.on_peer_failed)
        fs.up.on_peer_failed(fs.up.arg, peer, err);
}

int ivc_coord_fail_handle(void)
{
    ivc_coord_t *c = &ivc_coord;
    ivc_store_relaxed(&ivc_coord.fail_pending, 0);
    int n = 0;
    for (uint32_t p = 0; p < fs.world; p++) {
        if (fs.known[p] || p == fs.me || ivc_region_member_get(fs.region, p) != IVC_MEMBER_FAILED)
            continue;
        n++;
        /* The channel fails what involves the peer and reports it back through
         * ivc_coord_on_peer_failed; a peer no channel reaches is reported directly. */
        if (c->vcs != NULL && c->vcs[p].ops == &ivc_shm_chan_ops)
            ivc_shm_chan_fail_peer(c->shm, p, -EOWNERDEAD);
        else if (c->vcs != NULL && c->vcs[p].ops == &ivc_net_chan_ops)
            ivc_net_chan_fail_peer(c->net, p, -EOWNERDEAD);
        ivc_coord_on_peer_failed(NULL, (int)p, -EOWNERDEAD);
    }
    return n;
}

void ivc_coord_peer_broke(uint32_t rank, const char *what)
{
    ivc_coord_t *c = &ivc_coord;
    if (rank >= fs.world || rank == fs.me || fs.known == NULL || fs.known[rank])
        return;
    ivc_error("rank %u broke the shared-memory protocol (its %s failed a check); no longer "
              "talking to it",
              rank, what);
    /* The record first, so that it names the area rather than the channel's generic words. */
    if (fs.region != NULL)
        ivc_region_member_fail(fs.region, rank, IVC_FAIL_PROTOCOL, fs.me, what);
    if (c->vcs != NULL && c->vcs[rank].ops == &ivc_shm_chan_ops)
        ivc_shm_chan_fail_peer(c->shm, rank, -EPROTO);
    ivc_coord_on_peer_failed(NULL, (int)rank, -EPROTO);
}

int ivc_coord_peer_failed(uint32_t rank)
{
    return fs.known != NULL && rank < fs.world && fs.known[rank];
}

uint32_t ivc_coord_nfailed(void)
{
    return ivc_load_relaxed(&fs.nfailed);
}

const char *ivc_coord_failure_text(uint32_t rank, char *buf, size_t len)
{
    uint32_t how, by;
    char what[IVC_FAIL_WHAT_LEN];
    if (fs.region != NULL && ivc_region_member_failure(fs.region, rank, &how, &by, what)) {
        if (by == IVC_FAIL_BY_LAUNCHER)
            snprintf(buf, len, "rank %u %s (%s), seen by the launcher", rank, ivc_region_fail_how_text(how), what);
        else
            snprintf(buf, len, "rank %u %s (%s), seen by rank %u", rank, ivc_region_fail_how_text(how), what, by);
    } else if (ivc_coord_peer_failed(rank)) {
        snprintf(buf, len, "rank %u failed (its channel reported it)", rank);
    } else {
        snprintf(buf, len, "rank %u has not failed", rank);
    }
    return buf;
}
