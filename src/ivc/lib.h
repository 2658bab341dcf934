/* libivc internals: the handle, validated access to libivc's region structures, liveness
 * and the one waiting function. Internal names are ivclib_*; the public API (include/ivc.h)
 * is ivc_*. */
#ifndef IVC_LIB_H
#define IVC_LIB_H

#include "../region/region.h"
#include "lib_config.h"
#include "lib_layout.h"
#include "lib_ring.h"

#include <ivc.h>
#include <pthread.h>
#include <stdint.h>

struct ivc {
    ivc_region_t region;
    ivclib_config_t cfg;
    /* The directory's geometry, copied from the region and checked once at open: later
     * code trusts only these copies (a scribbled directory cannot redirect this process). */
    uint64_t dir_off;
    uint32_t nendpoints, nchannels, ring_size, nports, nlanes, lane_size, nbarriers, nobjects,
        nlocks, log_size;
    uint64_t ep_off, chan_off, port_off, bar_off, obj_off, lock_off, log_off;

    uint32_t id, gen; /* this endpoint */
    uint64_t who;
    int32_t rank;
    uint64_t kernel_id;

    /* Heartbeat thread. */
    pthread_t hb_thread;
    int hb_running;
    IVC_ATOMIC(uint32_t) hb_stop;

    /* Liveness judgements by heartbeat (peers on other kernels), per endpoint id. Guarded
     * by live_mu (the user's thread and the event watcher both judge). */
    pthread_mutex_t live_mu;
    uint64_t *beat_seen, *beat_since;
    uint32_t *beat_gen;

    /* Open objects, guarded by obj_mu (the event watcher walks them). */
    pthread_mutex_t obj_mu;
    struct ivc_chan **chans;
    uint32_t nchans, cap_chans;
    struct ivc_port **ports;
    uint32_t nports_open, cap_ports;
    struct ivc_barrier **bars;
    uint32_t nbars, cap_bars;

    /* Event fd and its watcher. */
    int efd;
    pthread_t ev_thread;
    int ev_running;
    IVC_ATOMIC(uint32_t) ev_stop;

    /* Sender lanes this endpoint holds (datagrams): a small cache. */
    struct ivclib_lane_ref *lanes;
    uint32_t nlane_refs, cap_lane_refs;

    /* Minitransactions: when a blocked commit last looked at the blocker's liveness. */
    uint64_t mtx_live_ns;

    /* This endpoint's doorbell (lib_door.c), or NULL. */
    struct ivclib_door *door;
};

struct ivc_chan {
    ivc_t *ivc;
    uint32_t slot;
    uint32_t side; /* 0: connector (a), 1: acceptor (b) */
    uint32_t peer_id, port;
    uint64_t peer_who;
    ivclib_chan_t *sh;
    ivclib_ring_t tx, rx;
    int err;              /* sticky: -EPROTO or -ECONNRESET once seen */
    uint64_t next_live_ns; /* next liveness look while the ring is idle */
};

struct ivc_port {
    ivc_t *ivc;
    uint32_t slot, port;
    ivclib_port_t *sh;
    uint64_t lanes_off;
    uint32_t nlanes, lane_size;
    ivclib_ring_t *rx; /* one consumer view per lane */
    uint32_t next_lane; /* round robin */
};

struct ivc_barrier {
    ivc_t *ivc;
    uint32_t slot, count, part_idx;
    ivclib_bar_t *sh;
};

/* Slots, by index below the validated counts. */
static inline ivclib_ep_t *ivclib_ep(const ivc_t *ivc, uint32_t id)
{
    return (ivclib_ep_t *)(ivc->region.base + ivc->ep_off) + id;
}
static inline ivclib_chan_t *ivclib_chan(const ivc_t *ivc, uint32_t i)
{
    return (ivclib_chan_t *)(ivc->region.base + ivc->chan_off) + i;
}
static inline ivclib_port_t *ivclib_port(const ivc_t *ivc, uint32_t i)
{
    return (ivclib_port_t *)(ivc->region.base + ivc->port_off) + i;
}
static inline ivclib_bar_t *ivclib_bar(const ivc_t *ivc, uint32_t i)
{
    return (ivclib_bar_t *)(ivc->region.base + ivc->bar_off) + i;
}
static inline ivclib_obj_t *ivclib_obj(const ivc_t *ivc, uint32_t i)
{
    return (ivclib_obj_t *)(ivc->region.base + ivc->obj_off) + i;
}
static inline IVC_ATOMIC(uint64_t) *ivclib_lock(const ivc_t *ivc, uint32_t i)
{
    return (IVC_ATOMIC(uint64_t) *)(ivc->region.base + ivc->lock_off) + i;
}
static inline ivclib_log_t *ivclib_log(const ivc_t *ivc, uint32_t id)
{
    return (ivclib_log_t *)(ivc->region.base + ivc->log_off + (uint64_t)id * ivc->log_size);
}
static inline ivclib_dir_t *ivclib_dir(const ivc_t *ivc)
{
    return (ivclib_dir_t *)(ivc->region.base + ivc->dir_off);
}

/* Whether [off, off+len) lies in the region's heap (where every libivc block lives). */
static inline int ivclib_in_heap(const ivc_t *ivc, uint64_t off, uint64_t len)
{
    return off >= ivc->region.heap_off && off <= ivc->region.heap_end &&
           len <= ivc->region.heap_end - off;
}

/* Whether the endpoint incarnation `who` is alive: its slot still holds that incarnation
 * ACTIVE, and its process runs (its lock on the region file is held, when its kernel is
 * this one's; else its heartbeat moved within IVC_LIB_LIVENESS_TIMEOUT). 1 alive, 0 not.
 * Costs a system call for a peer on this kernel: callers rate-limit it. */
int ivclib_alive(ivc_t *ivc, uint64_t who);

/* The creation lock (ivclib_dir_t.create_lock): serialises find-or-create of named
 * objects. Waits (recovering it from a dead holder). Returns 0 or -ETIMEDOUT. */
int ivclib_create_lock(ivc_t *ivc);
void ivclib_create_unlock(ivc_t *ivc);

/* Copies a name out of the region: NUL-terminated, printable characters only. */
void ivclib_name_copy(char dst[IVCLIB_NAME_MAX], const char *src);
/* Whether `name` is a valid name (1 .. IVC_NAME_MAX-1 printable characters). */
int ivclib_name_ok(const char *name);

/* Adds or removes an object in the handle's lists (obj_mu). Return 0 or -ENOMEM. */
int ivclib_track(ivc_t *ivc, void ***arr, uint32_t *n, uint32_t *cap, void *obj);
void ivclib_untrack(ivc_t *ivc, void **arr, uint32_t *n, void *obj);

/* ---- waiting ----
 *
 * Every blocking call of libivc waits through ivclib_wait_event: spin with a pause, then
 * sched_yield, then sleep. A waiter that says what it waits for (ivclib_waiter_ready)
 * sleeps on its endpoint's doorbell where it has one (lib_door.c), and the writers ring it
 * (ivclib_kick after every publication a peer may wait for: ring bytes and room, channel
 * requests, accepts and closes, datagrams, barrier releases); other waits, and endpoints
 * without a doorbell, sleep in short nanosleeps doubling up to IVC_LIB_SLEEP_MAX. */
typedef struct ivclib_waiter {
    const ivc_t *ivc;
    int mode;            /* IVC_WAIT_* */
    uint32_t rounds;     /* polls so far */
    uint32_t spin, yields;
    uint32_t sleep_ns, sleep_max_ns;
    int timeout_ms;      /* as given: -1 none, 0 do not wait */
    uint64_t deadline;   /* ivc_now_ns() value, 0: none (yet) */
    uint64_t next_check; /* when the caller should next look at liveness; 0: clock not read */
    int (*ready)(void *); /* what it waits for is there (or needs a look); NULL: unknown */
    void *ready_arg;
} ivclib_waiter_t;

#define IVCLIB_CHECK_NS 1000000ull /* liveness looks while waiting: every ms */

void ivclib_waiter_init(ivclib_waiter_t *w, const ivc_t *ivc, int mode, int timeout_ms);
/* Lets the waiter sleep on the doorbell: ready(arg) != 0 when the awaited thing is there
 * (or the caller should look: a close, an error), read after announcing the sleep. */
static inline void ivclib_waiter_ready(ivclib_waiter_t *w, int (*ready)(void *), void *arg)
{
    w->ready = ready;
    w->ready_arg = arg;
}
/* One step of waiting. Returns 0 (poll again), 1 (poll again, and about a millisecond
 * passed since the last 1, or a sleep ended: look at liveness too) or -ETIMEDOUT. */
int ivclib_wait_event(ivclib_waiter_t *w);

/* Doorbells (lib_door.c). open: after the endpoint's slot is claimed, before it is ACTIVE;
 * publishes the doorbell in the slot (or none). close: before the slot is freed. */
void ivclib_door_open(ivc_t *ivc);
void ivclib_door_close(ivc_t *ivc);
/* Rings endpoint `id` now (if it shares this endpoint's doorbell domain). */
void ivclib_door_ring(const ivc_t *ivc, uint32_t id);
/* The sleeper's side: announce, ready(arg), sleep up to timeout_ns unless ready, awake.
 * Returns 1 (ready, or rung: poll again), 0 (the sleep timed out) or -EAGAIN when it
 * cannot sleep on the doorbell (none, or a live endpoint that could not ring it): the
 * caller backs off otherwise. */
int ivclib_door_wait(const ivc_t *ivc, int (*ready)(void *), void *arg, uint64_t timeout_ns);

/* Publisher side: after publishing anything endpoint `id` may wait for. */
static inline void ivclib_kick(const ivc_t *ivc, uint32_t id)
{
    if (ivc->door == NULL || id >= ivc->nendpoints)
        return;
    /* D2: orders the publication before the load of the count; pairs with D1 in
     * ivclib_door_wait(). */
    ivc_fence_seq_cst();
    if (__builtin_expect(ivc_load_relaxed(&ivclib_ep(ivc, id)->sleepers) != 0, 0))
        ivclib_door_ring(ivc, id);
}

/* Teardown helpers of the objects, used by ivc_close. */
void ivclib_chan_close_all(ivc_t *ivc);
void ivclib_port_close_all(ivc_t *ivc);
void ivclib_bar_close_all(ivc_t *ivc);
void ivclib_event_stop(ivc_t *ivc);
/* Readiness of one poll entry (0 if none); used by ivc_poll and the event watcher. */
short ivclib_poll_one(ivc_t *ivc, ivc_pollent_t *e, int check_live);
/* Whether anything of the handle is ready (event watcher). */
int ivclib_any_ready(ivc_t *ivc);
/* Applies the redo log of endpoint slot `id` if it holds the complete, unapplied writes of
 * the dead committer `dead_who` (0: of whoever wrote it; for a slot this process just
 * claimed), then empties it. Returns 0, -EAGAIN when a live recoverer is at it, -EPROTO
 * for a damaged log (emptied without applying anything: reported, never half applied). */
int ivclib_log_recover(ivc_t *ivc, uint32_t id, uint64_t dead_who);

#endif
