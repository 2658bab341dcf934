/* The shared region: attach, format, validate, allocate, membership, job control.
 *
 * Public header of the region layer. The region is either a plain file (e.g.
 * /dev/shm/ivc-<job>) shared by processes and simulated VMs, or an ivshmem PCI BAR
 * (/sys/bus/pci/devices/<bdf>/resource2) inside a guest. */
#ifndef IVC_REGION_H
#define IVC_REGION_H

#include "region_layout.h"

#include <limits.h>
#include <stdint.h>

typedef struct ivc_region {
    uint8_t *base;       /* this process's mapping */
    uint64_t size;       /* mapped bytes (== header size once validated) */
    uint32_t world_size; /* copied from the validated header */
    uint64_t job_id;
    uint64_t members_off;
    uint64_t doors_off; /* ivc_door_t[world_size] (door.h) */
    uint64_t moves_off; /* ivc_move_t[world_size] (coord/coord_move.h) */
    uint64_t heap_off, heap_end;
    int fd;     /* the open region file (locks), -1 once detached */
    int locked; /* this process holds a rank's lock (ivc_region_lock) */
    /* A range detach leaves mapped: the shared heap's live blocks, which it replaced by
     * private pages that outlive the region (shm/shm_heap.h). 0, 0 for none. */
    uint64_t keep_off, keep_len;
    /* Write-exclusive sections (region_sect.h), copied from the validated header: none when
     * sec_size is 0. Once this rank joined them (ivc_region_sect_join), the mapping spans
     * map_size bytes: the file, then one section per rank (PROT_NONE until mapped). */
    uint64_t sec_off, sec_size;
    uint64_t map_size;   /* bytes mapped or reserved at base (size until sections join) */
    int sec_sock;        /* the launcher's socket that hands out sections, -1 if none */
    uint32_t sec_me;     /* the rank whose section this process writes */
    uint64_t sec_next;   /* bytes of this rank's section handed out (ivc_region_sect_alloc) */
    uint8_t *sec_mapped; /* per rank: 1 once its section is mapped here; NULL before join */
    uint64_t sec_wait_ms; /* how long a reader waits for a peer's section to come */
    int sec_dev;         /* sections are a guest's ivshmem devices (region_sect.h) */
    struct ivc_sect_priv *sec_priv; /* per rank: its private part for this rank (region_sect.c) */
    /* Per rank: a failure this process confirmed from a section's record (region.c,
     * ivc_region_member_get): how << 32 | by, 0 for none. Private memory, set once, by any
     * thread (atomic). */
    uint64_t *sec_fail;
    char path[PATH_MAX];
} ivc_region_t;

/* PCI ids of QEMU's ivshmem device. */
#define IVC_IVSHMEM_VENDOR 0x1af4
#define IVC_IVSHMEM_DEVICE 0x1110

/* Bytes a job of `world` ranks needs for everything but the heap. */
uint64_t ivc_region_fixed_bytes(uint32_t world);

/* Creates (or truncates) the file at `path` to `size` bytes, formats it for job `job` with
 * `world` ranks and attaches it. Used by the launcher and the host daemon.
 * Returns 0, -EINVAL (bad size/world), or -errno from open/ftruncate/mmap. */
int ivc_region_create(const char *path, uint64_t size, uint64_t job, uint32_t world,
                      ivc_region_t *out);
/* The same with write-exclusive sections of `sec_size` bytes (a multiple of 4096; 0: none)
 * laid out past the file's end (region_sect.h): for a launcher that hands them out. */
int ivc_region_create_sect(const char *path, uint64_t size, uint64_t job, uint32_t world,
                           uint64_t sec_size, ivc_region_t *out);

/* Attaches the region at `path`. A zero-filled region is formatted here, race-free, by the
 * first attacher (which needs `world` > 0). A formatted one must match this library's magic,
 * layout version and format word, its own recorded size, and `job` and `world` unless they
 * are 0. Every mismatch is logged with what differs.
 * Returns 0; -ENOENT/-EACCES/... from open; -EPROTO (not an IVC region, or another version
 * or format); -EBADF (size mismatch or too small); -ESRCH (another job's region);
 * -EXDEV (world size differs); -ETIMEDOUT (a formatter never finished). */
int ivc_region_attach(const char *path, uint64_t job, uint32_t world, ivc_region_t *out);

/* Attaches the region of this running job (`job` and `world` must match) on another host,
 * where a migrating rank goes: never formatted or reset, whoever is (or is no longer) there.
 * Returns as ivc_region_attach. */
int ivc_region_attach_running(const char *path, uint64_t job, uint32_t world, ivc_region_t *out);

/* Unmaps; with `unlink_file`, also removes the file. */
void ivc_region_detach(ivc_region_t *r, int unlink_file);

/* Validated access: a pointer to [off, off+len) or NULL when any part lies outside the
 * region. Every offset read from the region goes through here. */
static inline void *ivc_region_at(const ivc_region_t *r, uint64_t off, uint64_t len)
{
    if (off > r->size || len > r->size - off)
        return NULL;
    return r->base + off;
}

static inline ivc_region_hdr_t *ivc_region_hdr(const ivc_region_t *r)
{
    return (ivc_region_hdr_t *)r->base;
}

/* Allocates `size` bytes (rounded to a cache line, aligned to `align`, a power of two) from
 * the heap; writes the block's offset to *off. Returns 0 or -ENOMEM (message names the
 * region size needed). Lock-free: a fetch_add on the shared bump pointer. */
int ivc_region_alloc(ivc_region_t *r, uint64_t size, uint64_t align, uint64_t *off);

/* Membership table slot of global rank `rank` (rank < world_size). */
static inline ivc_member_t *ivc_region_member(const ivc_region_t *r, uint32_t rank)
{
    return (ivc_member_t *)(r->base + r->members_off) + rank;
}

/* Doorbell slot of global rank `rank` (rank < world_size). */
static inline ivc_door_t *ivc_region_door(const ivc_region_t *r, uint32_t rank)
{
    return (ivc_door_t *)(r->base + r->doors_off) + rank;
}

/* Migration slot of global rank `rank` (rank < world_size). */
static inline ivc_move_t *ivc_region_move(const ivc_region_t *r, uint32_t rank)
{
    return (ivc_move_t *)(r->base + r->moves_off) + rank;
}

/* A rank's state: its slot in the file, and where the region has sections (joined), its
 * slot as far as its own section's record confirms it: FINALIZED, ABORTED or JOINED from the
 * owner alone, FAILED only from a declaration in the declarer's section (or the launcher's,
 * for a process whose lock is gone). Set writes both, for the caller's own rank only. */
void ivc_region_member_set(const ivc_region_t *r, uint32_t rank, uint32_t state);
uint32_t ivc_region_member_get(const ivc_region_t *r, uint32_t rank);

/* The liveness thread's round where the region has sections: maps the sections the launcher
 * sent and takes note of every declaration in them, so that a failure declared by one rank
 * is known here even if the file's record was never written or was overwritten. */
void ivc_region_member_scan(const ivc_region_t *r);

/* Where the region has sections: if this rank's slot in the file says what its own record
 * does not (another writer marked it FAILED, FINALIZED, ABORTED... with no declaration in any
 * section to confirm it), puts its own state back and returns 1 with *was the forged state;
 * else 0. */
int ivc_region_member_repair(const ivc_region_t *r, uint32_t *was);

/* Records that `rank` failed: `how` (IVC_FAIL_* of coord.h), declared by rank `by` (or
 * IVC_FAIL_BY_LAUNCHER), `what` it saw (cut to IVC_FAIL_WHAT_LEN - 1 characters). Only a
 * JOINED slot, or an ABSENT or MOVED one (a rank on another host), becomes FAILED; one record per
 * slot. Where the region has sections, a rank's declaration goes into its own section first
 * (that is what peers believe). Returns 1 when this call made the record (or this rank's
 * first declaration of it), 0 when the rank had already failed or left (FINALIZED,
 * ABORTED). */
int ivc_region_member_fail(const ivc_region_t *r, uint32_t rank, uint32_t how, uint32_t by,
                           const char *what);

/* If `rank`'s slot is FAILED: returns 1 with the record (what NUL-terminated, checked
 * characters only); else 0. */
int ivc_region_member_failure(const ivc_region_t *r, uint32_t rank, uint32_t *how, uint32_t *by,
                              char what[IVC_FAIL_WHAT_LEN]);

/* What IVC_FAIL_* `how` means, in words ("ended without MPI_Finalize"); any value. */
const char *ivc_region_fail_how_text(uint32_t how);

/* A 64-bit identity of this kernel (a hash of its boot id), never 0; 0 when unknown. */
uint64_t ivc_region_kernel_id(void);

/* Liveness locks: one byte of the region file per key, far past its end (no file bytes
 * needed), locked by an open-file-description lock that the kernel releases when the
 * process ends, however it ends. Keys below 2^32 are MPI ranks (ivc_region_lock); libivc's
 * endpoints use IVC_REGION_LOCK_LIB + id. */
#define IVC_REGION_LOCK_LIB (1ull << 32)
/* Takes the lock of `key`: 0, -EBUSY when a live process holds it, or -errno (the file
 * cannot be locked). */
int ivc_region_key_lock(const ivc_region_t *r, uint64_t key);
/* Whether the lock of `key` is held by a process: 1 held, 0 not, or -errno. */
int ivc_region_key_locked(const ivc_region_t *r, uint64_t key);

/* Takes `rank`'s lock on the region file (an open-file-description lock, which the kernel
 * releases when the process ends, however it ends) and records this kernel's identity in
 * the slot (before JOINED). Returns 0, or -errno when the file cannot be locked (the slot
 * then says so, and peers rely on the heartbeat): -EBUSY when a live process holds it
 * already (another process claims the same rank). */
int ivc_region_lock(ivc_region_t *r, uint32_t rank);

/* Whether `rank`'s lock is held: 1 held, 0 released (its process ended), -EOPNOTSUPP when
 * the slot's kernel is not this one's or it took no lock (locks cannot tell). */
int ivc_region_lock_held(const ivc_region_t *r, uint32_t rank);

/* A rank of the region's job (same job id) that was started with another job size says so
 * in the header, so that the others stop waiting for it; ivc_region_misfit reads it: 1 with
 * the rank and the size it was given, else 0. */
void ivc_region_note_misfit(const ivc_region_t *r, uint32_t rank, uint32_t size);
int ivc_region_misfit(const ivc_region_t *r, uint32_t *rank, uint32_t *size);

/* Region barrier among `count` participants. While waiting it calls `poll(arg)` (may be
 * NULL) every round: a negative return gives up with that value, a positive one means work
 * was done (no backoff this round). Returns 0, -ETIMEDOUT after `timeout_ms` (0: none), or
 * the poll's error. */
int ivc_region_barrier(const ivc_region_t *r, uint32_t count, uint64_t timeout_ms,
                       int (*poll)(void *), void *arg);

/* Records that `rank` aborts the job with `code`; the first caller wins. */
void ivc_region_abort(const ivc_region_t *r, uint32_t rank, int code);
/* Returns 1 and the aborting rank and code if the job was aborted, else 0. An abort word
 * naming a rank whose slot is not ABORTED is not believed (a forged or scribbled word). */
int ivc_region_aborted(const ivc_region_t *r, uint32_t *rank, int *code);

#endif
