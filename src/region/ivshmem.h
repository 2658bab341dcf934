/* The ivshmem PCI device inside a guest: finding it in sysfs, its BAR2 (the region) and
 * its BAR0 registers (peer id, doorbell, interrupt status).
 *
 * QEMU's ivshmem-plain and ivshmem-doorbell devices (vendor 0x1af4, device 0x1110) expose
 * the shared memory as BAR2, mapped through /sys/bus/pci/devices/<bdf>/resource2 with no
 * kernel module. BAR0 holds four 32-bit registers (docs/specs/ivshmem-spec in QEMU):
 * IntrMask (0), IntrStatus (4, reading clears it), IVPosition (8, this guest's peer id
 * when a doorbell server is connected, else 0 or -1) and Doorbell (12, writing
 * (peer << 16) | vector signals that peer's eventfd through QEMU).
 *
 * Device selection (IVC_REGION): unset or "ivshmem" picks the device with the lowest PCI
 * address; "ivshmem:N" the N-th (0-based) by PCI address; "ivshmem:<bdf>" one address,
 * e.g. ivshmem:0000:00:04.0. Any other value is a file path. */
#ifndef IVC_REGION_IVSHMEM_H
#define IVC_REGION_IVSHMEM_H

#include <limits.h>
#include <stdint.h>

#define IVC_IVSHMEM_MAX 16

/* Write-exclusive sections in a guest (region_sect.h) are ivshmem devices behind a PCI
 * bridge at this address (ivc-vm --sections puts it there), one per rank, at the bridge's
 * slot of that rank. They are not regions: the device lists and selectors skip them. */
#define IVC_SECT_BRIDGE "0000:00:1e.0"

typedef struct ivc_ivshmem {
    char bdf[32];        /* PCI address, e.g. 0000:00:04.0 */
    char bar2[PATH_MAX]; /* sysfs resource2: the region */
    uint64_t bar2_size;  /* bytes */
    int has_regs;        /* BAR0 registers are mappable */
    int has_msix;        /* the doorbell variant with MSI-X (BAR1) */
} ivc_ivshmem_t;

typedef struct ivc_ivshmem_regs {
    volatile uint32_t *base; /* BAR0 mapping */
    uint64_t len;
} ivc_ivshmem_regs_t;

/* Whether IVC_REGION's value names an ivshmem device rather than a file. */
int ivc_ivshmem_is_selector(const char *sel);

/* Lists the ivshmem devices under `sysfs_root` (NULL: /sys/bus/pci/devices) but the
 * sections behind IVC_SECT_BRIDGE, sorted by PCI address, at most `max`. Returns how many were found (0 if none or no sysfs). */
int ivc_ivshmem_list(const char *sysfs_root, ivc_ivshmem_t *devs, int max);

/* Resolves a selector (NULL, "", "ivshmem", "ivshmem:N", "ivshmem:<bdf>") to a device.
 * Returns 0; -ENODEV (none / no such device, logged with the devices that exist);
 * -EINVAL (malformed selector, logged). */
int ivc_ivshmem_select(const char *sysfs_root, const char *sel, ivc_ivshmem_t *out);

/* Maps BAR0 through sysfs. Returns 0, -ENODEV (no BAR0), -EBUSY (not logged: the device
 * is bound to vfio-pci and the kernel refuses a second mapping of a BAR that vfio mapped,
 * as a rank sleeping on the doorbells does), or -errno from open/mmap (logged). */
int ivc_ivshmem_regs_open(const ivc_ivshmem_t *dev, ivc_ivshmem_regs_t *regs);
void ivc_ivshmem_regs_close(ivc_ivshmem_regs_t *regs);

/* IVPosition: this guest's doorbell peer id, or -1 when the device has none. */
int32_t ivc_ivshmem_peer_id(const ivc_ivshmem_regs_t *regs);

/* Rings vector `vector` of peer `peer` (0..65535 each). */
void ivc_ivshmem_ring(const ivc_ivshmem_regs_t *regs, uint32_t peer, uint32_t vector);

/* Reads and clears IntrStatus: 1 when a doorbell arrived since the last read on a device
 * without MSI-X (QEMU's legacy `ivshmem` device; ivshmem-doorbell always has MSI-X). */
uint32_t ivc_ivshmem_intr_status(const ivc_ivshmem_regs_t *regs);

/* Doorbells without a guest driver. ivshmem-doorbell signals a vector as an MSI-X message,
 * which QEMU drops while MSI-X is disabled; no interrupt can reach a process without a
 * driver (vfio-pci). ivc_ivshmem_latch_open() therefore enables MSI-X with the function
 * mask set (through the device's sysfs config space): no message is ever sent, and each
 * doorbell sets its vector's bit in the Pending Bit Array, which ivc_ivshmem_pending()
 * reads from BAR1. A pending bit stays set (clearing it means unmasking), so this detects
 * the first doorbell of each vector. Returns 0, -ENODEV (no MSI-X) or -errno (logged). */
typedef struct ivc_ivshmem_latch {
    volatile uint64_t *pba; /* the Pending Bit Array */
    void *map;
    uint64_t map_len;
} ivc_ivshmem_latch_t;
int ivc_ivshmem_latch_open(const ivc_ivshmem_t *dev, ivc_ivshmem_latch_t *latch);
int ivc_ivshmem_pending(const ivc_ivshmem_latch_t *latch, unsigned vector);
void ivc_ivshmem_latch_close(ivc_ivshmem_latch_t *latch);

#endif
