/* Write-exclusive sections: memory of the region that only its owner rank can write.
 *
 * Everything a rank publishes for its peers to read (its membership record, channel block
 * and collective area) lies in its own section. The membership record (ivc_sect_member_t,
 * the section's first bytes) is what makes the file's membership table believable:
 * region.c's ivc_region_member_get. A section is not part of the region file: its owner creates it as a memfd, maps
 * it read-write, and seals it (no shrinking or growing, no new writable mapping or write(2)
 * by anyone: F_SEAL_FUTURE_WRITE), then hands it to the launcher over the socket named by
 * IVC_SECTION_FD. The launcher checks the seals and the size and passes it on to the
 * owner's co-located peers, which map it read-only at the same offset of their own mapping
 * of the region (sec_off + owner * sec_size in the header). So a peer's store into it
 * faults in that peer, whichever way it tries (the mapping is read-only, mprotect refuses
 * PROT_WRITE on a read-only descriptor, and a descriptor reopened writable through /proc
 * cannot be mapped writable past the seal), and a process outside the job that maps the
 * region file does not see the sections at all.
 *
 * Only a launcher that formats the region with sections (ivcrun, for simulated VMs and
 * plain processes on one host) hands them out; regions made any other way have none
 * (sec_size 0) and every block lies in the file, as before (README, "Threat model").
 *
 * Private parts: a range of its section that its owner writes for one peer alone (its
 * channel slot for that peer: the messages of that pair) gets a memory file of its own,
 * mapped over the range by the owner (ivc_region_sect_private) and handed by the launcher
 * to that one peer, who maps it read-only over the same range. Every other rank sees the
 * public file's untouched zero pages there: no rank reads the messages of a pair it is not
 * in.
 *
 * In real guests (QEMU) the hypervisor enforces the same: every section is a file on the
 * host attached to every guest as an ivshmem device behind a PCI bridge (IVC_SECT_BRIDGE,
 * the rank's section at the bridge's slot of that rank), read-write in the guest of its
 * owner and through a read-only memory backend (readonly=on) in every other guest: QEMU
 * drops a guest's stores there, whatever its kernel does, and the ranks map it PROT_READ,
 * so a stray store faults in the writer (ivc-vm --sections). A rank that finds such
 * devices formats a zero-filled region with sections of their size and maps them all at
 * join; guests have no private parts (every guest of the job can read a pair's messages,
 * none can change them).
 *
 * A section is mapped in a peer lazily, on first use (ivc_region_sect_at): the launcher
 * sends each section once it has it, and a reader waits for the one it needs. Offsets a
 * peer names in its own section are checked against that section's bounds, so a peer can
 * never make a reader touch another rank's section or an unmapped one. */
#ifndef IVC_REGION_SECT_H
#define IVC_REGION_SECT_H

#include "region.h"

#include <fcntl.h>
#include <stdint.h>

/* One message on the launcher's socket, either way: a memory file of `rank`'s section rides
 * along as one SCM_RIGHTS descriptor. A rank sends its own; the launcher sends its peers'.
 * `to` IVC_SECT_ALL: the whole section, for every co-located rank; else a private part of
 * `len` bytes at byte `at` of the section, for rank `to` alone (both multiples of 4096). */
typedef struct ivc_sect_msg {
    uint32_t magic; /* IVC_SECT_MAGIC */
    uint32_t rank;
    uint32_t to;
    uint32_t pad;
    uint64_t at, len;
} ivc_sect_msg_t;
#define IVC_SECT_MAGIC 0x54434553u /* "SECT" */
#define IVC_SECT_ALL   0xffffffffu

/* Seals every section carries before anyone but its owner maps it. */
#define IVC_SECT_SEALS_NEEDED (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL)
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010 /* Linux 5.1; older C libraries lack the name */
#endif

/* Checks that fd is a section as the launcher and readers need it: `size` bytes, sealed
 * with IVC_SECT_SEALS_NEEDED. Returns 0, or -EPERM (seals missing) / -EBADF (size or not a
 * sealable file) with *why set to a few words. */
int ivc_region_sect_check(int fd, uint64_t size, const char **why);

/* Whether the region has sections (its header says so). */
static inline int ivc_region_has_sections(const ivc_region_t *r)
{
    return r->sec_size != 0;
}

/* Offset of rank k's section (k < world_size). */
static inline uint64_t ivc_region_sect_off(const ivc_region_t *r, uint32_t k)
{
    return r->sec_off + (uint64_t)k * r->sec_size;
}

/* Joins the region's sections as `rank`: reserves the address range of every section after
 * the file's mapping (the mapping may move: call before anything keeps a pointer into the
 * region), creates this rank's section, maps it read-write, seals it and hands it to the
 * launcher. Readers of a peer's section wait up to `wait_ms` for it to come. Nothing to do
 * (0) for a region without sections. Returns 0, -ENOTCONN (the region has sections but
 * this process got no IVC_SECTION_FD and the guest has no section devices: not started by
 * the launcher that made them), or -errno (printed). */
int ivc_region_sect_join(ivc_region_t *r, uint32_t rank, uint64_t wait_ms);

/* Size of the sections a guest's ivshmem devices offer a region of `world` ranks at
 * `path` (a guest's ivshmem BAR): the devices' common size when the guest has one per rank,
 * else 0 (none, or a set that does not fit: logged). */
uint64_t ivc_region_sect_dev_size(const char *path, uint32_t world);

/* Makes [off, off + len) of this rank's own section (page-aligned, not yet written) private
 * to rank `reader`: a memory file of its own, mapped read-write here, sealed, and handed to
 * the launcher for `reader` alone (nothing in a guest, which has no private parts).
 * Returns 0, -EINVAL (not a page range of this rank's section) or -errno (printed). */
int ivc_region_sect_private(ivc_region_t *r, uint64_t off, uint64_t len, uint32_t reader);

/* Waits until rank k's private part for this rank, [off, off + len) of k's section, is
 * mapped here (the whole range exactly), as long as the join said. Returns its address, or
 * NULL (printed) when it does not come or k named another range. */
void *ivc_region_sect_private_at(ivc_region_t *r, uint32_t k, uint64_t off, uint64_t len);

/* Allocates `size` bytes (rounded to a cache line, aligned to `align`, a power of two) from
 * this rank's own section; writes the offset to *off. Private bookkeeping: nothing shared is
 * read or written. Returns 0, -ENOENT (no sections joined) or -ENOMEM (section full). */
int ivc_region_sect_alloc(ivc_region_t *r, uint64_t size, uint64_t align, uint64_t *off);

/* Validated access to [off, off + len) of rank k's section: NULL unless the range lies in
 * that section, and k's section is mapped here (waiting for the launcher to hand it over as
 * long as the join said; it is mapped read-only unless k is this rank). Errors are
 * printed. */
void *ivc_region_sect_at(ivc_region_t *r, uint32_t k, uint64_t off, uint64_t len);

/* Validated access to [off, off + len) of what rank k published: in k's section when the
 * region has sections, else anywhere in the file (ivc_region_at). */
static inline void *ivc_region_owned_at(ivc_region_t *r, uint32_t k, uint64_t off, uint64_t len)
{
    return ivc_region_has_sections(r) ? ivc_region_sect_at(r, k, off, len)
                                      : ivc_region_at(r, off, len);
}

/* Allocates what this rank publishes for its peers: from its section when the region has
 * sections, else from the file's heap (ivc_region_alloc). Returns as those. */
static inline int ivc_region_own_alloc(ivc_region_t *r, uint64_t size, uint64_t align,
                                       uint64_t *off)
{
    return ivc_region_has_sections(r) ? ivc_region_sect_alloc(r, size, align, off)
                                      : ivc_region_alloc(r, size, align, off);
}

/* Rank k's membership record (the start of its section: region_layout.h) when k's section
 * is mapped here, else NULL. Never waits. */
const ivc_sect_member_t *ivc_region_sect_member(const ivc_region_t *r, uint32_t k);

/* Maps what the launcher has sent so far (sections, private parts) without waiting; does
 * nothing while another thread of this process is taking them. */
void ivc_region_sect_drain(const ivc_region_t *r);

/* Closes the launcher's socket and forgets the sections (the mapping itself goes with
 * ivc_region_detach, which calls this). */
void ivc_region_sect_leave(ivc_region_t *r);

#endif
