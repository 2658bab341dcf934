#include "ivshmem.h"

#include "region.h"

#include "../base/ivc_log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSFS_PCI "/sys/bus/pci/devices"

/* BAR0 register offsets (QEMU docs/specs/ivshmem-spec). */
enum { REG_INTR_MASK = 0, REG_INTR_STATUS = 4, REG_IV_POSITION = 8, REG_DOORBELL = 12 };
#define REGS_MIN 16

int ivc_ivshmem_is_selector(const char *sel)
{
    return sel == NULL || *sel == '\0' || strcmp(sel, "ivshmem") == 0 ||
           strncmp(sel, "ivshmem:", 8) == 0;
}

static int read_hex(const char *path, unsigned *out)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -errno;
    int ok = fscanf(f, "%x", out) == 1;
    fclose(f);
    return ok ? 0 : -EINVAL;
}

static int bdf_cmp(const void *a, const void *b)
{
    return strcmp(((const ivc_ivshmem_t *)a)->bdf, ((const ivc_ivshmem_t *)b)->bdf);
}

int ivc_ivshmem_list(const char *root, ivc_ivshmem_t *devs, int max)
{
    if (root == NULL)
        root = SYSFS_PCI;
    DIR *d = opendir(root);
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < max) {
        char p[PATH_MAX];
        unsigned vendor = 0, device = 0;
        struct stat st;
        if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(devs[0].bdf))
            continue;
        snprintf(p, sizeof(p), "%s/%s/vendor", root, de->d_name);
        if (read_hex(p, &vendor) != 0 || vendor != IVC_IVSHMEM_VENDOR)
            continue;
        snprintf(p, sizeof(p), "%s/%s/device", root, de->d_name);
        if (read_hex(p, &device) != 0 || device != IVC_IVSHMEM_DEVICE)
            continue;
        snprintf(p, sizeof(p), "%s/%s", root, de->d_name);
        char link[PATH_MAX];
        ssize_t ln = readlink(p, link, sizeof(link) - 1);
        link[ln > 0 ? ln : 0] = '\0';
        if (strstr(link, "/" IVC_SECT_BRIDGE "/") != NULL)
            continue; /* a section, not a region */
        ivc_ivshmem_t *v = &devs[n++];
        memset(v, 0, sizeof(*v));
        strcpy(v->bdf, de->d_name);
        snprintf(v->bar2, sizeof(v->bar2), "%s/%s/resource2", root, de->d_name);
        if (stat(v->bar2, &st) == 0)
            v->bar2_size = (uint64_t)st.st_size;
        snprintf(p, sizeof(p), "%s/%s/resource0", root, de->d_name);
        v->has_regs = stat(p, &st) == 0 && st.st_size >= REGS_MIN;
        snprintf(p, sizeof(p), "%s/%s/resource1", root, de->d_name);
        v->has_msix = stat(p, &st) == 0 && st.st_size > 0;
    }
    closedir(d);
    /* The documented rule: devices are numbered by PCI address. */
    qsort(devs, n, sizeof(devs[0]), bdf_cmp);
    return n;
}

int ivc_ivshmem_select(const char *root, const char *sel, ivc_ivshmem_t *out)
{
    ivc_ivshmem_t devs[IVC_IVSHMEM_MAX];
    int n = ivc_ivshmem_list(root, devs, IVC_IVSHMEM_MAX);
    const char *arg = (sel != NULL && strncmp(sel, "ivshmem:", 8) == 0) ? sel + 8 : NULL;
    int pick = -1;
    if (!ivc_ivshmem_is_selector(sel) || (arg != NULL && *arg == '\0')) {
        ivc_error("IVC_REGION=%s: expected ivshmem, ivshmem:N or ivshmem:<PCI address>", sel);
        return -EINVAL;
    }
    if (n == 0) {
        ivc_error("no ivshmem PCI device (%04x:%04x) in %s: attach one to this VM "
                  "(QEMU -device ivshmem-plain or ivshmem-doorbell; see `ivc-host`)",
                  IVC_IVSHMEM_VENDOR, IVC_IVSHMEM_DEVICE, root ? root : SYSFS_PCI);
        return -ENODEV;
    }
    if (arg == NULL) {
        pick = 0;
    } else if (strspn(arg, "0123456789") == strlen(arg)) {
        long k = strtol(arg, NULL, 10);
        pick = k < n ? (int)k : -1;
    } else {
        for (int i = 0; i < n; i++)
            if (strcmp(devs[i].bdf, arg) == 0 || strcmp(devs[i].bdf + 5, arg) == 0)
                pick = i;
    }
    if (pick < 0) {
        char list[IVC_IVSHMEM_MAX * 34] = "";
        for (int i = 0; i < n; i++) {
            strcat(list, i ? ", " : "");
            strcat(list, devs[i].bdf);
        }
        ivc_error("IVC_REGION=%s: no such ivshmem device; this VM has %d: %s", sel, n, list);
        return -ENODEV;
    }
    *out = devs[pick];
    return 0;
}

/* Whether vfio-pci drives the device: a rank that sleeps on its doorbells then holds BAR0
 * (region/door_vfio.h), and kernels with CONFIG_IO_STRICT_DEVMEM refuse to map it again
 * through sysfs. */
static int driven_by_vfio(const ivc_ivshmem_t *dev)
{
    char p[PATH_MAX], target[PATH_MAX];
    snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/driver", dev->bdf);
    ssize_t n = readlink(p, target, sizeof(target) - 1);
    if (n <= 0)
        return 0;
    target[n] = '\0';
    const char *b = strrchr(target, '/');
    return strcmp(b ? b + 1 : target, "vfio-pci") == 0;
}

int ivc_ivshmem_regs_open(const ivc_ivshmem_t *dev, ivc_ivshmem_regs_t *regs)
{
    char p[PATH_MAX];
    struct stat st;
    if (!dev->has_regs)
        return -ENODEV;
    snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/resource0", dev->bdf);
    int fd = open(p, O_RDWR | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        int err = errno;
        ivc_error("ivshmem %s: cannot open its registers %s: %s", dev->bdf, p, strerror(err));
        if (fd >= 0)
            close(fd);
        return -err;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    if (m == MAP_FAILED && driven_by_vfio(dev)) {
        ivc_debug("ivshmem %s: its registers are held through vfio-pci (%s)", dev->bdf,
                  strerror(err));
        return -EBUSY;
    }
    if (m == MAP_FAILED) {
        ivc_error("ivshmem %s: cannot map its registers: %s", dev->bdf, strerror(err));
        return -err;
    }
    regs->base = m;
    regs->len = (uint64_t)st.st_size;
    return 0;
}

void ivc_ivshmem_regs_close(ivc_ivshmem_regs_t *regs)
{
    if (regs->base != NULL)
        munmap((void *)regs->base, regs->len);
    regs->base = NULL;
}

int32_t ivc_ivshmem_peer_id(const ivc_ivshmem_regs_t *regs)
{
    return (int32_t)regs->base[REG_IV_POSITION / 4];
}

void ivc_ivshmem_ring(const ivc_ivshmem_regs_t *regs, uint32_t peer, uint32_t vector)
{
    regs->base[REG_DOORBELL / 4] = (peer & 0xffff) << 16 | (vector & 0xffff);
}

uint32_t ivc_ivshmem_intr_status(const ivc_ivshmem_regs_t *regs)
{
    return regs->base[REG_INTR_STATUS / 4];
}

/* PCI configuration space: capability list and the MSI-X capability (PCI spec 6.8.2). */
enum { CFG_STATUS = 0x06, CFG_CAP_PTR = 0x34, CAP_MSIX = 0x11 };
#define STATUS_CAP_LIST 0x10
#define MSIX_ENABLE     0x8000
#define MSIX_FN_MASK    0x4000

int ivc_ivshmem_latch_open(const ivc_ivshmem_t *dev, ivc_ivshmem_latch_t *latch)
{
    char p[PATH_MAX];
    uint8_t cfg[256];
    snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/config", dev->bdf);
    int fd = open(p, O_RDWR | O_CLOEXEC);
    if (fd < 0 || pread(fd, cfg, sizeof(cfg), 0) != (ssize_t)sizeof(cfg)) {
        int err = errno ? errno : EIO;
        ivc_error("ivshmem %s: cannot read its PCI configuration %s: %s", dev->bdf, p,
                  strerror(err));
        if (fd >= 0)
            close(fd);
        return -err;
    }
    unsigned cap = 0;
    if (cfg[CFG_STATUS] & STATUS_CAP_LIST)
        for (unsigned ptr = cfg[CFG_CAP_PTR] & 0xfc, hops = 0; ptr >= 0x40 && hops < 48;
             ptr = cfg[ptr + 1] & 0xfc, hops++)
            if (cfg[ptr] == CAP_MSIX) {
                cap = ptr;
                break;
            }
    if (cap == 0 || cap + 12 > sizeof(cfg)) {
        close(fd);
        return -ENODEV;
    }
    uint16_t ctl = (uint16_t)(cfg[cap + 2] | cfg[cap + 3] << 8);
    uint32_t pba = (uint32_t)cfg[cap + 8] | (uint32_t)cfg[cap + 9] << 8 |
                   (uint32_t)cfg[cap + 10] << 16 | (uint32_t)cfg[cap + 11] << 24;
    ctl |= MSIX_ENABLE | MSIX_FN_MASK;
    uint8_t le[2] = {(uint8_t)ctl, (uint8_t)(ctl >> 8)};
    int ok = pwrite(fd, le, 2, cap + 2) == 2;
    int err = errno;
    close(fd);
    if (!ok) {
        ivc_error("ivshmem %s: cannot enable MSI-X (masked): %s", dev->bdf, strerror(err));
        return -err;
    }
    snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/resource%u", dev->bdf, pba & 7);
    struct stat st;
    fd = open(p, O_RDWR | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size < (pba & ~7u) + 8) {
        err = errno ? errno : EINVAL;
        ivc_error("ivshmem %s: cannot open the MSI-X pending bits in %s", dev->bdf, p);
        if (fd >= 0)
            close(fd);
        return -err;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    err = errno;
    close(fd);
    if (m == MAP_FAILED) {
        ivc_error("ivshmem %s: cannot map %s: %s", dev->bdf, p, strerror(err));
        return -err;
    }
    latch->map = m;
    latch->map_len = (uint64_t)st.st_size;
    latch->pba = (volatile uint64_t *)((uint8_t *)m + (pba & ~7u));
    return 0;
}

int ivc_ivshmem_pending(const ivc_ivshmem_latch_t *latch, unsigned vector)
{
    return vector < 64 && (latch->pba[0] >> vector & 1);
}

void ivc_ivshmem_latch_close(ivc_ivshmem_latch_t *latch)
{
    if (latch->map != NULL)
        munmap(latch->map, latch->map_len);
    latch->map = NULL;
}
