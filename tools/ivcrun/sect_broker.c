/* ivcrun's side of write-exclusive sections (sect_broker.h). */
#define _GNU_SOURCE
#include "sect_broker.h"

#include "base/ivc_fdpass.h"
#include "region/region_sect.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Something to send to a rank: rank `owner`'s whole section (fd -1: the owner's kept
 * one), or a private part of it for this rank alone (its own descriptor, closed once
 * sent). */
typedef struct sect_item {
    uint32_t owner;
    int fd;
    uint64_t at, len;
} sect_item_t;

typedef struct sect_conn {
    int fd, rank_fd; /* ivcrun's end, the rank's end (until the rank started) */
    int section;     /* the rank's section once handed over and checked, else -1 */
    uint32_t host;
    sect_item_t *todo; /* what still goes to this rank (a FIFO): each other rank's section
                        * and its private part for this rank, at most once each */
    uint32_t head, tail;
    uint8_t *got_private; /* per owner: its private part for this rank came already */
    int gone;             /* its connection closed or broke */
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
        /* Each rank is sent every other rank's section and private part at most once. */
        if ((b->c[r].todo = malloc(2 * (size_t)nranks * sizeof(sect_item_t))) == NULL ||
            (b->c[r].got_private = calloc(nranks, 1)) == NULL) {
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
    for (uint32_t i = c->head; i < c->tail; i++)
        if (c->todo[i].fd >= 0)
            close(c->todo[i].fd);
    c->gone = 1;
    c->head = c->tail = 0;
}

/* Sends what waits for rank r until its socket is full. */
static void flush(sect_broker_t *b, uint32_t r)
{
    sect_conn_t *c = &b->c[r];
    while (!c->gone && c->head != c->tail) {
        const sect_item_t *it = &c->todo[c->head];
        int fd = it->fd >= 0 ? it->fd : b->c[it->owner].section;
        ivc_sect_msg_t m = {IVC_SECT_MAGIC, it->owner, it->fd >= 0 ? r : IVC_SECT_ALL, 0,
                            it->at, it->len};
        ssize_t w = ivc_fd_send(c->fd, &m, sizeof(m), fd, MSG_DONTWAIT);
        if (w == -EAGAIN)
            return;
        if (w != (ssize_t)sizeof(m)) {
            gone(c); /* the rank ended: nobody reads its socket any more */
            return;
        }
        if (it->fd >= 0)
            close(it->fd); /* a private part goes to one rank only */
        c->head++;
    }
}

static void queue(sect_broker_t *b, uint32_t to, uint32_t k, int fd, uint64_t at, uint64_t len)
{
    sect_conn_t *c = &b->c[to];
    if (!c->gone && c->tail < 2 * b->n)
        c->todo[c->tail++] = (sect_item_t){k, fd, at, len};
    else if (fd >= 0)
        close(fd);
}

/* Takes rank r's section. Returns 0, or 1 (printed) when what it sent is not one. */
static int take(sect_broker_t *b, uint32_t r)
{
    sect_conn_t *c = &b->c[r];
    ivc_sect_msg_t m;
    int fd;
    ssize_t got = ivc_fd_recv(c->fd, &m, sizeof(m), &fd, MSG_DONTWAIT);
    if (got == -EAGAIN)
        return 0;
    if (got <= 0 && got != -EPROTO) {
        gone(c); /* ended (or its socket broke): it takes nothing more */
        return 0;
    }
    const char *why = "a malformed message";
    int all = m.to == IVC_SECT_ALL;
    int bad = got != (ssize_t)sizeof(m) || m.magic != IVC_SECT_MAGIC || m.rank != r || fd < 0;
    if (!bad && all && c->section >= 0) {
        why = "a second section";
        bad = 1;
    }
    if (!bad && !all &&
        (m.to >= b->n || m.to == r || b->c[m.to].host != c->host || c->section < 0 ||
         m.at % 4096 || m.len == 0 || m.len % 4096 || m.at > b->sec_size ||
         m.len > b->sec_size - m.at)) {
        why = "a private part for no co-located rank, or outside its section";
        bad = 1;
    }
    if (!bad && !all && b->c[m.to].got_private[r]) {
        why = "a second private part for one rank";
        bad = 1;
    }
    if (!bad && ivc_region_sect_check(fd, all ? b->sec_size : m.len, &why) != 0)
        bad = 1;
    if (bad) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "ivcrun: rank %u handed over %s instead of a sealed part of its section\n",
                r, why);
        return 1;
    }
    if (!all) {
        /* For its one reader only. */
        b->c[m.to].got_private[r] = 1;
        queue(b, m.to, r, fd, m.at, m.len);
        return 0;
    }
    c->section = fd;
    /* Everyone of its host who has one gets it, and it gets theirs. */
    for (uint32_t q = 0; q < b->n; q++) {
        if (q == r || b->c[q].host != c->host || b->c[q].section < 0)
            continue;
        queue(b, q, r, -1, 0, b->sec_size);
        queue(b, r, q, -1, 0, b->sec_size);
    }
    return 0;
}

uint32_t sect_broker_state(const sect_broker_t *b, uint32_t r)
{
    uint32_t st = 0;
    if (r >= b->n || b->c[r].section < 0 ||
        pread(b->c[r].section, &st, sizeof(st), offsetof(ivc_sect_member_t, state)) !=
            (ssize_t)sizeof(st))
        return 0;
    return st;
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
        for (uint32_t i = c->head; c->todo != NULL && i < c->tail; i++)
            if (c->todo[i].fd >= 0)
                close(c->todo[i].fd);
        free(c->todo);
        free(c->got_private);
    }
    free(b->c);
    free(b);
}
