/* libivc's byte ring: the one full/empty test (ivclib_ring_used) at the wrap boundaries of
 * the free-running 64-bit positions, table-driven; then writes and reads that wrap around
 * the ring's end, all-or-nothing writes, and the -EPROTO of impossible positions. */
#include "../test_util.h"

#include "ivc/lib_ring.h"

#include <stdint.h>
#include <stdlib.h>

static const struct {
    uint64_t tail, head;
    uint32_t size;
    int64_t used;
} cases[] = {
    {0, 0, 64, 0},
    {64, 0, 64, 64},
    {65, 0, 64, -EPROTO},                   /* more than the ring */
    {0, 1, 64, -EPROTO},                    /* consumer ahead of producer */
    {UINT64_MAX, UINT64_MAX - 64, 64, 64},  /* full just below the wrap */
    {UINT64_MAX, UINT64_MAX, 64, 0},
    {3, UINT64_MAX - 60, 64, 64},           /* full across the wrap of the counters */
    {3, UINT64_MAX - 59, 64, 63},
    {4, UINT64_MAX - 60, 64, -EPROTO},      /* one past full across the wrap */
    {0, UINT64_MAX, 64, 1},                 /* one byte across the wrap */
    {UINT64_MAX, 0, 64, -EPROTO},           /* head past tail across the wrap */
    {1ull << 40, (1ull << 40) - 4096, 4096, 4096},
};

int main(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (ivclib_ring_used(cases[i].tail, cases[i].head, cases[i].size) != cases[i].used)
            T_FAIL("case %zu: tail %llu head %llu size %u: expected %lld, got %lld", i,
                   (unsigned long long)cases[i].tail, (unsigned long long)cases[i].head,
                   cases[i].size, (long long)cases[i].used,
                   (long long)ivclib_ring_used(cases[i].tail, cases[i].head, cases[i].size));

    /* A 64-byte ring whose positions start just below the 64-bit wrap. */
    void *mem = aligned_alloc(64, sizeof(ivclib_ring_ctl_t) + 64);
    ivclib_ring_ctl_t *ctl = mem;
    uint64_t start = UINT64_MAX - 100;
    ivc_store_relaxed(&ctl->tail, start);
    ivc_store_relaxed(&ctl->head, start);
    ivclib_ring_t p, c;
    ivclib_ring_view(&p, ctl, 64, start);
    ivclib_ring_view(&c, ctl, 64, start);
    uint8_t out[50], in[50];
    uint64_t wseq = 0, rseq = 0;
    for (int round = 0; round < 40; round++) {
        size_t len = 1 + (size_t)(round * 7) % 50;
        for (size_t k = 0; k < len; k++)
            out[k] = t_pattern(3, wseq + k);
        int64_t n = ivclib_ring_write(&p, out, len, round & 1);
        if (round & 1)
            T_TRUE(n == (int64_t)len || n == -EAGAIN, "all or nothing");
        else
            T_TRUE(n > 0, "partial write moves something");
        if (n > 0)
            wseq += (uint64_t)n;
        int64_t m = ivclib_ring_read(&c, in, 1 + (size_t)round % 50);
        T_TRUE(m > 0 || m == -EAGAIN, "read");
        for (int64_t k = 0; k < m; k++)
            if (in[k] != t_pattern(3, rseq + (uint64_t)k))
                T_FAIL("round %d byte %lld differs", round, (long long)k);
        if (m > 0)
            rseq += (uint64_t)m;
    }
    T_TRUE(p.pos < start, "the positions wrapped");
    ivc_store_relaxed(&ctl->tail, p.pos + 1000);
    T_EQ(-EPROTO, ivclib_ring_read(&c, in, 1), "impossible producer position");
    ivc_store_relaxed(&ctl->tail, p.pos);
    ivc_store_relaxed(&ctl->head, p.pos + 1);
    p.peer = p.pos + 1;
    T_EQ(-EPROTO, ivclib_ring_write(&p, out, 64, 0), "impossible consumer position");
    free(mem);
    printf("ring: ok\n");
    return 0;
}
