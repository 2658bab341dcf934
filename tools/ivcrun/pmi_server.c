#define _GNU_SOURCE
#include "pmi_server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LINE_MAX_BYTES 2048
#define KEY_MAX        256
#define VAL_MAX        1024

typedef struct pmi_conn {
    int fd, rank_fd;
    char buf[LINE_MAX_BYTES];
    size_t len;
    int in_barrier;
    int gone; /* its connection closed: the rank ended */
} pmi_conn_t;

typedef struct pmi_kv {
    char key[KEY_MAX];
    char val[VAL_MAX];
} pmi_kv_t;

struct pmi_server {
    uint32_t n;
    pmi_conn_t *c;
    pmi_kv_t *kv;
    size_t nkv, kvcap;
    uint32_t waiting; /* ranks in the current barrier */
    char kvsname[64];
};

pmi_server_t *pmi_server_create(uint32_t nranks, const char *kvsname)
{
    pmi_server_t *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->c = calloc(nranks, sizeof(*s->c))) == NULL) {
        free(s);
        fprintf(stderr, "ivcrun: out of memory\n");
        return NULL;
    }
    s->n = nranks;
    snprintf(s->kvsname, sizeof(s->kvsname), "%s", kvsname);
    for (uint32_t r = 0; r < nranks; r++)
        s->c[r].fd = s->c[r].rank_fd = -1;
    for (uint32_t r = 0; r < nranks; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            fprintf(stderr, "ivcrun: cannot create the PMI sockets: %s\n", strerror(errno));
            pmi_server_destroy(s);
            return NULL;
        }
        s->c[r].fd = sv[0];
        s->c[r].rank_fd = sv[1];
    }
    return s;
}

int pmi_server_rank_fd(const pmi_server_t *s, uint32_t r)
{
    return s->c[r].rank_fd;
}

void pmi_server_close_rank_fds(pmi_server_t *s)
{
    for (uint32_t r = 0; r < s->n; r++) {
        if (s->c[r].rank_fd >= 0)
            close(s->c[r].rank_fd);
        s->c[r].rank_fd = -1;
    }
}

size_t pmi_server_pollfds(const pmi_server_t *s, struct pollfd *fds, size_t max)
{
    size_t k = 0;
    for (uint32_t r = 0; r < s->n && k < max; r++)
        if (s->c[r].fd >= 0)
            fds[k++] = (struct pollfd){s->c[r].fd, POLLIN, 0};
    return k;
}

static void reply(pmi_conn_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(pmi_conn_t *c, const char *fmt, ...)
{
    char line[LINE_MAX_BYTES];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(line))
        return;
    /* A rank has at most one reply outstanding (it waits for each), and replies are far
     * smaller than a socket buffer: this write does not block. */
    ssize_t w = write(c->fd, line, (size_t)n);
    (void)w;
}

/* The value of word `key` in a request line, or "" (values hold no spaces). */
static void word(const char *line, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    out[0] = '\0';
    for (const char *p = line; *p;) {
        while (*p == ' ')
            p++;
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t vl = strcspn(p + kl + 1, " ");
            if (vl < len) {
                memcpy(out, p + kl + 1, vl);
                out[vl] = '\0';
            }
            return;
        }
        p += strcspn(p, " ");
    }
}

static pmi_kv_t *kv_find(pmi_server_t *s, const char *key)
{
    for (size_t i = 0; i < s->nkv; i++)
        if (strcmp(s->kv[i].key, key) == 0)
            return &s->kv[i];
    return NULL;
}

/* Releases the barrier once every rank is in it or gone: a rank that ended (it failed, and
 * --disable-auto-cleanup lets the others go on) will never arrive, and no barrier after
 * its end can need it. */
static void barrier_check(pmi_server_t *s)
{
    uint32_t gone = 0;
    for (uint32_t i = 0; i < s->n; i++)
        gone += s->c[i].gone;
    if (s->waiting == 0 || s->waiting + gone < s->n)
        return;
    for (uint32_t i = 0; i < s->n; i++) {
        s->c[i].in_barrier = 0;
        if (s->c[i].fd >= 0)
            reply(&s->c[i], "cmd=barrier_out\n");
    }
    s->waiting = 0;
}

/* One request line of rank r. Returns 1 for an abort. */
static int serve_line(pmi_server_t *s, uint32_t r, const char *line, uint32_t *arank, int *acode)
{
    pmi_conn_t *c = &s->c[r];
    char cmd[64], key[KEY_MAX], val[VAL_MAX];
    word(line, "cmd", cmd, sizeof(cmd));
    if (!strcmp(cmd, "init")) {
        reply(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
    } else if (!strcmp(cmd, "get_maxes")) {
        reply(c, "cmd=maxes rc=0 kvsname_max=64 keylen_max=%d vallen_max=%d\n", KEY_MAX - 1,
              VAL_MAX - 1);
    } else if (!strcmp(cmd, "get_appnum")) {
        reply(c, "cmd=appnum rc=0 appnum=0\n");
    } else if (!strcmp(cmd, "get_my_kvsname")) {
        reply(c, "cmd=my_kvsname rc=0 kvsname=%s\n", s->kvsname);
    } else if (!strcmp(cmd, "get_universe_size")) {
        reply(c, "cmd=universe_size rc=0 size=%u\n", s->n);
    } else if (!strcmp(cmd, "put")) {
        word(line, "key", key, sizeof(key));
        word(line, "value", val, sizeof(val));
        pmi_kv_t *kv = kv_find(s, key);
        if (kv == NULL && s->nkv == s->kvcap) {
            size_t cap = s->kvcap ? 2 * s->kvcap : 64;
            pmi_kv_t *nk = realloc(s->kv, cap * sizeof(*nk));
            if (nk != NULL) {
                s->kv = nk;
                s->kvcap = cap;
            }
        }
        if (kv == NULL && s->nkv < s->kvcap)
            kv = &s->kv[s->nkv++];
        if (kv == NULL || key[0] == '\0') {
            reply(c, "cmd=put_result rc=-1 msg=cannot_store\n");
        } else {
            strcpy(kv->key, key);
            strcpy(kv->val, val);
            reply(c, "cmd=put_result rc=0 msg=success\n");
        }
    } else if (!strcmp(cmd, "get")) {
        word(line, "key", key, sizeof(key));
        pmi_kv_t *kv = kv_find(s, key);
        if (kv == NULL)
            reply(c, "cmd=get_result rc=-1 msg=key_%s_not_found\n", key);
        else
            reply(c, "cmd=get_result rc=0 msg=success value=%s\n", kv->val);
    } else if (!strcmp(cmd, "barrier_in")) {
        if (!c->in_barrier) {
            c->in_barrier = 1;
            s->waiting++;
        }
        barrier_check(s);
    } else if (!strcmp(cmd, "finalize")) {
        reply(c, "cmd=finalize_ack\n");
    } else if (!strcmp(cmd, "abort")) {
        word(line, "exitcode", val, sizeof(val));
        *arank = r;
        *acode = atoi(val);
        return 1;
    } else {
        fprintf(stderr, "ivcrun: rank %u sent an unknown PMI request: %.80s\n", r, line);
    }
    return 0;
}

void pmi_server_rank_gone(pmi_server_t *s, uint32_t r)
{
    if (s == NULL || r >= s->n || s->c[r].gone)
        return;
    s->c[r].gone = 1;
    if (s->c[r].in_barrier) {
        s->c[r].in_barrier = 0;
        s->waiting--;
    }
    barrier_check(s);
}

int pmi_server_handle(pmi_server_t *s, const struct pollfd *fds, size_t n, uint32_t *arank,
                      int *acode)
{
    int aborted = 0;
    for (size_t k = 0; k < n; k++) {
        if (fds[k].revents == 0)
            continue;
        uint32_t r = 0;
        while (r < s->n && s->c[r].fd != fds[k].fd)
            r++;
        if (r == s->n)
            continue;
        pmi_conn_t *c = &s->c[r];
        ssize_t got = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
        if (got <= 0) { /* the rank is gone: the monitor learns why from its status */
            close(c->fd);
            c->fd = -1;
            pmi_server_rank_gone(s, r);
            continue;
        }
        c->len += (size_t)got;
        c->buf[c->len] = '\0';
        char *nl;
        while ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
            *nl = '\0';
            aborted |= serve_line(s, r, c->buf, arank, acode);
            size_t used = (size_t)(nl - c->buf) + 1;
            memmove(c->buf, nl + 1, c->len - used);
            c->len -= used;
        }
        if (c->len == sizeof(c->buf) - 1) {
            fprintf(stderr, "ivcrun: rank %u sent an over-long PMI request\n", r);
            c->len = 0;
        }
    }
    return aborted;
}

void pmi_server_destroy(pmi_server_t *s)
{
    if (s == NULL)
        return;
    for (uint32_t r = 0; r < s->n; r++) {
        if (s->c[r].fd >= 0)
            close(s->c[r].fd);
        if (s->c[r].rank_fd >= 0)
            close(s->c[r].rank_fd);
    }
    free(s->c);
    free(s->kv);
    free(s);
}
