/* VM migration: the switch of each pair between channels (protocol in coord_move.h). */
#define _GNU_SOURCE
#include "coord_move.h"

#include "coord.h"
#include "coord_fail.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"
#include "../region/region_dest.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Tags of IVC_MOVE_CTX messages. */
enum {
    MOVE_FLUSH = 1, /* nothing more comes from the sender on the channel that carried this */
    MOVE_HELLO = 2, /* (network) the sender joined this rank's region */
};

/* Pair states (per peer). */
enum {
    PAIR_IDLE = 0,
    PAIR_CLOSING,  /* shm -> network: waiting for the peer's FLUSH through shm */
    PAIR_DRAINING, /* both FLUSHes passed; waiting for shm operations with it to end */
};

/* A message held because it came through the channel this rank does not yet accept from
 * its sender; eager payloads are copied. */
typedef struct held {
    struct held *next;
    ivc_inmsg_t m;
    void *buf;
    int via;
} held_t;

typedef struct move_peer {
    uint8_t via_in;   /* the channel whose messages are accepted (IVC_VIA_SHM or _NET) */
    uint8_t pair;     /* PAIR_* */
    uint8_t hello;    /* arriving: HELLO sent, this pair's switch to shm not yet done */
    uint8_t hello_in; /* the peer's HELLO, waiting for the last pair with it to close */
    uint8_t answered; /* resident: the peer's HELLO answered; its FLUSH through the network due */
    uint32_t owed;    /* messages received through shm whose answer (CTS, ACK) is owed */
    held_t *head, *tail;
} move_peer_t;

static struct {
    int on;
    char **regions; /* the job's host regions (IVC_HOST_REGIONS) */
    uint32_t nregions, cur;
    uint32_t *all;         /* every rank of the job: a sparse shm channel's local set */
    move_peer_t *peers;    /* per global rank */
    ivc_chan_upcalls_t up; /* the coordinator's upcalls (to the MPI layer) */
    int leaving, arriving;
    int plugging;          /* a guest's rank left its device; waiting for the next one */
    uint64_t plug_until;   /* ns: when waiting for it is given up */
    uint64_t plug_scan_at; /* ns: the next scan of the PCI devices */
    uint64_t seq;          /* the order being carried out */
    uint64_t t0_ns;        /* when it was read */
    uint64_t last_order;
    uint32_t polls;
    int closed;       /* in MPI_Finalize: no new orders */
    uint64_t warn_at; /* ns: when a slow drain is reported */
} mv;

static int via_shm_tag = IVC_VIA_SHM, via_net_tag = IVC_VIA_NET;

/* IVC_MOVE_TEST_DIE (testing only; tests/migrate/die.c): the points of a switch at which
 * a moving rank kills itself, as a VM that dies mid-switch would, so that a test can show
 * its peers report it rather than hang. */
static const char *const die_points[] = {"drain", "moved", "hello"};

static void test_die(const char *point)
{
    const char *want = ivc_coord.cfg.move_test_die;
    if (want != NULL && strcmp(want, point) == 0)
        raise(SIGKILL);
}

static const ivc_chan_ops_t *ops_of(int via)
{
    return via == IVC_VIA_SHM ? &ivc_shm_chan_ops : &ivc_net_chan_ops;
}

static void *ep_of(int via, uint32_t peer)
{
    ivc_coord_t *c = &ivc_coord;
    if (via == IVC_VIA_SHM)
        return c->shm != NULL ? ivc_shm_chan_endpoint(c->shm, peer) : NULL;
    return c->net != NULL ? ivc_net_chan_endpoint(c->net, peer) : NULL;
}

void ivc_coord_move_route(uint32_t peer, int via, const ivc_chan_ops_t **ops, void **ep)
{
    *ops = ops_of(via);
    *ep = ep_of(via, peer);
    if (via == IVC_VIA_SHM && mv.peers != NULL && mv.peers[peer].owed > 0)
        mv.peers[peer].owed--; /* the caller answers it now */
}

static void ctl_done(ivc_chan_op_t *op, int status)
{
    (void)status; /* a failed peer's pair is ended by its failure */
    free(op);
}

/* Sends a zero-byte coordinator message with `tag` to `peer` through channel `via`. */
static int ctl_send(uint32_t peer, int via, int tag)
{
    void *ep = ep_of(via, peer);
    ivc_chan_op_t *op = calloc(1, sizeof(*op));
    if (op == NULL || ep == NULL) {
        free(op);
        return ep == NULL ? -ENOTCONN : -ENOMEM;
    }
    op->env.ctx = IVC_MOVE_CTX;
    op->env.src = (int32_t)ivc_coord.boot.rank;
    op->env.tag = tag;
    op->done = ctl_done;
    int rc = ops_of(via)->send(ep, op);
    if (rc != 0)
        free(op); /* 1: sent at once; < 0: failed */
    if (rc < 0)
        ivc_warn("migration: cannot send %s to rank %u: %s", tag == MOVE_FLUSH ? "FLUSH" : "HELLO",
                 peer, strerror(-rc));
    return rc < 0 ? rc : 0;
}

static void set_vc(uint32_t peer, int via)
{
    /* The message numbers (sent, serial_bad) run on across the switch. */
    ivc_vc_t *vc = &ivc_coord.vcs[peer];
    vc->ops = ops_of(via);
    vc->ep = ep_of(via, peer);
    vc->state = IVC_VC_ACTIVE;
}

static void hand_up(ivc_inmsg_t *m, int via)
{
    m->via = via;
    if (via == IVC_VIA_SHM && (m->rndv || (m->env.flags & IVC_ENV_SYNC)))
        mv.peers[m->peer].owed++;
    mv.up.on_message(mv.up.arg, m);
}

static void dispatch(ivc_inmsg_t *m, int via);

/* The peer's messages from `via` are accepted from now on: those held go on, in order (a
 * held marker may switch again, and hold what follows it anew). */
static void accept_from(uint32_t peer, int via)
{
    move_peer_t *p = &mv.peers[peer];
    p->via_in = (uint8_t)via;
    held_t *h = p->head;
    p->head = p->tail = NULL;
    while (h != NULL) {
        held_t *next = h->next;
        h->m.data = h->buf;
        dispatch(&h->m, h->via);
        free(h->buf);
        free(h);
        h = next;
    }
}

static void hold(move_peer_t *p, const ivc_inmsg_t *m, int via)
{
    held_t *h = calloc(1, sizeof(*h));
    void *buf = NULL;
    if (h != NULL && !m->rndv && m->env.len > 0 && (buf = malloc(m->env.len)) == NULL) {
        free(h);
        h = NULL;
    }
    if (h == NULL) {
        ivc_error("migration: out of memory holding a message");
        abort();
    }
    if (buf != NULL)
        memcpy(buf, m->data, m->env.len);
    h->m = *m;
    h->buf = buf;
    h->via = via;
    if (p->tail)
        p->tail->next = h;
    else
        p->head = h;
    p->tail = h;
}

/* FLUSH through shm: the peer sends through the network from now on (it is leaving, or a
 * peer of this rank's that is leaving answered). */
static void on_flush_shm(uint32_t peer)
{
    move_peer_t *p = &mv.peers[peer];
    accept_from(peer, IVC_VIA_NET);
    if (ivc_coord.vcs[peer].ops == &ivc_shm_chan_ops) {
        ctl_send(peer, IVC_VIA_SHM, MOVE_FLUSH);
        set_vc(peer, IVC_VIA_NET);
    }
    p->pair = PAIR_DRAINING;
}

/* FLUSH through the network: the peer sends through shm from now on; the pair's slots are
 * clear. */
static void on_flush_net(uint32_t peer)
{
    ivc_coord_t *c = &ivc_coord;
    move_peer_t *p = &mv.peers[peer];
    /* A resident that answered the peer's HELLO only accepts its shm messages now: it may
     * have begun leaving since (its vc is then the network again, and the peer's answer to
     * that FLUSH comes through shm, after this one). */
    if (!p->answered && c->vcs[peer].ops != &ivc_shm_chan_ops) {
        /* This rank arrived: bind to the pair's slots and answer. */
        int rc = c->shm != NULL ? ivc_shm_chan_peer_open(c->shm, peer) : -ENOTCONN;
        if (rc != 0) {
            ivc_error("migration: cannot reach rank %u through shared memory (%s); it stays on "
                      "the network",
                      peer, strerror(-rc));
            p->hello = 0;
            return; /* its shm messages stay held: it will not send any it could not */
        }
        ctl_send(peer, IVC_VIA_NET, MOVE_FLUSH);
        set_vc(peer, IVC_VIA_SHM);
    }
    p->answered = 0;
    accept_from(peer, IVC_VIA_SHM);
    p->hello = 0;
}

/* HELLO through the network: `peer` joined this rank's region. */
static void on_hello(uint32_t peer)
{
    ivc_coord_t *c = &ivc_coord;
    if (mv.peers[peer].pair != PAIR_IDLE) {
        mv.peers[peer].hello_in = 1; /* its last visit is still draining here */
        return;
    }
    mv.peers[peer].hello_in = 0;
    /* Both arrived together and said HELLO to each other: the lower rank alone acts as the
     * resident (clears both slots, then FLUSH); the higher waits for that FLUSH as any
     * newcomer does. Two residents would each clear a slot the other may be writing to. */
    if (mv.peers[peer].hello && peer < ivc_coord.boot.rank) {
        ivc_debug("migration: HELLO from rank %u, which arrived with this rank", peer);
        return;
    }
    if (mv.leaving || c->shm == NULL ||
        ivc_region_member_get(&c->region, peer) != IVC_MEMBER_JOINED) {
        ivc_debug("migration: HELLO from rank %u, which is not in this rank's region", peer);
        return;
    }
    /* Both slots of the pair start clear: this rank's for the newcomer, and the newcomer's
     * for this rank, in its block, which may be its block of an earlier visit (shm_chan.c,
     * "migration"). */
    int rc = ivc_shm_chan_inbox_reset(c->shm, peer);
    if (rc == 0)
        rc = ivc_shm_chan_outbox_reset(c->shm, peer);
    if (rc == 0)
        rc = ivc_shm_chan_peer_open(c->shm, peer);
    if (rc != 0) {
        ivc_error("migration: rank %u joined this region but its block is unusable (%s); it "
                  "stays on the network",
                  peer, strerror(-rc));
        return;
    }
    if (ctl_send(peer, IVC_VIA_NET, MOVE_FLUSH) == 0) {
        set_vc(peer, IVC_VIA_SHM);
        mv.peers[peer].answered = 1;
    }
}

/* A message from a channel this rank does not accept from its sender yet waits, markers
 * included: a FLUSH or HELLO overtaken on the other channel by the sender's last switch
 * means nothing until that switch is through here. */
static void dispatch(ivc_inmsg_t *m, int via)
{
    uint32_t peer = (uint32_t)m->peer;
    move_peer_t *p = &mv.peers[peer];
    if (via != p->via_in) {
        hold(p, m, via);
        return;
    }
    if (m->env.ctx != IVC_MOVE_CTX) {
        hand_up(m, via);
        return;
    }
    if (m->env.tag == MOVE_FLUSH) {
        if (via == IVC_VIA_SHM)
            on_flush_shm(peer);
        else
            on_flush_net(peer);
    } else if (m->env.tag == MOVE_HELLO && via == IVC_VIA_NET) {
        on_hello(peer);
    } else {
        ivc_warn("migration: rank %u sent an unknown marker %d; ignored", peer, m->env.tag);
    }
}

static void on_message(void *arg, ivc_inmsg_t *m)
{
    if ((uint32_t)m->peer >= ivc_coord.boot.size)
        return; /* the channels check it; never here */
    dispatch(m, *(const int *)arg);
}

static int parse_regions(const char *list)
{
    char *copy = strdup(list != NULL ? list : "");
    if (copy == NULL)
        return -ENOMEM;
    uint32_t n = 0;
    for (char *s = copy; *s; s++)
        n += *s == ':';
    mv.regions = calloc(n + 1, sizeof(*mv.regions));
    if (mv.regions == NULL) {
        free(copy);
        return -ENOMEM;
    }
    char *save = NULL;
    for (char *t = strtok_r(copy, ":", &save); t != NULL; t = strtok_r(NULL, ":", &save))
        if ((mv.regions[mv.nregions] = strdup(t)) != NULL)
            mv.nregions++;
    free(copy);
    return 0;
}

int ivc_coord_move_init(const ivc_chan_upcalls_t *up, ivc_chan_upcalls_t *shm_up,
                        ivc_chan_upcalls_t *net_up)
{
    ivc_coord_t *c = &ivc_coord;
    memset(&mv, 0, sizeof(mv));
    mv.on = 1;
    mv.up = *up;
    int rc = parse_regions(c->cfg.host_regions);
    if (rc != 0)
        return rc;
    const char *die = c->cfg.move_test_die;
    int die_ok = die == NULL || *die == '\0';
    for (size_t k = 0; k < sizeof(die_points) / sizeof(die_points[0]) && !die_ok; k++)
        die_ok = strcmp(die, die_points[k]) == 0;
    if (!die_ok) {
        ivc_error("IVC_MOVE_TEST_DIE=%s: expected drain, moved or hello", die);
        return -EINVAL;
    }
    mv.cur = UINT32_MAX;
    for (uint32_t k = 0; k < mv.nregions; k++)
        if (strcmp(mv.regions[k], c->boot.region) == 0)
            mv.cur = k;
    /* In a guest the region is an ivshmem BAR, which the list calls `ivshmem`: the first
     * such entry stands for the host it starts on (an order never means "stay" there). */
    for (uint32_t k = 0; k < mv.nregions && mv.cur == UINT32_MAX; k++)
        if (ivc_region_dest_is_device(mv.regions[k]) && ivc_region_dest_is_bar(c->boot.region))
            mv.cur = k;
    if (mv.cur == UINT32_MAX) {
        ivc_error("IVC_MIGRATE=1: this rank's region %s is not in IVC_HOST_REGIONS (%s)",
                  c->boot.region, c->cfg.host_regions);
        return -EINVAL;
    }
    mv.peers = calloc(c->boot.size, sizeof(*mv.peers));
    mv.all = malloc(c->boot.size * sizeof(*mv.all));
    if (mv.peers == NULL || mv.all == NULL)
        return -ENOMEM;
    for (uint32_t r = 0; r < c->boot.size; r++)
        mv.all[r] = r;
    for (uint32_t r = 0; r < c->boot.size; r++)
        mv.peers[r].via_in =
            ivc_region_member_get(&c->region, r) == IVC_MEMBER_ABSENT ? IVC_VIA_NET : IVC_VIA_SHM;
    *shm_up = *up;
    shm_up->on_message = on_message;
    shm_up->arg = &via_shm_tag;
    *net_up = *up;
    net_up->on_message = on_message;
    net_up->arg = &via_net_tag;
    return 0;
}

/* Closes every shm pair whose switch to the network is through (both FLUSHes passed) and
 * that has nothing left in flight; a failed peer's pair ends with it (its shm operations
 * failed). Serves the rank that leaves and the ranks it leaves alike. Returns 1 when no
 * pair is left closing. */
static int close_drained(void)
{
    ivc_coord_t *c = &ivc_coord;
    int all = 1;
    for (uint32_t r = 0; r < c->boot.size; r++) {
        move_peer_t *p = &mv.peers[r];
        if (p->pair == PAIR_IDLE)
            continue;
        if (ivc_coord_peer_failed(r)) {
            p->pair = PAIR_IDLE;
        } else if (p->pair == PAIR_DRAINING && p->owed == 0 && !ivc_shm_chan_peer_busy(c->shm, r)) {
            ivc_shm_chan_peer_close(c->shm, r);
            p->pair = PAIR_IDLE;
            if (p->hello_in)
                on_hello(r); /* it came back before its last visit here was drained */
        } else {
            all = 0;
        }
    }
    return all;
}

static void start_leave(void)
{
    ivc_coord_t *c = &ivc_coord;
    mv.leaving = 1;
    for (uint32_t r = 0; r < c->boot.size; r++) {
        if (r == c->boot.rank || c->vcs[r].ops != &ivc_shm_chan_ops)
            continue;
        ctl_send(r, IVC_VIA_SHM, MOVE_FLUSH);
        set_vc(r, IVC_VIA_NET);
        mv.peers[r].pair = PAIR_CLOSING;
    }
    test_die("drain");
}

static int join(uint32_t dest);

/* Every pair with the old region is closed: lets go of it and joins the new one. */
static int arrive(uint32_t dest)
{
    ivc_coord_t *c = &ivc_coord;
    ivc_coord_fail_stop();
    ivc_region_member_set(&c->region, c->boot.rank, IVC_MEMBER_MOVED);
    test_die("moved");
    ivc_shm_chan_destroy(c->shm);
    c->shm = NULL;
    ivc_region_detach(&c->region, 0);
    mv.plug_until = ivc_now_ns() + ivc_coord.cfg.move_device_wait * 1000000000ull;
    mv.plug_scan_at = 0;
    return join(dest);
}

/* Attaches the destination region and joins it. A guest's next device may not be plugged
 * yet (its VM is being migrated): then mv.plugging is set and this is called again from
 * progress, at most every 10 ms, until it appears or IVC_MOVE_DEVICE_WAIT runs out. */
static int join(uint32_t dest)
{
    ivc_coord_t *c = &ivc_coord;
    uint64_t now = ivc_now_ns();
    if (now < mv.plug_scan_at)
        return 0;
    mv.plug_scan_at = now + 10000000ull;
    int rc = ivc_region_attach_dest(mv.regions[dest], c->boot.job, c->boot.size, c->boot.rank,
                                    mv.seq, &c->region);
    if (rc == -EAGAIN && now < mv.plug_until) {
        mv.plugging = (int)dest + 1;
        return 0;
    }
    mv.plugging = 0;
    if (rc != 0) {
        ivc_error("migration: cannot attach host region %s (%s)", mv.regions[dest],
                  rc == -EAGAIN ? "no ivshmem device of this job appeared within "
                                  "IVC_MOVE_DEVICE_WAIT seconds"
                                : strerror(-rc));
        return rc;
    }
    mv.cur = dest;
    if ((rc = ivc_region_lock(&c->region, c->boot.rank)) != 0 && rc != -EBUSY)
        ivc_debug("migration: no lock on region %s (%s)", c->region.path, strerror(-rc));
    else if (rc == -EBUSY)
        return -EBUSY;
    rc = ivc_shm_chan_create(&c->region, &c->shm_cfg, c->boot.rank, mv.all, c->boot.size,
                             &c->chan_up_shm, &c->shm);
    if (rc != 0)
        return rc;
    /* Nobody may write into the new block before this rank says so (HELLO): every pair
     * starts closed, whoever is here. */
    if ((rc = ivc_shm_chan_connect_closed(c->shm)) != 0)
        return rc;
    /* Before JOINED: a tool that orders this rank here numbers above the order that
     * brought it (region_layout.h), so that one left here by a last visit reads as old. */
    ivc_store_release(&ivc_region_move(&c->region, c->boot.rank)->at_seq, mv.seq);
    ivc_region_member_set(&c->region, c->boot.rank, IVC_MEMBER_JOINED);
    if ((rc = ivc_coord_fail_restart()) != 0)
        return rc;
    uint32_t n = 0;
    for (uint32_t r = 0; r < c->boot.size; r++) {
        mv.peers[r].hello = mv.peers[r].answered = 0;
        if (r == c->boot.rank || ivc_region_member_get(&c->region, r) != IVC_MEMBER_JOINED)
            continue;
        if (ctl_send(r, IVC_VIA_NET, MOVE_HELLO) == 0) {
            mv.peers[r].hello = 1;
            n++;
        }
    }
    ivc_debug("migration: joined %s; %u ranks here", c->region.path, n);
    test_die("hello");
    return 0;
}

/* Every rank of the new region answered HELLO (or failed: it never will). */
static int arrived(void)
{
    for (uint32_t r = 0; r < ivc_coord.boot.size; r++) {
        if (mv.peers[r].hello && ivc_coord_peer_failed(r))
            mv.peers[r].hello = 0;
        if (mv.peers[r].hello)
            return 0;
    }
    return 1;
}

static void finish(void)
{
    ivc_coord_t *c = &ivc_coord;
    ivc_move_t *slot = ivc_region_move(&c->region, c->boot.rank);
    ivc_store_relaxed(&slot->took_ns, ivc_now_ns() - mv.t0_ns);
    ivc_store_release(&slot->done, mv.seq);
    mv.arriving = 0;
    /* The co-located set, for MPI_Comm_split_type and friends. */
    c->nlocal = 0;
    for (uint32_t r = 0; r < c->boot.size; r++)
        if (r == c->boot.rank || c->vcs[r].ops == &ivc_shm_chan_ops)
            c->local[c->nlocal++] = r;
    ivc_debug("migration: move %" PRIu64 " to %s done in %.1f ms", mv.seq, c->region.path,
              (ivc_now_ns() - mv.t0_ns) / 1e6);
}

static void read_order(void)
{
    ivc_coord_t *c = &ivc_coord;
    uint64_t order = ivc_load_acquire(&ivc_region_move(&c->region, c->boot.rank)->order);
    if (order == mv.last_order || order == 0)
        return;
    mv.last_order = order;
    uint64_t seq = order >> 16;
    uint32_t dest = (uint32_t)(order & 0xffff) - 1;
    /* An order this rank carried out on an earlier visit to this region is no newer than
     * the one that brought it back: tools number theirs above `at_seq` (join). */
    if (seq <= mv.seq)
        return;
    if (dest >= mv.nregions) {
        ivc_warn("migration: ignoring an invalid move order 0x%" PRIx64, order);
        return;
    }
    mv.seq = seq;
    mv.t0_ns = ivc_now_ns();
    mv.warn_at = mv.t0_ns + 5000000000ull;
    if (dest == mv.cur && !ivc_region_dest_is_device(mv.regions[dest])) {
        finish();
        return;
    }
    ivc_debug("migration: order %" PRIu64 ": move to %s", seq, mv.regions[dest]);
    mv.arriving = (int)dest + 1;
    start_leave();
}

/* Half-moved, this rank can reach no region: its peers see it end (its network
 * connections drop) as they would see a VM that died in migration. */
static void __attribute__((noreturn)) move_failed(void)
{
    ivc_error("migration: the move failed; ending");
    fflush(stderr);
    _exit(1);
}

int ivc_coord_move_progress(void)
{
    ivc_coord_t *c = &ivc_coord;
    if (mv.leaving) {
        if (!close_drained()) {
            if (ivc_now_ns() > mv.warn_at) {
                ivc_warn("migration: still draining shared memory after 5 s (a rendezvous or "
                         "synchronous send not yet matched?)");
                mv.warn_at = UINT64_MAX;
            }
            return 0;
        }
        mv.leaving = 0;
        if (arrive((uint32_t)mv.arriving - 1) != 0)
            move_failed();
        return 1;
    }
    if (mv.plugging) {
        if (join((uint32_t)mv.plugging - 1) != 0)
            move_failed();
        return mv.plugging ? 0 : 1; /* still waiting: let a waiting caller sleep */
    }
    if (c->shm != NULL)
        close_drained();
    if (mv.arriving && arrived())
        finish();
    if ((++mv.polls & 255) == 0 && !mv.arriving && !mv.closed)
        read_order();
    return 0;
}

void ivc_coord_move_close(void)
{
    if (!mv.on)
        return;
    mv.closed = 1;
    /* A move under way ends first (the peers it waits for are progressing in their own
     * MPI_Finalize); one that cannot end in 10 s is given up, and this rank finalizes
     * where it is. */
    uint64_t end = ivc_now_ns() + 10000000000ull;
    while (ivc_coord_move_busy() && ivc_now_ns() < end)
        if (ivc_coord_progress() == 0)
            sched_yield();
    if (ivc_coord_move_busy())
        ivc_warn("migration: a move under way did not end in MPI_Finalize within 10 s");
}

const uint32_t *ivc_coord_move_all(void)
{
    return mv.all;
}

int ivc_coord_move_busy(void)
{
    return mv.leaving || mv.arriving;
}

void ivc_coord_move_free(void)
{
    for (uint32_t k = 0; k < mv.nregions; k++)
        free(mv.regions[k]);
    free(mv.regions);
    if (mv.peers != NULL) {
        for (uint32_t r = 0; r < ivc_coord.boot.size; r++) {
            held_t *h = mv.peers[r].head;
            while (h != NULL) {
                held_t *next = h->next;
                free(h->buf);
                free(h);
                h = next;
            }
        }
    }
    free(mv.peers);
    free(mv.all);
    memset(&mv, 0, sizeof(mv));
}
