/* The communication coordinator: one virtual connection (VC) per peer, holding the channel
 * that reaches it and its state. At start-up the locality detector's membership table
 * decides: a peer that joined this region gets the shm channel, this rank itself the self
 * channel, and a peer on another host (in another region) the network channel.
 *
 * Changing a peer's channel while the job runs (VM migration) follows the VC states:
 *   ACTIVE --suspend--> SUSPENDING --drained--> CONNECTING --connected--> ACTIVE
 * SUSPENDING: new sends to the peer are queued in the VC, in order, while what is already
 * in flight on the old channel completes. CONNECTING: the new channel's endpoint is being
 * set up; queued sends wait. The invariant that keeps MPI's non-overtaking rule: a sender
 * numbers its messages to each peer (the network channel carries the numbers on the wire)
 * and a receiver hands messages up in number order, whichever channel brought them, so a
 * message on the new channel cannot pass one still in the old one; since matching happens
 * above the channels in one queue, MPI_ANY_SOURCE receives see one order across channels.
 * The switch itself (VM migration) is coord_move.h's: there a receiver takes a peer's
 * messages from one channel at a time, and flush markers say when to change.
 *
 * The MPI layer calls only the inline functions below, so it never branches on which
 * transport carries a message. */
#ifndef IVC_COORD_H
#define IVC_COORD_H

#include "../boot/boot.h"
#include "../chan/chan.h"
#include "../region/region.h"
#include "../net/net_chan.h"
#include "../shm/shm_chan.h"
#include "sock_chan.h"
#include "coord_move.h"

#include <errno.h>
#include <stdint.h>

enum {
    IVC_VC_CLOSED = 0,     /* no channel: the peer is unreachable */
    IVC_VC_ACTIVE = 1,     /* messages flow through `ops` */
    IVC_VC_SUSPENDING = 2, /* draining the old channel; new sends queue (migration) */
    IVC_VC_CONNECTING = 3, /* setting up the new channel; sends still queue (migration) */
};

typedef struct ivc_vc {
    const ivc_chan_ops_t *ops;
    void *ep;
    uint32_t state;
    /* Sends were refused (a failed peer, no memory): the peer's count of arrivals may no
     * longer match `sent`, so no message to it is named by its number any more. */
    uint32_t serial_bad;
    uint64_t sent; /* messages handed to a channel for this peer (ivc_chan_op_t.serial) */
} ivc_vc_t;

typedef struct ivc_coord_config {
    uint64_t spin;             /* IVC_SPIN: polls before yielding; 0 = auto */
    uint64_t startup_timeout;  /* IVC_STARTUP_TIMEOUT: seconds to wait for all ranks */
    uint64_t migrate;          /* IVC_MIGRATE: VMs may move while the job runs */
    const char *host_regions;  /* IVC_HOST_REGIONS: the job's host regions, ':'-separated */
    uint64_t move_device_wait; /* IVC_MOVE_DEVICE_WAIT: s a guest's rank waits for its device */
    const char *move_test_die; /* IVC_MOVE_TEST_DIE: testing only, coord_move.c */
    int thread_multiple;       /* IVC_THREAD_MULTIPLE: grant MPI_THREAD_MULTIPLE when asked */
} ivc_coord_config_t;

extern const ivc_cfg_table_t ivc_coord_config_table;

typedef struct ivc_coord {
    ivc_boot_t boot;
    ivc_coord_config_t cfg;
    ivc_shm_config_t shm_cfg;
    ivc_region_t region;
    int have_region;
    int created_region;    /* this rank made the region file (and removes its name) */
    ivc_vc_t *vcs;         /* one per global rank, then one per dynamic-process peer */
    uint32_t nvcs;         /* boot.size + dynamic-process peers added (ivc_coord_sock_add) */
    ivc_sock_chan_t *sock; /* dynamic-process peers' sockets; NULL while none */
    uint32_t *local;       /* global ranks sharing this rank's region, ascending */
    uint32_t nlocal;
    uint32_t my_local;   /* this rank's index in local[] */
    ivc_shm_chan_t *shm; /* NULL when alone */
    ivc_net_chan_t *net; /* NULL when every rank shares this region */
    void *self;          /* the self channel */
    /* Set by the liveness thread when a slot turned FAILED; the progressing thread
     * clears it and handles the failures (coord_fail.c). */
    IVC_ATOMIC(uint32_t) fail_pending;
    IVC_ATOMIC(uint32_t) aborting;  /* this rank is aborting the job (its slot: ABORTED) */
    ivc_chan_upcalls_t mpi_up;      /* the MPI layer's upcalls */
    ivc_chan_upcalls_t chan_up;     /* what the channels call: mpi_up, failures wrapped */
    int migrate;                    /* IVC_MIGRATE=1 (coord_move.h) */
    ivc_chan_upcalls_t chan_up_shm; /* migration: chan_up with the channel noted */
    ivc_chan_upcalls_t chan_up_net;
    uint32_t poll_count; /* progress calls, to pace the abort check */
    uint32_t net_quiet;  /* network polls in a row that found nothing (capped) */
    uint32_t net_skip;   /* progress calls while polling the network less often */
} ivc_coord_t;

extern ivc_coord_t ivc_coord;

/* Bootstraps this rank: reads the launch environment and the tunables, attaches the
 * region, joins its membership table, waits for every rank, and builds one VC per peer.
 * `up` receives arriving messages. Returns 0 or -errno (already logged). */
int ivc_coord_init(const ivc_chan_upcalls_t *up);

/* Waits for every rank to finalize, marks this rank FINALIZED and detaches. Returns 0 or
 * -errno. */
int ivc_coord_finalize(void);

/* Marks the job aborted by this rank with `code` (so peers and the launcher see it) and
 * this rank's slot ABORTED. Does not exit. */
void ivc_coord_abort(int code);

/* If another rank aborted the job, returns 1 and its rank and code. Cheap enough to call
 * from waits every few hundred rounds. */
int ivc_coord_aborted(uint32_t *rank, int *code);

/* Sleeps on this rank's doorbell (region/door.h) when the waiting policy says so: announces
 * the sleep, calls recheck(arg) (which progresses and looks at what the caller waits for:
 * > 0 when something is there), and sleeps only if it found nothing, until a peer rings or
 * IVC_WAIT_TIMEOUT passes. Returns recheck's count (0 after a sleep a ring ended). */
int ivc_coord_sleep(int (*recheck)(void *), void *arg);

/* Dynamic processes: adds the peer of another job reached through the connected stream
 * socket fd (taken over) as a new world id (>= boot.size), returned in *id. Its failure is
 * reported like any peer's (on_peer_failed with -ECONNRESET when its socket closes without
 * a goodbye). Returns 0 or -ENOMEM. */
int ivc_coord_sock_add(int fd, int *id);

/* Says goodbye to dynamic-process peer `id` (MPI_Comm_disconnect): its socket's end is then
 * no failure. */
void ivc_coord_sock_bye(int id);

/* Progress of every channel; returns the number of events. */
int ivc_coord_progress(void);

/* The CPUs this host's co-located ranks may use together, learnt by the MPI layer from
 * their affinity masks (a rank bound to one core sees only that one at start-up): sets the
 * automatic spin count (IVC_SPIN=0) from it. */
void ivc_coord_host_cpus(uint32_t cpus);

/* Numbers the message before the channel sees it: a send a channel makes while handing it
 * over (the self channel's upcalls run later, from progress) would otherwise take a number
 * out of order. */
static inline int ivc_coord_send(uint32_t peer, ivc_chan_op_t *op)
{
    ivc_vc_t *vc = &ivc_coord.vcs[peer];
    op->serial = ++vc->sent;
    int rc = vc->ops->send(vc->ep, op);
    if (__builtin_expect(rc < 0, 0))
        vc->serial_bad = 1;
    return rc;
}

/* Whether this rank's messages to `peer` can still be named by their numbers. */
static inline int ivc_coord_serial_ok(uint32_t peer)
{
    return peer < ivc_coord.nvcs && !ivc_coord.vcs[peer].serial_bad;
}

/* The channel that answers message m: the one that brought it, which after a switch need
 * not be the peer's VC (ep NULL: that channel is gone). */
static inline ivc_vc_t ivc_coord_answer_vc(const ivc_inmsg_t *m)
{
    if (__builtin_expect(ivc_coord.migrate, 0) && m->via != IVC_VIA_VC) {
        ivc_vc_t vc = {.state = IVC_VC_ACTIVE};
        ivc_coord_move_route((uint32_t)m->peer, m->via, &vc.ops, &vc.ep);
        return vc;
    }
    return ivc_coord.vcs[m->peer];
}

static inline int ivc_coord_recv_rndv(const ivc_inmsg_t *m, ivc_chan_op_t *op)
{
    ivc_vc_t vc = ivc_coord_answer_vc(m);
    return vc.ep != NULL ? vc.ops->recv_rndv(vc.ep, m, op) : -ENOTCONN;
}

static inline int ivc_coord_send_ack(const ivc_inmsg_t *m)
{
    ivc_vc_t vc = ivc_coord_answer_vc(m);
    return vc.ep != NULL ? vc.ops->send_ack(vc.ep, m->cookie) : -ENOTCONN;
}

/* ---- peer failures (coord_fail.c) ----
 * A co-located peer is declared failed when its process is gone (its lock on the region
 * file was released: simulated VMs, containers, hand-started ranks on one host) or its
 * heartbeat word stopped for IVC_LIVENESS_TIMEOUT (real guests; any region); a peer on
 * another host when its network connection breaks; any peer that breaks the shared-memory
 * protocol. The first rank to see it writes it into the victim's membership slot (state
 * FAILED, how, by whom), so every rank of the region learns it, and the channels fail what
 * involves the peer: the MPI layer hears of each failed peer once, through the channels'
 * on_peer_failed upcall, called from ivc_coord_progress() on the thread that progresses, with
 * err -EOWNERDEAD (the process died or went silent), -EPROTO (it broke the protocol) or
 * -ECONNRESET (its network connection broke). */
/* How a peer failed: IVC_FAIL_* of region_layout.h (ivc_member_t.fail_how). */

/* Whether this process knows `rank` (a global rank) failed; cheap. */
int ivc_coord_peer_failed(uint32_t rank);

/* Declares co-located `rank` failed because what it owns in the region broke the protocol
 * (`what`: a few words naming the area, kept in its slot's failure record): logs it, fails
 * the channel's operations with it and tells the MPI layer, like a violation a channel
 * finds itself. Once per rank. */
void ivc_coord_peer_broke(uint32_t rank, const char *what);

/* Number of peers this process knows to have failed; only grows. */
uint32_t ivc_coord_nfailed(void);

/* Writes one line saying how `rank` failed and who saw it ("rank 2 ended without
 * MPI_Finalize (its lock on the region was released), seen by rank 0"), or that it did not.
 * Returns buf. */
const char *ivc_coord_failure_text(uint32_t rank, char *buf, size_t len);

/* Prints every layer's tunables with their current values (ivc-info). Returns 0, or
 * -EINVAL when a variable is invalid (already logged, naming it). */
int ivc_coord_print_config(FILE *f);

#endif
