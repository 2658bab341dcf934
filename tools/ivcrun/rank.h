/* One rank's process, from fork to exec. */
#ifndef IVCRUN_RANK_H
#define IVCRUN_RANK_H

#include "job.h"

/* In a freshly forked child: gives it ivcrun's original signal state, its stdio (rank 0
 * keeps stdin, the others read /dev/null; --tag-output pipes), the PMI-style environment
 * (PMI_RANK, PMI_SIZE, IVC_JOB, IVC_REGION, IVC_VM) and executes the program.
 * Never returns: exits 127 (not found) or 126 (other exec errors) after printing why. */
void rank_exec(const job_t *job, uint32_t rank) __attribute__((noreturn));

#endif
