/* ivc-info: prints the version, the build's configuration and every IVC tunable with its
 * current value, its source (environment or default) and default; inspects a region file,
 * or (inside a VM) the ivshmem devices and doorbells. */
#include "api.h"
#include "base/ivc_log.h"
#include "coord/coord.h"
#include "region/ivshmem.h"
#include "region/region.h"
#include "shm/shm_config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(
        f, "usage: ivc-info            print the version, the configuration (Fortran, C++,\n"
           "                           network channel) and every tunable (IVC_* variables)\n"
           "                           with its value and its source\n"
           "       ivc-info --version  print IVC's version\n"
           "       ivc-info -r FILE    inspect a region: header and membership table (FILE may be\n"
           "                           an ivshmem selector, e.g. ivshmem)\n"
           "       ivc-info --ivshmem  list this VM's ivshmem devices (PCI address, memory size,\n"
           "                           doorbell peer id), the one IVC uses first\n"
           "       ivc-info --ring PEER[:VECTOR] [--device SEL]\n"
           "                           ring a doorbell through the device's BAR0\n"
           "       ivc-info --wait-doorbell SEC [--device SEL]\n"
           "                           wait up to SEC seconds for a doorbell (polls IntrStatus:\n"
           "                           works when the device has msi=off); exit 0 if one came\n"
           "       ivc-info --region-size N\n"
           "                           bytes of a region for N ranks under these settings\n"
           "       ivc-info --section-size N\n"
           "                           bytes of one rank's write-exclusive section for N\n"
           "                           co-located ranks (a power of two: ivc-vm --sections)\n"
           "       ivc-info --api [-v] which MPI-4.1 functions and Fortran bindings are\n"
           "                           implemented, per chapter (-v: list the missing ones)\n"
           "SEL selects a device as IVC_REGION does: ivshmem, ivshmem:N or ivshmem:<address>.\n");
}

static int inspect(const char *path)
{
    ivc_region_t r;
    ivc_ivshmem_t dev;
    if (ivc_ivshmem_is_selector(path)) { /* inside a VM: the device's memory */
        if (ivc_ivshmem_select(NULL, path, &dev) != 0)
            return 1;
        path = dev.bar2;
    }
    if (ivc_region_attach(path, 0, 0, &r) != 0)
        return 1;
    ivc_region_hdr_t *h = ivc_region_hdr(&r);
    printf("region %s\n  layout version %u, format 0x%08x, %" PRIu64 " bytes\n", path,
           h->layout_version, h->format, r.size);
    printf("  job %" PRIu64 ", %u ranks, heap %" PRIu64 " of %" PRIu64 " bytes used\n", r.job_id,
           r.world_size, ivc_load_relaxed(&h->heap_next) - r.heap_off, r.heap_end - r.heap_off);
    if (r.sec_size != 0)
        printf("  write-exclusive sections: %u of %" PRIu64 " bytes (not in the file)\n",
               r.world_size, r.sec_size);
    uint32_t arank;
    int acode;
    if (ivc_region_aborted(&r, &arank, &acode))
        printf("  aborted by rank %u with code %d\n", arank, acode);
    static const char *const names[] = {"absent", "joined", "finalized", "aborted"};
    for (uint32_t i = 0; i < r.world_size; i++) {
        uint32_t s = ivc_region_member_get(&r, i);
        printf("  rank %u: %s\n", i, s < 4 ? names[s] : "?");
    }
    ivc_region_detach(&r, 0);
    return 0;
}

static int list_ivshmem(void)
{
    ivc_ivshmem_t devs[IVC_IVSHMEM_MAX];
    int n = ivc_ivshmem_list(NULL, devs, IVC_IVSHMEM_MAX);
    if (n == 0) {
        printf("no ivshmem device\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        ivc_ivshmem_regs_t regs;
        int32_t id = -1, rc = -ENODEV;
        if (devs[i].has_msix && (rc = ivc_ivshmem_regs_open(&devs[i], &regs)) == 0) {
            id = ivc_ivshmem_peer_id(&regs);
            ivc_ivshmem_regs_close(&regs);
        }
        printf("ivshmem:%d %s memory %" PRIu64 " bytes, %s", i, devs[i].bdf, devs[i].bar2_size,
               devs[i].has_msix ? "doorbell (MSI-X)" : "plain or doorbell without MSI-X");
        if (devs[i].has_msix && rc == -EBUSY)
            printf(", registers held through vfio-pci (by a rank sleeping on its doorbells)");
        else if (devs[i].has_msix)
            printf(", peer id %d", id);
        printf("\n");
    }
    return 0;
}

/* Opens the registers of the device `sel` selects; returns 0 or 1 (error printed). */
static int open_regs(const char *sel, ivc_ivshmem_regs_t *regs)
{
    ivc_ivshmem_t dev;
    if (ivc_ivshmem_select(NULL, sel, &dev) != 0)
        return 1;
    int rc = ivc_ivshmem_regs_open(&dev, regs);
    if (rc == -EBUSY) {
        fprintf(stderr, "ivc-info: ivshmem %s: its registers are held through vfio-pci (by a "
                        "rank sleeping on its doorbells)\n", dev.bdf);
        return 1;
    }
    if (rc != 0) {
        fprintf(stderr, "ivc-info: ivshmem %s has no registers (BAR0)\n", dev.bdf);
        return 1;
    }
    return 0;
}

static int ring(const char *sel, const char *what)
{
    char *end;
    unsigned long peer = strtoul(what, &end, 10), vector = 0;
    if (*end == ':')
        vector = strtoul(end + 1, &end, 10);
    if (*end != '\0' || peer > 0xffff || vector > 0xffff) {
        fprintf(stderr, "ivc-info: --ring wants PEER[:VECTOR], got %s\n", what);
        return 2;
    }
    ivc_ivshmem_regs_t regs;
    if (open_regs(sel, &regs) != 0)
        return 1;
    printf("peer id %d rings peer %lu vector %lu\n", ivc_ivshmem_peer_id(&regs), peer, vector);
    ivc_ivshmem_ring(&regs, (uint32_t)peer, (uint32_t)vector);
    ivc_ivshmem_regs_close(&regs);
    return 0;
}

/* Waits for vector 0's first doorbell: the MSI-X pending bit on ivshmem-doorbell
 * (no driver needed, see ivshmem.h), IntrStatus on a device without MSI-X. */
static int wait_doorbell(const char *sel, const char *secs, const char *ring_arg)
{
    double limit = atof(secs);
    ivc_ivshmem_t dev;
    ivc_ivshmem_regs_t regs;
    ivc_ivshmem_latch_t latch = {0};
    if (ivc_ivshmem_select(NULL, sel, &dev) != 0 || open_regs(sel, &regs) != 0)
        return 1;
    if (dev.has_msix && ivc_ivshmem_latch_open(&dev, &latch) != 0)
        return 1;
    printf("peer id %d waits for a doorbell (%s)\n", ivc_ivshmem_peer_id(&regs),
           latch.pba ? "MSI-X pending bit" : "IntrStatus");
    fflush(stdout);
    /* Ring only now: QEMU drops doorbells that arrive before MSI-X is enabled. */
    if (ring_arg != NULL && ring(sel, ring_arg) != 0)
        return 1;
    struct timespec t0, t, nap = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int got = 0;
    do {
        got = latch.pba ? ivc_ivshmem_pending(&latch, 0) : ivc_ivshmem_intr_status(&regs) != 0;
        if (!got)
            nanosleep(&nap, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (!got && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < limit);
    ivc_ivshmem_latch_close(&latch);
    ivc_ivshmem_regs_close(&regs);
    printf(got ? "doorbell received\n" : "no doorbell within %s s\n", secs);
    return got ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *sel = getenv("IVC_REGION");
    const char *ring_arg = NULL, *wait_arg = NULL;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        int more = i + 1 < argc;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
            printf("ivc-info (IVC %s)\n", IVC_VERSION);
            return 0;
        } else if (!strcmp(argv[i], "-r") && more && argc == 3) {
            return inspect(argv[i + 1]);
        } else if (!strcmp(argv[i], "--region-size") && more) {
            char *end;
            unsigned long n = strtoul(argv[i + 1], &end, 10);
            if (*end || n == 0 || n > 65536) {
                fprintf(stderr, "ivc-info: --region-size wants a number of ranks\n");
                return 2;
            }
            uint64_t bytes = ivc_shm_region_bytes((uint32_t)n);
            if (bytes == 0)
                return 1;
            printf("%" PRIu64 "\n", bytes);
            return 0;
        } else if (!strcmp(argv[i], "--section-size") && more) {
            char *end;
            unsigned long n = strtoul(argv[i + 1], &end, 10);
            if (*end || n < 2 || n > 65536) {
                fprintf(stderr, "ivc-info: --section-size wants a number of ranks (2 or more)\n");
                return 2;
            }
            uint64_t need = ivc_shm_section_bytes((uint32_t)n, (uint32_t)n), bytes = 4096;
            if (need == 0) {
                fprintf(stderr, "ivc-info: no sections under these settings (IVC_SECTIONS)\n");
                return 1;
            }
            while (bytes < need)
                bytes <<= 1; /* an ivshmem BAR is a power of two */
            printf("%" PRIu64 "\n", bytes);
            return 0;
        } else if (!strcmp(argv[i], "--api")) {
            return ivc_info_api(more && !strcmp(argv[i + 1], "-v"));
        } else if (!strcmp(argv[i], "--ivshmem")) {
            list = 1;
        } else if (!strcmp(argv[i], "--device") && more) {
            sel = argv[++i];
        } else if (!strcmp(argv[i], "--ring") && more) {
            ring_arg = argv[++i];
        } else if (!strcmp(argv[i], "--wait-doorbell") && more) {
            wait_arg = argv[++i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (sel != NULL && !ivc_ivshmem_is_selector(sel))
        sel = NULL; /* IVC_REGION names a file: use the first device */
    if (list)
        return list_ivshmem();
    if (wait_arg)
        return wait_doorbell(sel, wait_arg, ring_arg);
    if (ring_arg)
        return ring(sel, ring_arg);
    return ivc_info_about(stdout);
}
