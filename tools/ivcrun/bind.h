/* -bind-to: pins each rank to CPUs before it executes its program.
 *
 * The plan is made once in ivcrun from the CPUs it may run on (sched_getaffinity) and the
 * kernel's topology (/sys/devices/system/cpu/cpuN/topology): a list of units, each a CPU
 * set: one per hwthread, per core (its allowed hwthreads) or per socket (package). Rank k of
 * the launch takes unit k mod the number of units, round robin, so ranks share a unit only
 * when there are more ranks than units. The rank applies it with sched_setaffinity in its
 * own process, after the fork and before the exec, so the program starts bound. */
#ifndef IVCRUN_BIND_H
#define IVCRUN_BIND_H

#include "job.h"

#include <sched.h>

typedef struct bind_plan {
    cpu_set_t *units;
    uint32_t nunits;
} bind_plan_t;

/* Makes job->bind for job->opts->bind (NULL for none). Returns 0 or -errno (printed). */
int bind_plan_make(job_t *job);

void bind_plan_free(job_t *job);

/* In rank `r`'s process: binds it as planned and, with --report-bindings, prints
 * "ivcrun: rank R bound to CPU(s) LIST" (LIST read back from the kernel) to stderr.
 * Returns 0 or -errno of sched_setaffinity. */
int bind_rank(const job_t *job, uint32_t r);

/* Writes `set` as a CPU list ("0-3,8"). Returns buf. */
char *bind_cpu_list(const cpu_set_t *set, char *buf, size_t len);

#endif
