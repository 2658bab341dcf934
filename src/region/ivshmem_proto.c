#include "ivshmem_proto.h"

#include "../base/ivc_fdpass.h"

#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int ivc_ivshmem_proto_send(int sock, int64_t value, int fd)
{
    int64_t le = (int64_t)htole64((uint64_t)value);
    ssize_t n = ivc_fd_send(sock, &le, sizeof(le), fd, 0);
    if (n < 0)
        return (int)n;
    return n == sizeof(le) ? 0 : -EPIPE;
}

int ivc_ivshmem_proto_recv(int sock, int64_t *value, int *fd)
{
    int64_t le;
    ssize_t n = ivc_fd_recv(sock, &le, sizeof(le), fd, MSG_WAITALL);
    if (n < 0)
        return (int)n;
    if (n != sizeof(le)) {
        if (*fd >= 0)
            close(*fd);
        *fd = -1;
        return -EPIPE;
    }
    *value = (int64_t)le64toh((uint64_t)le);
    return 0;
}
