/* A PNG of the fluid: particles drawn as 2x2 dots, blue (slow) to white (fast), on a dark
 * background. The encoder is the smallest that is valid: 8-bit RGB, no filtering, the
 * zlib stream made of stored (uncompressed) deflate blocks, CRC-32 and Adler-32 computed
 * here. */
#include "sph.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static uint32_t crc32_update(uint32_t c, const uint8_t *b, size_t n)
{
    if (crc_table[1] == 0)
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t x = i;
            for (int k = 0; k < 8; k++)
                x = x & 1 ? 0xedb88320u ^ (x >> 1) : x >> 1;
            crc_table[i] = x;
        }
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ b[i]) & 0xff] ^ (c >> 8);
    return c;
}

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static int chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
    uint8_t hdr[8];
    be32(hdr, len);
    memcpy(hdr + 4, type, 4);
    uint32_t c = crc32_update(0xffffffffu, hdr + 4, 4);
    c = crc32_update(c, data, len) ^ 0xffffffffu;
    uint8_t tail[4];
    be32(tail, c);
    return fwrite(hdr, 1, 8, f) == 8 && fwrite(data, 1, len, f) == len &&
                   fwrite(tail, 1, 4, f) == 4
               ? 0
               : -EIO;
}

int sph_png(const sph_hdr_t *h, const char *path, uint32_t w)
{
    uint32_t ht = (uint32_t)((float)w * h->height / h->width);
    size_t stride = 1 + (size_t)w * 3, raw_len = stride * ht;
    uint8_t *raw = calloc(raw_len, 1);
    if (raw == NULL)
        return -ENOMEM;
    for (uint32_t y = 0; y < ht; y++)
        for (uint32_t x = 0; x < w; x++)
            memcpy(raw + y * stride + 1 + x * 3, "\x10\x14\x20", 3);
    const sph_vec_t *pos = (const sph_vec_t *)((const char *)h + h->pos_off);
    const sph_vec_t *vel = (const sph_vec_t *)((const char *)h + h->vel_off);
    /* Both buffers hold a recent state; draw the newer one: the step count is not kept, so
     * draw buffer 0, the state after an even number of steps (callers run even counts). */
    float vmax = 1.0f;
    for (uint32_t i = 0; i < h->n; i++) {
        float s = sqrtf(vel[i].x * vel[i].x + vel[i].y * vel[i].y);
        vmax = s > vmax ? s : vmax;
    }
    for (uint32_t i = 0; i < h->n; i++) {
        int px = (int)(pos[i].x / h->width * (float)w);
        int py = (int)ht - 1 - (int)(pos[i].y / h->height * (float)ht);
        float s = sqrtf(vel[i].x * vel[i].x + vel[i].y * vel[i].y) / vmax;
        uint8_t rgb[3] = {(uint8_t)(40 + 215 * s), (uint8_t)(110 + 145 * s), 255};
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                int x = px + dx, y = py + dy;
                if (x >= 0 && y >= 0 && x < (int)w && y < (int)ht)
                    memcpy(raw + (size_t)y * stride + 1 + (size_t)x * 3, rgb, 3);
            }
    }
    /* zlib: header, stored blocks of up to 65535 bytes, Adler-32. */
    size_t nblk = (raw_len + 65534) / 65535;
    size_t zlen = 2 + raw_len + nblk * 5 + 4;
    uint8_t *z = malloc(zlen), *q = z;
    if (z == NULL) {
        free(raw);
        return -ENOMEM;
    }
    *q++ = 0x78, *q++ = 0x01;
    uint32_t a = 1, b = 0;
    for (size_t off = 0; off < raw_len; off += 65535) {
        size_t n = raw_len - off < 65535 ? raw_len - off : 65535;
        *q++ = off + n == raw_len; /* BFINAL, BTYPE 00 */
        *q++ = (uint8_t)n, *q++ = (uint8_t)(n >> 8);
        *q++ = (uint8_t)~n, *q++ = (uint8_t)(~n >> 8);
        memcpy(q, raw + off, n);
        q += n;
    }
    for (size_t i = 0; i < raw_len; i++) {
        a = (a + raw[i]) % 65521;
        b = (b + a) % 65521;
    }
    be32(q, (b << 16) | a);
    FILE *f = fopen(path, "wb");
    int rc = f == NULL ? -errno : 0;
    if (rc == 0) {
        uint8_t ihdr[13];
        be32(ihdr, w);
        be32(ihdr + 4, ht);
        ihdr[8] = 8, ihdr[9] = 2, ihdr[10] = 0, ihdr[11] = 0, ihdr[12] = 0;
        if (fwrite("\x89PNG\r\n\x1a\n", 1, 8, f) != 8 || chunk(f, "IHDR", ihdr, 13) != 0 ||
            chunk(f, "IDAT", z, (uint32_t)zlen) != 0 || chunk(f, "IEND", NULL, 0) != 0)
            rc = -EIO;
        if (fclose(f) != 0 && rc == 0)
            rc = -EIO;
    }
    free(z);
    free(raw);
    return rc;
}
