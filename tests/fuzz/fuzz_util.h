/* Shared by the fuzz targets: reading a fuzzer's input as a stream of small integers and
 * byte strings, and quieting the library's error log (a fuzzer makes it say a lot).
 *
 * Each target starts from a valid structure (a formatted region, connected channels) and
 * reads its input as edits to it and steps to take, so that mutations explore the checks
 * near valid states instead of failing the first magic comparison. */
#ifndef IVC_FUZZ_UTIL_H
#define IVC_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

typedef struct fuzz_in {
    const uint8_t *p;
    size_t left;
} fuzz_in_t;

static inline uint64_t fuzz_u(fuzz_in_t *in, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes && in->left > 0; i++, in->left--)
        v |= (uint64_t)*in->p++ << (8 * i);
    return v;
}

/* Up to `max` bytes of input into dst; returns how many. */
static inline size_t fuzz_bytes(fuzz_in_t *in, void *dst, size_t max)
{
    size_t n = max < in->left ? max : in->left;
    memcpy(dst, in->p, n);
    in->p += n;
    in->left -= n;
    return n;
}

/* The library logs every refusal on stderr, which a fuzzer makes it do thousands of times a
 * second: run.sh passes -close_fd_mask=2, with which libFuzzer keeps its own and the
 * sanitizers' reports on a copy of stderr. Nothing to do here; kept as the one place to
 * change should that go. */
static inline void fuzz_quiet(void) {}

#endif
