/* Doorbells inside a guest: the MSI-X interrupts of an ivshmem-doorbell device, received
 * through vfio-pci (door.h has the handshake; this is one of its doorbell sources).
 *
 * QEMU's ivshmem-doorbell device turns a write of (peer << 16) | vector to its Doorbell
 * register (BAR0 offset 12) into a write of that peer's eventfd for that vector (served by
 * ivc-host -S); the receiving guest's QEMU then sends the device's MSI-X message for the
 * vector. A process can only receive an interrupt through a driver; vfio-pci (in the
 * mainline kernel) hands each MSI-X vector to an eventfd of the process's choosing
 * (VFIO_DEVICE_SET_IRQS), so a rank sleeps on that eventfd as it does on the launcher's,
 * and no IVC kernel module is needed.
 *
 * What the guest needs (tools/vm/guest-init does it): the device bound to vfio-pci, and an
 * IOMMU group for it: either a virtual IOMMU (QEMU -device intel-iommu,intremap=on on q35,
 * kernel argument intel_iommu=on; the group is /dev/vfio/N, used with the type1 IOMMU and
 * no DMA mapping, since ivshmem does no DMA), or a kernel built with CONFIG_VFIO_NOIOMMU
 * and vfio loaded with enable_unsafe_noiommu_mode=1 (the group is /dev/vfio/noiommu-N,
 * which needs CAP_SYS_RAWIO). The rank needs read/write access to /dev/vfio/vfio and its
 * group's node. A group is opened by one process at a time, so a rank sleeps on vfio only
 * if it is the one rank using its device: give a guest one ivshmem-doorbell device per rank
 * (IVC_DOORBELL_DEVICE=ivshmem:N picks it; all map the one region, which the rank still
 * reaches through its IVC_REGION device, so that every rank of a guest locks the same
 * file); ranks without a device of their own find the group busy and the job yields.
 *
 * The region itself (BAR2) stays mapped through sysfs resource2: vfio-pci claims only the
 * BARs that are mapped through it (here BAR0), and a BAR it has not claimed stays mappable
 * through sysfs even on kernels with CONFIG_IO_STRICT_DEVMEM. BAR0 is mapped through the
 * vfio device, so that ringing works whatever the kernel's rules for sysfs BARs. */
#ifndef IVC_REGION_DOOR_VFIO_H
#define IVC_REGION_DOOR_VFIO_H

#include <stdint.h>

/* Opens the ivshmem device `bdf` (its region is this rank's) through vfio: maps BAR0,
 * reads this guest's peer id (IVPosition) and routes MSI-X vector 0 to a new eventfd.
 * On success fills ivc_doors (my_fd, door_id; domain is set at publish time, from the
 * region) and returns 1. Returns 0 when this rank gets no doorbell this way, with the
 * reason in ivc_wait_no_doorbell_why (no MSI-X: ivshmem-plain; not bound to vfio-pci; no
 * IOMMU group; vfio not permitted or the group busy; no doorbell server connected).
 * Never fails the rank: a guest without vfio yields. */
int ivc_door_vfio_open(const char *bdf);

/* Once the region is attached: when the doorbell device is not the region's own (see
 * IVC_DOORBELL_DEVICE in door.h), checks that its memory is the region (the same header):
 * only then are its peer ids those of the region's server. Otherwise closes the doorbell
 * with the reason in ivc_wait_no_doorbell_why. Returns 0 (same region) or -EXDEV. */
struct ivc_region;
int ivc_door_vfio_check_region(const struct ivc_region *r);

/* Whether ivc_door_vfio_open() succeeded (and ivc_door_vfio_close() has not run). */
int ivc_door_vfio_on(void);

/* Rings vector 0 of ivshmem peer `peer` (< 65536, validated by the caller): one MMIO
 * store to the Doorbell register. */
void ivc_door_vfio_ring(uint32_t peer);

/* The doorbell domain of guests whose doorbells come from the server of the region of job
 * `job`: the server hands every guest both the region and the doorbells, so one region
 * means one set of doorbells. Never 0. */
static inline uint64_t ivc_door_vfio_domain(uint64_t job)
{
    return 0x1f5ull << 52 ^ (job & ((1ull << 52) - 1));
}

/* Releases the interrupt, the mapping and the vfio descriptors. */
void ivc_door_vfio_close(void);

#endif
