#include "boot.h"

#include "../base/ivc_log.h"
#include "../region/region.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* IVC_ names set by launchers; the PMI_ ones are not IVC_ names and need no entry. */
const char *const ivc_boot_env_names[] = {"JOB", "REGION", "VM", "DEBUG", "REGION_SIZE", NULL};

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

int ivc_boot_init(ivc_boot_t *b)
{
    memset(b, 0, sizeof(*b));
    uint64_t rank, size, job = 0;
    int rr = env_u64("PMI_RANK", INT32_MAX, &rank);
    int rs = env_u64("PMI_SIZE", INT32_MAX, &size);
    if (rr == -EINVAL || rs == -EINVAL)
        return -EINVAL;
    if (rr == -ENOENT && rs == -ENOENT) {
        b->rank = 0;
        b->size = 1;
        b->singleton = 1;
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
    const char *region = getenv("IVC_REGION");
    if (region != NULL && *region != '\0') {
        if (strlen(region) >= sizeof(b->region)) {
            ivc_error("IVC_REGION is longer than %zu characters", sizeof(b->region) - 1);
            return -EINVAL;
        }
        strcpy(b->region, region);
    } else if (ivc_region_find_ivshmem(b->region, sizeof(b->region)) != 0) {
        ivc_error("no shared region: IVC_REGION is not set and no ivshmem PCI device "
                  "(%04x:%04x) was found; start the job with ivcrun",
                  IVC_IVSHMEM_VENDOR, IVC_IVSHMEM_DEVICE);
        return -ENODEV;
    }
    return 0;
}
