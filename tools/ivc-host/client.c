#include "client.h"

#include "base/ivc_log.h"
#include "base/ivc_wait.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int host_client_connect(host_client_t *c, const char *path)
{
    memset(c, 0, sizeof(*c));
    c->shm_fd = -1;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(a.sun_path))
        return -ENAMETOOLONG;
    strcpy(a.sun_path, path);
    c->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->sock < 0 || connect(c->sock, (struct sockaddr *)&a, sizeof(a)) != 0) {
        int err = errno;
        ivc_error("cannot connect to the doorbell server at %s: %s", path, strerror(err));
        if (c->sock >= 0)
            close(c->sock);
        return -err;
    }
    int64_t version, id, minus1;
    int fd0 = -1, fd1 = -1, fd2 = -1;
    int rc = ivc_ivshmem_proto_recv(c->sock, &version, &fd0);
    if (rc == 0)
        rc = ivc_ivshmem_proto_recv(c->sock, &id, &fd1);
    if (rc == 0)
        rc = ivc_ivshmem_proto_recv(c->sock, &minus1, &fd2);
    if (rc == 0 && (version != IVSHMEM_PROTOCOL_VERSION || fd0 >= 0 || fd1 >= 0 || id < 0 ||
                    id >= IVSHMEM_MAX_PEERS || minus1 != -1 || fd2 < 0))
        rc = -EPROTO;
    if (fd0 >= 0)
        close(fd0);
    if (fd1 >= 0)
        close(fd1);
    if (rc != 0) {
        ivc_error("doorbell server %s: bad handshake (%s)", path,
                  rc == -EPROTO ? "not ivshmem protocol version 0" : strerror(-rc));
        if (fd2 >= 0)
            close(fd2);
        close(c->sock);
        return rc;
    }
    c->id = id;
    c->shm_fd = fd2;
    return 0;
}

static host_client_peer_t *find(const host_client_t *c, int64_t id)
{
    for (size_t i = 0; i < c->npeers; i++)
        if (c->peers[i].id == id)
            return &c->peers[i];
    return NULL;
}

const host_client_peer_t *host_client_peer(const host_client_t *c, int64_t id)
{
    return find(c, id);
}

static void drop(host_client_t *c, host_client_peer_t *p)
{
    for (unsigned v = 0; v < p->nvec; v++)
        close(p->efd[v]);
    *p = c->peers[--c->npeers];
}

/* One server message: a peer's next vector (with fd) or its departure (without). */
static int handle(host_client_t *c, int64_t id, int fd)
{
    host_client_peer_t *p = find(c, id);
    if (fd < 0) {
        if (p != NULL)
            drop(c, p);
        return 0;
    }
    if (id < 0 || id >= IVSHMEM_MAX_PEERS) {
        close(fd);
        return 0;
    }
    if (p == NULL) {
        if (c->npeers == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 8;
            host_client_peer_t *np = realloc(c->peers, cap * sizeof(*np));
            if (np == NULL) {
                close(fd);
                return -ENOMEM;
            }
            c->peers = np;
            c->cap = cap;
        }
        p = &c->peers[c->npeers++];
        p->id = id;
        p->nvec = 0;
    }
    if (p->nvec == IVSHMEM_MAX_VECTORS) {
        close(fd);
        return 0;
    }
    p->efd[p->nvec++] = fd;
    return 0;
}

int host_client_update(host_client_t *c, int timeout_ms)
{
    struct pollfd pfd = {.fd = c->sock, .events = POLLIN};
    while (poll(&pfd, 1, timeout_ms) > 0) {
        int64_t id;
        int fd;
        int rc = ivc_ivshmem_proto_recv(c->sock, &id, &fd);
        if (rc != 0)
            return -EPIPE;
        handle(c, id, fd);
        timeout_ms = 0;
    }
    return 0;
}

int host_client_ring(const host_client_t *c, int64_t id, unsigned v)
{
    const host_client_peer_t *p = find(c, id);
    if (p == NULL || v >= p->nvec)
        return -ENOENT;
    uint64_t one = 1;
    return write(p->efd[v], &one, sizeof(one)) == sizeof(one) ? 0 : -errno;
}

int host_client_wait(host_client_t *c, int timeout_ms)
{
    uint64_t end = ivc_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        if (host_client_update(c, 0) != 0)
            return -EPIPE;
        host_client_peer_t *self = find(c, c->id);
        struct pollfd pfd[IVSHMEM_MAX_VECTORS + 1];
        unsigned n = self ? self->nvec : 0;
        for (unsigned v = 0; v < n; v++)
            pfd[v] = (struct pollfd){.fd = self->efd[v], .events = POLLIN};
        pfd[n] = (struct pollfd){.fd = c->sock, .events = POLLIN};
        uint64_t now = ivc_now_ns();
        if (now >= end)
            return -ETIMEDOUT;
        if (poll(pfd, n + 1, (int)((end - now) / 1000000u) + 1) < 0 && errno != EINTR)
            return -errno;
        for (unsigned v = 0; v < n; v++) {
            uint64_t count;
            if ((pfd[v].revents & POLLIN) && read(self->efd[v], &count, sizeof(count)) > 0)
                return (int)v;
        }
    }
}

void host_client_close(host_client_t *c)
{
    while (c->npeers > 0)
        drop(c, &c->peers[0]);
    free(c->peers);
    c->peers = NULL;
    if (c->shm_fd >= 0)
        close(c->shm_fd);
    close(c->sock);
}
