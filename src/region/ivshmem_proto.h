/* QEMU's ivshmem server protocol on the wire (docs/specs/ivshmem-spec in QEMU): every
 * message is one little-endian int64, optionally carrying one file descriptor as
 * SCM_RIGHTS ancillary data. The server sends a new client: the protocol version (0),
 * the client's peer id, -1 with the shared memory fd, then for every peer (other peers
 * first, the client itself last) one message per vector: peer id with that vector's
 * eventfd. Other peers then get the new peer's id with each of its eventfds; when a peer
 * leaves they get its id with no fd. Spoken by ivc-host (server and client) and by ranks
 * that take their doorbells from such a server (door_sock.c). */
#ifndef IVC_REGION_IVSHMEM_PROTO_H
#define IVC_REGION_IVSHMEM_PROTO_H

#include <stdint.h>

#define IVSHMEM_PROTOCOL_VERSION 0
#define IVSHMEM_MAX_VECTORS      64
#define IVSHMEM_MAX_PEERS        65536

/* Sends `value` and, when fd >= 0, the fd. Returns 0 or -errno. */
int ivc_ivshmem_proto_send(int sock, int64_t value, int fd);

/* Receives one message: *value and *fd (-1 when none came). Returns 0, -EPIPE on
 * end of stream, or -errno. Blocks. */
int ivc_ivshmem_proto_recv(int sock, int64_t *value, int *fd);

#endif
