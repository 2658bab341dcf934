/* Where a migrating rank goes (VM migration, coord/coord_move.h): the region of its
 * destination host, named by an entry of IVC_HOST_REGIONS.
 *
 * A file path (simulated hosts, ivcrun --hosts) is attached as it is. The entry `ivshmem`
 * is for a rank in a real guest: its VM is live-migrated, its old ivshmem device is
 * unplugged before and the destination host's region is hot-plugged as a new ivshmem
 * device after (tools/vm/ivc-vm-migrate), possibly at the same PCI address. The
 * destination is then the device whose region is this job's (same job id and size) and
 * whose move slot for this rank does not hold the order being carried out: the order was
 * written into the region being left, so that one (still plugged while the rank leaves)
 * is never taken for the destination, even on a return to a host visited before. */
#ifndef IVC_REGION_DEST_H
#define IVC_REGION_DEST_H

#include "region.h"

#include <stdint.h>

/* Whether a region entry names a hot-plugged ivshmem device rather than a file. */
int ivc_region_dest_is_device(const char *name);

/* Whether `path` is an ivshmem device's BAR (/sys/bus/pci/devices/<bdf>/resource2) of this
 * machine: a guest's region, which IVC_HOST_REGIONS names `ivshmem`. */
int ivc_region_dest_is_bar(const char *path);

/* Attaches the destination `name` for `rank`, which carries out move order `seq`.
 * Non-blocking for a device: one scan of the PCI devices. Returns 0; -EAGAIN when no
 * device qualifies yet (not plugged: call again); -errno from the attach of a file. */
int ivc_region_attach_dest(const char *name, uint64_t job, uint32_t world, uint32_t rank,
                           uint64_t seq, ivc_region_t *out);

#endif
