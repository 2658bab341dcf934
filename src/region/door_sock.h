/* Doorbells from a server speaking QEMU's ivshmem-server protocol (ivc-host -S), for ranks
 * started by hand or by another process manager (door.h). Private to the region layer. */
#ifndef IVC_DOOR_SOCK_H
#define IVC_DOOR_SOCK_H

#include <stdint.h>

/* Connects to the server at `path` as a new peer and reads this peer's id and its own
 * eventfd (vector 0); sets ivc_doors' domain, door_id and my_fd. A server that is missing or
 * does not answer leaves this rank without doorbells (said once when it would sleep).
 * Returns 0 (with or without doorbells) or -ENOMEM. */
int ivc_door_sock_open(const char *path, uint32_t rank, uint32_t world);

/* The eventfd that rings peer `id` (vector 0), reading the server's peer notices until it
 * is known or a short deadline passes; -1 when unknown. */
int ivc_door_sock_fd(uint32_t id);

/* Closes the connection and every eventfd. The server may be gone long before: eventfds it
 * handed out keep working without it. */
void ivc_door_sock_close(void);

#endif
