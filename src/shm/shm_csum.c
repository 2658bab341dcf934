/* Check words: the CRC32C instruction (x86 SSE4.2) or tables computing the same function
 * (definition in shm_csum.h). */
#include "shm_csum.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define HAVE_X86_CRC 1
#endif

/* Reflected CRC32C polynomial (Castagnoli), as the SSE4.2 instruction uses it. */
#define CRC32C_POLY 0x82f63b78u

/* Lane seeds and folding constants: arbitrary odd constants, part of the definition. */
#define LANE2_XOR 0x9e3779b9u
#define FOLD_XOR  0x85ebca6bu

typedef uint64_t (*csum_fn_t)(void *dst, const void *src, uint64_t len, uint64_t seed);

/* crc_tab[k][b]: the CRC of byte b followed by k zero bytes (slicing-by-8). Written once by
 * ivc_shm_csum_select before `impl` is published (release), read after (acquire). */
static uint32_t crc_tab[8][256];

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline void store64(uint8_t *p, uint64_t w)
{
    memcpy(p, &w, 8);
}

/* The little-endian word of the last n (1..7) bytes, zero-padded; copied to dst if any. */
static inline uint64_t tail_word(uint8_t *dst, const uint8_t *src, uint64_t n)
{
    uint8_t t[8] = {0};
    memcpy(t, src, n);
    if (dst != NULL)
        memcpy(dst, t, n);
    return load64(t);
}

/* ---- table-driven ---- */

static inline uint32_t soft_u64(uint32_t c, uint64_t w)
{
    uint64_t x = c ^ w;
    return crc_tab[7][x & 0xff] ^ crc_tab[6][(x >> 8) & 0xff] ^ crc_tab[5][(x >> 16) & 0xff] ^
           crc_tab[4][(x >> 24) & 0xff] ^ crc_tab[3][(x >> 32) & 0xff] ^
           crc_tab[2][(x >> 40) & 0xff] ^ crc_tab[1][(x >> 48) & 0xff] ^ crc_tab[0][x >> 56];
}

/* The body is written once and instantiated per CRC step (CRC64 below); `dst` NULL skips
 * the stores. */
#define CSUM_BODY(CRC64)                                                                           \
    const uint8_t *s = src;                                                                        \
    uint8_t *d = dst;                                                                              \
    uint32_t c0 = (uint32_t)seed, c1 = (uint32_t)(seed >> 32), c2 = (uint32_t)seed ^ LANE2_XOR;    \
    uint64_t i = 0;                                                                                \
    if (d != NULL) {                                                                               \
        for (; i + 24 <= len; i += 24) {                                                           \
            uint64_t w0 = load64(s + i), w1 = load64(s + i + 8), w2 = load64(s + i + 16);          \
            store64(d + i, w0);                                                                    \
            store64(d + i + 8, w1);                                                                \
            store64(d + i + 16, w2);                                                               \
            c0 = CRC64(c0, w0);                                                                    \
            c1 = CRC64(c1, w1);                                                                    \
            c2 = CRC64(c2, w2);                                                                    \
        }                                                                                          \
    } else {                                                                                       \
        for (; i + 24 <= len; i += 24) {                                                           \
            c0 = CRC64(c0, load64(s + i));                                                         \
            c1 = CRC64(c1, load64(s + i + 8));                                                     \
            c2 = CRC64(c2, load64(s + i + 16));                                                    \
        }                                                                                          \
    }                                                                                              \
    if (i + 8 <= len) {                                                                            \
        uint64_t w = load64(s + i);                                                                \
        if (d != NULL)                                                                             \
            store64(d + i, w);                                                                     \
        c0 = CRC64(c0, w);                                                                         \
        i += 8;                                                                                    \
    }                                                                                              \
    if (i + 8 <= len) {                                                                            \
        uint64_t w = load64(s + i);                                                                \
        if (d != NULL)                                                                             \
            store64(d + i, w);                                                                     \
        c1 = CRC64(c1, w);                                                                         \
        i += 8;                                                                                    \
    }                                                                                              \
    if (i < len)                                                                                   \
        c2 = CRC64(c2, tail_word(d != NULL ? d + i : NULL, s + i, len - i));                       \
    uint32_t lo = CRC64(c0, ((uint64_t)c1 << 32) | c2);                                            \
    uint32_t hi = CRC64(c1 ^ FOLD_XOR, ((uint64_t)c2 << 32) | c0);                                 \
    lo = CRC64(lo, len);                                                                           \
    hi = CRC64(hi, len);                                                                           \
    return lo | (uint64_t)hi << 32;

static uint64_t csum_soft(void *dst, const void *src, uint64_t len, uint64_t seed)
{
    CSUM_BODY(soft_u64)
}

#ifdef HAVE_X86_CRC
__attribute__((target("sse4.2"))) static inline uint32_t hw_u64(uint32_t c, uint64_t w)
{
#ifdef __x86_64__
    return (uint32_t)_mm_crc32_u64(c, w);
#else
    return _mm_crc32_u32(_mm_crc32_u32(c, (uint32_t)w), (uint32_t)(w >> 32));
#endif
}

__attribute__((target("sse4.2"))) static uint64_t csum_hw(void *dst, const void *src, uint64_t len,
                                                          uint64_t seed)
{
    CSUM_BODY(hw_u64)
}
#endif

static uint64_t csum_resolve(void *dst, const void *src, uint64_t len, uint64_t seed);

static _Atomic(csum_fn_t) impl = csum_resolve;

/* First call before ivc_shm_csum_select: select, then go on with the choice. */
static uint64_t csum_resolve(void *dst, const void *src, uint64_t len, uint64_t seed)
{
    ivc_shm_csum_select(0);
    return atomic_load_explicit(&impl, memory_order_acquire)(dst, src, len, seed);
}

int ivc_shm_csum_select(int force_soft)
{
    static atomic_int tables_ready;
    for (uint32_t b = 0; b < 256 && !atomic_load_explicit(&tables_ready, memory_order_acquire);
         b++) {
        uint32_t c = b;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        crc_tab[0][b] = c;
    }
    if (!atomic_load_explicit(&tables_ready, memory_order_acquire)) {
        for (int k = 1; k < 8; k++)
            for (uint32_t b = 0; b < 256; b++)
                crc_tab[k][b] = (crc_tab[k - 1][b] >> 8) ^ crc_tab[0][crc_tab[k - 1][b] & 0xff];
        atomic_store_explicit(&tables_ready, 1, memory_order_release);
    }
    csum_fn_t fn = csum_soft;
#ifdef HAVE_X86_CRC
    if (!force_soft && __builtin_cpu_supports("sse4.2"))
        fn = csum_hw;
#endif
    atomic_store_explicit(&impl, fn, memory_order_release);
    return fn != csum_soft;
}

uint64_t ivc_shm_csum_copy(void *dst, const void *src, uint64_t len, uint64_t seed)
{
    return atomic_load_explicit(&impl, memory_order_acquire)(dst, src, len, seed);
}
