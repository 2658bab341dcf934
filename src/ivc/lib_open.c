/* libivc endpoints: attaching the region, libivc's directory in it, registering an
 * endpoint (identity), liveness, peers, names, shared blocks, and teardown.
 *
 * Identity. A process registers in a slot of libivc's endpoint table (not the MPI
 * membership table, which belongs to the MPI ranks: libivc and MPI can be used by one
 * process side by side). Its id is the slot index. A rank of an ivcrun job (PMI_RANK set)
 * takes slot R when free, so its endpoint id is its rank; any other process takes the
 * first free slot from the region's job size up. Each claim bumps the slot's generation:
 * an endpoint incarnation is (id, gen), the "who" word of lib_layout.h, and everything a
 * process holds in the region (channel ends, lanes, barrier places, locks) names its who,
 * so it is recognised as stale once the process left or died.
 *
 * Liveness, without pids (which do not cross VMs): the claimant takes an open-file-
 * description lock on byte (1<<40) + (1<<32) + id of the region file; the kernel drops it
 * when the process ends however it ends, and a peer on the same kernel (the slot records
 * the kernel's boot id hash) sees that at once. Peers on other kernels (real guests) watch
 * the slot's heartbeat, which a thread of the owner advances every
 * IVC_LIB_HEARTBEAT_PERIOD ms; one that stands still for IVC_LIB_LIVENESS_TIMEOUT ms is
 * dead. */
#define _GNU_SOURCE
#include "lib.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"
#include "../region/ivshmem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long a process waits for another that is setting up the directory. */
#define DIR_SETUP_WAIT_MS 5000
/* How long the creation lock may be waited for (its holders hold it for microseconds). */
#define CREATE_LOCK_WAIT_MS 10000

/* ---- names ---- */

int ivclib_name_ok(const char *name)
{
    if (name == NULL || name[0] == '\0')
        return 0;
    size_t n = 0;
    for (; name[n] != '\0'; n++)
        if (n >= IVCLIB_NAME_MAX - 1 || name[n] < ' ' || name[n] > '~')
            return 0;
    return 1;
}

void ivclib_name_copy(char dst[IVCLIB_NAME_MAX], const char *src)
{
    for (size_t i = 0; i < IVCLIB_NAME_MAX; i++) {
        char ch = src[i];
        dst[i] = ch == '\0' || (ch >= ' ' && ch <= '~') ? ch : '?';
        if (ch == '\0')
            break;
    }
    dst[IVCLIB_NAME_MAX - 1] = '\0';
}

/* ---- the directory ---- */

typedef struct dir_geom {
    uint32_t nendpoints, nchannels, ring_size, nports, nlanes, lane_size, nbarriers, nobjects,
        nlocks, log_size;
    uint64_t ep_off, chan_off, port_off, bar_off, obj_off, lock_off, log_off, total;
} dir_geom_t;

static uint64_t line_up(uint64_t v)
{
    return (v + IVC_CACHE_LINE - 1) & ~(uint64_t)(IVC_CACHE_LINE - 1);
}

/* Offsets (relative to the directory) of every table, from the counts: the creator lays
 * the block out with it and every reader recomputes it, so a reader never trusts an
 * offset it did not compute. */
static void dir_layout(dir_geom_t *g)
{
    uint64_t at = sizeof(ivclib_dir_t);
    g->ep_off = at;
    at = line_up(at + (uint64_t)g->nendpoints * sizeof(ivclib_ep_t));
    g->chan_off = at;
    at = line_up(at + (uint64_t)g->nchannels * sizeof(ivclib_chan_t));
    g->port_off = at;
    at = line_up(at + (uint64_t)g->nports * sizeof(ivclib_port_t));
    g->bar_off = at;
    at = line_up(at + (uint64_t)g->nbarriers * sizeof(ivclib_bar_t));
    g->obj_off = at;
    at = line_up(at + (uint64_t)g->nobjects * sizeof(ivclib_obj_t));
    g->lock_off = at;
    at = line_up(at + (uint64_t)g->nlocks * 8);
    g->log_off = at;
    at = line_up(at + (uint64_t)g->nendpoints * g->log_size);
    g->total = at;
}

static int pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* Formats the directory at `off` (zeroed by the caller) from this process's tunables. */
static void dir_format(ivc_t *ivc, uint64_t off, const dir_geom_t *g)
{
    ivclib_dir_t *d = (ivclib_dir_t *)(ivc->region.base + off);
    d->magic = IVCLIB_DIR_MAGIC;
    d->version = IVCLIB_DIR_VERSION;
    d->nendpoints = g->nendpoints;
    d->nchannels = g->nchannels;
    d->ring_size = g->ring_size;
    d->nports = g->nports;
    d->nlanes = g->nlanes;
    d->lane_size = g->lane_size;
    d->nbarriers = g->nbarriers;
    d->nobjects = g->nobjects;
    d->nlocks = g->nlocks;
    d->log_size = g->log_size;
    d->ep_off = off + g->ep_off;
    d->chan_off = off + g->chan_off;
    d->port_off = off + g->port_off;
    d->bar_off = off + g->bar_off;
    d->obj_off = off + g->obj_off;
    d->lock_off = off + g->lock_off;
    d->log_off = off + g->log_off;
    d->total = g->total;
}

/* Copies the directory's geometry into the handle after checking every field. */
static int dir_check(ivc_t *ivc, uint64_t off)
{
    const char *path = ivc->region.path;
    if (off % IVC_CACHE_LINE != 0 || !ivclib_in_heap(ivc, off, sizeof(ivclib_dir_t))) {
        ivc_error("libivc: region %s: the directory offset %" PRIu64 " is not in the heap", path,
                  off);
        return -EPROTO;
    }
    const ivclib_dir_t *d = (const ivclib_dir_t *)(ivc->region.base + off);
    if (d->magic != IVCLIB_DIR_MAGIC || d->version != IVCLIB_DIR_VERSION) {
        ivc_error("libivc: region %s: no libivc directory of version %u at %" PRIu64
                  " (magic 0x%016" PRIx64 ", version %u)",
                  path, IVCLIB_DIR_VERSION, off, d->magic, d->version);
        return -EPROTO;
    }
    dir_geom_t g = {.nendpoints = d->nendpoints, .nchannels = d->nchannels,
                    .ring_size = d->ring_size,   .nports = d->nports,
                    .nlanes = d->nlanes,         .lane_size = d->lane_size,
                    .nbarriers = d->nbarriers,   .nobjects = d->nobjects,
                    .nlocks = d->nlocks,         .log_size = d->log_size};
    int ok = g.nendpoints >= 2 && g.nendpoints <= IVCLIB_MAX_ENDPOINTS && g.nchannels >= 1 &&
             g.nchannels <= IVCLIB_MAX_SLOTS && pow2(g.ring_size) && g.ring_size >= 4096 &&
             g.ring_size <= IVCLIB_MAX_RING && g.nports >= 1 && g.nports <= IVCLIB_MAX_SLOTS &&
             g.nlanes >= 1 && g.nlanes <= IVCLIB_MAX_LANES && pow2(g.lane_size) &&
             g.lane_size >= 1024 && g.lane_size <= IVCLIB_MAX_RING && g.nbarriers >= 1 &&
             g.nbarriers <= IVCLIB_MAX_SLOTS && g.nobjects >= 1 && g.nobjects <= IVCLIB_MAX_SLOTS &&
             pow2(g.nlocks) && g.nlocks >= 64 && g.nlocks <= IVCLIB_MAX_LOCKS &&
             g.log_size >= 256 && g.log_size <= IVCLIB_MAX_LOG && g.log_size % 64 == 0;
    if (ok) {
        dir_layout(&g);
        ok = d->total == g.total && ivclib_in_heap(ivc, off, g.total) &&
             d->ep_off == off + g.ep_off && d->chan_off == off + g.chan_off &&
             d->port_off == off + g.port_off && d->bar_off == off + g.bar_off &&
             d->obj_off == off + g.obj_off && d->lock_off == off + g.lock_off &&
             d->log_off == off + g.log_off;
    }
    if (!ok) {
        ivc_error("libivc: region %s: the directory at %" PRIu64 " has an impossible geometry "
                  "(damaged)",
                  path, off);
        return -EPROTO;
    }
    ivc->dir_off = off;
    ivc->nendpoints = g.nendpoints;
    ivc->nchannels = g.nchannels;
    ivc->ring_size = g.ring_size;
    ivc->nports = g.nports;
    ivc->nlanes = g.nlanes;
    ivc->lane_size = g.lane_size;
    ivc->nbarriers = g.nbarriers;
    ivc->nobjects = g.nobjects;
    ivc->nlocks = g.nlocks;
    ivc->log_size = g.log_size;
    ivc->ep_off = off + g.ep_off;
    ivc->chan_off = off + g.chan_off;
    ivc->port_off = off + g.port_off;
    ivc->bar_off = off + g.bar_off;
    ivc->obj_off = off + g.obj_off;
    ivc->lock_off = off + g.lock_off;
    ivc->log_off = off + g.log_off;
    return 0;
}

/* Finds libivc's directory, setting it up when this is the first libivc process. */
static int dir_attach(ivc_t *ivc)
{
    ivc_region_hdr_t *h = ivc_region_hdr(&ivc->region);
    uint64_t deadline = ivc_now_ns() + DIR_SETUP_WAIT_MS * 1000000ull;
    for (;;) {
        /* A11: sees the formatted directory; pairs with R11 below. */
        uint64_t off = ivc_load_acquire(&h->lib_off);
        if (off > IVCLIB_DIR_BUSY)
            return dir_check(ivc, off);
        if (off == 0) {
            uint64_t expect = 0;
            if (!ivc_cas(&h->lib_off, &expect, IVCLIB_DIR_BUSY))
                continue;
            dir_geom_t g = {.nendpoints = (uint32_t)ivc->cfg.endpoints,
                            .nchannels = (uint32_t)ivc->cfg.channels,
                            .ring_size = (uint32_t)ivc->cfg.ring_size,
                            .nports = (uint32_t)ivc->cfg.ports,
                            .nlanes = (uint32_t)ivc->cfg.lanes,
                            .lane_size = (uint32_t)ivc->cfg.lane_size,
                            .nbarriers = (uint32_t)ivc->cfg.barriers,
                            .nobjects = (uint32_t)ivc->cfg.objects,
                            .nlocks = (uint32_t)ivc->cfg.locks,
                            .log_size = (uint32_t)ivc->cfg.log_size};
            dir_layout(&g);
            uint64_t block;
            int rc = ivc_region_alloc(&ivc->region, g.total, 4096, &block);
            if (rc != 0) {
                ivc_store_release(&h->lib_off, 0); /* let a later process try again */
                return rc;
            }
            memset(ivc->region.base + block, 0, g.total);
            dir_format(ivc, block, &g);
            /* R11: publishes the directory; pairs with A11 above. */
            ivc_store_release(&h->lib_off, block);
            return dir_check(ivc, block);
        }
        if (ivc_now_ns() > deadline) {
            ivc_error("libivc: region %s: another process began setting up libivc's area and "
                      "did not finish within %d ms",
                      ivc->region.path, DIR_SETUP_WAIT_MS);
            return -ETIMEDOUT;
        }
        usleep(1000);
    }
}

/* ---- liveness ---- */

int ivclib_alive(ivc_t *ivc, uint64_t who)
{
    uint32_t id = ivclib_who_id(who), gen = ivclib_who_gen(who);
    if (id >= ivc->nendpoints)
        return 0;
    if (who == ivc->who)
        return 1;
    ivclib_ep_t *ep = ivclib_ep(ivc, id);
    /* A12: pairs with R12 in ep_claim(). */
    uint32_t st = ivc_load_acquire(&ep->state);
    if ((st != IVCLIB_EP_ACTIVE && st != IVCLIB_EP_CLAIMED) || ivc_load_acquire(&ep->gen) != gen)
        return 0;
    uint64_t kid = ep->kernel_id;
    if (kid != 0 && kid == ivc->kernel_id) {
        int held = ivc_region_key_locked(&ivc->region, IVC_REGION_LOCK_LIB + id);
        if (held >= 0)
            return held;
    }
    /* Another kernel: the heartbeat must have moved within the timeout. */
    uint64_t beat = ivc_load_relaxed(&ep->heartbeat), now = ivc_now_ns();
    int alive = 1;
    pthread_mutex_lock(&ivc->live_mu);
    if (ivc->beat_gen[id] != gen || ivc->beat_seen[id] != beat) {
        ivc->beat_gen[id] = gen;
        ivc->beat_seen[id] = beat;
        ivc->beat_since[id] = now;
    } else if (now - ivc->beat_since[id] > ivc->cfg.liveness_ms * 1000000ull) {
        alive = 0;
    }
    pthread_mutex_unlock(&ivc->live_mu);
    return alive;
}

static void *heartbeat_main(void *arg)
{
    ivc_t *ivc = arg;
    ivclib_ep_t *ep = ivclib_ep(ivc, ivc->id);
    while (!ivc_load_relaxed(&ivc->hb_stop)) {
        ivc_store_relaxed(&ep->heartbeat, ivc_load_relaxed(&ep->heartbeat) + 1);
        struct timespec ts = {(time_t)(ivc->cfg.heartbeat_ms / 1000),
                              (long)(ivc->cfg.heartbeat_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* ---- the creation lock ---- */

int ivclib_create_lock(ivc_t *ivc)
{
    ivclib_dir_t *d = ivclib_dir(ivc);
    ivclib_waiter_t w;
    ivclib_waiter_init(&w, ivc, IVC_WAIT_BLOCK, CREATE_LOCK_WAIT_MS);
    for (;;) {
        uint64_t cur = 0;
        /* Acquire (in the CAS): sees what the previous holder created. */
        if (ivc_cas(&d->create_lock, &cur, ivc->who))
            return 0;
        if (cur == ivc->who)
            return 0; /* cannot happen: callers never nest */
        int rc = ivclib_wait_event(&w);
        if (rc < 0) {
            ivc_error("libivc: the creation lock of region %s stays held by endpoint %u",
                      ivc->region.path, ivclib_who_id(cur));
            return rc;
        }
        if (rc == 1 && !ivclib_alive(ivc, cur))
            ivc_cas(&d->create_lock, &cur, 0); /* its holder died: free it */
    }
}

void ivclib_create_unlock(ivc_t *ivc)
{
    ivc_store_release(&ivclib_dir(ivc)->create_lock, 0);
}

/* ---- registering ---- */

/* Whether slot `id`'s owner is gone for good, as far as can be told now: same kernel and
 * its lock released, or (when watch_ms > 0) its heartbeat still for watch_ms. */
static int ep_gone(ivc_t *ivc, uint32_t id, uint32_t watch_ms)
{
    ivclib_ep_t *ep = ivclib_ep(ivc, id);
    uint64_t who = ivclib_who(id, ivc_load_acquire(&ep->gen));
    uint64_t kid = ep->kernel_id;
    if (kid != 0 && kid == ivc->kernel_id)
        return !ivclib_alive(ivc, who);
    if (watch_ms == 0)
        return 0;
    uint64_t beat = ivc_load_relaxed(&ep->heartbeat);
    uint64_t end = ivc_now_ns() + (uint64_t)watch_ms * 1000000ull;
    while (ivc_now_ns() < end) {
        usleep(10000);
        if (ivc_load_relaxed(&ep->heartbeat) != beat)
            return 0;
    }
    return 1;
}

/* Claims slot `id`: CAS FREE -> CLAIMED (or ACTIVE -> CLAIMED over a gone owner), takes its
 * file lock, bumps the generation. Returns 0, or -EBUSY when the slot cannot be had. */
static int ep_try_claim(ivc_t *ivc, uint32_t id, uint32_t watch_ms)
{
    ivclib_ep_t *ep = ivclib_ep(ivc, id);
    uint32_t st = ivc_load_acquire(&ep->state);
    if (st == IVCLIB_EP_ACTIVE) {
        if (!ep_gone(ivc, id, watch_ms))
            return -EBUSY;
    } else if (st != IVCLIB_EP_FREE) {
        return -EBUSY; /* CLAIMED: another claimant at work */
    }
    if (!ivc_cas(&ep->state, &st, IVCLIB_EP_CLAIMED))
        return -EBUSY;
    int lrc = ivc_region_key_lock(&ivc->region, IVC_REGION_LOCK_LIB + id);
    int locked = lrc == 0;
    if (lrc == -EBUSY) {
        /* A live process of this kernel still holds it (it is leaving): not this one. */
        ivc_store_release(&ep->state, st);
        return -EBUSY;
    }
    ep->kernel_id = locked ? ivc->kernel_id : 0;
    ep->rank = ivc->rank;
    uint32_t gen = ivc_load_relaxed(&ep->gen) + 1;
    if (gen == 0)
        gen = 1;
    ivc->id = id;
    ivc->gen = gen;
    ivc->who = ivclib_who(id, gen);
    ivc_store_release(&ep->gen, gen);
    return 0;
}

/* Registers this process: a slot, a unique name, ACTIVE. */
static int ep_register(ivc_t *ivc, const char *name)
{
    uint32_t n = ivc->nendpoints, start = ivc->region.world_size < n ? ivc->region.world_size : 0;
    int rc = -ENOSPC;
    for (int pass = 0; pass < 2 && rc != 0; pass++) {
        uint32_t watch = pass == 0 ? 0 : (uint32_t)ivc->cfg.liveness_ms;
        if (ivc->rank >= 0 && (uint32_t)ivc->rank < n)
            rc = ep_try_claim(ivc, (uint32_t)ivc->rank, watch);
        for (uint32_t k = 0; k < n && rc != 0; k++)
            rc = ep_try_claim(ivc, (start + k) % n, watch);
    }
    if (rc != 0) {
        ivc_error("libivc: region %s: all %u endpoint ids are in use (IVC_LIB_ENDPOINTS sets "
                  "how many a new region gets)",
                  ivc->region.path, n);
        return -ENOSPC;
    }
    ivclib_ep_t *me = ivclib_ep(ivc, ivc->id);
    rc = ivclib_create_lock(ivc);
    if (rc != 0)
        goto err_slot;
    for (uint32_t k = 0; k < n; k++) {
        ivclib_ep_t *ep = ivclib_ep(ivc, k);
        if (k == ivc->id || ivc_load_acquire(&ep->state) != IVCLIB_EP_ACTIVE)
            continue;
        char other[IVCLIB_NAME_MAX];
        ivclib_name_copy(other, ep->name);
        if (strcmp(other, name) != 0)
            continue;
        /* A clean leaver frees its slot; a holder that died is judged as a slot is. */
        if (!ep_gone(ivc, k, (uint32_t)ivc->cfg.liveness_ms)) {
            ivclib_create_unlock(ivc);
            ivc_error("libivc: the name '%s' is taken by endpoint %u", name, k);
            rc = -EADDRINUSE;
            goto err_slot;
        }
        uint32_t st = IVCLIB_EP_ACTIVE;
        ivc_cas(&ep->state, &st, IVCLIB_EP_FREE);
    }
    memset(me->name, 0, sizeof(me->name));
    snprintf(me->name, sizeof(me->name), "%s", name);
    char host[256] = "";
    gethostname(host, sizeof(host));
    memset(me->host, 0, sizeof(me->host));
    snprintf(me->host, sizeof(me->host), "%.*s", IVCLIB_NAME_MAX - 1, host);
    /* A previous incarnation that died inside a commit left its redo log: finish it. */
    ivclib_log_recover(ivc, ivc->id, 0);
    ivclib_log_t *log = ivclib_log(ivc, ivc->id);
    ivc_store_relaxed(&log->state, IVCLIB_LOG_EMPTY);
    ivclib_door_open(ivc); /* its doorbell in the slot, before R12 */
    /* R12: publishes the slot; pairs with A12 in ivclib_alive() and the peer lists. */
    ivc_store_release(&me->state, IVCLIB_EP_ACTIVE);
    ivclib_create_unlock(ivc);
    return 0;

err_slot:
    ivc_store_release(&me->state, IVCLIB_EP_FREE);
    return rc;
}

/* ---- opening ---- */

static int env_int(const char *name, long long lo, long long hi, long long *out)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return -ENOENT;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) {
        ivc_error("libivc: %s=%s is not a number in [%lld, %lld]", name, s, lo, hi);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

/* Peeks at a region's first word without attaching: 1 when the memory is zero-filled (a
 * fresh ivshmem BAR or file that nobody formatted), 0 otherwise, -errno. */
static int region_blank(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -errno;
    const ivc_region_hdr_t *h = p;
    int blank = h->magic == 0 && ivc_load_acquire(&h->state) == IVC_REGION_EMPTY;
    munmap(p, 4096);
    return blank;
}

static uint64_t path_job(const char *path)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const char *s = path; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return (h & 0x7fffffffffffull) | 1;
}

static int region_open(ivc_t *ivc, const char *region, unsigned flags)
{
    long long rank = -1, size = 0, job = 0;
    int from_env = region == NULL;
    if (env_int("PMI_RANK", 0, INT32_MAX, &rank) == -EINVAL ||
        env_int("PMI_SIZE", 1, INT32_MAX, &size) == -EINVAL ||
        env_int("IVC_JOB", 0, INT64_MAX, &job) == -EINVAL)
        return -EINVAL;
    if (rank >= size)
        rank = -1, size = 0;
    ivc->rank = (int32_t)rank;
    if (region == NULL)
        region = getenv("IVC_REGION");
    char path[PATH_MAX];
    if (ivc_ivshmem_is_selector(region)) {
        ivc_ivshmem_t dev;
        int rc = ivc_ivshmem_select(NULL, region, &dev);
        if (rc != 0) {
            if (region == NULL || *region == '\0')
                ivc_error("libivc: no region: IVC_REGION is not set and this machine has no "
                          "ivshmem device");
            return rc == -ENODEV ? -ENOENT : rc;
        }
        snprintf(path, sizeof(path), "%s", dev.bar2);
    } else {
        if (strlen(region) >= sizeof(path))
            return -ENAMETOOLONG;
        snprintf(path, sizeof(path), "%s", region);
    }
    if ((flags & IVC_OPEN_CREATE) && access(path, F_OK) != 0 && errno == ENOENT) {
        /* O_EXCL: of several processes creating it at once, one sizes the file and the
         * first attacher formats it (region.c's CAS); nobody truncates another's. */
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            int rc = ftruncate(fd, (off_t)ivc->cfg.region_size) == 0 ? 0 : -errno;
            close(fd);
            if (rc != 0) {
                unlink(path);
                ivc_error("libivc: region %s: cannot size it: %s", path, strerror(-rc));
                return rc;
            }
        } else if (errno != EEXIST) {
            int rc = -errno;
            ivc_error("libivc: region %s: cannot create it: %s", path, strerror(-rc));
            return rc;
        }
        /* Another creator may still be sizing it. */
        struct stat st;
        for (int i = 0; i < 100 && stat(path, &st) == 0 && st.st_size < IVC_REGION_MIN_SIZE; i++)
            usleep(10000);
    }
    int blank = region_blank(path);
    if (blank < 0) {
        ivc_error("libivc: region %s: %s", path, strerror(-blank));
        return blank;
    }
    /* A zero-filled region is formatted by its first user: for the job this process belongs
     * to when it has one, else for a job of one rank (processes started by hand). Any
     * formatted region is attached as an observer: libivc never joins MPI's start-up. */
    int rc;
    if (blank)
        rc = ivc_region_attach(path, size ? (uint64_t)job : path_job(path),
                               size ? (uint32_t)size : 1, &ivc->region);
    else
        rc = ivc_region_attach(path, 0, 0, &ivc->region);
    if (rc != 0)
        return rc;
    if (from_env && job != 0 && ivc->region.job_id != (uint64_t)job) {
        ivc_error("libivc: region %s belongs to job %" PRIu64 ", not to this process's job %lld "
                  "(IVC_JOB)",
                  path, ivc->region.job_id, job);
        ivc_region_detach(&ivc->region, 0);
        return -ESRCH;
    }
    return 0;
}

int ivc_open(const char *region, const char *name, unsigned flags, ivc_t **out)
{
    if ((flags & ~IVC_OPEN_CREATE) != 0 || out == NULL || (name != NULL && !ivclib_name_ok(name)))
        return -EINVAL;
    ivc_log_level_from_env();
    ivc_t *ivc = calloc(1, sizeof(*ivc));
    if (ivc == NULL)
        return -ENOMEM;
    ivc->efd = -1;
    ivc->region.fd = -1;
    pthread_mutex_init(&ivc->live_mu, NULL);
    pthread_mutex_init(&ivc->obj_mu, NULL);
    int rc = ivclib_config_load(&ivc->cfg);
    if (rc != 0)
        goto err_free;
    ivc->kernel_id = ivc_region_kernel_id();
    rc = region_open(ivc, region, flags);
    if (rc != 0)
        goto err_free;
    rc = dir_attach(ivc);
    if (rc != 0)
        goto err_detach;
    ivc->beat_seen = calloc(ivc->nendpoints, sizeof(uint64_t));
    ivc->beat_since = calloc(ivc->nendpoints, sizeof(uint64_t));
    ivc->beat_gen = calloc(ivc->nendpoints, sizeof(uint32_t));
    if (ivc->beat_seen == NULL || ivc->beat_since == NULL || ivc->beat_gen == NULL) {
        rc = -ENOMEM;
        goto err_detach;
    }
    char auto_name[IVCLIB_NAME_MAX];
    if (name == NULL) {
        char host[64] = "";
        gethostname(host, sizeof(host));
        if (ivc->rank >= 0)
            snprintf(auto_name, sizeof(auto_name), "rank%d", ivc->rank);
        else
            snprintf(auto_name, sizeof(auto_name), "pid%d.%.16s", (int)getpid(), host);
        name = auto_name;
    }
    rc = ep_register(ivc, name);
    if (rc != 0)
        goto err_detach;
    if (pthread_create(&ivc->hb_thread, NULL, heartbeat_main, ivc) == 0)
        ivc->hb_running = 1;
    else
        ivc_warn("libivc: no heartbeat thread: peers on other kernels will call this endpoint "
                 "dead after %llu ms",
                 (unsigned long long)ivc->cfg.liveness_ms);
    ivc_debug("libivc: endpoint %u '%s' (gen %u) in region %s", ivc->id, name, ivc->gen,
              ivc->region.path);
    *out = ivc;
    return 0;

err_detach:
    ivc_region_detach(&ivc->region, 0);
err_free:
    free(ivc->beat_seen);
    free(ivc->beat_since);
    free(ivc->beat_gen);
    free(ivc);
    return rc;
}

int ivc_close(ivc_t *ivc)
{
    if (ivc == NULL)
        return 0;
    ivclib_event_stop(ivc);
    ivclib_chan_close_all(ivc);
    ivclib_port_close_all(ivc);
    ivclib_bar_close_all(ivc);
    ivclib_door_close(ivc);
    ivclib_ep_t *ep = ivclib_ep(ivc, ivc->id);
    /* R12 again: the slot is free; the file lock goes with the region's fd below. */
    ivc_store_release(&ep->state, IVCLIB_EP_FREE);
    if (ivc->hb_running) {
        ivc_store_relaxed(&ivc->hb_stop, 1);
        pthread_join(ivc->hb_thread, NULL);
    }
    ivc_region_detach(&ivc->region, 0);
    free(ivc->beat_seen);
    free(ivc->beat_since);
    free(ivc->beat_gen);
    free(ivc->chans);
    free(ivc->ports);
    free(ivc->bars);
    free(ivc->lanes);
    pthread_mutex_destroy(&ivc->live_mu);
    pthread_mutex_destroy(&ivc->obj_mu);
    free(ivc);
    return 0;
}

uint32_t ivc_id(const ivc_t *ivc)
{
    return ivc->id;
}

uint32_t ivc_max_endpoints(const ivc_t *ivc)
{
    return ivc->nendpoints;
}

/* ---- peers and names ---- */

int ivc_peers(ivc_t *ivc, ivc_peer_t *out, int max)
{
    int count = 0;
    for (uint32_t k = 0; k < ivc->nendpoints; k++) {
        ivclib_ep_t *ep = ivclib_ep(ivc, k);
        if (k == ivc->id || ivc_load_acquire(&ep->state) != IVCLIB_EP_ACTIVE)
            continue;
        if (!ivclib_alive(ivc, ivclib_who(k, ivc_load_acquire(&ep->gen))))
            continue;
        if (count < max && out != NULL) {
            ivc_peer_t *p = &out[count];
            p->id = k;
            p->rank = ep->rank;
            ivclib_name_copy(p->name, ep->name);
            ivclib_name_copy(p->host, ep->host);
        }
        count++;
    }
    return count;
}

int ivc_lookup(ivc_t *ivc, const char *name, int timeout_ms)
{
    if (!ivclib_name_ok(name))
        return -EINVAL;
    ivclib_waiter_t w;
    ivclib_waiter_init(&w, ivc, IVC_WAIT_BLOCK, timeout_ms);
    for (;;) {
        for (uint32_t k = 0; k < ivc->nendpoints; k++) {
            ivclib_ep_t *ep = ivclib_ep(ivc, k);
            if (ivc_load_acquire(&ep->state) != IVCLIB_EP_ACTIVE)
                continue;
            char other[IVCLIB_NAME_MAX];
            ivclib_name_copy(other, ep->name);
            if (strcmp(other, name) == 0 &&
                ivclib_alive(ivc, ivclib_who(k, ivc_load_acquire(&ep->gen))))
                return (int)k;
        }
        if (timeout_ms == 0)
            return -ENOENT;
        /* Looking up is rare: give the core away at once. */
        w.rounds = w.rounds < w.spin ? w.spin : w.rounds;
        int rc = ivclib_wait_event(&w);
        if (rc < 0)
            return rc;
    }
}

/* ---- shared blocks ---- */

void *ivc_ptr(const ivc_t *ivc, uint64_t off, uint64_t len)
{
    return ivc_region_at(&ivc->region, off, len);
}

int ivc_shm_get(ivc_t *ivc, const char *name, uint64_t size, uint64_t *off, uint64_t *size_out)
{
    if (!ivclib_name_ok(name) || size == 0 || off == NULL)
        return -EINVAL;
    int rc = ivclib_create_lock(ivc);
    if (rc != 0)
        return rc;
    int free_slot = -1;
    for (uint32_t k = 0; k < ivc->nobjects; k++) {
        ivclib_obj_t *o = ivclib_obj(ivc, k);
        /* A20: pairs with R20 below. */
        uint32_t st = ivc_load_acquire(&o->state);
        if (st == IVCLIB_OBJ_FREE) {
            if (free_slot < 0)
                free_slot = (int)k;
            continue;
        }
        char other[IVCLIB_NAME_MAX];
        ivclib_name_copy(other, o->name);
        if (strcmp(other, name) != 0)
            continue;
        uint64_t o_off = o->off, o_size = o->size;
        ivclib_create_unlock(ivc);
        if (!ivclib_in_heap(ivc, o_off, o_size)) {
            ivc_error("libivc: shared block '%s' lies outside the heap (%" PRIu64 "+%" PRIu64
                      "): damaged",
                      name, o_off, o_size);
            return -EPROTO;
        }
        if (o_size < size)
            return -EINVAL;
        *off = o_off;
        if (size_out != NULL)
            *size_out = o_size;
        return 0;
    }
    if (free_slot < 0) {
        ivclib_create_unlock(ivc);
        return -ENFILE;
    }
    uint64_t block;
    size = line_up(size);
    rc = ivc_region_alloc(&ivc->region, size, IVC_CACHE_LINE, &block);
    if (rc != 0) {
        ivclib_create_unlock(ivc);
        return rc;
    }
    memset(ivc->region.base + block, 0, size);
    ivclib_obj_t *o = ivclib_obj(ivc, (uint32_t)free_slot);
    o->off = block;
    o->size = size;
    memset(o->name, 0, sizeof(o->name));
    snprintf(o->name, sizeof(o->name), "%s", name);
    /* R20: publishes the block; pairs with A20 above. */
    ivc_store_release(&o->state, IVCLIB_OBJ_READY);
    ivclib_create_unlock(ivc);
    *off = block;
    if (size_out != NULL)
        *size_out = size;
    return 0;
}

/* ---- the handle's object lists ---- */

int ivclib_track(ivc_t *ivc, void ***arr, uint32_t *n, uint32_t *cap, void *obj)
{
    pthread_mutex_lock(&ivc->obj_mu);
    if (*n == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 8;
        void **na = realloc(*arr, ncap * sizeof(void *));
        if (na == NULL) {
            pthread_mutex_unlock(&ivc->obj_mu);
            return -ENOMEM;
        }
        *arr = na;
        *cap = ncap;
    }
    (*arr)[(*n)++] = obj;
    pthread_mutex_unlock(&ivc->obj_mu);
    return 0;
}

void ivclib_untrack(ivc_t *ivc, void **arr, uint32_t *n, void *obj)
{
    pthread_mutex_lock(&ivc->obj_mu);
    for (uint32_t i = 0; i < *n; i++)
        if (arr[i] == obj) {
            arr[i] = arr[--*n];
            break;
        }
    pthread_mutex_unlock(&ivc->obj_mu);
}

const char *ivc_strerror(int err)
{
    switch (err) {
    case 0: return "success";
    case -EPROTO: return "a peer corrupted the shared structures (or the region is not IVC's)";
    case -ECONNRESET: return "the peer died";
    case -EPIPE: return "the peer closed the channel";
    case -EOWNERDEAD: return "a participant died or left";
    case -EHOSTUNREACH: return "no such live endpoint or port";
    case -ECONNREFUSED: return "the peer closed or died before accepting";
    case -ENFILE: return "a table of the region's libivc area is full";
    case -ENOSPC: return "every endpoint id is in use";
    default: return strerror(err < 0 ? -err : err);
    }
}
