/* The destination of a migrating rank: a region file, or a hot-plugged ivshmem device. */
#define _GNU_SOURCE
#include "region_dest.h"

#include "ivshmem.h"

#include "../base/ivc_log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ivc_region_dest_is_device(const char *name)
{
    return name != NULL && strcmp(name, "ivshmem") == 0;
}

int ivc_region_dest_is_bar(const char *path)
{
    /* Compared resolved: a launcher may pass the /sys/devices/... form of the path. */
    char want[PATH_MAX], got[PATH_MAX];
    if (realpath(path, want) == NULL)
        return 0;
    ivc_ivshmem_t devs[IVC_IVSHMEM_MAX];
    int n = ivc_ivshmem_list(NULL, devs, IVC_IVSHMEM_MAX);
    for (int i = 0; i < n; i++)
        if (realpath(devs[i].bar2, got) != NULL && strcmp(got, want) == 0)
            return 1;
    return 0;
}

/* A cheap look at a device before attaching (which logs every mismatch): an IVC region,
 * ready, of this job and size, and not the one this rank is leaving (its slot there holds
 * the order `seq`; attaching that one as it is unplugged would read a vanishing header).
 * Everything read is checked, nothing trusted. */
static int looks_like_job(const ivc_ivshmem_t *dev, uint64_t job, uint32_t world, uint32_t rank,
                          uint64_t seq)
{
    if (dev->bar2_size < IVC_REGION_HDR_SIZE || rank >= world)
        return 0;
    int fd = open(dev->bar2, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    void *p = mmap(NULL, IVC_REGION_HDR_SIZE, PROT_READ, MAP_SHARED, fd, 0);
    const ivc_region_hdr_t *h = p;
    int ok = p != MAP_FAILED && h->magic == IVC_REGION_MAGIC &&
             h->layout_version == IVC_LAYOUT_VERSION &&
             ivc_load_acquire(&((ivc_region_hdr_t *)p)->state) == IVC_REGION_READY &&
             h->job_id == job && h->world_size == world;
    uint64_t slot = ok ? h->moves_off + (uint64_t)rank * sizeof(ivc_move_t) : 0;
    if (p != MAP_FAILED)
        munmap(p, IVC_REGION_HDR_SIZE);
    if (ok && (slot % IVC_CACHE_LINE != 0 || slot < IVC_REGION_HDR_SIZE ||
               slot > dev->bar2_size - sizeof(ivc_move_t)))
        ok = 0;
    if (ok) {
        size_t len = (size_t)slot + sizeof(ivc_move_t);
        p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
        ok = p != MAP_FAILED &&
             ivc_load_acquire(&((ivc_move_t *)((uint8_t *)p + slot))->order) >> 16 < seq;
        if (p != MAP_FAILED)
            munmap(p, len);
    }
    close(fd);
    return ok;
}

int ivc_region_attach_dest(const char *name, uint64_t job, uint32_t world, uint32_t rank,
                           uint64_t seq, ivc_region_t *out)
{
    if (!ivc_region_dest_is_device(name))
        return ivc_region_attach_running(name, job, world, out);
    ivc_ivshmem_t devs[IVC_IVSHMEM_MAX];
    int n = ivc_ivshmem_list(NULL, devs, IVC_IVSHMEM_MAX);
    for (int i = 0; i < n; i++) {
        if (!looks_like_job(&devs[i], job, world, rank, seq))
            continue;
        ivc_region_t r;
        if (ivc_region_attach_running(devs[i].bar2, job, world, &r) != 0)
            continue;
        /* The region this rank is leaving holds the order in its slot. */
        if (rank < r.world_size &&
            ivc_load_acquire(&ivc_region_move(&r, rank)->order) >> 16 >= seq) {
            ivc_region_detach(&r, 0);
            continue;
        }
        ivc_debug("migration: the destination is ivshmem %s", devs[i].bdf);
        *out = r;
        return 0;
    }
    return -EAGAIN;
}
