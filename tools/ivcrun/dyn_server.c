/* ivcrun's side of dynamic processes (dyn_server.h). */
#define _GNU_SOURCE
#include "dyn_server.h"

#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG_MAX      (64 * 1024)
#define WORDS_MAX    4096
#define FDS_MAX      250 /* per datagram, below SCM_MAX_FD */
#define PORTS_MAX    64
#define CHILDREN_MAX 64
#define REMOTES_MAX  16

/* One side of a pairing: `n` processes, `root` among them; reached either through this
 * job's ranks (`ranks`: launch indexes) or through a connection to another ivcrun. */
typedef struct side {
    int n, root;
    uint32_t *ranks; /* local side, else NULL */
    int remote_fd;   /* remote side: the other ivcrun's connection; -1 */
} side_t;

typedef struct port {
    int open;
    uint32_t id;
    int has_accept, has_connect;
    side_t accept, connect;
} port_t;

typedef struct child {
    pid_t pid;
    char what[128];
} child_t;

/* A connection to another ivcrun whose port one of our ranks connects to: its answers go to
 * `ranks` in order. */
typedef struct remote {
    int fd;
    uint32_t *ranks;
    int n, got;
} remote_t;

struct dyn_server {
    job_t *job;
    uint32_t nranks;
    int (*fd)[2]; /* [r][0] ivcrun's end, [r][1] the rank's */
    uint32_t tag;
    uint32_t next_port;
    port_t ports[PORTS_MAX];
    child_t children[CHILDREN_MAX];
    uint32_t nchildren;
    char dir[PATH_MAX];        /* the name directory, "" when it could not be made */
    int listen_fd;             /* other ivcruns connect here, -1 */
    int incoming[REMOTES_MAX]; /* accepted connections of other ivcruns, -1 */
    remote_t remotes[REMOTES_MAX];
};

static int dir_ready(dyn_server_t *d);
static void listen_ready(dyn_server_t *d);

/* ---- datagrams ---- */

typedef struct msg {
    char buf[MSG_MAX];
    size_t len;
    int bad;
} msg_t;

static void m_add(msg_t *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void m_add(msg_t *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n =
        m->len < sizeof(m->buf) ? vsnprintf(m->buf + m->len, sizeof(m->buf) - m->len, fmt, ap) : -1;
    va_end(ap);
    if (n < 0 || m->len + (size_t)n + 1 > sizeof(m->buf)) {
        m->bad = 1;
        return;
    }
    m->len += (size_t)n + 1;
}

static int send_fds(int sock, const void *buf, size_t len, const int *fds, int nfds)
{
    char cbuf[CMSG_SPACE(sizeof(int) * FDS_MAX)];
    struct iovec iov = {(void *)buf, len};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        memset(cbuf, 0, sizeof(cbuf));
        mh.msg_control = cbuf;
        mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
    return n == (ssize_t)len ? 0 : -1;
}

/* Receives one datagram and its descriptors; returns the number of words (split into
 * word[]), 0 at EOF, -1 on error. */
static int recv_words(int sock, msg_t *m, char **word, int maxw, int *fds, int *nfds)
{
    char cbuf[CMSG_SPACE(sizeof(int) * FDS_MAX)];
    struct iovec iov = {m->buf, sizeof(m->buf) - 1};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
    *nfds = 0;
    ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? -2 : -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *in = (int *)CMSG_DATA(c);
        for (int i = 0; i < k; i++) {
            if (fds != NULL && *nfds < FDS_MAX)
                fds[(*nfds)++] = in[i];
            else
                close(in[i]);
        }
    }
    if (n == 0)
        return 0;
    m->buf[n] = '\0';
    m->len = (size_t)n;
    int nw = 0;
    for (size_t at = 0; at < (size_t)n && nw < maxw;) {
        word[nw++] = m->buf + at;
        at += strlen(m->buf + at) + 1;
    }
    return nw;
}

static int num(const char *s, long lo, long hi, int *out)
{
    char *end;
    if (s == NULL)
        return -1;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static void reply(int sock, const char *a, const char *b)
{
    msg_t m = {.len = 0};
    m_add(&m, "%s", a);
    m_add(&m, "%s", b);
    send_fds(sock, m.buf, m.len, NULL, 0);
}

/* PAIRED with an error, to every process of a side. */
static void side_fail(dyn_server_t *d, const side_t *s, int cls, const char *why)
{
    msg_t m = {.len = 0};
    m_add(&m, "PAIRED");
    m_add(&m, "%d", cls);
    m_add(&m, "0");
    m_add(&m, "0");
    m_add(&m, "0");
    m_add(&m, "%.1000s", why);
    if (s->ranks != NULL) {
        for (int i = 0; i < s->n; i++)
            send_fds(d->fd[s->ranks[i]][0], m.buf, m.len, NULL, 0);
    } else if (s->remote_fd >= 0) {
        send_fds(s->remote_fd, m.buf, m.len, NULL, 0);
    }
}

static void side_free(side_t *s)
{
    free(s->ranks);
    s->ranks = NULL;
    if (s->remote_fd >= 0)
        close(s->remote_fd);
    s->remote_fd = -1;
}

/* Pairs two sides: one socket pair per (a_i, b_j); a's process i gets PAIRED with its ends
 * in b's order, b's likewise. Returns 0, or -1 after telling both sides why. */
static int pair(dyn_server_t *d, side_t *a, side_t *b, int cls)
{
    if ((long)a->n * b->n > 65536 || a->n > FDS_MAX || b->n > FDS_MAX) {
        side_fail(d, a, cls, "too many processes for one connection");
        side_fail(d, b, cls, "too many processes for one connection");
        return -1;
    }
    int *sp = malloc(sizeof(int) * 2 * (size_t)a->n * (size_t)b->n);
    int made = 0;
    for (int k = 0; sp != NULL && k < a->n * b->n; k++, made++)
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp + 2 * k) != 0)
            break;
    if (sp == NULL || made < a->n * b->n) {
        char why[128];
        snprintf(why, sizeof(why), "ivcrun cannot make the sockets: %s", strerror(errno));
        side_fail(d, a, cls, why);
        side_fail(d, b, cls, why);
        for (int k = 0; k < made; k++)
            close(sp[2 * k]), close(sp[2 * k + 1]);
        free(sp);
        return -1;
    }
    uint32_t tag = d->tag++;
    int fds[FDS_MAX];
    for (int side = 0; side < 2; side++) {
        side_t *me = side ? b : a, *other = side ? a : b;
        msg_t m = {.len = 0};
        m_add(&m, "PAIRED");
        m_add(&m, "0");
        m_add(&m, "%u", tag & 0xffffu);
        m_add(&m, "%d", other->n);
        m_add(&m, "%d", other->root);
        m_add(&m, "%s", "");
        for (int i = 0; i < me->n; i++) {
            for (int j = 0; j < other->n; j++) {
                int k = side ? j * b->n + i : i * b->n + j; /* pair (a_x, b_y) at x * nb + y */
                fds[j] = sp[2 * k + side];
            }
            int sock = me->ranks != NULL ? d->fd[me->ranks[i]][0] : me->remote_fd;
            if (sock >= 0 && send_fds(sock, m.buf, m.len, fds, other->n) != 0)
                fprintf(stderr, "ivcrun: cannot pass a connection's sockets on: %s\n",
                        strerror(errno));
        }
    }
    for (int k = 0; k < 2 * a->n * b->n; k++)
        close(sp[k]);
    free(sp);
    return 0;
}

/* ---- requests ---- */

/* Parses "n root w..." into a local side. Returns the words used, or -1. */
static int parse_side(dyn_server_t *d, char **word, int nw, side_t *s)
{
    memset(s, 0, sizeof(*s));
    s->remote_fd = -1;
    if (nw < 2 || num(word[0], 1, FDS_MAX, &s->n) != 0 ||
        num(word[1], 0, s->n - 1, &s->root) != 0 || nw < 2 + s->n)
        return -1;
    s->ranks = malloc(sizeof(uint32_t) * (size_t)s->n);
    if (s->ranks == NULL)
        return -1;
    for (int i = 0; i < s->n; i++) {
        int w;
        if (num(word[2 + i], 0, INT_MAX, &w) != 0 || (uint32_t)w < d->job->opts->first_rank ||
            (uint32_t)w - d->job->opts->first_rank >= d->nranks) {
            free(s->ranks);
            s->ranks = NULL;
            return -1;
        }
        s->ranks[i] = (uint32_t)w - d->job->opts->first_rank;
    }
    return 2 + s->n;
}

static int reap_quiet(pid_t pid)
{
    int ws;
    return waitpid(pid, &ws, 0) == pid ? ws : -1;
}

/* SPAWN: starts the child ivcrun and pairs the parents with its ranks. */
static void do_spawn(dyn_server_t *d, int from, char **word, int nw)
{
    side_t par;
    int at = parse_side(d, word + 1, nw - 1, &par);
    if (at < 0) {
        reply(d->fd[from][0], "ERR", "malformed SPAWN");
        return;
    }
    at += 1;
    const char *why = NULL;
    int napps;
    char **argv = calloc((size_t)nw * 2 + 16, sizeof(char *));
    int ac = 0, total = 0, plain = d->job->mode == JOB_MODE_PLAIN;
    char nbuf[CHILDREN_MAX][16], fdbuf[16];
    if (argv == NULL || at >= nw || num(word[at++], 1, 64, &napps) != 0) {
        why = "malformed SPAWN";
        goto fail;
    }
    argv[ac++] = "ivcrun";
    argv[ac++] = "--dyn-parent";
    argv[ac++] = fdbuf;
    int plain_at = ac++; /* "--no-ns" or a harmless "-v"-free placeholder filled below */
    for (int a = 0; a < napps; a++) {
        int maxp, nargs;
        if (at + 5 > nw || num(word[at], 1, 4096, &maxp) != 0) {
            why = "malformed SPAWN";
            goto fail;
        }
        const char *prog = word[at + 1], *wdir = word[at + 2], *vm = word[at + 3];
        if (num(word[at + 4], 0, WORDS_MAX, &nargs) != 0 || at + 5 + nargs > nw || *prog == '\0') {
            why = "malformed SPAWN";
            goto fail;
        }
        if (strcmp(vm, "plain") == 0)
            plain = 1;
        if (a > 0)
            argv[ac++] = ":";
        snprintf(nbuf[a], sizeof(nbuf[a]), "%d", maxp);
        argv[ac++] = "-n";
        argv[ac++] = nbuf[a];
        if (*wdir) {
            argv[ac++] = "-wdir";
            argv[ac++] = (char *)wdir;
        }
        argv[ac++] = "--";
        argv[ac++] = (char *)prog;
        for (int i = 0; i < nargs; i++)
            argv[ac++] = word[at + 5 + i];
        at += 5 + nargs;
        total += maxp;
    }
    if (total > FDS_MAX) {
        why = "a spawn starts at most 250 processes";
        goto fail;
    }
    if (d->nchildren >= CHILDREN_MAX) {
        why = "this job has spawned 64 jobs already";
        goto fail;
    }
    argv[plain_at] = plain ? "--no-ns" : "--keep-going-placeholder";
    if (!plain) { /* drop the placeholder */
        memmove(argv + plain_at, argv + plain_at + 1, sizeof(char *) * (size_t)(ac - plain_at));
        ac--;
    }
    argv[ac] = NULL;
    int up[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, up) != 0) {
        why = "ivcrun cannot make a socket";
        goto fail;
    }
    snprintf(fdbuf, sizeof(fdbuf), "%d", up[1]);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(up[0]);
        close(up[1]);
        why = "ivcrun cannot fork";
        goto fail;
    }
    if (pid == 0) {
        fcntl(up[1], F_SETFD, 0);
        int null = open("/dev/null", O_RDONLY); /* the parent job's rank 0 keeps stdin */
        if (null > 0) {
            dup2(null, 0);
            close(null);
        }
        sigprocmask(SIG_SETMASK, &d->job->old_mask, NULL);
        sigaction(SIGPIPE, &d->job->old_sigpipe, NULL);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "ivcrun: cannot run ivcrun for a spawn: %s\n", strerror(errno));
        _exit(127);
    }
    close(up[1]);
    child_t *c = &d->children[d->nchildren++];
    c->pid = pid;
    snprintf(c->what, sizeof(c->what), "%d process%s of %.80s", total, total == 1 ? "" : "es",
             word[par.n + 5]);
    side_t kids = {.n = total, .root = 0, .ranks = NULL, .remote_fd = up[0]};
    /* The child ivcrun reads one datagram per child rank, in rank order. */
    if (pair(d, &par, &kids, 11 /* MPI_ERR_SPAWN's class is named by the library */) != 0) {
        kill(pid, SIGTERM);
        reap_quiet(pid);
        d->nchildren--;
    }
    close(up[0]);
    free(par.ranks);
    free(argv);
    return;
fail:
    side_fail(d, &par, 1, why);
    free(par.ranks);
    free(argv);
}

static port_t *port_find(dyn_server_t *d, const char *name, int *remote_pid)
{
    unsigned pid, id;
    char tail;
    *remote_pid = 0;
    if (sscanf(name, "ivc-port:%u:%u%c", &pid, &id, &tail) != 2)
        return NULL;
    if ((pid_t)pid != getpid()) {
        *remote_pid = (int)pid;
        return NULL;
    }
    for (int i = 0; i < PORTS_MAX; i++)
        if (d->ports[i].open && d->ports[i].id == id)
            return &d->ports[i];
    return NULL;
}

/* An ACCEPT or CONNECT side arrived on port p: pair once both are there. */
static void port_meet(dyn_server_t *d, port_t *p, int is_accept, side_t *s)
{
    side_t *slot = is_accept ? &p->accept : &p->connect;
    int *has = is_accept ? &p->has_accept : &p->has_connect;
    if (*has) {
        side_fail(d, s, 1,
                  is_accept ? "an accept is already waiting on this port"
                            : "a connect is already waiting on this port");
        side_free(s);
        return;
    }
    *slot = *s;
    *has = 1;
    if (p->has_accept && p->has_connect) {
        pair(d, &p->accept, &p->connect, 1);
        side_free(&p->accept);
        side_free(&p->connect);
        p->has_accept = p->has_connect = 0;
    }
}

static int connect_remote(dyn_server_t *d, int pid)
{
    if (dir_ready(d) != 0)
        return -1;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%d.sock", d->dir, pid) >=
        sizeof(sa.sun_path))
        return -1;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void do_accept_connect(dyn_server_t *d, int from, char **word, int nw, int is_accept)
{
    side_t s;
    if (nw < 2 || parse_side(d, word + 2, nw - 2, &s) < 0) {
        reply(d->fd[from][0], "ERR", "malformed ACCEPT/CONNECT");
        return;
    }
    int rpid;
    port_t *p = port_find(d, word[1], &rpid);
    if (p != NULL) {
        port_meet(d, p, is_accept, &s);
        return;
    }
    if (rpid == 0 || is_accept) {
        side_fail(d, &s, 1,
                  is_accept ? "no such open port (MPI_Open_port in this job makes one)"
                            : "not a port name of ivcrun (ivc-port:PID:N)");
        side_free(&s);
        return;
    }
    /* Another ivcrun's port: ask it; its answers come back on the connection. */
    int slot = -1;
    for (int i = 0; i < REMOTES_MAX; i++)
        if (d->remotes[i].fd < 0)
            slot = i;
    int fd = slot >= 0 ? connect_remote(d, rpid) : -1;
    msg_t m = {.len = 0};
    m_add(&m, "CONNECT");
    m_add(&m, "%s", word[1]);
    m_add(&m, "%d", s.n);
    m_add(&m, "%d", s.root);
    if (fd < 0 || send_fds(fd, m.buf, m.len, NULL, 0) != 0) {
        if (fd >= 0)
            close(fd);
        side_fail(d, &s, 1, "the job that opened this port is not running (or not this user's)");
        side_free(&s);
        return;
    }
    d->remotes[slot] = (remote_t){fd, s.ranks, s.n, 0};
}

/* A CONNECT from another ivcrun, on an accepted connection. */
static void on_incoming(dyn_server_t *d, int i)
{
    msg_t m;
    char *word[8];
    int fds[FDS_MAX], nfds;
    int nw = recv_words(d->incoming[i], &m, word, 8, fds, &nfds);
    for (int k = 0; k < nfds; k++)
        close(fds[k]);
    if (nw == -2)
        return;
    side_t s = {.ranks = NULL, .remote_fd = d->incoming[i]};
    d->incoming[i] = -1; /* the side owns the connection now */
    int rpid;
    port_t *p = nw == 4 && strcmp(word[0], "CONNECT") == 0 ? port_find(d, word[1], &rpid) : NULL;
    if (nw != 4 || strcmp(word[0], "CONNECT") != 0 || num(word[2], 1, FDS_MAX, &s.n) != 0 ||
        num(word[3], 0, s.n - 1, &s.root) != 0 || p == NULL) {
        if (nw > 0)
            side_fail(d, &s, 1, p == NULL ? "no such open port" : "malformed CONNECT");
        side_free(&s);
        return;
    }
    port_meet(d, p, 0, &s);
}

/* Answers of another ivcrun to our connect: datagram k goes to our rank k. */
static void on_remote(dyn_server_t *d, remote_t *r)
{
    msg_t m;
    char *word[8];
    int fds[FDS_MAX], nfds;
    int nw = recv_words(r->fd, &m, word, 8, fds, &nfds);
    if (nw == -2)
        return;
    if (nw <= 0) {
        side_t s = {.n = r->n - r->got, .ranks = r->ranks + r->got, .remote_fd = -1};
        if (s.n > 0)
            side_fail(d, &s, 1, "the job that opened the port went away");
        goto done;
    }
    int cls = 1;
    if (nw >= 2 && strcmp(word[0], "PAIRED") == 0 && num(word[1], 0, INT_MAX, &cls) == 0 &&
        cls != 0) {
        side_t s = {.n = r->n - r->got, .ranks = r->ranks + r->got, .remote_fd = -1};
        side_fail(d, &s, cls, nw >= 6 ? word[5] : "refused");
        goto done;
    }
    send_fds(d->fd[r->ranks[r->got]][0], m.buf, m.len, fds, nfds);
    for (int k = 0; k < nfds; k++)
        close(fds[k]);
    if (++r->got < r->n)
        return;
done:
    for (int k = 0; k < nfds; k++)
        close(fds[k]);
    close(r->fd);
    free(r->ranks);
    *r = (remote_t){-1, NULL, 0, 0};
}

/* Names: one file per service in the name directory, holding the port name. */
static int name_path(dyn_server_t *d, const char *service, char *out, size_t len)
{
    if (dir_ready(d) != 0 || *service == '\0' || strlen(service) > 200)
        return -1;
    /* Any byte is allowed in a service name: hex keeps the file name safe. */
    int at = snprintf(out, len, "%s/name-", d->dir);
    for (const unsigned char *s = (const unsigned char *)service; *s && (size_t)at + 3 < len; s++)
        at += snprintf(out + at, len - (size_t)at, "%02x", *s);
    return 0;
}

/* When process pid started (field 22 of /proc/PID/stat), 0 if there is none: a pid and its
 * start time name one process even after the pid is reused. */
static unsigned long long proc_start(long pid)
{
    char p[64], buf[1024];
    snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    ssize_t k = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (k <= 0)
        return 0;
    buf[k] = '\0';
    char *at = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    for (int field = 2; at != NULL && field < 22; field++)
        at = strchr(at + 1, ' ');
    return at != NULL ? strtoull(at + 1, NULL, 10) : 0;
}

/* A name file: "PID START\nPORT", written by the ivcrun that published it. Reads the port
 * into v; returns 1 while that ivcrun runs, 0 once it is gone (a job killed before it
 * unpublished: the name is free again), -1 if the file cannot be read. */
static int name_read(const char *path, char *v, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t k = fd >= 0 ? read(fd, v, len - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (k <= 0)
        return -1;
    v[k] = '\0';
    long pid = 0;
    unsigned long long start = 0;
    char *nl = strchr(v, '\n');
    if (nl == NULL || sscanf(v, "%ld %llu", &pid, &start) != 2 || pid <= 0)
        return 0; /* not one of ours */
    memmove(v, nl + 1, strlen(nl + 1) + 1);
    return proc_start(pid) == start ? 1 : 0;
}

static void do_name(dyn_server_t *d, int from, char **word, int nw)
{
    int sock = d->fd[from][0];
    char path[PATH_MAX];
    if (nw < 2 || name_path(d, word[1], path, sizeof(path)) != 0) {
        reply(sock, "ERR", d->dir[0] ? "bad service name" : "no name directory");
        return;
    }
    if (strcmp(word[0], "PUBLISH") == 0 && nw == 3) {
        char v[512];
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST && name_read(path, v, sizeof(v)) == 0) {
            unlink(path); /* left by a job that is gone */
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        }
        if (fd < 0) {
            reply(sock, "ERR", errno == EEXIST ? "the name is published already" : strerror(errno));
            return;
        }
        char body[PATH_MAX];
        int n = snprintf(body, sizeof(body), "%ld %llu\n%s", (long)getpid(),
                         proc_start((long)getpid()), word[2]);
        ssize_t k = n > 0 && (size_t)n < sizeof(body) ? write(fd, body, (size_t)n) : -1;
        close(fd);
        reply(sock, k == n ? "OK" : "ERR", "-");
    } else if (strcmp(word[0], "UNPUBLISH") == 0) {
        reply(sock, unlink(path) == 0 ? "OK" : "ERR", "the name is not published");
    } else if (strcmp(word[0], "LOOKUP") == 0) {
        char v[512];
        int live = name_read(path, v, sizeof(v));
        if (live <= 0) {
            if (live == 0)
                unlink(path);
            reply(sock, "ERR", "the name is not published");
            return;
        }
        reply(sock, "OK", v);
    } else {
        reply(sock, "ERR", "malformed request");
    }
}

static void on_rank(dyn_server_t *d, uint32_t r)
{
    static msg_t m;
    static char *word[WORDS_MAX];
    int nfds;
    int nw = recv_words(d->fd[r][0], &m, word, WORDS_MAX, NULL, &nfds);
    if (nw == -2)
        return;
    if (nw <= 0) {
        close(d->fd[r][0]);
        d->fd[r][0] = -1;
        return;
    }
    int sock = d->fd[r][0];
    if (!strcmp(word[0], "SPAWN")) {
        do_spawn(d, (int)r, word, nw);
    } else if (!strcmp(word[0], "OPEN")) {
        listen_ready(d); /* other jobs may connect from now on */
        for (int i = 0; i < PORTS_MAX; i++) {
            if (!d->ports[i].open) {
                d->ports[i] = (port_t){.open = 1, .id = d->next_port++};
                d->ports[i].accept.remote_fd = d->ports[i].connect.remote_fd = -1;
                char name[64];
                snprintf(name, sizeof(name), "ivc-port:%d:%u", (int)getpid(), d->ports[i].id);
                reply(sock, "OK", name);
                return;
            }
        }
        reply(sock, "ERR", "this job has 64 ports open already");
    } else if (!strcmp(word[0], "CLOSE") && nw == 2) {
        int rpid;
        port_t *p = port_find(d, word[1], &rpid);
        if (p == NULL) {
            reply(sock, "ERR", "no such open port");
            return;
        }
        if (p->has_accept) {
            side_fail(d, &p->accept, 1, "the port was closed");
            side_free(&p->accept);
        }
        if (p->has_connect) {
            side_fail(d, &p->connect, 1, "the port was closed");
            side_free(&p->connect);
        }
        p->open = p->has_accept = p->has_connect = 0;
        reply(sock, "OK", "-");
    } else if (!strcmp(word[0], "ACCEPT") || !strcmp(word[0], "CONNECT")) {
        do_accept_connect(d, (int)r, word, nw, !strcmp(word[0], "ACCEPT"));
    } else if (!strcmp(word[0], "PUBLISH") || !strcmp(word[0], "UNPUBLISH") ||
               !strcmp(word[0], "LOOKUP")) {
        do_name(d, (int)r, word, nw);
    } else {
        reply(sock, "ERR", "unknown request");
    }
}

/* ---- set-up and the monitor's hooks ---- */

/* The name directory (IVC_NAME_DIR, else /tmp/ivc-dyn-<uid>), made when first needed: a
 * job that opens no port and names nothing leaves nothing behind. Returns 0, or -1 when it
 * cannot be made or is not this user's (no names, no ports across jobs then). */
static int dir_ready(dyn_server_t *d)
{
    if (d->dir[0] != '\0')
        return 0;
    const char *base = getenv("IVC_NAME_DIR");
    char p[PATH_MAX];
    if (base != NULL && *base)
        snprintf(p, sizeof(p), "%s", base);
    else
        snprintf(p, sizeof(p), "/tmp/ivc-dyn-%u", (unsigned)getuid());
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
        return -1;
    struct stat st;
    if (lstat(p, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
        return -1;
    snprintf(d->dir, sizeof(d->dir), "%s", p);
    return 0;
}

/* The socket other ivcruns connect to for this job's ports (<pid>.sock in the name
 * directory), made at the first MPI_Open_port. */
static void listen_ready(dyn_server_t *d)
{
    if (d->listen_fd >= 0 || dir_ready(d) != 0)
        return;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%d.sock", d->dir, (int)getpid()) >=
        sizeof(sa.sun_path))
        return;
    unlink(sa.sun_path);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 16) != 0) {
        close(fd);
        return;
    }
    d->listen_fd = fd;
}

dyn_server_t *dyn_server_create(job_t *job)
{
    dyn_server_t *d = calloc(1, sizeof(*d));
    uint32_t n = job->opts->nranks;
    if (d == NULL || (d->fd = calloc(n, sizeof(*d->fd))) == NULL) {
        fprintf(stderr, "ivcrun: out of memory\n");
        free(d);
        return NULL;
    }
    d->job = job;
    d->nranks = n;
    d->tag = 1;
    d->next_port = 1;
    d->listen_fd = -1;
    for (int i = 0; i < REMOTES_MAX; i++) {
        d->incoming[i] = -1;
        d->remotes[i].fd = -1;
    }
    for (uint32_t r = 0; r < n; r++) {
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, d->fd[r]) != 0) {
            fprintf(stderr, "ivcrun: socketpair: %s\n", strerror(errno));
            d->nranks = r;
            dyn_server_destroy(d);
            return NULL;
        }
        fcntl(d->fd[r][0], F_SETFL, fcntl(d->fd[r][0], F_GETFL) | O_NONBLOCK);
    }
    return d;
}

int dyn_server_rank_fd(const dyn_server_t *d, uint32_t r)
{
    return d->fd[r][1];
}

int dyn_server_prime(dyn_server_t *d, int upstream)
{
    for (uint32_t r = 0; r < d->nranks; r++) {
        msg_t m;
        char *word[8];
        int fds[FDS_MAX], nfds, nw;
        struct pollfd p = {upstream, POLLIN, 0};
        do {
            if (poll(&p, 1, 60000) <= 0) {
                fprintf(stderr, "ivcrun: the spawning job sent nothing for its children\n");
                return -1;
            }
            nw = recv_words(upstream, &m, word, 8, fds, &nfds);
        } while (nw == -2);
        if (nw <= 0) {
            fprintf(stderr, "ivcrun: the spawning job went away before its children started\n");
            return -1;
        }
        int rc = send_fds(d->fd[r][0], m.buf, m.len, fds, nfds);
        for (int k = 0; k < nfds; k++)
            close(fds[k]);
        if (rc != 0) {
            fprintf(stderr, "ivcrun: cannot hand a spawned rank its parents: %s\n",
                    strerror(errno));
            return -1;
        }
    }
    close(upstream);
    return 0;
}

void dyn_server_close_rank_fds(dyn_server_t *d)
{
    for (uint32_t r = 0; r < d->nranks; r++) {
        if (d->fd[r][1] >= 0)
            close(d->fd[r][1]);
        d->fd[r][1] = -1;
    }
}

size_t dyn_server_pollfds(const dyn_server_t *d, struct pollfd *fds, size_t max)
{
    size_t n = 0;
    for (uint32_t r = 0; r < d->nranks && n < max; r++)
        if (d->fd[r][0] >= 0)
            fds[n++] = (struct pollfd){d->fd[r][0], POLLIN, 0};
    if (d->listen_fd >= 0 && n < max)
        fds[n++] = (struct pollfd){d->listen_fd, POLLIN, 0};
    for (int i = 0; i < REMOTES_MAX && n < max; i++)
        if (d->incoming[i] >= 0)
            fds[n++] = (struct pollfd){d->incoming[i], POLLIN, 0};
    for (int i = 0; i < REMOTES_MAX && n < max; i++)
        if (d->remotes[i].fd >= 0)
            fds[n++] = (struct pollfd){d->remotes[i].fd, POLLIN, 0};
    return n;
}

void dyn_server_handle(dyn_server_t *d, const struct pollfd *fds, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fds[i].revents == 0)
            continue;
        int fd = fds[i].fd;
        for (uint32_t r = 0; r < d->nranks; r++)
            if (d->fd[r][0] == fd)
                on_rank(d, r);
        if (fd == d->listen_fd) {
            int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
            int slot = -1;
            for (int k = 0; k < REMOTES_MAX; k++)
                if (d->incoming[k] < 0)
                    slot = k;
            if (c >= 0 && slot >= 0)
                d->incoming[slot] = c;
            else if (c >= 0)
                close(c);
        }
        for (int k = 0; k < REMOTES_MAX; k++)
            if (d->incoming[k] == fd)
                on_incoming(d, k);
        for (int k = 0; k < REMOTES_MAX; k++)
            if (d->remotes[k].fd == fd)
                on_remote(d, &d->remotes[k]);
    }
}

int dyn_server_reaped(dyn_server_t *d, pid_t pid, int ws, int *failed)
{
    if (d == NULL)
        return 0;
    for (uint32_t i = 0; i < d->nchildren; i++) {
        if (d->children[i].pid != pid)
            continue;
        *failed = !(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
        if (*failed) {
            if (WIFEXITED(ws))
                fprintf(stderr, "ivcrun: the spawned job (%s) failed: exit status %d\n",
                        d->children[i].what, WEXITSTATUS(ws));
            else
                fprintf(stderr, "ivcrun: the spawned job (%s) failed: signal %d\n",
                        d->children[i].what, WTERMSIG(ws));
        }
        d->children[i] = d->children[--d->nchildren];
        return 1;
    }
    return 0;
}

uint32_t dyn_server_children(const dyn_server_t *d)
{
    return d != NULL ? d->nchildren : 0;
}

void dyn_server_signal(dyn_server_t *d, int sig)
{
    for (uint32_t i = 0; d != NULL && i < d->nchildren; i++)
        kill(d->children[i].pid, sig);
}

void dyn_server_destroy(dyn_server_t *d)
{
    if (d == NULL)
        return;
    for (uint32_t i = 0; i < d->nchildren; i++) {
        kill(d->children[i].pid, SIGTERM);
        reap_quiet(d->children[i].pid);
    }
    for (uint32_t r = 0; r < d->nranks; r++) {
        if (d->fd[r][0] >= 0)
            close(d->fd[r][0]);
        if (d->fd[r][1] >= 0)
            close(d->fd[r][1]);
    }
    for (int i = 0; i < PORTS_MAX; i++) {
        if (d->ports[i].has_accept)
            side_free(&d->ports[i].accept);
        if (d->ports[i].has_connect)
            side_free(&d->ports[i].connect);
    }
    for (int i = 0; i < REMOTES_MAX; i++) {
        if (d->incoming[i] >= 0)
            close(d->incoming[i]);
        if (d->remotes[i].fd >= 0) {
            close(d->remotes[i].fd);
            free(d->remotes[i].ranks);
        }
    }
    if (d->listen_fd >= 0) {
        char p[PATH_MAX + 32];
        snprintf(p, sizeof(p), "%s/%d.sock", d->dir, (int)getpid());
        unlink(p);
        close(d->listen_fd);
    }
    free(d->fd);
    free(d);
}
