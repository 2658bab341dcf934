/* The doorbell server: QEMU's ivshmem server protocol (see region/ivshmem_proto.h) over a UNIX socket.
 * Each connected client (a QEMU with -device ivshmem-doorbell, or a host process) gets a
 * peer id, the region's fd and one eventfd per vector for itself and every other peer. */
#ifndef IVC_HOST_SERVER_H
#define IVC_HOST_SERVER_H

#include "region/ivshmem_proto.h"

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

typedef struct host_peer {
    int64_t id;
    int sock;
    int efd[IVSHMEM_MAX_VECTORS];
} host_peer_t;

typedef struct host_server {
    int listen_fd;
    int shm_fd;
    unsigned vectors;
    host_peer_t *peers;
    size_t npeers, cap;
    int64_t next_id;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} host_server_t;

/* Listens on `path` (which must not exist). Returns 0 or -errno (logged). */
int host_server_start(host_server_t *s, const char *path, int shm_fd, unsigned vectors);

/* Fills `fds` with the sockets to poll (listen socket first); returns how many (<= max). */
size_t host_server_pollfds(const host_server_t *s, struct pollfd *fds, size_t max);

/* Handles what poll() reported on `fds` (as filled by host_server_pollfds): accepts
 * clients, removes those that hung up. Returns 0 or -errno on a listen socket error. */
int host_server_handle(host_server_t *s, const struct pollfd *fds, size_t n);

/* Disconnects every client, closes the socket and removes its file. */
void host_server_stop(host_server_t *s);

#endif
