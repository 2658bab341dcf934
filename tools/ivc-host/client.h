/* A host process as an ivshmem client: connects to a doorbell server (ivc-host or QEMU's
 * ivshmem-server), learns its peer id, the region fd and every peer's eventfds, rings
 * peers and waits for its own doorbells. */
#ifndef IVC_HOST_CLIENT_H
#define IVC_HOST_CLIENT_H

#include "region/ivshmem_proto.h"

#include <stddef.h>
#include <stdint.h>

typedef struct host_client_peer {
    int64_t id;
    unsigned nvec;
    int efd[IVSHMEM_MAX_VECTORS];
} host_client_peer_t;

typedef struct host_client {
    int sock;
    int64_t id;
    int shm_fd;
    host_client_peer_t *peers; /* this client itself included (its own vectors) */
    size_t npeers, cap;
} host_client_t;

/* Connects and reads the handshake (version, own id, region fd). Returns 0, -EPROTO
 * (another protocol version or a malformed handshake) or -errno; each is logged. */
int host_client_connect(host_client_t *c, const char *path);

/* Processes the server's messages for up to `timeout_ms` (0: only what is pending).
 * Returns 0, or -EPIPE when the server went away. */
int host_client_update(host_client_t *c, int timeout_ms);

/* The peer with `id` (NULL when unknown or gone). */
const host_client_peer_t *host_client_peer(const host_client_t *c, int64_t id);

/* Rings vector `v` of peer `id`: 0, -ENOENT (unknown peer or vector) or -errno. */
int host_client_ring(const host_client_t *c, int64_t id, unsigned v);

/* Waits up to `timeout_ms` for one of this client's own vectors to be rung; returns the
 * vector, -ETIMEDOUT, or -EPIPE when the server went away. */
int host_client_wait(host_client_t *c, int timeout_ms);

void host_client_close(host_client_t *c);

#endif
