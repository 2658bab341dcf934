/* Doorbells of an ivshmem-doorbell device through vfio-pci (door_vfio.h). Setup and
 * teardown only; ringing is one store to BAR0. */
#define _GNU_SOURCE
#include "door_vfio.h"

#include "door.h"
#include "ivshmem_proto.h"
#include "region.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSFS_PCI "/sys/bus/pci/devices"

/* BAR0 registers (QEMU docs/specs/ivshmem-spec; region/ivshmem.c names the others). */
enum { REG_IV_POSITION = 8, REG_DOORBELL = 12, REGS_MIN = 16 };
/* PCI configuration space: the command register and its bus master bit. */
enum { PCI_COMMAND = 0x04, PCI_COMMAND_MASTER = 0x4 };
#define DOOR_VECTOR 0 /* IVC uses one vector per peer */

static struct {
    int container, group, device; /* vfio descriptors, -1: closed */
    volatile uint32_t *regs;      /* BAR0 mapped through the device */
    size_t regs_len;
    int efd; /* MSI-X vector 0's eventfd */
    int on;
    char bdf[32];
} vf = {-1, -1, -1, NULL, 0, -1, 0, ""};

/* The reason a guest rank has no doorbell names the device, so it is formatted here. */
static char why[256];

__attribute__((format(printf, 1, 2))) static int no_door(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    ivc_wait_no_doorbell_why = why;
    ivc_debug("doorbells through vfio: %s", why);
    return 0;
}

/* The last component of the symbolic link `dir`/`name`, or "" (no link). */
static void link_base(const char *bdf, const char *name, char *out, size_t len)
{
    char p[PATH_MAX], target[PATH_MAX];
    snprintf(p, sizeof(p), SYSFS_PCI "/%s/%s", bdf, name);
    ssize_t n = readlink(p, target, sizeof(target) - 1);
    out[0] = '\0';
    if (n <= 0)
        return;
    target[n] = '\0';
    const char *b = strrchr(target, '/');
    b = b ? b + 1 : target;
    size_t k = strlen(b);
    if (k >= len) /* no driver or group has such a name: leave it unmatched */
        return;
    memcpy(out, b, k + 1);
}

static void vfio_release(void)
{
    if (vf.device >= 0) {
        /* Hand the vector back (the kernel also does it when the device fd closes). */
        struct vfio_irq_set off = {.argsz = sizeof(off),
                                   .flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
                                   .index = VFIO_PCI_MSIX_IRQ_INDEX};
        (void)ioctl(vf.device, VFIO_DEVICE_SET_IRQS, &off);
    }
    if (vf.regs != NULL)
        munmap((void *)vf.regs, vf.regs_len);
    if (vf.efd >= 0)
        close(vf.efd);
    if (vf.device >= 0)
        close(vf.device);
    if (vf.group >= 0)
        close(vf.group);
    if (vf.container >= 0)
        close(vf.container);
    vf.regs = NULL;
    vf.efd = vf.device = vf.group = vf.container = -1;
    vf.on = 0;
}

/* The group's node: /dev/vfio/N with an IOMMU, /dev/vfio/noiommu-N without one. Returns
 * the open group, or -errno. */
static int group_open(const char *group_id, int *noiommu)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "/dev/vfio/noiommu-%s", group_id);
    *noiommu = access(p, F_OK) == 0;
    if (!*noiommu)
        snprintf(p, sizeof(p), "/dev/vfio/%s", group_id);
    int fd = open(p, O_RDWR | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

int ivc_door_vfio_open(const char *bdf)
{
    ivc_doors_t *d = &ivc_doors;
    char p[PATH_MAX], driver[64], group_id[32];
    struct stat st;

    snprintf(p, sizeof(p), SYSFS_PCI "/%s/resource1", bdf);
    if (stat(p, &st) != 0 || st.st_size == 0)
        return no_door("the ivshmem device %s has no doorbells (ivshmem-plain; attach "
                       "ivshmem-doorbell served by ivc-host -S)%s", bdf, "");
    link_base(bdf, "driver", driver, sizeof(driver));
    if (strcmp(driver, "vfio-pci") != 0)
        return no_door("the ivshmem device %s is not bound to vfio-pci (driver: %s), so its "
                       "doorbell interrupts cannot reach this rank",
                       bdf, driver[0] ? driver : "none");
    link_base(bdf, "iommu_group", group_id, sizeof(group_id));
    if (group_id[0] == '\0' || strspn(group_id, "0123456789") != strlen(group_id))
        return no_door("the ivshmem device %s has no IOMMU group%s", bdf, "");

    int noiommu = 0;
    vf.container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
    if (vf.container < 0) {
        no_door("cannot open /dev/vfio/vfio for the ivshmem device %s: %s", bdf,
                strerror(errno));
        goto err;
    }
    if (ioctl(vf.container, VFIO_GET_API_VERSION) != VFIO_API_VERSION) {
        no_door("the vfio API of this kernel is not the one IVC was built for (device %s)%s",
                bdf, "");
        goto err;
    }
    vf.group = group_open(group_id, &noiommu);
    if (vf.group < 0) {
        int err = -vf.group;
        vf.group = -1;
        no_door(err == EBUSY ? "the vfio group of the ivshmem device %s is held by another "
                               "process (one rank per ivshmem-doorbell device)%s"
                             : "cannot open the vfio group of the ivshmem device %s: %s",
                bdf, err == EBUSY ? "" : strerror(err));
        goto err;
    }
    struct vfio_group_status gs = {.argsz = sizeof(gs)};
    if (ioctl(vf.group, VFIO_GROUP_GET_STATUS, &gs) != 0 || !(gs.flags & VFIO_GROUP_FLAGS_VIABLE)) {
        no_door("the vfio group of the ivshmem device %s is not viable (bind every device of "
                "its IOMMU group to vfio-pci)%s", bdf, "");
        goto err;
    }
    if (ioctl(vf.group, VFIO_GROUP_SET_CONTAINER, &vf.container) != 0) {
        no_door("vfio: cannot add the group of the ivshmem device %s to a container: %s", bdf,
                strerror(errno));
        goto err;
    }
    /* No DMA mappings follow: ivshmem does no DMA. The IOMMU model only has to be set
     * before the device can be opened. */
    int model = noiommu ? VFIO_NOIOMMU_IOMMU
                        : ioctl(vf.container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) > 0
                              ? VFIO_TYPE1v2_IOMMU
                              : VFIO_TYPE1_IOMMU;
    if (ioctl(vf.container, VFIO_SET_IOMMU, model) != 0) {
        /* type1 refuses a platform without interrupt remapping (EPERM) unless
         * vfio_iommu_type1 has allow_unsafe_interrupts=1. */
        no_door("vfio: cannot set the IOMMU model for the ivshmem device %s: %s", bdf,
                strerror(errno));
        goto err;
    }
    vf.device = ioctl(vf.group, VFIO_GROUP_GET_DEVICE_FD, bdf);
    if (vf.device < 0) {
        no_door("vfio: cannot open the ivshmem device %s: %s", bdf, strerror(errno));
        goto err;
    }

    struct vfio_region_info ri = {.argsz = sizeof(ri), .index = VFIO_PCI_BAR0_REGION_INDEX};
    if (ioctl(vf.device, VFIO_DEVICE_GET_REGION_INFO, &ri) != 0 || ri.size < REGS_MIN ||
        !(ri.flags & VFIO_REGION_INFO_FLAG_MMAP)) {
        no_door("vfio: the registers (BAR0) of the ivshmem device %s cannot be mapped%s", bdf,
                "");
        goto err;
    }
    void *m = mmap(NULL, (size_t)ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, vf.device,
                   (off_t)ri.offset);
    if (m == MAP_FAILED) {
        no_door("vfio: cannot map the registers of the ivshmem device %s: %s", bdf,
                strerror(errno));
        goto err;
    }
    vf.regs = m;
    vf.regs_len = (size_t)ri.size;
    /* IVPosition comes from the device model, not from a peer; still checked, since a
     * value that is no peer id (-1: no server) must not become an address others ring. */
    int32_t id = (int32_t)vf.regs[REG_IV_POSITION / 4];
    if (id < 0 || id >= IVSHMEM_MAX_PEERS) {
        no_door("the ivshmem device %s has no doorbell peer id (IVPosition %s): is its "
                "doorbell server connected?", bdf, id < 0 ? "-1" : "out of range");
        goto err;
    }

    /* MSI-X messages are memory writes of the device: without bus mastering (which
     * vfio-pci leaves to its user) the device model drops them. */
    struct vfio_region_info ci = {.argsz = sizeof(ci), .index = VFIO_PCI_CONFIG_REGION_INDEX};
    uint16_t cmd = 0;
    if (ioctl(vf.device, VFIO_DEVICE_GET_REGION_INFO, &ci) != 0 ||
        pread(vf.device, &cmd, sizeof(cmd), (off_t)(ci.offset + PCI_COMMAND)) != sizeof(cmd) ||
        ((cmd & PCI_COMMAND_MASTER) == 0 &&
         (cmd |= PCI_COMMAND_MASTER,
          pwrite(vf.device, &cmd, sizeof(cmd), (off_t)(ci.offset + PCI_COMMAND)) != sizeof(cmd)))) {
        no_door("vfio: cannot enable bus mastering (for MSI-X) of the ivshmem device %s: %s",
                bdf, strerror(errno));
        goto err;
    }

    struct vfio_irq_info ii = {.argsz = sizeof(ii), .index = VFIO_PCI_MSIX_IRQ_INDEX};
    if (ioctl(vf.device, VFIO_DEVICE_GET_IRQ_INFO, &ii) != 0 || ii.count <= DOOR_VECTOR ||
        !(ii.flags & VFIO_IRQ_INFO_EVENTFD)) {
        no_door("vfio: the ivshmem device %s offers no MSI-X vector for eventfds%s", bdf, "");
        goto err;
    }
    vf.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (vf.efd < 0) {
        no_door("cannot create an eventfd for the ivshmem device %s: %s", bdf, strerror(errno));
        goto err;
    }
    struct {
        struct vfio_irq_set set;
        int32_t fd;
    } irq = {.set = {.argsz = sizeof(irq),
                     .flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
                     .index = VFIO_PCI_MSIX_IRQ_INDEX,
                     .start = DOOR_VECTOR,
                     .count = 1},
             .fd = vf.efd};
    _Static_assert(offsetof(struct vfio_irq_set, data) == sizeof(struct vfio_irq_set),
                   "the eventfd follows the header");
    if (ioctl(vf.device, VFIO_DEVICE_SET_IRQS, &irq) != 0) {
        no_door("vfio: cannot route MSI-X vector 0 of the ivshmem device %s to an eventfd: %s",
                bdf, strerror(errno));
        goto err;
    }
    vf.on = 1;
    snprintf(vf.bdf, sizeof(vf.bdf), "%s", bdf);
    d->my_fd = vf.efd;
    d->door_id = (uint32_t)id;
    ivc_debug("doorbell: ivshmem %s through vfio (%s IOMMU group %s), peer id %d, MSI-X "
              "vector %d", bdf, noiommu ? "no-IOMMU" : "vIOMMU", group_id, id, DOOR_VECTOR);
    return 1;
err:
    vfio_release();
    return 0;
}

int ivc_door_vfio_check_region(const struct ivc_region *r)
{
    char p[PATH_MAX];
    if (!vf.on)
        return 0;
    snprintf(p, sizeof(p), SYSFS_PCI "/%s/resource2", vf.bdf);
    if (strcmp(p, r->path) == 0)
        return 0; /* the region's own device */
    /* Line 0 of the header (identity, written once by the formatter) must read the same
     * through both devices: then they map one memory, that of one server. */
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    void *m = fd >= 0 ? mmap(NULL, IVC_CACHE_LINE, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (fd >= 0)
        close(fd);
    int same = m != MAP_FAILED && r->size >= IVC_CACHE_LINE &&
               memcmp(m, r->base, IVC_CACHE_LINE) == 0;
    if (m != MAP_FAILED)
        munmap(m, IVC_CACHE_LINE);
    if (same)
        return 0;
    no_door("the doorbell device %s (IVC_DOORBELL_DEVICE) does not map this job's region: its "
            "peers are not this job's%s", vf.bdf, "");
    ivc_door_vfio_close();
    return -EXDEV;
}

int ivc_door_vfio_on(void)
{
    return vf.on;
}

void ivc_door_vfio_ring(uint32_t peer)
{
    vf.regs[REG_DOORBELL / 4] = (peer & 0xffff) << 16 | DOOR_VECTOR;
}

void ivc_door_vfio_close(void)
{
    if (vf.on && ivc_doors.my_fd == vf.efd)
        ivc_doors.my_fd = -1;
    vfio_release();
}
