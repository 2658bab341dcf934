/* The ivshmem-server protocol, client side (door_sock.h). On the wire every message is one
 * little-endian int64 with at most one file descriptor (SCM_RIGHTS): the server sends the
 * protocol version (0), the client's peer id, -1 with the shared memory's fd, then per peer
 * (the others first, the client itself last) one message per vector: the peer id with that
 * vector's eventfd. Later it sends each new peer's id with its eventfds, and a leaving
 * peer's id without one (the messages: ivshmem_proto.h). IVC uses vector 0 of every
 * peer. */
#define _GNU_SOURCE
#include "door_sock.h"

#include "door.h"
#include "ivshmem_proto.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SOCK_WAIT_MS 5000 /* how long the server may take to answer */

static int *peer_fd;   /* per peer id: vector 0's eventfd, or -1 */
static uint32_t npeer; /* entries of peer_fd */

/* A peer notice: keeps the first eventfd of each id (vector 0), closes the rest; a notice
 * without an fd means the peer left. */
static void sock_note(int64_t id, int fd)
{
    if (id < 0 || id >= IVSHMEM_MAX_PEERS) {
        if (fd >= 0)
            close(fd);
        return;
    }
    if ((uint32_t)id >= npeer) {
        uint32_t n = npeer ? npeer : 64;
        while (n <= (uint32_t)id)
            n *= 2;
        int *p = realloc(peer_fd, n * sizeof(*p));
        if (p == NULL) {
            if (fd >= 0)
                close(fd);
            return;
        }
        for (uint32_t i = npeer; i < n; i++)
            p[i] = -1;
        peer_fd = p;
        npeer = n;
    }
    if (fd < 0) {
        if (peer_fd[id] >= 0 && (uint32_t)id != ivc_doors.door_id)
            close(peer_fd[id]);
        if ((uint32_t)id != ivc_doors.door_id)
            peer_fd[id] = -1;
        return;
    }
    if (peer_fd[id] < 0)
        peer_fd[id] = fd;
    else
        close(fd);
}

/* Reads messages while they come within `ms`; stops at the end of the stream (the server
 * left: what it handed out stays usable). Returns 0 or -EPIPE. */
static int sock_drain(int ms, int64_t until_id)
{
    ivc_doors_t *d = &ivc_doors;
    uint64_t end = ivc_now_ns() + (uint64_t)ms * 1000000ull;
    while (d->sock >= 0) {
        if (until_id >= 0 && (uint32_t)until_id < npeer && peer_fd[until_id] >= 0)
            return 0;
        uint64_t now = ivc_now_ns();
        struct pollfd pfd = {d->sock, POLLIN, 0};
        int left = now >= end ? 0 : (int)((end - now) / 1000000ull) + 1;
        if (poll(&pfd, 1, left) <= 0)
            return 0;
        int64_t id;
        int fd;
        if (ivc_ivshmem_proto_recv(d->sock, &id, &fd) != 0) {
            ivc_debug("doorbell server closed the connection; its eventfds stay in use");
            close(d->sock);
            d->sock = -1;
            return -EPIPE;
        }
        sock_note(id, fd);
    }
    return 0;
}

int ivc_door_sock_open(const char *path, uint32_t rank, uint32_t world)
{
    (void)rank;
    (void)world;
    ivc_doors_t *d = &ivc_doors;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct stat st;
    if (strlen(path) >= sizeof(sa.sun_path) || stat(path, &st) != 0) {
        ivc_wait_no_doorbell_why = "the doorbell server IVC_DOORBELL_SOCKET names is not there";
        return 0;
    }
    strcpy(sa.sun_path, path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        if (s >= 0)
            close(s);
        ivc_wait_no_doorbell_why = "the doorbell server IVC_DOORBELL_SOCKET names does not answer";
        return 0;
    }
    /* The greeting: version, our id, the shared memory (not used: the region is IVC's). */
    int64_t v[3];
    int fds[3] = {-1, -1, -1};
    struct pollfd pfd = {s, POLLIN, 0};
    for (int i = 0; i < 3; i++)
        if (poll(&pfd, 1, SOCK_WAIT_MS) <= 0 || ivc_ivshmem_proto_recv(s, &v[i], &fds[i]) != 0)
            goto bad;
    if (fds[2] >= 0)
        close(fds[2]);
    if (v[0] != 0 || fds[0] >= 0 || fds[1] >= 0 || v[1] < 0 || v[1] >= IVSHMEM_MAX_PEERS ||
        v[2] != -1)
        goto bad;
    d->sock = s;
    d->door_id = (uint32_t)v[1];
    /* The others' eventfds come first, then ours. */
    sock_drain(SOCK_WAIT_MS, v[1]);
    if (d->door_id >= npeer || peer_fd[d->door_id] < 0) {
        ivc_wait_no_doorbell_why = "the doorbell server sent no eventfd for this rank";
        return 0;
    }
    d->my_fd = peer_fd[d->door_id];
    /* The domain: this server's socket, named by device and inode (the same socket is the
     * same set of doorbells, whatever path reaches it). */
    d->domain = ((uint64_t)st.st_dev << 40 ^ (uint64_t)st.st_ino) | 1u;
    ivc_debug("doorbell server %s: peer id %u", path, d->door_id);
    return 0;
bad:
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    close(s);
    ivc_wait_no_doorbell_why = "the doorbell server IVC_DOORBELL_SOCKET names does not speak "
                               "the ivshmem-server protocol";
    return 0;
}

int ivc_door_sock_fd(uint32_t id)
{
    if (id >= IVSHMEM_MAX_PEERS)
        return -1;
    sock_drain(id < npeer && peer_fd[id] >= 0 ? 0 : SOCK_WAIT_MS, (int64_t)id);
    return id < npeer ? peer_fd[id] : -1;
}

void ivc_door_sock_close(void)
{
    ivc_doors_t *d = &ivc_doors;
    if (d->sock >= 0)
        close(d->sock);
    d->sock = -1;
    for (uint32_t i = 0; i < npeer; i++)
        if (peer_fd[i] >= 0)
            close(peer_fd[i]);
    free(peer_fd);
    peer_fd = NULL;
    npeer = 0;
    d->my_fd = -1;
}
