#include "pmi.h"

#include "../base/ivc_log.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LINE_MAX_BYTES 2048
#define BARRIER_POLL_MS 10 /* between give_up() calls of ivc_pmi_barrier_until() */

static int send_line(ivc_pmi_t *p, const char *line)
{
    size_t n = strlen(line);
    for (size_t done = 0; done < n;) {
        ssize_t k = write(p->fd, line + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int err = k < 0 ? errno : EPIPE;
            ivc_error("PMI: cannot write to the process manager: %s", strerror(err));
            return -err;
        }
        done += (size_t)k;
    }
    return 0;
}

/* Reads one reply line (without '\n') byte by byte: replies are short and rare, and the
 * socket must not be read past the line. */
static int recv_line(ivc_pmi_t *p, char *buf, size_t len)
{
    size_t n = 0;
    for (;;) {
        char ch;
        ssize_t k = read(p->fd, &ch, 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int err = k < 0 ? errno : EPIPE;
            ivc_error("PMI: the process manager closed the connection (%s)", strerror(err));
            return -err;
        }
        if (ch == '\n')
            break;
        if (n + 1 >= len) {
            ivc_error("PMI: reply longer than %zu bytes", len);
            return -EPROTO;
        }
        buf[n++] = ch;
    }
    buf[n] = '\0';
    return 0;
}

/* Copies the value of word `key` ("key=value", space separated) of `line` into `out`.
 * A value runs to the end of the line when it is the last word (values may hold spaces
 * only there: msg=...). Returns 0 or -ENOENT. */
static int word(const char *line, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    for (const char *s = line; *s != '\0';) {
        while (*s == ' ')
            s++;
        if (strncmp(s, key, kl) == 0 && s[kl] == '=') {
            const char *v = s + kl + 1;
            size_t vl = strcspn(v, " ");
            if (vl >= len)
                return -ENOENT;
            memcpy(out, v, vl);
            out[vl] = '\0';
            return 0;
        }
        s += strcspn(s, " ");
    }
    return -ENOENT;
}

/* Reads a reply, which must be "cmd=<expect> ..." (with rc=0 when it has an rc). */
static int expect_reply(ivc_pmi_t *p, const char *expect, char *reply, size_t len)
{
    char cmd[64];
    int rc = recv_line(p, reply, len);
    if (rc != 0)
        return rc;
    if (word(reply, "cmd", cmd, sizeof(cmd)) != 0 || strcmp(cmd, expect) != 0) {
        ivc_error("PMI: expected cmd=%s from the process manager, got \"%s\"", expect, reply);
        return -EPROTO;
    }
    char rcs[16];
    if (word(reply, "rc", rcs, sizeof(rcs)) == 0 && atoi(rcs) != 0)
        return -EIO;
    return 0;
}

/* Sends `req` and reads the reply, which must be "cmd=<expect> ...". */
static int call(ivc_pmi_t *p, const char *req, const char *expect, char *reply, size_t len)
{
    int rc = send_line(p, req);
    return rc != 0 ? rc : expect_reply(p, expect, reply, len);
}

static int connect_port(const char *port)
{
    char host[256];
    const char *colon = strrchr(port, ':');
    if (colon == NULL || (size_t)(colon - port) >= sizeof(host)) {
        ivc_error("PMI_PORT=%s: expected host:port", port);
        return -EINVAL;
    }
    memcpy(host, port, (size_t)(colon - port));
    host[colon - port] = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    int e = getaddrinfo(host, colon + 1, &hints, &res);
    if (e != 0) {
        ivc_error("PMI_PORT=%s: %s", port, gai_strerror(e));
        return -EHOSTUNREACH;
    }
    int fd = -1;
    for (struct addrinfo *a = res; a != NULL && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        ivc_error("PMI_PORT=%s: cannot connect: %s", port, strerror(errno));
    return fd < 0 ? -ECONNREFUSED : fd;
}

int ivc_pmi_init(ivc_pmi_t *p)
{
    char reply[LINE_MAX_BYTES];
    const char *fds = getenv("PMI_FD"), *port = getenv("PMI_PORT");
    memset(p, 0, sizeof(*p));
    p->fd = -1;
    if (fds != NULL && *fds != '\0') {
        char *end;
        long fd = strtol(fds, &end, 10);
        if (*end != '\0' || fd < 0 || fd > 65535) {
            ivc_error("PMI_FD=%s is not a file descriptor", fds);
            return -EINVAL;
        }
        p->fd = (int)fd;
    } else if (port != NULL && *port != '\0') {
        int fd = connect_port(port);
        if (fd < 0)
            return fd;
        p->fd = fd;
    } else {
        return -ENOENT;
    }
    int rc = call(p, "cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", reply,
                  sizeof(reply));
    if (rc == 0)
        rc = call(p, "cmd=get_my_kvsname\n", "my_kvsname", reply, sizeof(reply));
    if (rc == 0 && word(reply, "kvsname", p->kvsname, sizeof(p->kvsname)) != 0)
        rc = -EPROTO;
    if (rc != 0) {
        ivc_error("PMI: the process manager on PMI_FD/PMI_PORT does not speak PMI-1 (%s)",
                  strerror(-rc));
        return rc;
    }
    return 0;
}

int ivc_pmi_put(ivc_pmi_t *p, const char *key, const char *value)
{
    char req[LINE_MAX_BYTES], reply[LINE_MAX_BYTES];
    int n =
        snprintf(req, sizeof(req), "cmd=put kvsname=%s key=%s value=%s\n", p->kvsname, key, value);
    if (n < 0 || (size_t)n >= sizeof(req))
        return -E2BIG;
    int rc = call(p, req, "put_result", reply, sizeof(reply));
    if (rc != 0)
        ivc_error("PMI: put %s failed: %s", key, reply);
    return rc;
}

int ivc_pmi_get(ivc_pmi_t *p, const char *key, char *value, size_t len)
{
    char req[LINE_MAX_BYTES], reply[LINE_MAX_BYTES];
    int n = snprintf(req, sizeof(req), "cmd=get kvsname=%s key=%s\n", p->kvsname, key);
    if (n < 0 || (size_t)n >= sizeof(req))
        return -E2BIG;
    int rc = call(p, req, "get_result", reply, sizeof(reply));
    if (rc == -EIO)
        return -ENOENT;
    if (rc == 0 && word(reply, "value", value, len) != 0)
        rc = -EPROTO;
    return rc;
}

int ivc_pmi_barrier(ivc_pmi_t *p)
{
    char reply[LINE_MAX_BYTES];
    return call(p, "cmd=barrier_in\n", "barrier_out", reply, sizeof(reply));
}

int ivc_pmi_barrier_until(ivc_pmi_t *p, int (*give_up)(void *arg), void *arg)
{
    char reply[LINE_MAX_BYTES];
    int rc = send_line(p, "cmd=barrier_in\n");
    if (rc != 0)
        return rc;
    for (;;) {
        struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
        int k = poll(&pfd, 1, BARRIER_POLL_MS);
        if (k < 0 && errno != EINTR) {
            rc = -errno;
            ivc_error("PMI: cannot wait for the process manager: %s", strerror(errno));
            return rc;
        }
        if (k > 0)
            return expect_reply(p, "barrier_out", reply, sizeof(reply));
        if (give_up(arg)) {
            /* The reply may still come; nothing more is said on this connection. */
            close(p->fd);
            p->fd = -1;
            return -ECANCELED;
        }
    }
}

void ivc_pmi_abort(ivc_pmi_t *p, int code, const char *msg)
{
    char req[LINE_MAX_BYTES];
    if (p->fd < 0)
        return;
    snprintf(req, sizeof(req), "cmd=abort exitcode=%d error_msg=%s\n", code, msg);
    send_line(p, req);
}

void ivc_pmi_finalize(ivc_pmi_t *p)
{
    char reply[LINE_MAX_BYTES];
    if (p->fd < 0)
        return;
    call(p, "cmd=finalize\n", "finalize_ack", reply, sizeof(reply));
    close(p->fd);
    p->fd = -1;
}
