/* Channel latency and throughput between two processes (two simulated VMs), libivc's
 * channel against sockets.
 *
 *   ivcrun -n 2 --vms 2 --net ivc_bench_chan ivc|tcp [SIZE] [MB]
 *   ivcrun -n 2 --vms 1 ivc_bench_chan ivc|tcp|unix [SIZE] [MB]
 *
 * ivc: a libivc channel through its blocking calls (ivc_read_wait/ivc_write_wait: spin,
 * then yield, then short sleeps; IVC_LIB_SPIN etc.). tcp: a TCP connection with
 * TCP_NODELAY, to 10.77.0.1 (VM 0's eth0, from ivcrun --net) when the ranks are in
 * different VMs, else over loopback. unix: a Unix stream socket (only when both ranks are
 * in one VM: Unix sockets do not cross VMs). Latency: 8-byte ping-pong, one-way time =
 * round trip / 2 over 20000 round trips. Throughput: rank 1 streams MB MiB in SIZE-byte
 * writes (default 64 KiB, 256 MiB), rank 0 acknowledges the end with one byte. Rank 0
 * prints "chan KIND lat_us X tput_MBps Y" (MB = 10^6 bytes). Rank 1 checks the stream's
 * bytes (a counter pattern in every 8 bytes). */
#define _GNU_SOURCE
#include <ivc.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "ivc_bench_chan: %s: %s\n", what, rc < 0 ? ivc_strerror(rc) : strerror(errno));
    exit(1);
}

/* One transport: send all / receive exactly. */
typedef struct xport {
    ivc_chan_t *ch;
    int fd;
} xport_t;

static void x_send(xport_t *x, const void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = x->ch ? ivc_write_wait(x->ch, (const char *)buf + done, len - done, -1)
                          : send(x->fd, (const char *)buf + done, len - done, 0);
        if (n > 0)
            done += (size_t)n;
        else if (x->ch ? n != -EAGAIN : errno != EINTR)
            die("send", x->ch ? (int)n : 0);
    }
}

static void x_recv(xport_t *x, void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = x->ch ? ivc_read_wait(x->ch, (char *)buf + done, len - done, -1)
                          : recv(x->fd, (char *)buf + done, len - done, 0);
        if (n > 0)
            done += (size_t)n;
        else if (n == 0)
            die("recv: end of stream", -EPIPE);
        else if (x->ch ? n != -EAGAIN : errno != EINTR)
            die("recv", x->ch ? (int)n : 0);
    }
}

static int sock_pair(const char *kind, int rank, int same_vm)
{
    int one = 1, fd;
    if (strcmp(kind, "unix") == 0) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/ivc-bench-chan-%s", getenv("IVC_JOB"));
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (rank == 0) {
            unlink(a.sun_path);
            if (bind(fd, (void *)&a, sizeof(a)) || listen(fd, 1))
                die("unix bind", 0);
            int c = accept(fd, NULL, NULL);
            close(fd);
            unlink(a.sun_path);
            return c;
        }
        for (int i = 0; connect(fd, (void *)&a, sizeof(a)) != 0; i++) {
            if (i > 5000)
                die("unix connect", 0);
            usleep(1000);
        }
        return fd;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(47123)};
    a.sin_addr.s_addr = same_vm ? htonl(INADDR_LOOPBACK) : inet_addr("10.77.0.1");
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (rank == 0) {
        struct sockaddr_in any = a;
        any.sin_addr.s_addr = htonl(INADDR_ANY);
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (void *)&any, sizeof(any)) || listen(fd, 1))
            die("tcp bind", 0);
        int c = accept(fd, NULL, NULL);
        close(fd);
        fd = c;
    } else {
        for (int i = 0; connect(fd, (void *)&a, sizeof(a)) != 0; i++) {
            if (i > 5000)
                die("tcp connect (for VMs in separate VMs: ivcrun --net)", 0);
            close(fd);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            usleep(1000);
        }
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

int main(int argc, char **argv)
{
    const char *ss = getenv("PMI_SIZE"), *rs = getenv("PMI_RANK"), *vs = getenv("IVC_VM");
    if (argc < 2 || ss == NULL || rs == NULL || atoi(ss) != 2) {
        fprintf(stderr, "usage: ivcrun -n 2 [--vms 2 --net] ivc_bench_chan ivc|tcp|unix [SIZE] [MB]\n");
        return 2;
    }
    int rank = atoi(rs);
    size_t size = argc > 2 ? (size_t)atol(argv[2]) : 65536;
    uint64_t total = (argc > 3 ? (uint64_t)atol(argv[3]) : 256) << 20;
    total -= total % size;
    /* Both ranks learn whether they share a VM through a libivc datagram. */
    ivc_t *ivc;
    int rc = ivc_open(NULL, NULL, 0, &ivc);
    if (rc != 0)
        die("open", rc);
    ivc_port_t *port;
    if ((rc = ivc_port_open(ivc, 1, &port)) != 0)
        die("port", rc);
    int myvm = vs ? atoi(vs) : 0, peervm = -1;
    int peer = ivc_lookup(ivc, rank ? "rank0" : "rank1", 30000);
    if (peer < 0)
        die("lookup", peer);
    for (int i = 0; (rc = (int)ivc_sendto(ivc, (uint32_t)peer, 1, &myvm, sizeof(myvm))) ==
                        -EHOSTUNREACH && i < 30000;
         i++)
        usleep(1000); /* its port is not bound yet */
    if (rc < 0 ||
        (rc = (int)ivc_recvfrom_wait(port, &peervm, sizeof(peervm), NULL, 30000)) < 0)
        die("exchange", rc);
    int same_vm = myvm == peervm;
    xport_t x = {NULL, -1};
    if (strcmp(argv[1], "ivc") == 0) {
        rc = rank == 0 ? ivc_accept(ivc, 2, 30000, &x.ch)
                       : ivc_connect(ivc, (uint32_t)peer, 2, 30000, &x.ch);
        if (rc != 0)
            die("channel", rc);
    } else if (strcmp(argv[1], "unix") == 0 && !same_vm) {
        if (rank == 0)
            printf("chan unix lat_us - tput_MBps - (Unix sockets do not cross VMs)\n");
        return 0;
    } else {
        x.fd = sock_pair(argv[1], rank, same_vm);
    }
    char ping[8] = "pingpong";
    int rounds = 20000;
    for (int i = 0; i < rounds / 10 + rounds; i++) {
        static double t0;
        if (i == rounds / 10)
            t0 = now_s();
        if (rank == 0) {
            x_send(&x, ping, 8);
            x_recv(&x, ping, 8);
        } else {
            x_recv(&x, ping, 8);
            x_send(&x, ping, 8);
        }
        if (i == rounds / 10 + rounds - 1 && rank == 0)
            printf("chan %s%s lat_us %.2f", argv[1], same_vm ? "(1vm)" : "",
                   (now_s() - t0) / rounds / 2 * 1e6);
    }
    uint64_t *buf = malloc(size + 8);
    double t0 = now_s();
    uint64_t bad = 0;
    if (rank == 1) {
        for (uint64_t sent = 0; sent < total; sent += size) {
            for (size_t k = 0; k < size / 8; k++)
                buf[k] = sent / 8 + k;
            x_send(&x, buf, size);
        }
        char ack;
        x_recv(&x, &ack, 1);
    } else {
        for (uint64_t got = 0; got < total; got += size) {
            x_recv(&x, buf, size);
            for (size_t k = 0; k < size / 8; k++)
                bad += buf[k] != got / 8 + k;
        }
        x_send(&x, "k", 1);
        double dt = now_s() - t0;
        printf(" tput_MBps %.0f%s\n", total / dt / 1e6, bad ? " DATA WRONG" : "");
    }
    if (x.ch)
        ivc_chan_close(x.ch);
    else
        close(x.fd);
    ivc_port_close(port);
    ivc_close(ivc);
    return bad ? 1 : 0;
}
