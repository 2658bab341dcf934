/* Watches a started job until every rank has ended, and decides ivcrun's exit status.
 *
 * ivcrun exits 0 only if every rank exited 0 "properly": after MPI_Finalize, or without
 * ever joining the region (a non-MPI program). The first failure is reported, names the rank
 * and its cause, and sets the status; then the job is stopped: the signal (SIGTERM, or the
 * one ivcrun received) to every rank through the VM inits, SIGKILL one second later to what
 * is left.
 *
 *   rank exits with status s                    s
 *   rank killed by signal g                     128 + g
 *   rank exits 0 but is still JOINED            1 (it never called MPI_Finalize)
 *   a rank called MPI_Abort(code)               code & 255, or 1 if that is 0
 *   a VM's init failed (set-up error)           1
 *   --timeout expired                           124
 *   ivcrun got SIGINT/SIGTERM/SIGHUP g          128 + g
 */
#ifndef IVCRUN_MONITOR_H
#define IVCRUN_MONITOR_H

#include "job.h"

/* Runs the job to its end. `sigfd` is a signalfd for job->sigs. In --tag-output mode it also
 * forwards the ranks' output. With `start_failed` (job_start() failed and said why), it
 * only stops what did start, and the status is 1. Returns ivcrun's exit status. */
int monitor_run(job_t *job, int sigfd, int start_failed);

#endif
