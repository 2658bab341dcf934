/*
 * size.h - the size arguments of the IVC benchmarks (-m [min:]max, -p): a number with an
 * optional k/K, m/M or g/G (powers of 1024) and an optional "i" and/or "B" after it
 * (8K, 8KiB, 8KB). Shared by common.h and the programs that do not include it (coll.c,
 * io.c). Returns 0, or -1 for anything else.
 */
#ifndef IVC_BENCH_SIZE_H
#define IVC_BENCH_SIZE_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

static int bench_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    default: break;
    }
    if (*end == 'i' || *end == 'B')
        end++;
    if (*end == 'B')
        end++;
    if (*end != '\0')
        return -1;
    *out = (size_t)v;
    return 0;
}

#endif
