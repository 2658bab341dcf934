/* Passing one file descriptor with a message over a Unix socket (SCM_RIGHTS): QEMU's
 * ivshmem server protocol (region/ivshmem_proto.c) and the hand-over of write-exclusive
 * sections (region/region_sect.c, ivcrun's sect_broker.c). */
#ifndef IVC_BASE_FDPASS_H
#define IVC_BASE_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

/* Sends `len` bytes at `buf` and, when fd >= 0, the descriptor, with sendmsg `flags`
 * (MSG_NOSIGNAL is added; EINTR is retried). Returns the bytes sent or -errno. */
ssize_t ivc_fd_send(int sock, const void *buf, size_t len, int fd, int flags);

/* Receives at most `len` bytes into `buf` and at most one descriptor (*fd, -1 when none
 * came; close-on-exec), with recvmsg `flags` (EINTR is retried). A message whose control
 * data was cut loses its descriptor and returns -EPROTO. Returns the bytes received (0 at
 * the end of the stream) or -errno. */
ssize_t ivc_fd_recv(int sock, void *buf, size_t len, int *fd, int flags);

#endif
