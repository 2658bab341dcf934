/* libivc channels between two processes: connect/accept, a stream of patterned bytes
 * larger than the ring in both directions (partial writes, wrap-around), non-blocking
 * -EAGAIN, end of stream after close, -EPIPE for a writer whose peer closed, a peer killed
 * with SIGKILL (-ECONNRESET once its bytes are read), errors of connect and accept, poll
 * over several channels and the event fd. Run with IVC_LIB_RING_SIZE=4K as well. */
#include "ivc_test.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>

#define STREAM (3u << 20)
#define PORT 7

static int pump(ivc_chan_t *ch, unsigned seed_out, unsigned seed_in)
{
    static uint8_t out[9000], in[7777];
    uint64_t sent = 0, got = 0;
    while (sent < STREAM || got < STREAM) {
        if (sent < STREAM) {
            size_t want = STREAM - sent < sizeof(out) ? STREAM - sent : sizeof(out);
            for (size_t i = 0; i < want; i++)
                out[i] = t_pattern(seed_out, sent + i);
            ssize_t n = ivc_write(ch, out, want);
            if (n < 0 && n != -EAGAIN)
                T_FAIL("write at %llu: %s", (unsigned long long)sent, ivc_strerror((int)n));
            if (n > 0)
                sent += (uint64_t)n;
        }
        if (got < STREAM) {
            size_t want = STREAM - got < sizeof(in) ? STREAM - got : sizeof(in);
            ssize_t n = ivc_read(ch, in, want);
            if (n < 0 && n != -EAGAIN)
                T_FAIL("read at %llu: %s", (unsigned long long)got, ivc_strerror((int)n));
            if (n == 0)
                T_FAIL("end of stream after %llu bytes", (unsigned long long)got);
            for (ssize_t i = 0; i < n; i++)
                if (in[i] != t_pattern(seed_in, got + i))
                    T_FAIL("byte %llu: expected %u, got %u", (unsigned long long)(got + i),
                           t_pattern(seed_in, got + i), in[i]);
            if (n > 0)
                got += (uint64_t)n;
        }
    }
    return 0;
}

static int server(void *arg)
{
    (void)arg;
    ivc_t *ivc = t_open("server");
    ivc_chan_t *ch;
    T_RC(ivc_accept(ivc, PORT, 20000, &ch));
    T_EQ(PORT, ivc_chan_port(ch), "accepted port");
    pump(ch, 2, 1);
    /* Phase 2: the client closes after writing 100 bytes: we read them, then EOF. */
    uint8_t buf[256];
    size_t got = 0;
    for (;;) {
        ssize_t n = ivc_read_wait(ch, buf + got, sizeof(buf) - got, 20000);
        if (n == 0)
            break;
        T_RC(n);
        got += (size_t)n;
    }
    T_EQ(100, got, "bytes before end of stream");
    T_EQ(0, ivc_read(ch, buf, 1), "read after end of stream");
    T_EQ(-EPIPE, ivc_write(ch, buf, 1), "write to a closed peer");
    ivc_chan_close(ch);
    /* Phase 3: a second connection, whose client is killed after writing 10 bytes. */
    T_RC(ivc_accept(ivc, IVC_PORT_ANY, 20000, &ch));
    got = 0;
    for (;;) {
        ssize_t n = ivc_read_wait(ch, buf + got, sizeof(buf) - got, 20000);
        if (n == -ECONNRESET)
            break;
        if (n == 0 || n == -ETIMEDOUT)
            T_FAIL("read from a killed peer: expected -ECONNRESET, got %zd", n);
        T_RC(n);
        got += (size_t)n;
    }
    T_EQ(10, got, "bytes of the killed peer read before -ECONNRESET");
    T_EQ(-ECONNRESET, ivc_write(ch, buf, 1), "write to a killed peer");
    ivc_chan_close(ch);
    ivc_close(ivc);
    return 0;
}

static int killed_client(void *arg)
{
    (void)arg;
    ivc_t *ivc = t_open("victim");
    int sid = ivc_lookup(ivc, "server", 20000);
    T_RC(sid);
    ivc_chan_t *ch;
    T_RC(ivc_connect(ivc, (uint32_t)sid, 9, 20000, &ch));
    T_EQ(10, ivc_write(ch, "0123456789", 10), "write");
    raise(SIGKILL);
    return 1;
}

static void test_stream(void)
{
    pid_t srv = t_fork(server, NULL);
    ivc_t *ivc = t_open("client");
    int sid = ivc_lookup(ivc, "server", 20000);
    T_RC(sid);
    ivc_chan_t *ch;
    T_EQ(-EINVAL, ivc_connect(ivc, ivc_id(ivc), PORT, 100, &ch), "connect to self");
    T_EQ(-EHOSTUNREACH, ivc_connect(ivc, ivc_max_endpoints(ivc) - 1, PORT, 100, &ch),
         "connect to a free id");
    T_RC(ivc_connect(ivc, (uint32_t)sid, PORT, 20000, &ch));
    T_EQ(sid, ivc_chan_peer(ch), "peer id");
    pump(ch, 1, 2);
    uint8_t b[100];
    memset(b, 'x', sizeof(b));
    T_EQ(100, ivc_write_wait(ch, b, 100, 20000), "write_wait");
    ivc_chan_close(ch);
    pid_t vic = t_fork(killed_client, NULL);
    T_EQ(128 + SIGKILL, t_wait(vic), "killed client");
    T_EQ(0, t_wait(srv), "server");
    ivc_close(ivc);
}

/* Accept and connect errors without a partner. */
static void test_errors(void)
{
    ivc_t *a = t_open("lonely"), *b = t_open("silent");
    ivc_chan_t *ch;
    T_EQ(-EAGAIN, ivc_accept(a, PORT, 0, &ch), "accept with nothing pending");
    T_EQ(-ETIMEDOUT, ivc_accept(a, PORT, 50, &ch), "accept timeout");
    T_EQ(-ETIMEDOUT, ivc_connect(a, ivc_id(b), PORT, 50, &ch), "connect that nobody accepts");
    /* The abandoned request is gone: b finds nothing to accept. */
    T_EQ(-EAGAIN, ivc_accept(b, IVC_PORT_ANY, 0, &ch), "request withdrawn after the timeout");
    T_EQ(-EBADF, ivc_read(NULL, b, 1), "read on NULL");
    ivc_close(a);
    ivc_close(b);
}

/* Poll and the event fd over three channels between two handles of this process. */
struct pair_arg {
    int n;
};

static int poll_peer(void *arg)
{
    struct pair_arg *pa = arg;
    ivc_t *ivc = t_open("poller-peer");
    int pid = ivc_lookup(ivc, "poller", 20000);
    T_RC(pid);
    ivc_chan_t *ch[8];
    for (int i = 0; i < pa->n; i++)
        T_RC(ivc_connect(ivc, (uint32_t)pid, 100 + i, 20000, &ch[i]));
    /* Write one byte on channel 1 after a pause, then close channel 2. */
    char c;
    T_EQ(1, ivc_read_wait(ch[0], &c, 1, 20000), "go signal");
    T_EQ(1, ivc_write(ch[1], "A", 1), "write on channel 1");
    T_EQ(1, ivc_read_wait(ch[0], &c, 1, 20000), "second go signal");
    ivc_chan_close(ch[2]);
    T_EQ(0, ivc_read_wait(ch[0], &c, 1, 20000), "end");
    ivc_close(ivc);
    return 0;
}

static void test_poll(void)
{
    struct pair_arg pa = {3};
    ivc_t *ivc = t_open("poller");
    pid_t peer = t_fork(poll_peer, &pa);
    ivc_pollent_t ent[4];
    memset(ent, 0, sizeof(ent));
    ent[0].kind = IVC_POLL_ACCEPT;
    ent[0].accept_port = IVC_PORT_ANY;
    ent[0].events = IVC_POLLIN;
    T_EQ(1, ivc_poll(ivc, ent, 1, 20000), "a connection to accept");
    ivc_chan_t *ch[3];
    for (int i = 0; i < 3; i++)
        T_RC(ivc_accept(ivc, 100 + i, 20000, &ch[i]));
    int efd = ivc_event_fd(ivc);
    T_RC(efd);
    for (int i = 0; i < 3; i++) {
        ent[i].kind = IVC_POLL_CHAN;
        ent[i].chan = ch[i];
        ent[i].events = IVC_POLLIN;
    }
    T_EQ(0, ivc_poll(ivc, ent, 3, 0), "nothing readable yet");
    T_EQ(1, ivc_write(ch[0], "g", 1), "go");
    struct pollfd pfd = {efd, POLLIN, 0};
    T_EQ(1, poll(&pfd, 1, 20000), "event fd readable");
    uint64_t cnt;
    T_EQ(8, read(efd, &cnt, 8), "read event fd");
    T_EQ(1, ivc_poll(ivc, ent, 3, 20000), "one channel ready");
    T_EQ(IVC_POLLIN, ent[1].revents, "channel 1 readable");
    char c;
    T_EQ(1, ivc_read(ch[1], &c, 1), "read channel 1");
    T_EQ('A', c, "byte");
    T_EQ(1, ivc_write(ch[0], "g", 1), "second go");
    T_EQ(1, ivc_poll(ivc, ent, 3, 20000), "hang-up seen");
    T_TRUE(ent[2].revents & IVC_POLLHUP, "channel 2 hung up");
    ent[0].events = IVC_POLLOUT;
    T_TRUE(ivc_poll(ivc, ent, 1, 0) == 1 && ent[0].revents == IVC_POLLOUT, "room to write");
    ivc_chan_close(ch[0]);
    T_EQ(0, t_wait(peer), "peer");
    ivc_chan_close(ch[1]);
    ivc_chan_close(ch[2]);
    ivc_close(ivc);
}

int main(void)
{
    t_region_init("chan", 100);
    test_errors();
    test_stream();
    test_poll();
    printf("chan: ok\n");
    return 0;
}
