/* Packing at stream offsets: every (offset, length) window of a non-contiguous stream must
 * equal the same window of a reference packing done element by element, block by block. */
#include "test_util.h"

#include "base/ivc_data.h"

#include <stdint.h>
#include <string.h>

static void make_map(ivc_typemap_t *m, const ivc_block_t *blocks, uint64_t n, int64_t extent)
{
    m->blocks = (ivc_block_t *)blocks;
    m->nblocks = n;
    m->prefix = malloc((n + 1) * sizeof(uint64_t));
    m->prefix[0] = 0;
    for (uint64_t i = 0; i < n; i++)
        m->prefix[i + 1] = m->prefix[i] + blocks[i].len;
    m->size = m->prefix[n];
    m->extent = extent;
    m->lb = 0;
    m->contig = 0;
}

static void check_map(const ivc_typemap_t *m, uint64_t count, int64_t base_off)
{
    size_t span = (size_t)(count * (uint64_t)(m->extent > 0 ? m->extent : -m->extent) + 256);
    uint8_t *user = malloc(span), *back = malloc(span), *ref = malloc(count * m->size + 1);
    uint8_t *win = malloc(count * m->size + 1);
    for (size_t i = 0; i < span; i++)
        user[i] = t_pattern(3, i);
    uint8_t *buf = user + base_off;
    /* reference packing */
    uint64_t r = 0;
    for (uint64_t e = 0; e < count; e++)
        for (uint64_t b = 0; b < m->nblocks; b++) {
            memcpy(ref + r, buf + (int64_t)e * m->extent + m->blocks[b].disp, m->blocks[b].len);
            r += m->blocks[b].len;
        }
    ivc_data_t d = {buf, count, m, count * m->size};
    T_EQ(r, d.bytes, "packed size");
    for (uint64_t off = 0; off <= d.bytes; off += 1 + off / 7) {
        for (uint64_t n = 0; off + n <= d.bytes; n += 1 + n / 3) {
            memset(win, 0xEE, d.bytes + 1);
            ivc_data_pack(&d, off, win, n);
            if (memcmp(win, ref + off, n) != 0)
                T_FAIL("pack window [%llu, +%llu) differs", (unsigned long long)off,
                       (unsigned long long)n);
            if (win[n] != 0xEE)
                T_FAIL("pack wrote past its window at off %llu n %llu", (unsigned long long)off,
                       (unsigned long long)n);
        }
    }
    /* unpack in uneven pieces into a copy and compare the touched bytes */
    memcpy(back, user, span);
    memset(back + base_off, 0, span - (size_t)base_off - 64);
    ivc_data_t o = {back + base_off, count, m, d.bytes};
    for (uint64_t off = 0, n = 1; off < d.bytes; off += n, n = n * 3 % 97 + 1) {
        if (off + n > d.bytes)
            n = d.bytes - off;
        ivc_data_unpack(&o, off, ref + off, n);
    }
    for (uint64_t e = 0; e < count; e++)
        for (uint64_t b = 0; b < m->nblocks; b++) {
            int64_t at = (int64_t)e * m->extent + m->blocks[b].disp;
            if (memcmp(back + base_off + at, buf + at, m->blocks[b].len) != 0)
                T_FAIL("unpack of element %llu block %llu differs", (unsigned long long)e,
                       (unsigned long long)b);
        }
    free(user);
    free(back);
    free(ref);
    free(win);
}

int main(void)
{
    /* a vector-like map: 3 blocks with gaps */
    static const ivc_block_t v[] = {{0, 5}, {8, 3}, {20, 9}};
    ivc_typemap_t m1;
    make_map(&m1, v, 3, 32);
    check_map(&m1, 17, 0);
    /* a struct-like map with a negative displacement and an extent smaller than the span */
    static const ivc_block_t s[] = {{-4, 4}, {4, 1}, {6, 2}};
    ivc_typemap_t m2;
    make_map(&m2, s, 3, 16);
    check_map(&m2, 9, 64);
    /* a single block shorter than the extent */
    static const ivc_block_t one[] = {{0, 7}};
    ivc_typemap_t m3;
    make_map(&m3, one, 1, 11);
    check_map(&m3, 40, 0);
    free(m1.prefix);
    free(m2.prefix);
    free(m3.prefix);
    printf("data: ok\n");
    return 0;
}
