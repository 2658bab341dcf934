/* libivc example: an echo server and its clients, across VMs.
 *
 *   ivcrun -n 3 --vms 3 ./ivc_echo          rank 0 serves, ranks 1.. are clients
 *   IVC_REGION=/dev/shm/echo ./ivc_echo server 2 &    by hand (the file is created), a
 *   IVC_REGION=/dev/shm/echo ./ivc_echo client        server for 2 clients, and clients
 *
 * The server registers as "echo-server" and runs an event loop over ivc_poll: new
 * connections are accepted, bytes are echoed back as they come (partial writes are kept
 * and finished later), a client's end of stream closes its channel. Each client sends
 * messages of many sizes, checks every echoed byte and prints its round-trip time for
 * small messages. Build: cc ivc_echo.c $(pkg-config --cflags --libs ivc). */
#include <ivc.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PORT 7
#define MAXC 64

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int die(const char *what, int rc)
{
    fprintf(stderr, "ivc_echo: %s: %s\n", what, ivc_strerror(rc));
    exit(1);
}

typedef struct client {
    ivc_chan_t *ch;
    char pend[65536]; /* read but not yet echoed */
    size_t npend;
} client_t;

static int server(ivc_t *ivc, int nclients)
{
    static client_t cl[MAXC];
    int open = 0, served = 0;
    ivc_pollent_t ent[MAXC + 1];
    printf("echo server: endpoint %u, waiting for %d clients\n", ivc_id(ivc), nclients);
    fflush(stdout);
    while (served < nclients || open > 0) {
        int n = 0;
        if (served < nclients)
            ent[n++] = (ivc_pollent_t){.kind = IVC_POLL_ACCEPT, .accept_port = PORT,
                                       .events = IVC_POLLIN};
        for (int i = 0; i < open; i++)
            ent[n++] = (ivc_pollent_t){.kind = IVC_POLL_CHAN, .chan = cl[i].ch,
                                       .events = cl[i].npend ? IVC_POLLOUT : IVC_POLLIN};
        int rc = ivc_poll(ivc, ent, n, 30000);
        if (rc < 0)
            die("poll", rc);
        if (rc == 0)
            die("poll", -ETIMEDOUT);
        for (int e = 0; e < n; e++) {
            if (ent[e].revents == 0)
                continue;
            if (ent[e].kind == IVC_POLL_ACCEPT) {
                rc = ivc_accept(ivc, PORT, 0, &cl[open].ch);
                if (rc == 0) {
                    cl[open].npend = 0;
                    open++;
                    served++;
                }
                continue;
            }
            client_t *c = NULL;
            for (int i = 0; i < open; i++)
                if (cl[i].ch == ent[e].chan)
                    c = &cl[i];
            if (c->npend > 0) {
                ssize_t w = ivc_write(c->ch, c->pend, c->npend);
                if (w > 0) {
                    memmove(c->pend, c->pend + w, c->npend - (size_t)w);
                    c->npend -= (size_t)w;
                }
                continue;
            }
            ssize_t r = ivc_read(c->ch, c->pend, sizeof(c->pend));
            if (r > 0) {
                c->npend = (size_t)r;
                ssize_t w = ivc_write(c->ch, c->pend, c->npend);
                if (w > 0) {
                    memmove(c->pend, c->pend + w, c->npend - (size_t)w);
                    c->npend -= (size_t)w;
                }
            } else if (r == 0 || (r < 0 && r != -EAGAIN)) {
                if (r < 0)
                    fprintf(stderr, "echo server: client %u: %s\n", ivc_chan_peer(c->ch),
                            ivc_strerror((int)r));
                ivc_chan_close(c->ch);
                *c = cl[--open];
                break; /* the entries moved: poll again */
            }
        }
    }
    printf("echo server: served %d clients\n", served);
    return 0;
}

static unsigned char pat(size_t i, unsigned salt)
{
    return (unsigned char)(i * 131 + salt * 17 + (i >> 9));
}

static int client(ivc_t *ivc)
{
    int sid = ivc_lookup(ivc, "echo-server", 30000);
    if (sid < 0)
        die("lookup echo-server", sid);
    ivc_chan_t *ch;
    int rc = ivc_connect(ivc, (uint32_t)sid, PORT, 30000, &ch);
    if (rc != 0)
        die("connect", rc);
    static unsigned char out[1 << 20], in[1 << 20];
    size_t sizes[] = {1, 8, 64, 1000, 4096, 65536, 300000, 1 << 20};
    unsigned salt = ivc_id(ivc);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t len = sizes[k], sent = 0, got = 0;
        for (size_t i = 0; i < len; i++)
            out[i] = pat(i, salt + (unsigned)k);
        /* Write and read interleaved: the rings are smaller than the big messages. */
        while (got < len) {
            if (sent < len) {
                ssize_t w = ivc_write(ch, out + sent, len - sent);
                if (w > 0)
                    sent += (size_t)w;
                else if (w != -EAGAIN)
                    die("write", (int)w);
            }
            ssize_t r = ivc_read_wait(ch, in + got, len - got, sent < len ? 0 : 30000);
            if (r > 0)
                got += (size_t)r;
            else if (r != -ETIMEDOUT || sent == len)
                die("read", r == 0 ? -EPIPE : (int)r);
        }
        if (memcmp(in, out, len) != 0)
            die("echoed bytes differ", -EPROTO);
    }
    int iters = 20000;
    double t0 = now_us();
    for (int i = 0; i < iters; i++) {
        char b[8] = "ping1234", r[8];
        if (ivc_write_wait(ch, b, 8, 30000) != 8)
            die("write", -EIO);
        size_t got = 0;
        while (got < 8) {
            ssize_t n = ivc_read_wait(ch, r + got, 8 - got, 30000);
            if (n <= 0)
                die("read", n == 0 ? -EPIPE : (int)n);
            got += (size_t)n;
        }
    }
    double rtt = (now_us() - t0) / iters;
    char host[64] = "";
    gethostname(host, sizeof(host));
    printf("echo client %u on %s: every byte echoed (8 sizes up to 1 MiB); 8-byte round trip "
           "%.2f us\n",
           ivc_id(ivc), host, rtt);
    ivc_chan_close(ch);
    return 0;
}

int main(int argc, char **argv)
{
    const char *rank = getenv("PMI_RANK"), *size = getenv("PMI_SIZE");
    int is_server, nclients = 1;
    if (argc > 1) {
        is_server = strcmp(argv[1], "server") == 0;
        if (argc > 2)
            nclients = atoi(argv[2]);
    } else if (rank != NULL && size != NULL) {
        is_server = atoi(rank) == 0;
        nclients = atoi(size) - 1;
    } else {
        fprintf(stderr, "usage: ivc_echo server [NCLIENTS] | client   (or under ivcrun)\n");
        return 2;
    }
    if (nclients < 1 || nclients > MAXC)
        return 2;
    ivc_t *ivc;
    int rc = ivc_open(NULL, is_server ? "echo-server" : NULL, rank ? 0 : IVC_OPEN_CREATE, &ivc);
    if (rc != 0)
        die("open", rc);
    rc = is_server ? server(ivc, nclients) : client(ivc);
    ivc_close(ivc);
    return rc;
}
