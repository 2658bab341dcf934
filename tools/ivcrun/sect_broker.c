/* ivcrun's side of write-exclusive sections (sect_broker.h). */
#define _GNU_SOURCE
#include "sect_broker.h"

#include "region/region_sect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct sect_conn {
    int fd, rank_fd; /* ivcrun's end, the rank's end (until the rank started) */
    int section;     /* the rank's section once handed over and checked, else -1 */
    uint32_t host;
    uint32_t *todo; /* ranks whose sections still go to this rank (a FIFO) */
    uint32_t head, tail;
    int gone; /* its connection closed or broke */
} sect_conn_t;

struct sect_broker {
    uint32_t n;
    uint64_t sec_size;
    sect_conn_t *c;
};

sect_broker_t *sect_broker_create(uint32_t nranks, const uint32_t *host, uint64_t sec_size)
{
    sect_broker_t *b = calloc(1, sizeof(*b));
    if (b == NULL || (b->c = calloc(nranks, sizeof(*b->c))) == NULL) {
        free(b);
        fprintf(stderr, "ivcrun: out of memory\n");
        return NULL;
    }
    b->n = nranks;
    b->sec_size = sec_size;
    for (uint32_t r = 0; r < nranks; r++)
        b->c[r].fd = b->c[r].rank_fd = b->c[r].section = -1;
    for (uint32_t r = 0; r < nranks; r++) {
        int sv[2];
        b->c[r].host = host[r];
        /* Each rank is sent every other rank's section at most once. */
        if ((b->c[r].todo = malloc(nranks * sizeof(uint32_t))) == NULL) {
            fprintf(stderr, "ivcrun: out of memory\n");
            sect_broker_destroy(b);
            return NULL;
        }
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            fprintf(stderr, "ivcrun: cannot create the section sockets: %s\n", strerror(errno));
            sect_broker_destroy(b);
            return NULL;
        }
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
        b->c[r].fd = sv[0];
        b->c[r].rank_fd = sv[1];
    }
    return b;
}

int sect_broker_rank_fd(const sect_broker_t *b, uint32_t r)
{
    return b->c[r].rank_fd;
}

void sect_broker_close_rank_fds(sect_broker_t *b)
{
    for (uint32_t r = 0; r < b->n; r++) {
        if (b->c[r].rank_fd >= 0)
            close(b->c[r].rank_fd);
        b->c[r].rank_fd = -1;
    }
}

size_t sect_broker_pollfds(const sect_broker_t *b, struct pollfd *fds, size_t max)
{
    size_t k = 0;
    for (uint32_t r = 0; r < b->n && k < max; r++) {
        const sect_conn_t *c = &b->c[r];
        if (c->fd >= 0 && !c->gone)
            fds[k++] = (struct pollfd){c->fd, (short)(POLLIN | (c->head != c->tail ? POLLOUT : 0)),
                                       0};
    }
    return k;
}

static void gone(sect_conn_t *c)
{
    c->gone = 1;
    c->head = c->tail = 0;
}

/* Sends what waits for rank r until its socket is full. */
static void flush(sect_broker_t *b, uint32_t r)
{
    sect_conn_t *c = &b->c[r];
    while (!c->gone && c->head != c->tail) {
        uint32_t k = c->todo[c->head];
        ivc_sect_msg_t m = {IVC_SECT_MAGIC, k};
        struct iovec iov = {&m, sizeof(m)};
        union {
            struct cmsghdr h;
            char buf[CMSG_SPACE(sizeof(int))];
        } u;
        memset(&u, 0, sizeof(u));
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                             .msg_controllen = sizeof(u.buf)};
        struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &b->c[k].section, sizeof(int));
        ssize_t w = sendmsg(c->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (w != (ssize_t)sizeof(m)) {
            gone(c); /* the rank ended: nobody reads its socket any more */
            return;
        }
        c->head++;
    }
}

static void queue(sect_broker_t *b, uint32_t to, uint32_t k)
{
    sect_conn_t *c = &b->c[to];
    if (!c->gone && c->tail < b->n)
        c->todo[c->tail++] = k;
}

/* Takes rank r's section. Returns 0, or 1 (printed) when what it sent is not one. */
static int take(sect_broker_t *b, uint32_t r)
{
    sect_conn_t *c = &b->c[r];
    ivc_sect_msg_t m;
    struct iovec iov = {&m, sizeof(m)};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                         .msg_controllen = sizeof(u.buf)};
    ssize_t got = recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    int fd = -1;
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&msg); got > 0 && h != NULL; h = CMSG_NXTHDR(&msg, h))
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
            h->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&fd, CMSG_DATA(h), sizeof(int));
    if (got <= 0) {
        gone(c); /* ended (or its socket broke): it takes nothing more */
        return 0;
    }
    const char *why = "a malformed message";
    int bad = got != (ssize_t)sizeof(m) || m.magic != IVC_SECT_MAGIC || m.rank != r || fd < 0 ||
              (msg.msg_flags & MSG_CTRUNC);
    if (!bad && c->section >= 0) {
        why = "a second section";
        bad = 1;
    }
    if (!bad && ivc_region_sect_check(fd, b->sec_size, &why) != 0)
        bad = 1;
    if (bad) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "ivcrun: rank %u handed over %s instead of its sealed section\n", r, why);
        return 1;
    }
    c->section = fd;
    /* Everyone of its host who has one gets it, and it gets theirs. */
    for (uint32_t q = 0; q < b->n; q++) {
        if (q == r || b->c[q].host != c->host || b->c[q].section < 0)
            continue;
        queue(b, q, r);
        queue(b, r, q);
    }
    return 0;
}

int sect_broker_handle(sect_broker_t *b, const struct pollfd *fds, size_t n, uint32_t *rank)
{
    for (size_t i = 0; i < n; i++) {
        if (fds[i].revents == 0)
            continue;
        uint32_t r = 0;
        while (r < b->n && b->c[r].fd != fds[i].fd)
            r++;
        if (r == b->n)
            continue;
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && take(b, r)) {
            *rank = r;
            return 1;
        }
    }
    for (uint32_t r = 0; r < b->n; r++)
        flush(b, r);
    return 0;
}

void sect_broker_destroy(sect_broker_t *b)
{
    if (b == NULL)
        return;
    for (uint32_t r = 0; r < b->n; r++) {
        sect_conn_t *c = &b->c[r];
        if (c->fd >= 0)
            close(c->fd);
        if (c->rank_fd >= 0)
            close(c->rank_fd);
        if (c->section >= 0)
            close(c->section);
        free(c->todo);
    }
    free(b->c);
    free(b);
}
