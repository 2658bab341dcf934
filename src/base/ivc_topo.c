#define _GNU_SOURCE /* sched_getaffinity */
#include "ivc_topo.h"

#include "ivc_config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG_LLC  ((uint64_t)64 << 20)
#define MANY_CPU 8

static int read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* CPUs in a list such as "0-15,32-47". */
static uint32_t count_list(const char *s)
{
    uint32_t n = 0;
    while (*s) {
        char *end;
        unsigned long a = strtoul(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtoul(end + 1, &end, 10);
        if (b >= a && b - a < 1u << 20)
            n += (uint32_t)(b - a + 1);
        s = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
    return n;
}

int ivc_topo_read(ivc_topo_t *t)
{
    memset(t, 0, sizeof(*t));
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    t->online = on > 0 ? (uint32_t)on : 0;
    for (int i = 0; i < 16; i++) {
        char path[128], type[32], level[16], size[32], list[256];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (read_line(path, type, sizeof(type)) != 0)
            break;
        if (strcmp(type, "Instruction") == 0)
            continue;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (read_line(path, level, sizeof(level)) != 0)
            continue;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (read_line(path, size, sizeof(size)) != 0)
            continue;
        uint32_t lv = (uint32_t)atoi(level);
        if (lv < t->llc_level)
            continue;
        static const ivc_cfg_entry_t e = {"", "", "", IVC_CFG_SIZE, 0, UINT64_MAX, 0};
        uint64_t bytes;
        if (ivc_cfg_parse_value(&e, size, &bytes) != 0)
            continue;
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        t->llc_level = lv;
        t->llc_bytes = bytes;
        t->llc_cpus = read_line(path, list, sizeof(list)) == 0 ? count_list(list) : 1;
    }
    return t->llc_bytes ? 0 : -ENOENT;
}

uint64_t ivc_topo_stream_min_of(const ivc_topo_t *t, uint64_t small, char *why, size_t n)
{
    char sz[32];
    if (t->llc_bytes == 0) {
        if (why)
            snprintf(why, n, "cache topology unknown: the small-machine choice");
        return small;
    }
    ivc_cfg_size_str(t->llc_bytes, sz, sizeof(sz));
    if (t->llc_bytes >= BIG_LLC && (t->llc_cpus >= MANY_CPU || t->llc_cpus == t->online)) {
        if (why)
            snprintf(why, n,
                     "L%u cache %s shared by %u of %u CPUs: a reader finds copied data "
                     "there, so streaming stores only from a quarter of it",
                     t->llc_level, sz, t->llc_cpus, t->online);
        return t->llc_bytes / 4;
    }
    if (why)
        snprintf(why, n,
                 "L%u cache %s shared by %u of %u CPUs (less than %u MiB, or neither %u CPUs "
                 "nor all): the small-machine choice",
                 t->llc_level, sz, t->llc_cpus, t->online, (unsigned)(BIG_LLC >> 20), MANY_CPU);
    return small;
}

uint64_t ivc_topo_stream_min(uint64_t small, char *why, size_t n)
{
    ivc_topo_t t;
    if (ivc_topo_read(&t) != 0)
        t.llc_bytes = 0;
    return ivc_topo_stream_min_of(&t, small, why, n);
}

int ivc_topo_my_cpus(uint64_t *mask, int words, int *known)
{
    cpu_set_t set;
    if (mask != NULL)
        memset(mask, 0, (size_t)words * sizeof(uint64_t));
    int ok = sched_getaffinity(0, sizeof(set), &set) == 0;
    if (known != NULL)
        *known = ok;
    if (ok) {
        for (int i = 0; mask != NULL && i < CPU_SETSIZE && i / 64 < words; i++)
            if (CPU_ISSET(i, &set))
                mask[i / 64] |= 1ull << (i % 64);
        return CPU_COUNT(&set);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
