/* Copies into shared memory that another core will read next.
 *
 * ivc_copy_stream() writes with non-temporal stores: the data goes to memory instead of
 * staying dirty in this core's cache, where the reader would have to snoop it out line by
 * line. Measured on the 2-vCPU development VM (bench/, two ranks streaming through a
 * pipeline): with plain stores bandwidth swings between 16 GB/s and 2 GB/s depending on
 * where the host places the two vCPUs; with streaming stores it stays at 11-20 GB/s.
 * The stores are weakly ordered, so the copy ends with a store fence: a release store that
 * publishes the data may follow directly. */
#ifndef IVC_COPY_H
#define IVC_COPY_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline void ivc_copy_stream(void *dst, const void *src, uint64_t n)
{
#if defined(__SSE2__)
    uint8_t *d = dst;
    const uint8_t *s = src;
    /* Plain copy up to a 16-byte boundary of the destination. */
    uint64_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, n);
    _mm_sfence();
#else
    memcpy(dst, src, n);
#endif
}

/* Copies with 8-byte stores (then bytes): none of them crosses a cache line when dst is
 * 8-aligned. */
static inline void ivc_copy_words(void *dst, const void *src, uint64_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        memcpy(d + i, &w, 8);
    }
    for (; i < n; i++)
        d[i] = s[i];
}

#endif
