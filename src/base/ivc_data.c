#include "ivc_data.h"

/* Index of the block holding packed byte `within` of an element: the last i with
 * prefix[i] <= within. */
static uint64_t block_of(const ivc_typemap_t *m, uint64_t within)
{
    uint64_t lo = 0, hi = m->nblocks;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (m->prefix[mid] <= within)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Walks the blocks covering packed bytes [off, off+n), calling copy on each piece. */
#define DATA_WALK(d, off, n, COPY)                                                                 \
    do {                                                                                           \
        const ivc_typemap_t *m = (d)->map;                                                         \
        uint64_t elem = (off) / m->size, within = (off) % m->size;                                 \
        uint64_t bi = block_of(m, within);                                                         \
        uint64_t inb = within - m->prefix[bi];                                                     \
        uint64_t done = 0;                                                                         \
        while (done < (n)) {                                                                       \
            const ivc_block_t *blk = &m->blocks[bi];                                               \
            uint64_t take = blk->len - inb;                                                        \
            if (take > (n)-done)                                                                   \
                take = (n)-done;                                                                   \
            char *user = (char *)(d)->buf + (int64_t)elem * m->extent + blk->disp + (int64_t)inb;  \
            COPY;                                                                                  \
            done += take;                                                                          \
            inb = 0;                                                                               \
            if (++bi == m->nblocks) {                                                              \
                bi = 0;                                                                            \
                elem++;                                                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)

void ivc_data_pack_slow(const ivc_data_t *d, uint64_t off, void *dst, uint64_t n)
{
    char *out = dst;
    if (n == 0 || d->map->size == 0)
        return;
    DATA_WALK(d, off, n, memcpy(out + done, user, take));
}

void ivc_data_unpack_slow(const ivc_data_t *d, uint64_t off, const void *src, uint64_t n)
{
    const char *in = src;
    if (n == 0 || d->map->size == 0)
        return;
    DATA_WALK(d, off, n, memcpy(user, in + done, take));
}
