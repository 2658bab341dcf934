#include "boot.h"

#include "../base/ivc_log.h"
#include "../region/ivshmem.h"
#include "pmi.h"
#include "../region/region.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* IVC_ names set by launchers; the PMI_ ones are not IVC_ names and need no entry. */
const char *const ivc_boot_env_names[] = {"JOB",         "REGION",          "VM",
                                          "DEBUG",       "REGION_SIZE",     "DOORBELL_FDS",
                                          "DOORBELL_SOCKET", "DOORBELL_DEVICE", "SECTION_FD",
                                          "DYN_FD", "DYN_SPAWNED", "APPNUM", "UNIVERSE_SIZE",
                                          "NAME_DIR", NULL};

static int env_u64(const char *name, uint64_t max, uint64_t *out)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return -ENOENT;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0' || *s == '-' || v > max) {
        ivc_error("%s=%s is not a number in [0, %llu]", name, s, (unsigned long long)max);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

/* Inside a VM: the region is an ivshmem device's BAR2. */
static int boot_ivshmem(ivc_boot_t *b, const char *sel)
{
    ivc_ivshmem_t dev;
    int rc = ivc_ivshmem_select(NULL, sel, &dev);
    if (rc == -ENODEV && (sel == NULL || *sel == '\0'))
        ivc_error("no shared region: IVC_REGION is not set and this machine has no ivshmem "
                  "device; start the job with ivcrun, or set IVC_REGION");
    if (rc != 0)
        return rc;
    if (access(dev.bar2, R_OK | W_OK) != 0) {
        ivc_error("ivshmem %s: %s is not readable and writable by this process (%s); run as "
                  "root or give the rank access to it",
                  dev.bdf, dev.bar2, strerror(errno));
        return -EACCES;
    }
    uint64_t need = ivc_region_fixed_bytes(b->size);
    if (dev.bar2_size < need) {
        ivc_error("ivshmem %s: its memory (BAR2) is %" PRIu64 " bytes; %u ranks need more than "
                  "%" PRIu64 " (size the region with ivc-host or QEMU's size=)",
                  dev.bdf, dev.bar2_size, b->size, need);
        return -ENOSPC;
    }
    strcpy(b->region, dev.bar2);
    strcpy(b->device, dev.bdf);
    b->doorbell_id = -1;
    ivc_ivshmem_regs_t regs;
    if (dev.has_msix && ivc_ivshmem_regs_open(&dev, &regs) == 0) {
        b->doorbell_id = ivc_ivshmem_peer_id(&regs);
        ivc_ivshmem_regs_close(&regs);
    }
    ivc_debug("region: ivshmem %s, %" PRIu64 " bytes, doorbell peer id %d", dev.bdf, dev.bar2_size,
              b->doorbell_id);
    return 0;
}

/* Under a process manager (PMI_FD/PMI_PORT): connect, and unless IVC_JOB says otherwise
 * derive the job id from the key-value space's name, which is the same for every rank of a
 * job and differs between jobs. Returns 0, -ENOENT (no process manager) or -errno. */
static int boot_pmi(ivc_boot_t *b)
{
    int rc = ivc_pmi_init(&b->pmi);
    if (rc != 0)
        return rc;
    b->have_pmi = 1;
    if (b->job == 0) {
        uint64_t h = 1469598103934665603ull; /* FNV-1a */
        for (const char *s = b->pmi.kvsname; *s; s++)
            h = (h ^ (uint8_t)*s) * 1099511628211ull;
        b->job = (h & 0x7fffffffffffull) | 1;
    }
    ivc_debug("PMI: key-value space %s, job %" PRIu64, b->pmi.kvsname, b->job);
    return 0;
}

int ivc_boot_init(ivc_boot_t *b)
{
    memset(b, 0, sizeof(*b));
    b->doorbell_id = -1;
    uint64_t rank, size, job = 0;
    int rr = env_u64("PMI_RANK", INT32_MAX, &rank);
    int rs = env_u64("PMI_SIZE", INT32_MAX, &size);
    if (rr == -EINVAL || rs == -EINVAL)
        return -EINVAL;
    if (rr == -ENOENT && rs == -ENOENT) {
        b->rank = 0;
        b->size = 1;
        b->singleton = 1;
        /* srun without a PMI plugin starts every task as a singleton: say why. */
        const char *nt = getenv("SLURM_STEP_NUM_TASKS");
        if (nt != NULL && atoi(nt) > 1)
            ivc_warn("started by srun as one of %s tasks but without a PMI connection: running "
                     "as a single rank; use srun --mpi=pmi2 (or MpiDefault=pmi2 in slurm.conf)",
                     nt);
        return 0;
    }
    if (rr != 0 || rs != 0) {
        ivc_error("PMI_RANK and PMI_SIZE must be set together");
        return -EINVAL;
    }
    if (size == 0 || rank >= size) {
        ivc_error("PMI_RANK=%llu is not below PMI_SIZE=%llu", (unsigned long long)rank,
                  (unsigned long long)size);
        return -EINVAL;
    }
    if (env_u64("IVC_JOB", UINT64_MAX, &job) == -EINVAL)
        return -EINVAL;
    b->rank = (uint32_t)rank;
    b->size = (uint32_t)size;
    b->job = job;
    int rc = boot_pmi(b);
    if (rc != 0 && rc != -ENOENT)
        return rc;
    const char *region = getenv("IVC_REGION");
    if (!ivc_ivshmem_is_selector(region)) {
        if (strlen(region) >= sizeof(b->region)) {
            ivc_error("IVC_REGION is longer than %zu characters", sizeof(b->region) - 1);
            return -EINVAL;
        }
        strcpy(b->region, region);
        /* Under a process manager, the ranks naming a file that does not exist make it. */
        b->create_region = b->have_pmi && access(region, F_OK) != 0 && errno == ENOENT;
        return 0;
    }
    /* Started by a process manager on a host without ivshmem: the ranks make the region. */
    ivc_ivshmem_t any;
    if (b->have_pmi && (region == NULL || *region == '\0') &&
        ivc_ivshmem_list(NULL, &any, 1) == 0) {
        snprintf(b->region, sizeof(b->region), "/dev/shm/ivc-pmi-%" PRIu64, b->job);
        b->create_region = 1;
        return 0;
    }
    return boot_ivshmem(b, region);
}

void ivc_boot_finalize(ivc_boot_t *b)
{
    if (b->have_pmi)
        ivc_pmi_finalize(&b->pmi);
    b->have_pmi = 0;
}
