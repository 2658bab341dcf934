/* Byte streams over user memory: a buffer described by a base address, an element count
 * and a flattened type map (the blocks of one element). Channels move messages with
 * ivc_data_pack/unpack at stream offsets, so a non-contiguous datatype is packed straight
 * into shared memory chunk by chunk, with no temporary buffer. */
#ifndef IVC_DATA_H
#define IVC_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ivc_block {
    int64_t disp; /* byte displacement from the element's start (may be negative) */
    uint64_t len; /* bytes */
} ivc_block_t;

/* One element's layout. Immutable once built; shared by reference. */
typedef struct ivc_typemap {
    uint64_t size;  /* packed bytes per element (sum of block lengths) */
    int64_t extent; /* stride between consecutive elements */
    int64_t lb;     /* lower bound (for extent queries) */
    uint64_t nblocks;
    ivc_block_t *blocks; /* in type-map order; adjacent blocks already merged */
    uint64_t *prefix;    /* prefix[i] = packed bytes before block i; nblocks+1 entries */
    int contig;          /* one block at displacement 0 with len == extent == size */
} ivc_typemap_t;

typedef struct ivc_data {
    void *buf;
    uint64_t count;
    const ivc_typemap_t *map; /* NULL means contiguous bytes */
    uint64_t bytes;           /* packed bytes: count * map->size */
} ivc_data_t;

static inline int ivc_data_contig(const ivc_data_t *d)
{
    return d->map == NULL || d->map->contig;
}

/* Copies packed bytes [off, off+n) of `d` into dst / from src. n may be 0; off+n must not
 * exceed d->bytes. */
void ivc_data_pack_slow(const ivc_data_t *d, uint64_t off, void *dst, uint64_t n);
void ivc_data_unpack_slow(const ivc_data_t *d, uint64_t off, const void *src, uint64_t n);

static inline void ivc_data_pack(const ivc_data_t *d, uint64_t off, void *dst, uint64_t n)
{
    if (n == 0)
        return;
    if (ivc_data_contig(d))
        memcpy(dst, (const char *)d->buf + off, n);
    else
        ivc_data_pack_slow(d, off, dst, n);
}

static inline void ivc_data_unpack(const ivc_data_t *d, uint64_t off, const void *src, uint64_t n)
{
    if (n == 0)
        return;
    if (ivc_data_contig(d))
        memcpy((char *)d->buf + off, src, n);
    else
        ivc_data_unpack_slow(d, off, src, n);
}

#endif
