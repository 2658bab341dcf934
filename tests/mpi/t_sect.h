/* For tests that write into the region as a faulty rank would: where a region offset lies
 * in this process. Under ivcrun what a rank publishes (its channel block, its collective
 * area) lies in its write-exclusive section, outside the region file (region_sect.h): the
 * library maps it, and /proc/self/maps names the mapping memfd:ivc-sec-<rank>. */
#ifndef IVC_TESTS_T_SECT_H
#define IVC_TESTS_T_SECT_H

#include "region/region_layout.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The region file: its name (IVC_REGION), or, once ivcrun removed the name (it does so when
 * every rank has joined: plain processes share its /dev/shm), the library's open
 * descriptor of it. */
static inline const char *t_region_file(void)
{
    static char path[PATH_MAX];
    const char *name = getenv("IVC_REGION");
    if (name == NULL || access(name, F_OK) == 0)
        return name;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    size_t nl = strlen(name);
    while (d != NULL && (e = readdir(d)) != NULL) {
        char link[300], target[PATH_MAX];
        snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if ((size_t)n >= nl && strncmp(target, name, nl) == 0 &&
            (target[nl] == '\0' || target[nl] == ' ')) {
            snprintf(path, sizeof(path), "%s", link);
            closedir(d);
            return path;
        }
    }
    if (d != NULL)
        closedir(d);
    return name;
}

/* [off, off + len) of the region whose header is at `base` (a mapping of the file, `size`
 * bytes): in that mapping, or in a section this process maps; NULL when neither holds it. */
static inline uint8_t *t_region_ptr(uint8_t *base, uint64_t size, uint64_t off, uint64_t len)
{
    const ivc_region_hdr_t *h = (const ivc_region_hdr_t *)base;
    if (off <= size && len <= size - off)
        return base + off;
    uint64_t so = h->sec_off, ss = h->sec_size;
    if (ss == 0 || off < so)
        return NULL;
    uint64_t k = (off - so) / ss, at = off - so - k * ss;
    if (len > ss - at)
        return NULL;
    /* Any piece of k's public file tells where its section starts: its address less its
     * offset in the file (private parts are mapped over the rest, at the same place). */
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], want[48];
    snprintf(want, sizeof(want), "memfd:ivc-sec-%llu (deleted)", (unsigned long long)k);
    uint8_t *p = NULL;
    while (f != NULL && p == NULL && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi, foff;
        char perms[8];
        if (strstr(line, want) != NULL &&
            sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perms, &foff) == 4 && foff <= lo)
            p = (uint8_t *)(lo - foff) + at;
    }
    if (f != NULL)
        fclose(f);
    return p;
}

#endif
