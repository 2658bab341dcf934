/* libivc endpoints: ids, names (unique among the live, free again once their holder left
 * or died), peer lists, lookups, the identity of a PMI rank, shared blocks. */
#include "ivc_test.h"

#include <errno.h>
#include <stdint.h>

static int die_holding_name(void *arg)
{
    (void)arg;
    ivc_t *ivc = t_open("doomed");
    (void)ivc;
    raise(SIGKILL); /* no ivc_close: its lock on the region file goes with the process */
    return 1;
}

static int find_peer(ivc_peer_t *p, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(p[i].name, name) == 0)
            return i;
    return -1;
}

int main(void)
{
    t_region_init("endpoints", 100);
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    ivc_t *a = t_open("alpha"), *b = t_open("beta"), *x;
    T_TRUE(ivc_id(a) != ivc_id(b), "distinct ids");
    T_EQ(-EADDRINUSE, ivc_open(t_region, "alpha", 0, &x), "a name in use");
    T_EQ(-EINVAL, ivc_open(t_region, "bad\nname", 0, &x), "unprintable name");
    T_EQ(-EINVAL, ivc_open(t_region, "0123456789012345678901234567890123", 0, &x), "long name");
    T_EQ(-ENOENT, ivc_open("/dev/shm/ivc-test-does-not-exist", "z", 0, &x), "missing region");
    ivc_peer_t p[8];
    T_EQ(1, ivc_peers(a, p, 8), "peers of alpha");
    T_EQ(ivc_id(b), p[0].id, "beta's id");
    T_TRUE(strcmp(p[0].name, "beta") == 0, "beta's name");
    T_EQ(-1, p[0].rank, "no PMI rank");
    T_EQ((int)ivc_id(b), ivc_lookup(a, "beta", 0), "lookup");
    T_EQ(-ENOENT, ivc_lookup(a, "gamma", 0), "lookup of a missing name");
    T_EQ(-ETIMEDOUT, ivc_lookup(a, "gamma", 30), "lookup timeout");

    /* A closed endpoint's name and id are free again. */
    uint32_t bid = ivc_id(b);
    ivc_close(b);
    T_EQ(0, ivc_peers(a, p, 8), "no peers after close");
    b = t_open("beta");
    T_EQ(bid, ivc_id(b), "the freed id is taken again");

    /* A killed holder's name is free at once (same kernel: its file lock went). */
    pid_t pid = t_fork(die_holding_name, NULL);
    T_EQ(128 + SIGKILL, t_wait(pid), "doomed child");
    int n = ivc_peers(a, p, 8);
    T_EQ(-1, find_peer(p, n, "doomed"), "a dead endpoint is not listed");
    x = t_open("doomed");
    ivc_close(x);

    /* A rank of an ivcrun job takes its rank as id. */
    setenv("PMI_RANK", "5", 1);
    setenv("PMI_SIZE", "8", 1);
    ivc_t *r5;
    T_RC(ivc_open(t_region, NULL, 0, &r5));
    T_EQ(5, ivc_id(r5), "rank 5's id");
    n = ivc_peers(a, p, 8);
    int k = find_peer(p, n, "rank5");
    T_TRUE(k >= 0, "rank5 listed");
    T_EQ(5, p[k].rank, "its rank");
    ivc_close(r5);
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");

    /* Shared blocks: created zeroed once, found by name. */
    uint64_t off, off2, size;
    T_RC(ivc_shm_get(a, "blk", 100, &off, &size));
    T_EQ(128, size, "size rounded to a line");
    uint8_t *pa = ivc_ptr(a, off, size), *pb;
    T_TRUE(pa != NULL && pa[0] == 0 && pa[99] == 0, "zero-filled");
    pa[7] = 42;
    T_RC(ivc_shm_get(b, "blk", 50, &off2, NULL));
    T_EQ(off, off2, "same block");
    pb = ivc_ptr(b, off2, 128);
    T_EQ(42, pb[7], "seen through the other handle");
    T_EQ(-EINVAL, ivc_shm_get(b, "blk", 4096, &off2, NULL), "larger than the block");
    T_TRUE(ivc_ptr(a, UINT64_MAX - 8, 16) == NULL, "ivc_ptr outside the region");
    ivc_close(a);
    ivc_close(b);
    printf("endpoints: ok\n");
    return 0;
}
