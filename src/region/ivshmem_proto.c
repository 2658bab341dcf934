#include "ivshmem_proto.h"

#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int ivc_ivshmem_proto_send(int sock, int64_t value, int fd)
{
    int64_t le = (int64_t)htole64((uint64_t)value);
    struct iovec iov = {.iov_base = &le, .iov_len = sizeof(le)};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        memset(&ctl, 0, sizeof(ctl));
        msg.msg_control = ctl.buf;
        msg.msg_controllen = sizeof(ctl.buf);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }
    ssize_t n;
    do
        n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    return n == sizeof(le) ? 0 : -EPIPE;
}

int ivc_ivshmem_proto_recv(int sock, int64_t *value, int *fd)
{
    int64_t le;
    struct iovec iov = {.iov_base = &le, .iov_len = sizeof(le)};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf)};
    ssize_t n;
    do
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    *fd = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(fd, CMSG_DATA(c), sizeof(int));
    if (n != sizeof(le)) {
        if (*fd >= 0)
            close(*fd);
        return -EPIPE;
    }
    *value = (int64_t)le64toh((uint64_t)le);
    return 0;
}
