/* Bootstrap: who this rank is and where its job's region lives, from a PMI-style
 * environment that ivcrun sets and an external process manager could set too:
 *
 *   PMI_RANK, PMI_SIZE   this rank and the number of ranks (both or neither)
 *   IVC_JOB              the job id recorded in the region header (decimal)
 *   IVC_REGION           the region: a file path, or an ivshmem device selector (unset,
 *                        "ivshmem", "ivshmem:N", "ivshmem:<bdf>"; see region/ivshmem.h)
 *
 *   PMI_FD or PMI_PORT   a PMI-1 process manager (mpiexec.hydra, srun): IVC_JOB then
 *                        defaults to a hash of its key-value space's name, and the ranks
 *                        create the region themselves when IVC_REGION names a file that
 *                        does not exist, or on a host with neither IVC_REGION nor an
 *                        ivshmem device (/dev/shm/ivc-pmi-<job>): one region per host
 *
 * Without PMI_RANK/PMI_SIZE the process is a singleton: rank 0 of 1, no region. */
#ifndef IVC_BOOT_H
#define IVC_BOOT_H

#include "pmi.h"

#include <limits.h>
#include <stdint.h>

typedef struct ivc_boot {
    uint32_t rank;
    uint32_t size;
    uint64_t job;
    int singleton;
    char region[PATH_MAX]; /* empty for a singleton */
    char device[32];       /* the ivshmem device's PCI address, when the region is one */
    int32_t doorbell_id;   /* its IVPosition (doorbell peer id), -1 without a doorbell */
    int have_pmi;          /* started by a PMI-1 process manager: `pmi` is connected */
    ivc_pmi_t pmi;
    int create_region; /* the ranks create `region` (rank 0) and remove it at the end */
} ivc_boot_t;

/* Names of the launch-state variables (not tunables), for the unknown-variable check. */
extern const char *const ivc_boot_env_names[];

/* Reads the environment. Returns 0, or -EINVAL after logging which variable is wrong, or
 * -ENODEV when a multi-rank job has neither IVC_REGION nor an ivshmem device (or not the
 * one IVC_REGION selects), -EACCES when the device's memory is not accessible, -ENOSPC
 * when it is too small for the job. */
int ivc_boot_init(ivc_boot_t *b);

/* Says goodbye to the process manager, if any. */
void ivc_boot_finalize(ivc_boot_t *b);

#endif
