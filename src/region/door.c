/* Doorbells (door.h): where a rank's eventfds come from, the sleep/wake handshake, and the
 * waiting policy's tunables. */
#define _GNU_SOURCE
#include "door.h"

#include "door_sock.h"
#include "door_vfio.h"
#include "ivshmem.h"
#include "ivshmem_proto.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static const ivc_cfg_entry_t door_entries[] = {
    {"WAIT", "auto",
     "how a rank with nothing to do waits: spin (poll forever), yield (poll IVC_SPIN times, "
     "then yield the CPU on every poll), block (poll IVC_SPIN times, then sleep on its "
     "doorbell until a peer rings), auto (poll IVC_SPIN times, yield for IVC_WAIT_POLL µs, "
     "then sleep). Without doorbells block and auto yield instead",
     IVC_CFG_STRING, 0, 0, offsetof(ivc_door_config_t, mode)},
    {"WAIT_POLL", "0",
     "µs a waiting rank yields before it sleeps (IVC_WAIT=auto); 0 = 1000",
     IVC_CFG_UINT, 0, 10000000, offsetof(ivc_door_config_t, poll_us)},
    {"WAIT_TIMEOUT", "100",
     "ms a sleeping rank sleeps at most before it looks again (a safety net: peers ring "
     "it, and the failure detector rings it when a peer fails)",
     IVC_CFG_UINT, 1, 3600000, offsetof(ivc_door_config_t, timeout_ms)},
};

const ivc_cfg_table_t ivc_door_config_table = {"waiting and doorbells", door_entries,
                                               sizeof(door_entries) / sizeof(door_entries[0])};

ivc_doors_t ivc_doors = {.my_fd = -1, .sock = -1};

/* The launcher's eventfds: "<domain hex>:<first rank>:<fd>,<fd>,...". Fills ring_fd for
 * the ranks it covers. Returns 0, or -EINVAL (logged). */
static int fds_parse(const char *text, uint32_t world, uint32_t rank)
{
    ivc_doors_t *d = &ivc_doors;
    char *end;
    errno = 0;
    uint64_t domain = strtoull(text, &end, 16);
    if (errno != 0 || *end != ':' || domain == 0)
        goto bad;
    unsigned long first = strtoul(end + 1, &end, 10);
    if (*end != ':' || first >= world)
        goto bad;
    const char *p = end + 1;
    for (uint32_t r = (uint32_t)first; *p != '\0'; r++) {
        long fd = strtol(p, &end, 10);
        if (end == p || fd < 0 || fd > 1 << 24 || (*end != ',' && *end != '\0') || r >= world)
            goto bad;
        d->ring_fd[r] = (int)fd;
        p = *end == ',' ? end + 1 : end;
    }
    if (rank < first || d->ring_fd[rank] < 0) {
        ivc_wait_no_doorbell_why = "IVC_DOORBELL_FDS has no doorbell for this rank";
        return 0;
    }
    /* Our own must be an eventfd we can read without blocking: check by polling it. */
    struct pollfd pfd = {d->ring_fd[rank], POLLIN, 0};
    if (poll(&pfd, 1, 0) < 0 || (pfd.revents & POLLNVAL)) {
        ivc_wait_no_doorbell_why = "the doorbell IVC_DOORBELL_FDS names is not open here";
        return 0;
    }
    d->my_fd = d->ring_fd[rank];
    d->door_id = rank;
    d->domain = domain;
    return 0;
bad:
    ivc_error("IVC_DOORBELL_FDS=%s is not <domain hex>:<first rank>:<fd>,<fd>,... for %u ranks",
              text, world);
    return -EINVAL;
}

int ivc_door_open(uint32_t rank, uint32_t world, const char *ivshmem_bdf)
{
    ivc_doors_t *d = &ivc_doors;
    int rc = ivc_cfg_load(&ivc_door_config_table, &d->cfg);
    if (rc != 0)
        return rc;
    const char *m = d->cfg.mode;
    if (!strcmp(m, "spin"))
        ivc_wait_mode = IVC_WAITING_SPIN;
    else if (!strcmp(m, "yield"))
        ivc_wait_mode = IVC_WAITING_YIELD;
    else if (!strcmp(m, "block"))
        ivc_wait_mode = IVC_WAITING_BLOCK;
    else if (!strcmp(m, "auto"))
        ivc_wait_mode = IVC_WAITING_AUTO;
    else {
        ivc_error("IVC_WAIT=%s is not one of spin, yield, block, auto", m);
        return -EINVAL;
    }
    d->timeout_ns = d->cfg.timeout_ms * 1000000ull;
    d->me = rank;
    d->ring_fd = malloc(world * sizeof(*d->ring_fd));
    if (d->ring_fd == NULL)
        return -ENOMEM;
    for (uint32_t r = 0; r < world; r++)
        d->ring_fd[r] = -1;
    ivc_wait_no_doorbell_why = "this rank has no doorbell (start it with ivcrun, or set "
                               "IVC_DOORBELL_SOCKET to the socket of ivc-host -S)";
    /* Opened in every mode: a rank that never sleeps still rings peers that do, and the
     * job uses doorbells only if every rank has them. */
    const char *fds = getenv("IVC_DOORBELL_FDS");
    const char *sock = getenv("IVC_DOORBELL_SOCKET");
    if (fds != NULL && *fds != '\0')
        return fds_parse(fds, world, rank);
    if (sock != NULL && *sock != '\0')
        return ivc_door_sock_open(sock, rank, world);
    /* In a guest: the ivshmem-doorbell device's interrupts, through vfio-pci; from the
     * region's device unless IVC_DOORBELL_DEVICE names another one of the same server. */
    const char *dev = getenv("IVC_DOORBELL_DEVICE");
    if (dev != NULL && *dev != '\0') {
        ivc_ivshmem_t x;
        if (!ivc_ivshmem_is_selector(dev) || !strcmp(dev, "ivshmem")) {
            ivc_error("IVC_DOORBELL_DEVICE=%s: expected ivshmem:N or ivshmem:<PCI address>", dev);
            return -EINVAL;
        }
        if (ivc_ivshmem_select(NULL, dev, &x) != 0) /* logged */
            return -EINVAL;
        ivc_door_vfio_open(x.bdf);
    } else if (ivshmem_bdf != NULL && *ivshmem_bdf != '\0') {
        ivc_door_vfio_open(ivshmem_bdf);
    }
    return 0;
}

void ivc_door_publish(const ivc_region_t *r, uint32_t rank)
{
    ivc_door_t *s = ivc_region_door(r, rank);
    ivc_store_relaxed(&s->sleeping, 0);
    /* guests: the doorbell server of this region (door_vfio.h) */
    if (ivc_door_vfio_on() && ivc_door_vfio_check_region(r) == 0)
        ivc_doors.domain = ivc_door_vfio_domain(r->job_id);
    s->door_id = ivc_doors.door_id;
    s->domain = ivc_doors.domain;
    ivc_doors.region = r;
}

int ivc_door_connect(const uint32_t *local, uint32_t nlocal, uint32_t ncpu)
{
    ivc_doors_t *d = &ivc_doors;
    ivc_wait_doors_known = 1;
    /* auto (ivc_wait.h): yield 1 ms, then sleep. */
    (void)ncpu;
    ivc_wait_poll_spins = 0;
    ivc_wait_poll_ns = d->cfg.poll_us != 0 ? d->cfg.poll_us * 1000 : 1000000;
    if (nlocal < 2 || d->region == NULL)
        return 0;
    if (d->domain == 0) /* this rank has none: keep the reason ivc_door_open() gave */
        return 0;
    /* A rank that has no doorbell, or another domain, can neither be rung by us nor ring
     * us: nobody may sleep then (every rank reads the same table, so all decide alike). */
    uint64_t domain = 0;
    for (uint32_t i = 0; i < nlocal; i++) {
        const ivc_door_t *s = ivc_region_door(d->region, local[i]);
        uint64_t dom = s->domain;
        if (dom == 0 || (i > 0 && dom != domain)) {
            ivc_debug("doorbells off: rank %u has %s", local[i],
                      dom == 0 ? "no doorbell" : "another doorbell domain");
            ivc_wait_no_doorbell_why =
                dom == 0 ? "a co-located rank has no doorbell (all ranks must get them)"
                         : "the co-located ranks' doorbells come from different launchers";
            return 0;
        }
        domain = dom;
    }
    if (domain != d->domain) /* this rank would be in it: only when it has none */
        return 0;
    for (uint32_t i = 0; i < nlocal; i++) {
        uint32_t r = local[i];
        uint32_t id = ivc_region_door(d->region, r)->door_id; /* copied once, then checked */
        int fd = d->sock >= 0 ? ivc_door_sock_fd(id)
                 : ivc_door_vfio_on() ? (id < IVSHMEM_MAX_PEERS ? (int)id : -1) /* a peer id */
                                      : (id == r ? d->ring_fd[r] : -1);
        if (fd < 0) {
            ivc_debug("doorbells off: no doorbell for rank %u (address %u)", r, id);
            ivc_wait_no_doorbell_why = "a co-located rank's doorbell is not known here";
            return 0;
        }
        d->ring_fd[r] = fd;
    }
    d->local = malloc(nlocal * sizeof(*d->local));
    if (d->local == NULL)
        return 0;
    memcpy(d->local, local, nlocal * sizeof(*local));
    d->nlocal = nlocal;
    d->on = 1;
    ivc_wait_can_sleep = 1;
    ivc_biglock.wake = ivc_door_wake_self; /* threads in MPI wake a sleeping one */
    ivc_debug("doorbells on: %u co-located ranks, domain %" PRIx64, nlocal, domain);
    return 1;
}

void ivc_door_ring(uint32_t rank)
{
    ivc_doors_t *d = &ivc_doors;
    uint64_t one = 1;
    int fd = d->ring_fd[rank];
    if (ivc_door_vfio_on()) { /* fd is the peer's ivshmem id: ring through BAR0 */
        if (fd >= 0)
            ivc_door_vfio_ring((uint32_t)fd);
        d->rung++;
        return;
    }
    if (fd >= 0 && write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
        /* The eventfd is gone (closed under us): nobody can sleep safely any more. */
        static int said;
        if (!said)
            ivc_warn("cannot ring rank %u's doorbell (%s): waiting ranks poll from now on",
                     rank, strerror(errno));
        said = 1;
        ivc_wait_can_sleep = 0;
    }
    d->rung++;
}

void ivc_door_kick_all(void)
{
    ivc_doors_t *d = &ivc_doors;
    if (!d->on)
        return;
    ivc_fence_seq_cst(); /* D2 */
    for (uint32_t i = 0; i < d->nlocal; i++)
        if (d->local[i] != d->me &&
            ivc_load_relaxed(&ivc_region_door(d->region, d->local[i])->sleeping) != 0)
            ivc_door_ring(d->local[i]);
}

void ivc_door_announce(void)
{
    ivc_door_t *s = ivc_region_door(ivc_doors.region, ivc_doors.me);
    ivc_store_relaxed(&s->sleeping, 1);
    /* D1: orders W = 1 before the caller's re-check; pairs with D2 in ivc_door_kick(). */
    ivc_fence_seq_cst();
}

/* Empties the eventfd of the rings a sleep ended with (ivc_door_sleep leaves them). */
static void door_drain(ivc_doors_t *d)
{
    uint64_t v;
    d->undrained = 0;
    if (read(d->my_fd, &v, sizeof(v)) < 0 && errno != EAGAIN) {
        ivc_warn("cannot read this rank's doorbell (%s): waiting ranks poll from now on",
                 strerror(errno));
        ivc_wait_can_sleep = 0;
    }
}

int (*ivc_door_extra_fds)(struct pollfd *fds, int max);

#define DOOR_EXTRA_MAX 64

int ivc_door_sleep(void)
{
    ivc_doors_t *d = &ivc_doors;
    struct pollfd pfds[1 + DOOR_EXTRA_MAX] = {{d->my_fd, POLLIN, 0}};
    int nx = ivc_door_extra_fds ? ivc_door_extra_fds(pfds + 1, DOOR_EXTRA_MAX) : 0;
    struct timespec ts = {(time_t)(d->timeout_ns / 1000000000ull),
                          (long)(d->timeout_ns % 1000000000ull)};
    d->sleeps++;
    /* MPI_THREAD_MULTIPLE: other threads may call MPI meanwhile (and ring us when they do). */
    uint32_t held = ivc_biglock_release_for_sleep();
    int n = ppoll(pfds, 1 + (nfds_t)nx, &ts, NULL);
    int err = errno;
    ivc_biglock_reacquire(held);
    errno = err;
    if (n > 0 && pfds[0].revents == 0)
        return 1; /* a socket woke it; the doorbell stays as it is */
    if (n > 0) {
        /* Rung. The count is read off later, by the next ivc_door_wait before its
         * re-check (door_drain), not here: the read is a system call on the way from the
         * ring to the work, and the next sleep can pay it instead. */
        d->undrained = 1;
        return 1;
    }
    if (n < 0 && errno != EINTR) {
        ivc_warn("cannot wait on this rank's doorbell (%s): waiting ranks poll from now on",
                 strerror(errno));
        ivc_wait_can_sleep = 0;
    }
    d->timeouts += n == 0;
    return 0;
}

int ivc_door_wait(int (*recheck)(void *), void *arg)
{
    ivc_door_announce();
    /* After W = 1 and D1 and before the re-check: a ring read off here was sent after a
     * publication that the re-check sees (the read orders after the ring's write), so
     * nothing is lost; rings from before are stale. */
    if (ivc_doors.undrained)
        door_drain(&ivc_doors);
    int n = recheck(arg);
    int rung = 1;
    if (n == 0)
        rung = ivc_door_sleep();
    ivc_door_awake();
    if (!rung && (n = recheck(arg)) > 0)
        ivc_doors.late++; /* found work after a timeout: a publication that did not ring */
    return n;
}

void ivc_door_awake(void)
{
    ivc_door_t *s = ivc_region_door(ivc_doors.region, ivc_doors.me);
    ivc_store_relaxed(&s->sleeping, 0);
    ivc_store_relaxed(&s->sleeps, ivc_doors.sleeps);
}

void ivc_door_wake_self(void)
{
    uint64_t one = 1;
    if (ivc_doors.my_fd >= 0 && write(ivc_doors.my_fd, &one, sizeof(one)) < 0) {
        /* nothing to do: the sleep's timeout still bounds the wait */
    }
}

void ivc_door_close(void)
{
    ivc_doors_t *d = &ivc_doors;
    if (d->sleeps != 0)
        ivc_debug("doorbells: %" PRIu64 " sleeps, %" PRIu64 " ended by the timeout (%" PRIu64
                  " of them with work waiting), %" PRIu64 " rings sent",
                  d->sleeps, d->timeouts, d->late, d->rung);
    d->on = 0;
    ivc_wait_can_sleep = 0;
    ivc_biglock.wake = NULL;
    ivc_door_vfio_close();
    ivc_door_sock_close();
    free(d->ring_fd);
    d->ring_fd = NULL;
    free(d->local);
    d->local = NULL;
    d->nlocal = 0;
    d->region = NULL;
}
