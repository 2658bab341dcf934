/*
 * tcp.c - lat's ping-pong and bw's windowed stream over one TCP connection, for comparing
 * IVC inside QEMU guests with the same guests talking over their virtual network.
 *
 *   tcp server PORT lat|bw [-m max] [-i scale]      (waits for the client)
 *   tcp client HOST PORT lat|bw [-m max] [-i scale] (prints the rows)
 *
 * Same sizes (1 .. max, powers of two), iteration counts, window (64) and output
 * format ("# Size  Latency (us)" / "# Size  Bandwidth (MB/s)") as bench/lat.c and bw.c.
 * The last round of each size carries a size-dependent pattern that the receiver checks.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 64

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void full_write(int fd, const void *b, size_t n)
{
    for (size_t d = 0; d < n;) {
        ssize_t k = write(fd, (const char *)b + d, n - d);
        if (k <= 0)
            die("write");
        d += (size_t)k;
    }
}

static void full_read(int fd, void *b, size_t n)
{
    for (size_t d = 0; d < n;) {
        ssize_t k = read(fd, (char *)b + d, n - d);
        if (k <= 0)
            die(k == 0 ? "read: connection closed" : "read");
        d += (size_t)k;
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int iters(size_t size, double scale, int small, int mid, int large)
{
    int n = size <= 8192 ? small : size < (1u << 20) ? mid : large;
    n = (int)(n * scale);
    return n < 3 ? 3 : n;
}

static void pattern(char *b, size_t n, int check)
{
    for (size_t i = 0; i < n; i++) {
        char want = (char)(i * 31 + n);
        if (!check)
            b[i] = want;
        else if (b[i] != want) {
            fprintf(stderr, "tcp: %zu-byte message: byte %zu is wrong\n", n, i);
            exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: tcp server PORT lat|bw | tcp client HOST PORT lat|bw "
                               "[-m max] [-i scale]\n"),
               2;
    int server = !strcmp(argv[1], "server");
    int a = server ? 2 : 3;
    int port = atoi(argv[a]);
    int bw = !strcmp(argv[a + 1], "bw");
    size_t max = 1 << 20;
    double scale = 1.0;
    for (int i = a + 2; i + 1 < argc; i += 2) {
        char *end;
        if (!strcmp(argv[i], "-m")) {
            max = strtoull(argv[i + 1], &end, 10);
            max <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 0;
        } else if (!strcmp(argv[i], "-i")) {
            scale = atof(argv[i + 1]);
        }
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (server) {
        int l = fd;
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1))
            die("bind/listen");
        fd = accept(l, NULL, NULL);
        if (fd < 0)
            die("accept");
        close(l);
    } else {
        if (inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1)
            return fprintf(stderr, "tcp: bad address %s\n", argv[2]), 2;
        int tries = 0;
        while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
            if (++tries > 600)
                die("connect");
            close(fd);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            nanosleep(&(struct timespec){0, 100000000}, NULL);
        }
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    char *buf = malloc(bw ? max * WINDOW : max), ack[4] = {0};
    if (!server)
        printf("# tcp: %s over TCP\n# %-8s%18s\n", bw ? "streaming bandwidth" : "ping-pong latency",
               "Size", bw ? "Bandwidth (MB/s)" : "Latency (us)");
    /* From 1 byte: TCP cannot carry an empty message. */
    for (size_t size = 1; size <= max; size *= 2) {
        if (!bw) {
            int n = iters(size, scale, 10000, 1000, 100), w = n / 10 + 1;
            double t0 = 0;
            for (int k = 0; k < n + w + 1; k++) {
                int last = k == n + w;
                if (k == w)
                    t0 = now();
                if (!server) {
                    if (last)
                        pattern(buf, size, 0);
                    full_write(fd, buf, size);
                    full_read(fd, buf, size);
                } else {
                    full_read(fd, buf, size);
                    if (last)
                        pattern(buf, size, 1);
                    full_write(fd, buf, size);
                }
                if (k == n + w - 1 && !server)
                    printf("  %-8zu%18.2f\n", size, (now() - t0) * 1e6 / (2.0 * n));
            }
        } else {
            int n = iters(size, scale, 200, 20, 20), w = n / 10 + 1;
            double cap = 2.0 * (1u << 30) * scale / ((double)size * WINDOW);
            if (size > 8192 && n > cap)
                n = cap < 3 ? 3 : (int)cap;
            double t0 = 0;
            for (int k = 0; k < n + w + 1; k++) {
                int last = k == n + w;
                if (k == w)
                    t0 = now();
                if (!server) {
                    if (last)
                        pattern(buf, size * WINDOW, 0);
                    /* One write per message, as bw posts one send per message. */
                    for (int m = 0; m < WINDOW; m++)
                        full_write(fd, buf + (size_t)m * size, size);
                    full_read(fd, ack, 4);
                } else {
                    full_read(fd, buf, size * WINDOW);
                    if (last)
                        pattern(buf, size * WINDOW, 1);
                    full_write(fd, ack, 4);
                }
                if (k == n + w - 1 && !server)
                    printf("  %-8zu%18.2f\n", size, (double)size * WINDOW * n / (now() - t0) / 1e6);
            }
        }
        fflush(stdout);
    }
    close(fd);
    free(buf);
    return 0;
}
