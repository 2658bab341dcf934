/* libivc's blocking calls sleep on doorbells (issue 13). Run by ivcrun as 2 ranks in 2
 * simulated VMs: endpoint R is rank R and has rank R's doorbell (src/ivc/lib_door.c).
 *   sleep cpu [seconds]   rank 0 blocks `seconds` (default 2) in ivc_accept, in
 *                         ivc_read_wait and in ivc_barrier_wait(IVC_WAIT_BLOCK), each time
 *                         until rank 1 connects, writes or arrives; it checks what it gets
 *                         and prints its CPU time over each wait (getrusage) as
 *                         "<call>: waited <s> s, cpu <percent>%"
 *   sleep storm [rounds]  both ranks: ping-pong over a channel with random pauses before
 *                         each answer, and blocking barriers with random pauses before
 *                         arriving, data checked; run with IVC_LIB_SPIN=0 IVC_LIB_YIELDS=0
 *                         (every wait sleeps at once) and a long IVC_LIB_WAIT_TIMEOUT: a
 *                         lost wake-up shows in the doorbell statistics (IVC_DEBUG).
 * Exit 0 pass, 1 fail, 77 skip (not under ivcrun). */
#include <ivc.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../test_util.h"

static int rank;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int fail(const char *what, long want, long got)
{
    printf("rank %d: FAIL: %s: expected %ld, got %ld\n", rank, what, want, got);
    fflush(stdout);
    exit(1);
}

/* Rank 0's report of one wait that began at (wall0, cpu0). */
static void report(const char *call, double wall0, double cpu0, double secs)
{
    double wall = now_s() - wall0, cpu = t_cpu_seconds() - cpu0;
    if (wall < secs * 0.9)
        fail("ms waited (the wait ended early)", (long)(secs * 900), (long)(wall * 1000));
    printf("%s: waited %.2f s, cpu %.2f%%\n", call, wall, 100 * cpu / wall);
    fflush(stdout);
}

static int cpu_case(ivc_t *ivc, ivc_barrier_t *bar, double secs)
{
    ivc_chan_t *ch = NULL;
    uint64_t v = 0;
    if (rank == 0) {
        double w0 = now_s(), c0 = t_cpu_seconds();
        int rc = ivc_accept(ivc, 7, -1, &ch);
        if (rc != 0)
            fail("ivc_accept", 0, rc);
        report("ivc_accept", w0, c0, secs);
        w0 = now_s();
        c0 = t_cpu_seconds();
        ssize_t n = ivc_read_wait(ch, &v, sizeof(v), -1);
        if (n != sizeof(v) || v != 0x5eed)
            fail("ivc_read_wait's value", 0x5eed, n == sizeof(v) ? (long)v : (long)n);
        report("ivc_read_wait", w0, c0, secs);
        w0 = now_s();
        c0 = t_cpu_seconds();
        rc = ivc_barrier_wait(bar, IVC_WAIT_BLOCK, -1);
        if (rc != 0)
            fail("ivc_barrier_wait", 0, rc);
        report("ivc_barrier_wait", w0, c0, secs);
    } else {
        t_pause_us((long)(secs * 1e6));
        int rc = ivc_connect(ivc, 0, 7, 10000, &ch);
        if (rc != 0)
            fail("ivc_connect", 0, rc);
        t_pause_us((long)(secs * 1e6));
        v = 0x5eed;
        if (ivc_write_wait(ch, &v, sizeof(v), 10000) != sizeof(v))
            fail("ivc_write_wait", sizeof(v), -1);
        t_pause_us((long)(secs * 1e6));
        int brc = ivc_barrier_wait(bar, IVC_WAIT_BLOCK, -1);
        if (brc != 0)
            fail("ivc_barrier_wait", 0, brc);
    }
    /* Both sides close after the peer is done with the channel. */
    if (ivc_barrier_wait(bar, IVC_WAIT_BLOCK, 10000) != 0)
        fail("closing barrier", 0, -1);
    ivc_chan_close(ch);
    return 0;
}

static int storm_case(ivc_t *ivc, ivc_barrier_t *bar, long rounds)
{
    ivc_chan_t *ch = NULL;
    int rc = rank == 0 ? ivc_accept(ivc, 8, 10000, &ch) : ivc_connect(ivc, 0, 8, 10000, &ch);
    if (rc != 0)
        fail("accept/connect", 0, rc);
    uint64_t rng = 88172645463325252ull; /* the same sequence at both ranks */
    for (long r = 0; r < rounds; r++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        long delay = (long)(rng % 300); /* µs */
        int leader = (int)((rng >> 20) & 1);
        if ((rng >> 10) % 3 != 0) { /* ping-pong, led by `leader` */
            uint64_t v;
            if (rank == leader) {
                v = (uint64_t)r * 3;
                t_pause_us(delay);
                if (ivc_write_wait(ch, &v, sizeof(v), 60000) != sizeof(v))
                    fail("ping write", r, -1);
                if (ivc_read_wait(ch, &v, sizeof(v), -1) != sizeof(v) || v != (uint64_t)r * 3 + 1)
                    fail("pong", r * 3 + 1, (long)v);
            } else {
                if (ivc_read_wait(ch, &v, sizeof(v), -1) != sizeof(v) || v != (uint64_t)r * 3)
                    fail("ping", r * 3, (long)v);
                t_pause_us(delay / 2);
                v++;
                if (ivc_write_wait(ch, &v, sizeof(v), 60000) != sizeof(v))
                    fail("pong write", r, -1);
            }
        } else {
            if (rank == leader)
                t_pause_us(delay);
            if ((rc = ivc_barrier_wait(bar, IVC_WAIT_BLOCK, -1)) != 0)
                fail("barrier", 0, rc);
        }
    }
    if (ivc_barrier_wait(bar, IVC_WAIT_BLOCK, 60000) != 0)
        fail("closing barrier", 0, -1);
    ivc_chan_close(ch);
    if (rank == 0)
        printf("ivc sleep storm: %ld rounds, data checked\n", rounds);
    return 0;
}

int main(int argc, char **argv)
{
    const char *r = getenv("PMI_RANK");
    if (r == NULL) {
        printf("SKIP: not started by ivcrun\n");
        return 77;
    }
    rank = atoi(r);
    const char *mode = argc > 1 ? argv[1] : "cpu";
    ivc_t *ivc;
    int rc = ivc_open(NULL, NULL, rank == 0 ? IVC_OPEN_CREATE : 0, &ivc);
    if (rc != 0)
        fail("ivc_open", 0, rc);
    if (ivc_id(ivc) != (uint32_t)rank)
        fail("endpoint id", rank, ivc_id(ivc));
    ivc_barrier_t *bar;
    if ((rc = ivc_barrier_open(ivc, "sleep", 2, &bar)) != 0)
        fail("ivc_barrier_open", 0, rc);
    if (ivc_barrier_wait(bar, IVC_WAIT_BLOCK, 30000) != 0) /* both are there */
        fail("first barrier", 0, -1);
    if (!strcmp(mode, "storm"))
        storm_case(ivc, bar, argc > 2 ? atol(argv[2]) : 3000);
    else
        cpu_case(ivc, bar, argc > 2 ? atof(argv[2]) : 2);
    ivc_barrier_close(bar);
    ivc_close(ivc);
    return 0;
}
