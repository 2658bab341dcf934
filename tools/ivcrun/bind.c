#define _GNU_SOURCE
#include "bind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A topology id of `cpu` ("core_id", "physical_package_id"); -1 when unknown, which makes
 * the CPU a unit of its own. */
static long topo_id(int cpu, const char *what)
{
    char path[128];
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    FILE *f = fopen(path, "re");
    long v = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

int bind_plan_make(job_t *job)
{
    int how = job->opts->bind;
    if (how == IVCRUN_BIND_NONE)
        return 0;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
        int err = errno;
        fprintf(stderr, "ivcrun: -bind-to: cannot read the CPUs ivcrun may use: %s\n",
                strerror(err));
        return -err;
    }
    int ncpu = CPU_COUNT(&allowed);
    bind_plan_t *p = calloc(1, sizeof(*p));
    long *keys = calloc((size_t)ncpu, 2 * sizeof(*keys));
    if (p != NULL)
        p->units = calloc((size_t)ncpu, sizeof(*p->units));
    if (p == NULL || keys == NULL || p->units == NULL) {
        free(keys);
        if (p != NULL)
            free(p->units);
        free(p);
        fprintf(stderr, "ivcrun: out of memory\n");
        return -ENOMEM;
    }
    /* Units in order of their lowest CPU; a CPU joins the unit with its (package, core). */
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        long pkg = topo_id(cpu, "physical_package_id");
        long core = how == IVCRUN_BIND_CORE ? topo_id(cpu, "core_id") : 0;
        uint32_t u = p->nunits;
        if (how != IVCRUN_BIND_HWTHREAD && pkg >= 0 && core >= 0)
            for (u = 0; u < p->nunits; u++)
                if (keys[2 * u] == pkg && keys[2 * u + 1] == core)
                    break;
        if (u == p->nunits) {
            keys[2 * u] = pkg;
            keys[2 * u + 1] = core;
            CPU_ZERO(&p->units[u]);
            p->nunits++;
        }
        CPU_SET(cpu, &p->units[u]);
    }
    free(keys);
    job->bind = p;
    return 0;
}

void bind_plan_free(job_t *job)
{
    if (job->bind == NULL)
        return;
    free(job->bind->units);
    free(job->bind);
    job->bind = NULL;
}

char *bind_cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
            e++;
        if (e == c)
            n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "", c, e);
        c = e;
    }
    return buf;
}

int bind_rank(const job_t *job, uint32_t r)
{
    const bind_plan_t *p = job->bind;
    if (p != NULL && p->nunits > 0 &&
        sched_setaffinity(0, sizeof(p->units[0]), &p->units[r % p->nunits]) != 0)
        return -errno;
    if (job->opts->report_bindings) {
        cpu_set_t now;
        char list[512] = "?";
        if (sched_getaffinity(0, sizeof(now), &now) == 0)
            bind_cpu_list(&now, list, sizeof(list));
        if (p != NULL)
            fprintf(stderr, "ivcrun: rank %u bound to CPU(s) %s\n", job_global_rank(job, r), list);
        else
            fprintf(stderr, "ivcrun: rank %u not bound (CPU(s) %s)\n", job_global_rank(job, r),
                    list);
    }
    return 0;
}
