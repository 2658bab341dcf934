/* libivc datagram ports: three senders in their own processes send numbered datagrams of
 * varying length to one port; the receiver checks each sender's order and every byte.
 * Then the errors: unbound port, bound twice, too long, truncation, and a lane shortage
 * (IVC_LIB_LANES=1 in a second run: -EBUSY for a second live sender). */
#include "ivc_test.h"

#include <errno.h>
#include <stdint.h>

#define SENDERS 3
#define COUNT 20000
#define PORT 4242

static size_t msg_len(unsigned s, unsigned i)
{
    return 8 + (s * 131 + i * 7) % 400;
}

static int sender(void *arg)
{
    unsigned s = (unsigned)(uintptr_t)arg;
    char name[16];
    snprintf(name, sizeof(name), "sender%u", s);
    ivc_t *ivc = t_open(name);
    int rid = ivc_lookup(ivc, "receiver", 20000);
    T_RC(rid);
    uint8_t buf[512];
    for (unsigned i = 0; i < COUNT; i++) {
        size_t len = msg_len(s, i);
        memcpy(buf, &i, 4);
        memcpy(buf + 4, &s, 4);
        for (size_t k = 8; k < len; k++)
            buf[k] = t_pattern(s * 100000 + i, k);
        ssize_t n;
        while ((n = ivc_sendto_wait(ivc, (uint32_t)rid, PORT, buf, len, 20000)) == -EHOSTUNREACH)
            usleep(1000); /* not bound yet */
        if (n != (ssize_t)len)
            T_FAIL("sender %u: datagram %u: %s", s, i, ivc_strerror((int)n));
    }
    ivc_close(ivc);
    return 0;
}

/* Sends one datagram, keeping its lane, and waits to be killed. */
static int lane_holder(void *arg)
{
    (void)arg;
    ivc_t *ivc = t_open("holder");
    int rid = ivc_lookup(ivc, "receiver", 20000);
    T_RC(rid);
    T_EQ(4, ivc_sendto_wait(ivc, (uint32_t)rid, PORT, "held", 4, 20000), "holder's datagram");
    pause();
    return 0;
}

/* One lane: a second live sender gets -EBUSY; once the holder is killed, its lane is taken
 * over, and the holder's datagram is still delivered before the new sender's. */
static void lane_shortage(ivc_t *ivc, ivc_port_t *p)
{
    pid_t pid = t_fork(lane_holder, NULL);
    char buf[16];
    uint32_t from;
    T_EQ(4, ivc_recvfrom_wait(p, buf, sizeof(buf), &from, 20000), "holder's datagram");
    T_EQ(4, ivc_sendto_wait(ivc, 0, 0, "x", 1, 0) == -EHOSTUNREACH ? 4 : 0, "no port 0");
    ivc_t *other = t_open("other");
    T_EQ(-EBUSY, ivc_sendto(other, ivc_id(ivc), PORT, "next", 4), "no free lane");
    kill(pid, SIGKILL);
    T_EQ(128 + SIGKILL, t_wait(pid), "holder");
    T_EQ(4, ivc_sendto(other, ivc_id(ivc), PORT, "next", 4), "lane of the dead sender");
    T_EQ(4, ivc_recvfrom_wait(p, buf, sizeof(buf), &from, 20000), "new sender's datagram");
    T_TRUE(memcmp(buf, "next", 4) == 0 && from == ivc_id(other), "from the new sender");
    ivc_close(other);
}

int main(void)
{
    t_region_init("port", 100);
    const char *lanes = getenv("IVC_LIB_LANES");
    int one_lane = lanes != NULL && strcmp(lanes, "1") == 0;
    ivc_t *ivc = t_open("receiver");
    ivc_port_t *p, *q;
    T_EQ(-EHOSTUNREACH, ivc_sendto(ivc, ivc_id(ivc), PORT, "x", 1), "unbound port");
    T_RC(ivc_port_open(ivc, PORT, &p));
    T_EQ(-EADDRINUSE, ivc_port_open(ivc, PORT, &q), "bound twice");
    static uint8_t big[1 << 16];
    T_EQ(-EMSGSIZE, ivc_sendto(ivc, ivc_id(ivc), PORT, big, ivc_port_max_msg(ivc) + 1),
         "too long");
    if (one_lane) {
        lane_shortage(ivc, p);
        ivc_close(ivc);
        printf("port: ok (one lane)\n");
        return 0;
    }
    /* To itself, truncated on receipt. */
    T_EQ(5, ivc_sendto(ivc, ivc_id(ivc), PORT, "hello", 5), "send to self");
    char small[3];
    uint32_t from = 99;
    T_EQ(3, ivc_recvfrom(p, small, 3, &from), "truncated receive");
    T_EQ(ivc_id(ivc), from, "from");
    T_EQ(-EAGAIN, ivc_recvfrom(p, small, 3, &from), "the rest was dropped");
    T_EQ(-ETIMEDOUT, ivc_recvfrom_wait(p, small, 3, &from, 20), "receive timeout");

    pid_t pids[SENDERS];
    for (unsigned s = 0; s < SENDERS; s++)
        pids[s] = t_fork(sender, (void *)(uintptr_t)s);
    unsigned next[SENDERS] = {0};
    unsigned total = 0, want = SENDERS * COUNT;
    uint8_t buf[512];
    while (total < want) {
        ssize_t n = ivc_recvfrom_wait(p, buf, sizeof(buf), &from, 20000);
        T_RC(n);
        unsigned i, s;
        memcpy(&i, buf, 4);
        memcpy(&s, buf + 4, 4);
        if (s >= SENDERS || (size_t)n != msg_len(s, i))
            T_FAIL("datagram of %zd bytes from sender %u #%u", n, s, i);
        if (i != next[s])
            T_FAIL("sender %u: expected datagram %u, got %u", s, next[s], i);
        for (ssize_t k = 8; k < n; k++)
            if (buf[k] != t_pattern(s * 100000 + i, (unsigned long long)k))
                T_FAIL("sender %u datagram %u byte %zd differs", s, i, k);
        next[s]++;
        total++;
    }
    for (unsigned s = 0; s < SENDERS; s++)
        T_EQ(0, t_wait(pids[s]), "sender");
    ivc_port_close(p);
    T_RC(ivc_port_open(ivc, PORT, &p));
    ivc_port_close(p);
    ivc_close(ivc);
    printf("port: ok (%u datagrams)\n", total);
    return 0;
}
