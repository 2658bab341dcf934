/* The init of a simulated VM: pid 1 of its pid namespace.
 *
 * It starts the VM's ranks, reaps them (and any orphan reparented to it), forwards SIGTERM,
 * SIGINT and SIGHUP to them, writes each rank's wait status to ivcrun's status pipe and
 * exits once its ranks are done, which makes the kernel kill whatever they left behind in
 * the VM. It dies with ivcrun (PR_SET_PDEATHSIG); so then does everything in the VM. */
#ifndef IVCRUN_VM_INIT_H
#define IVCRUN_VM_INIT_H

#include "job.h"

typedef struct vm_init_arg {
    const job_t *job;
    uint32_t vm; /* which VM of the job */
} vm_init_arg_t;

/* Entry point for vm_clone(): `arg` is a vm_init_arg_t. Sets up the VM (vm_setup()), then
 * runs as its init. Never returns: exits 0 once its ranks are done, 1 (after printing why)
 * if the VM or a rank could not be started. */
int vm_init_main(void *arg);

#endif
