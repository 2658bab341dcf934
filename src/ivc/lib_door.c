/* libivc's doorbells (lib.h, "waiting"): a blocked call sleeps on its endpoint's eventfd
 * and the peers that publish what it waits for ring it.
 *
 * Where an endpoint's doorbell comes from. A libivc endpoint is not an MPI rank, and
 * endpoints come and go while a job runs, so it gets one of its own where it can:
 *   - IVC_DOORBELL_FDS (ivcrun: one eventfd per rank, inherited by every rank): an
 *     endpoint whose id is its process's rank (ivc_open gives rank R endpoint R) takes
 *     that rank's eventfd; it can ring every endpoint whose id is a rank of the set. A
 *     process that also uses MPI shares the eventfd with its MPI rank: a ring for one wakes
 *     both, and each re-checks what it waits for.
 *   - IVC_DOORBELL_SOCKET (ivc-host -S, QEMU's ivshmem-server protocol): the endpoint
 *     connects as a peer of its own, gets its own eventfd and its peers' (peers that come
 *     later are read off the connection when first rung).
 * Its slot (lib_layout.h, ivclib_ep_t) publishes the doorbell's domain and address. An
 * endpoint without either (any other process) has domain 0.
 *
 * The handshake is MPI's (region/door.h) on the slot's `sleepers` count:
 *   sleeper:   sleepers += 1 (seq_cst, D1); re-check (the waiter's ready()); if nothing:
 *              ppoll its eventfd with a timeout; sleepers -= 1.
 *   publisher: publish (its release store); fence (D2); if the peer's sleepers != 0:
 *              write the peer's eventfd (ivclib_kick, lib.h).
 * A count, not a flag: two threads of one endpoint may sleep at once. A sleeper sleeps on
 * its doorbell only while every live endpoint of the region shares its domain (checked at
 * each sleep): a writer with no doorbell, or another domain's, cannot ring it. Otherwise
 * the old backoff (nanosleeps up to IVC_LIB_SLEEP_MAX) applies. IVC_LIB_WAIT_TIMEOUT
 * bounds every sleep (a safety net: a writer that joined after the check, a dead peer,
 * which rings nobody, is seen after at most that long). */
#define _GNU_SOURCE
#include "lib.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"
#include "../region/ivshmem_proto.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SOCK_WAIT_MS 5000 /* how long the doorbell server may take to answer */

struct ivclib_door {
    int fd;           /* this endpoint's eventfd (read side) */
    uint64_t domain;  /* nonzero */
    uint32_t id;      /* this endpoint's address in the domain */
    int sock;         /* server connection (IVC_DOORBELL_SOCKET), or -1 */
    int owned;        /* the fds are ours to close (from the server) */
    uint32_t first;   /* IVC_DOORBELL_FDS: address of ring[0] */
    int *ring;        /* by address - first: the eventfd that rings it, or -1 */
    uint32_t nring;
    int undrained;    /* fd holds the rings that ended the last sleep */
    uint64_t sleeps, timeouts, rings;
};

/* Grows ring[] to hold address `id`. Returns 0 or -ENOMEM. */
static int ring_fit(struct ivclib_door *d, uint32_t id)
{
    if (id < d->nring)
        return 0;
    uint32_t n = d->nring ? d->nring : 64;
    while (n <= id)
        n *= 2;
    int *p = realloc(d->ring, n * sizeof(*p));
    if (p == NULL)
        return -ENOMEM;
    for (uint32_t i = d->nring; i < n; i++)
        p[i] = -1;
    d->ring = p;
    d->nring = n;
    return 0;
}

/* The launcher's eventfds: "<domain hex>:<first rank>:<fd>,<fd>,...", for endpoint id ==
 * rank. Returns the door, or NULL (none for this endpoint, or malformed: said in debug). */
static struct ivclib_door *door_from_fds(const char *text, int32_t rank, uint32_t id)
{
    char *end;
    errno = 0;
    uint64_t domain = strtoull(text, &end, 16);
    if (errno != 0 || *end != ':' || domain == 0)
        return NULL;
    unsigned long first = strtoul(end + 1, &end, 10);
    if (*end != ':' || first > UINT32_MAX || rank < 0 || (uint32_t)rank != id)
        return NULL;
    struct ivclib_door *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return NULL;
    d->sock = -1;
    d->fd = -1;
    d->first = (uint32_t)first;
    const char *p = end + 1;
    for (uint32_t k = 0; *p != '\0'; k++) {
        long fd = strtol(p, &end, 10);
        if (end == p || fd < 0 || fd > 1 << 24 || (*end != ',' && *end != '\0') ||
            k >= IVCLIB_MAX_ENDPOINTS || ring_fit(d, k) != 0) {
            free(d->ring);
            free(d);
            return NULL;
        }
        d->ring[k] = (int)fd;
        p = *end == ',' ? end + 1 : end;
    }
    uint32_t k = id - d->first;
    struct pollfd pfd = {k < d->nring ? d->ring[k] : -1, POLLIN, 0};
    if (id < d->first || k >= d->nring || poll(&pfd, 1, 0) < 0 || (pfd.revents & POLLNVAL)) {
        free(d->ring);
        free(d);
        return NULL;
    }
    d->fd = pfd.fd;
    d->id = id;
    d->domain = domain;
    return d;
}

/* One message from the doorbell server: a peer's eventfd (the first of each id: vector
 * 0), or a peer that left (no fd). */
static void sock_note(struct ivclib_door *d, int64_t id, int fd)
{
    if (id < 0 || id >= IVSHMEM_MAX_PEERS || ring_fit(d, (uint32_t)id) != 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    if (fd < 0) {
        if ((uint32_t)id != d->id && d->ring[id] >= 0) {
            close(d->ring[id]);
            d->ring[id] = -1;
        }
        return;
    }
    if (d->ring[id] < 0)
        d->ring[id] = fd;
    else
        close(fd);
}

/* Reads the server's messages for up to `ms`, or until address `until` is known. */
static void sock_drain(struct ivclib_door *d, int ms, int64_t until)
{
    uint64_t end = ivc_now_ns() + (uint64_t)ms * 1000000ull;
    while (d->sock >= 0) {
        if (until >= 0 && (uint64_t)until < d->nring && d->ring[until] >= 0)
            return;
        uint64_t now = ivc_now_ns();
        struct pollfd pfd = {d->sock, POLLIN, 0};
        int left = now >= end ? 0 : (int)((end - now) / 1000000ull) + 1;
        if (poll(&pfd, 1, left) <= 0)
            return;
        int64_t id;
        int fd;
        if (ivc_ivshmem_proto_recv(d->sock, &id, &fd) != 0) {
            close(d->sock); /* the server left: what it handed out keeps working */
            d->sock = -1;
            return;
        }
        sock_note(d, id, fd);
    }
}

static struct ivclib_door *door_from_sock(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct stat st;
    if (strlen(path) >= sizeof(sa.sun_path) || stat(path, &st) != 0)
        return NULL;
    strcpy(sa.sun_path, path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return NULL;
    struct ivclib_door *d = calloc(1, sizeof(*d));
    if (d == NULL || connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        goto bad;
    d->sock = s;
    d->fd = -1;
    d->owned = 1;
    /* The greeting: version, our address, the shared memory (not used: the region is
     * IVC's), then the peers' eventfds and ours last. */
    int64_t v[3];
    int fds[3] = {-1, -1, -1};
    struct pollfd pfd = {s, POLLIN, 0};
    for (int i = 0; i < 3; i++)
        if (poll(&pfd, 1, SOCK_WAIT_MS) <= 0 || ivc_ivshmem_proto_recv(s, &v[i], &fds[i]) != 0)
            break;
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (v[0] != 0 || fds[0] >= 0 || fds[1] >= 0 || v[1] < 0 || v[1] >= IVSHMEM_MAX_PEERS ||
        v[2] != -1)
        goto bad;
    d->id = (uint32_t)v[1];
    sock_drain(d, SOCK_WAIT_MS, v[1]);
    if (d->id >= d->nring || d->ring[d->id] < 0)
        goto bad;
    d->fd = d->ring[d->id];
    /* The same domain as the MPI ranks' (door_sock.c): this server's socket. */
    d->domain = ((uint64_t)st.st_dev << 40 ^ (uint64_t)st.st_ino) | 1u;
    return d;
bad:
    if (d != NULL) {
        for (uint32_t i = 0; i < d->nring; i++)
            if (d->ring[i] >= 0)
                close(d->ring[i]);
        free(d->ring);
        free(d);
    }
    close(s);
    return NULL;
}

void ivclib_door_open(ivc_t *ivc)
{
    const char *fds = getenv("IVC_DOORBELL_FDS"), *sock = getenv("IVC_DOORBELL_SOCKET");
    struct ivclib_door *d = NULL;
    if (fds != NULL && *fds != '\0')
        d = door_from_fds(fds, ivc->rank, ivc->id);
    else if (sock != NULL && *sock != '\0')
        d = door_from_sock(sock);
    ivclib_ep_t *ep = ivclib_ep(ivc, ivc->id);
    ivc_store_relaxed(&ep->sleepers, 0);
    ep->door_domain = d != NULL ? d->domain : 0;
    ep->door_id = d != NULL ? d->id : 0;
    ivc->door = d;
    if (d != NULL)
        ivc_debug("libivc: endpoint %u sleeps on a doorbell (address %u, domain %llx)", ivc->id,
                  d->id, (unsigned long long)d->domain);
    else
        ivc_debug("libivc: endpoint %u has no doorbell: blocking calls back off with sleeps",
                  ivc->id);
}

void ivclib_door_close(ivc_t *ivc)
{
    struct ivclib_door *d = ivc->door;
    if (d == NULL)
        return;
    ivc_debug("libivc: endpoint %u: %llu doorbell sleeps, %llu ended by the timeout, %llu rings "
              "sent",
              ivc->id, (unsigned long long)d->sleeps, (unsigned long long)d->timeouts,
              (unsigned long long)d->rings);
    ivc->door = NULL;
    ivclib_ep_t *ep = ivclib_ep(ivc, ivc->id);
    ep->door_domain = 0;
    if (d->owned)
        for (uint32_t i = 0; i < d->nring; i++)
            if (d->ring[i] >= 0)
                close(d->ring[i]);
    if (d->sock >= 0)
        close(d->sock);
    free(d->ring);
    free(d);
}

void ivclib_door_ring(const ivc_t *ivc, uint32_t id)
{
    struct ivclib_door *d = ivc->door;
    const ivclib_ep_t *ep = ivclib_ep(ivc, id);
    /* Copied once, then checked: a slot of another domain, or an address this endpoint
     * cannot reach, is not rung (its owner does not sleep on a doorbell we share). */
    uint64_t domain = ep->door_domain;
    uint32_t addr = ep->door_id;
    if (domain != d->domain)
        return;
    int fd = -1;
    if (d->sock >= 0 || d->owned) {
        if (addr < IVSHMEM_MAX_PEERS) {
            if ((addr >= d->nring || d->ring[addr] < 0) && d->sock >= 0)
                sock_drain(d, 0, addr); /* a peer that came after us: its notice waits */
            fd = addr < d->nring ? d->ring[addr] : -1;
        }
    } else if (addr >= d->first && addr - d->first < d->nring) {
        fd = d->ring[addr - d->first];
    }
    uint64_t one = 1;
    if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
        /* EAGAIN: the count is saturated, it is readable anyway; else the sleeper's
         * timeout bounds the wait */
    }
    d->rings++;
}

/* Whether every live endpoint of the region can ring this one (same domain). */
static int door_all_share(const ivc_t *ivc)
{
    uint64_t mine = ivc->door->domain;
    for (uint32_t k = 0; k < ivc->nendpoints; k++) {
        const ivclib_ep_t *ep = ivclib_ep(ivc, k);
        if (ivc_load_acquire(&ep->state) == IVCLIB_EP_ACTIVE && ep->door_domain != mine)
            return 0;
    }
    return 1;
}

int ivclib_door_wait(const ivc_t *ivc, int (*ready)(void *), void *arg, uint64_t timeout_ns)
{
    struct ivclib_door *d = ivc->door;
    if (d == NULL || !door_all_share(ivc))
        return -EAGAIN;
    ivclib_ep_t *me = ivclib_ep(ivc, ivc->id);
    /* D1: the count before the re-check; pairs with D2 in ivclib_kick(). */
    atomic_fetch_add_explicit(&me->sleepers, 1, memory_order_seq_cst);
    uint64_t v;
    if (d->undrained) {
        /* Rings read off here came after publications the re-check sees. */
        d->undrained = 0;
        if (read(d->fd, &v, sizeof(v)) < 0) {
            /* EAGAIN: nothing there */
        }
    }
    int n = ready(arg);
    if (n == 0) {
        struct pollfd pfd = {d->fd, POLLIN, 0};
        struct timespec ts = {(time_t)(timeout_ns / 1000000000ull),
                              (long)(timeout_ns % 1000000000ull)};
        d->sleeps++;
        int got = ppoll(&pfd, 1, &ts, NULL);
        if (got > 0)
            d->undrained = 1; /* read off before the next re-check, not on the way to work */
        else if (got == 0)
            d->timeouts++;
        n = got != 0; /* rung (or interrupted): look again */
    }
    atomic_fetch_sub_explicit(&me->sleepers, 1, memory_order_relaxed);
    return n != 0;
}
