#define _GNU_SOURCE /* accept4 */
#include "server.h"

#include "base/ivc_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

int host_server_start(host_server_t *s, const char *path, int shm_fd, unsigned vectors)
{
    memset(s, 0, sizeof(*s));
    s->listen_fd = -1;
    s->shm_fd = shm_fd;
    s->vectors = vectors;
    if (strlen(path) >= sizeof(s->path)) {
        ivc_error("socket path %s is longer than %zu characters", path, sizeof(s->path) - 1);
        return -ENAMETOOLONG;
    }
    strcpy(s->path, path);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 16) != 0) {
        int err = errno;
        ivc_error("cannot listen on %s: %s", path, strerror(err));
        if (fd >= 0)
            close(fd);
        s->path[0] = '\0'; /* not ours to remove */
        return -err;
    }
    s->listen_fd = fd;
    return 0;
}

size_t host_server_pollfds(const host_server_t *s, struct pollfd *fds, size_t max)
{
    size_t n = 0;
    if (max == 0)
        return 0;
    fds[n++] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
    for (size_t i = 0; i < s->npeers && n < max; i++)
        fds[n++] = (struct pollfd){.fd = s->peers[i].sock, .events = POLLIN};
    return n;
}

static void peer_close(host_server_t *s, host_peer_t *p)
{
    close(p->sock);
    for (unsigned v = 0; v < s->vectors; v++)
        close(p->efd[v]);
}

/* Tells every other client that peer `id` is gone (its id with no fd). */
static void announce_gone(host_server_t *s, int64_t id)
{
    for (size_t i = 0; i < s->npeers; i++)
        ivc_ivshmem_proto_send(s->peers[i].sock, id, -1);
}

static void peer_remove(host_server_t *s, size_t i)
{
    int64_t id = s->peers[i].id;
    peer_close(s, &s->peers[i]);
    s->peers[i] = s->peers[--s->npeers];
    ivc_debug("doorbells: peer %lld left", (long long)id);
    printf("ivc-host: peer %lld disconnected\n", (long long)id);
    fflush(stdout);
    announce_gone(s, id);
}

static int id_in_use(const host_server_t *s, int64_t id)
{
    for (size_t i = 0; i < s->npeers; i++)
        if (s->peers[i].id == id)
            return 1;
    return 0;
}

/* Sends peer `p`'s eventfds, one message per vector, to `sock`. */
static int send_vectors(const host_server_t *s, int sock, const host_peer_t *p)
{
    for (unsigned v = 0; v < s->vectors; v++) {
        int rc = ivc_ivshmem_proto_send(sock, p->id, p->efd[v]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void accept_peer(host_server_t *s)
{
    int sock = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (sock < 0)
        return;
    if (s->npeers >= IVSHMEM_MAX_PEERS - 1) {
        ivc_warn("doorbells: %zu peers connected; refusing another", s->npeers);
        close(sock);
        return;
    }
    if (s->npeers == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        host_peer_t *np = realloc(s->peers, cap * sizeof(*np));
        if (np == NULL) {
            close(sock);
            return;
        }
        s->peers = np;
        s->cap = cap;
    }
    host_peer_t p = {.sock = sock};
    while (id_in_use(s, s->next_id))
        s->next_id = (s->next_id + 1) % IVSHMEM_MAX_PEERS;
    p.id = s->next_id;
    s->next_id = (s->next_id + 1) % IVSHMEM_MAX_PEERS;
    unsigned made = 0;
    for (; made < s->vectors; made++)
        if ((p.efd[made] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
            break;
    int rc = made == s->vectors ? 0 : -errno;
    if (rc == 0)
        rc = ivc_ivshmem_proto_send(sock, IVSHMEM_PROTOCOL_VERSION, -1);
    if (rc == 0)
        rc = ivc_ivshmem_proto_send(sock, p.id, -1);
    if (rc == 0)
        rc = ivc_ivshmem_proto_send(sock, -1, s->shm_fd);
    for (size_t i = 0; rc == 0 && i < s->npeers; i++)
        rc = send_vectors(s, sock, &s->peers[i]);
    if (rc == 0)
        rc = send_vectors(s, sock, &p);
    if (rc != 0) {
        ivc_warn("doorbells: a client left during its handshake: %s", strerror(-rc));
        close(sock);
        for (unsigned v = 0; v < made; v++)
            close(p.efd[v]);
        return;
    }
    /* Existing peers learn the newcomer's vectors; one that fails is dropped. */
    for (size_t i = 0; i < s->npeers;) {
        if (send_vectors(s, s->peers[i].sock, &p) != 0)
            peer_remove(s, i);
        else
            i++;
    }
    s->peers[s->npeers++] = p;
    printf("ivc-host: peer %lld connected\n", (long long)p.id);
    fflush(stdout);
}

int host_server_handle(host_server_t *s, const struct pollfd *fds, size_t n)
{
    /* Clients never send; readable means end of stream or an error. Collect the ids
     * first: removal reorders the peer table. */
    int64_t gone[64];
    size_t ngone = 0;
    for (size_t k = 1; k < n && ngone < 64; k++)
        if (fds[k].revents & (POLLIN | POLLHUP | POLLERR))
            for (size_t i = 0; i < s->npeers; i++)
                if (s->peers[i].sock == fds[k].fd)
                    gone[ngone++] = s->peers[i].id;
    for (size_t g = 0; g < ngone; g++)
        for (size_t i = 0; i < s->npeers; i++)
            if (s->peers[i].id == gone[g]) {
                char junk[64];
                if (recv(s->peers[i].sock, junk, sizeof(junk), MSG_DONTWAIT) > 0)
                    break; /* a chatty client: ignore what it says */
                peer_remove(s, i);
                break;
            }
    if (n > 0 && (fds[0].revents & POLLIN))
        accept_peer(s);
    if (n > 0 && (fds[0].revents & (POLLERR | POLLNVAL)))
        return -EIO;
    return 0;
}

void host_server_stop(host_server_t *s)
{
    for (size_t i = 0; i < s->npeers; i++)
        peer_close(s, &s->peers[i]);
    free(s->peers);
    s->peers = NULL;
    s->npeers = s->cap = 0;
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    s->listen_fd = -1;
    if (s->path[0] != '\0')
        unlink(s->path);
}
