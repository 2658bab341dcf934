#define _GNU_SOURCE
#include "region.h"

#include "door.h"
#include "region_sect.h"

#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long an attacher waits for another process that is formatting the region. */
#define REGION_FORMAT_WAIT_MS 10000

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

uint64_t ivc_region_fixed_bytes(uint32_t world)
{
    return align_up(IVC_REGION_HDR_SIZE + (uint64_t)world * (sizeof(ivc_member_t) +
                                                            sizeof(ivc_door_t) + sizeof(ivc_move_t)),
                    4096);
}

static int region_map(const char *path, int create, uint64_t create_size, ivc_region_t *out)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0), 0600);
    if (fd < 0) {
        int err = errno;
        ivc_error("region %s: cannot open: %s", path, strerror(err));
        return -err;
    }
    uint64_t size = create_size;
    if (create) {
        if (ftruncate(fd, (off_t)create_size) != 0) {
            int err = errno;
            ivc_error("region %s: cannot size to %" PRIu64 " bytes: %s", path, create_size,
                      strerror(err));
            close(fd);
            return -err;
        }
    } else {
        struct stat st;
        if (fstat(fd, &st) != 0) {
            int err = errno;
            close(fd);
            return -err;
        }
        size = (uint64_t)st.st_size;
    }
    if (size < IVC_REGION_MIN_SIZE) {
        ivc_error("region %s: %" PRIu64 " bytes is smaller than the minimum %u", path, size,
                  IVC_REGION_MIN_SIZE);
        close(fd);
        return -EBADF;
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    if (base == MAP_FAILED) {
        close(fd);
        ivc_error("region %s: cannot map %" PRIu64 " bytes: %s", path, size, strerror(err));
        return -err;
    }
    memset(out, 0, sizeof(*out));
    out->fd = fd; /* kept for the ranks' liveness locks (ivc_region_lock) */
    out->base = base;
    out->size = size;
    out->map_size = size;
    out->sec_sock = -1;
    snprintf(out->path, sizeof(out->path), "%s", path);
    return 0;
}

/* Writes the header of a region whose state this process moved to FORMATTING, with
 * sections of sec_size bytes (0: none) past the file's end. */
static int region_format(ivc_region_t *r, uint64_t job, uint32_t world, uint64_t sec_size)
{
    ivc_region_hdr_t *h = ivc_region_hdr(r);
    uint64_t heap_off = ivc_region_fixed_bytes(world);
    if (heap_off >= r->size) {
        ivc_error("region %s: %" PRIu64 " bytes cannot hold %u ranks", r->path, r->size, world);
        return -EINVAL;
    }
    h->magic = IVC_REGION_MAGIC;
    h->layout_version = IVC_LAYOUT_VERSION;
    h->format = IVC_REGION_FORMAT;
    h->world_size = world;
    h->size = r->size;
    h->job_id = job;
    h->members_off = IVC_REGION_HDR_SIZE;
    h->doors_off = IVC_REGION_HDR_SIZE + (uint64_t)world * sizeof(ivc_member_t);
    h->moves_off = h->doors_off + (uint64_t)world * sizeof(ivc_door_t);
    h->heap_off = heap_off;
    h->heap_end = r->size;
    h->sec_off = sec_size != 0 ? align_up(r->size, 4096) : 0;
    h->sec_size = sec_size;
    ivc_store_relaxed(&h->heap_next, heap_off);
    ivc_store_relaxed(&h->abort_state, 0);
    ivc_store_relaxed(&h->bar_arrived, 0);
    ivc_store_relaxed(&h->bar_generation, 0);
    ivc_store_relaxed(&h->format_gen, ivc_load_relaxed(&h->format_gen) + 1);
    ivc_store_relaxed(&h->started, 0);
    h->misfit_size = 0;
    ivc_store_relaxed(&h->misfit_rank, 0);
    ivc_store_relaxed(&h->lib_off, 0);
    memset(r->base + IVC_REGION_HDR_SIZE, 0,
           (size_t)world * (sizeof(ivc_member_t) + sizeof(ivc_door_t) + sizeof(ivc_move_t)));
    /* R0: publishes the header; pairs with A0 in region_wait_ready(). */
    ivc_store_release(&h->state, IVC_REGION_READY);
    return 0;
}

/* Waits for READY; a zero-filled region is formatted here if this process wins the CAS. */
static int region_wait_ready(ivc_region_t *r, uint64_t job, uint32_t world)
{
    ivc_region_hdr_t *h = ivc_region_hdr(r);
    uint64_t deadline = ivc_now_ns() + REGION_FORMAT_WAIT_MS * 1000000ull;
    ivc_backoff_t b;
    ivc_backoff_init(&b);
    for (;;) {
        /* A0: sees the formatter's header; pairs with R0 in region_format(). */
        uint32_t state = ivc_load_acquire(&h->state);
        if (state == IVC_REGION_READY)
            return 0;
        if (state == IVC_REGION_EMPTY && h->magic == 0) {
            if (world == 0) {
                ivc_error("region %s is empty and this process does not know the job size to "
                          "format it",
                          r->path);
                return -EPROTO;
            }
            uint32_t expect = IVC_REGION_EMPTY;
            if (ivc_cas(&h->state, &expect, IVC_REGION_FORMATTING))
                return region_format(r, job, world, ivc_region_sect_dev_size(r->path, world));
            continue;
        }
        if (state != IVC_REGION_FORMATTING) {
            /* Not a state of this protocol (or EMPTY but not zero-filled): let the identity
             * checks say what it is. */
            return 0;
        }
        /* FORMATTING: the formatter writes the header, magic first, and clears the
         * membership table before R0. Believing a half-written header would let this rank
         * join a slot the formatter then zeroes (the start-up race behind a NULL shm
         * channel in ivc_coord_init). Wait for READY. */
        if (ivc_now_ns() > deadline) {
            ivc_error("region %s: another process started formatting it and did not finish "
                      "within %d ms",
                      r->path, REGION_FORMAT_WAIT_MS);
            return -ETIMEDOUT;
        }
        ivc_backoff_wait(&b);
    }
}

/* Compares the header with what this library and this rank expect; logs what differs. */
static int region_validate(ivc_region_t *r, uint64_t job, uint32_t world)
{
    const ivc_region_hdr_t *h = ivc_region_hdr(r);
    if (h->magic != IVC_REGION_MAGIC) {
        ivc_error("region %s is not an IVC region: magic 0x%016" PRIx64 ", expected 0x%016llx",
                  r->path, h->magic, (unsigned long long)IVC_REGION_MAGIC);
        return -EPROTO;
    }
    if (h->layout_version != IVC_LAYOUT_VERSION) {
        ivc_error("region %s has layout version %u; this library speaks version %u", r->path,
                  h->layout_version, IVC_LAYOUT_VERSION);
        return -EPROTO;
    }
    if (h->format != IVC_REGION_FORMAT) {
        ivc_error("region %s has format word 0x%08x; this library uses 0x%08x (cache-line "
                  "log2 %u/%u, member slot %u/%u, record header %u/%u, little-endian %u/%u)",
                  r->path, h->format, IVC_REGION_FORMAT, h->format & 0xff, IVC_REGION_FORMAT & 0xff,
                  (h->format >> 8) & 0xff, (IVC_REGION_FORMAT >> 8) & 0xff,
                  (h->format >> 16) & 0xff, (IVC_REGION_FORMAT >> 16) & 0xff, h->format >> 24,
                  IVC_REGION_FORMAT >> 24);
        return -EPROTO;
    }
    if (h->size != r->size) {
        ivc_error("region %s: header says %" PRIu64 " bytes but %" PRIu64 " are mapped", r->path,
                  h->size, r->size);
        return -EBADF;
    }
    if (job != 0 && h->job_id != job) {
        ivc_error("region %s belongs to job %" PRIu64 ", not to this rank's job %" PRIu64, r->path,
                  h->job_id, job);
        return -ESRCH;
    }
    if (world != 0 && h->world_size != world) {
        ivc_error("region %s was made for %u ranks, but this job has %u", r->path, h->world_size,
                  world);
        return -EXDEV;
    }
    /* Copy the layout once and check it: later code trusts only these copies. */
    uint64_t members_off = h->members_off, heap_off = h->heap_off, heap_end = h->heap_end;
    uint64_t members_len = (uint64_t)h->world_size * sizeof(ivc_member_t);
    uint64_t doors_off = h->doors_off, doors_len = (uint64_t)h->world_size * sizeof(ivc_door_t);
    uint64_t moves_off = h->moves_off, moves_len = (uint64_t)h->world_size * sizeof(ivc_move_t);
    if (h->world_size == 0 || members_off < IVC_REGION_HDR_SIZE || members_off % 64 ||
        members_off > r->size || members_len > r->size - members_off ||
        doors_off < members_off + members_len || doors_off % 64 || doors_off > r->size ||
        doors_len > r->size - doors_off || moves_off < doors_off + doors_len || moves_off % 64 ||
        moves_off > r->size || moves_len > r->size - moves_off || heap_off < moves_off + moves_len ||
        heap_off > heap_end || heap_end > r->size) {
        ivc_error("region %s: header layout is inconsistent (members at %" PRIu64
                  ", doorbells at %" PRIu64 ", moves at %" PRIu64 ", heap %" PRIu64 "..%" PRIu64
                  ", size %" PRIu64 ")",
                  r->path, members_off, doors_off, moves_off, heap_off, heap_end, r->size);
        return -EPROTO;
    }
    /* Sections: past the file, page-aligned, and the whole reservation addressable. */
    uint64_t sec_off = h->sec_off, sec_size = h->sec_size;
    if (sec_size != 0 &&
        (sec_off < r->size || sec_off % 4096 || sec_size % 4096 || sec_off > (1ull << 46) ||
         sec_size > (1ull << 40) || sec_size > ((1ull << 46) - sec_off) / h->world_size)) {
        ivc_error("region %s: header's sections are inconsistent (%" PRIu64 " bytes each at %" PRIu64
                  ", size %" PRIu64 ", %u ranks)",
                  r->path, sec_size, sec_off, r->size, h->world_size);
        return -EPROTO;
    }
    r->sec_off = sec_size != 0 ? sec_off : 0;
    r->sec_size = sec_size;
    r->world_size = h->world_size;
    r->job_id = h->job_id;
    r->members_off = members_off;
    r->doors_off = doors_off;
    r->moves_off = moves_off;
    r->heap_off = heap_off;
    r->heap_end = heap_end;
    return 0;
}

int ivc_region_create(const char *path, uint64_t size, uint64_t job, uint32_t world,
                      ivc_region_t *out)
{
    return ivc_region_create_sect(path, size, job, world, 0, out);
}

int ivc_region_create_sect(const char *path, uint64_t size, uint64_t job, uint32_t world,
                           uint64_t sec_size, ivc_region_t *out)
{
    if (sec_size % 4096 != 0) {
        ivc_error("region %s: sections of %" PRIu64 " bytes are not whole pages", path, sec_size);
        return -EINVAL;
    }
    if (world == 0 || size < IVC_REGION_MIN_SIZE || size < ivc_region_fixed_bytes(world) + 4096) {
        ivc_error("region %s: %" PRIu64 " bytes for %u ranks is too small", path, size, world);
        return -EINVAL;
    }
    ivc_region_t r;
    int rc = region_map(path, 1, size, &r);
    if (rc != 0)
        return rc;
    ivc_store_relaxed(&ivc_region_hdr(&r)->state, IVC_REGION_FORMATTING);
    rc = region_format(&r, job, world, sec_size);
    if (rc == 0)
        rc = region_validate(&r, job, world);
    if (rc != 0) {
        ivc_region_detach(&r, 1);
        return rc;
    }
    *out = r;
    return 0;
}

/* How long an attacher watches the heartbeats of a region's leftover slots (when locks
 * cannot tell) before it calls them dead: a few periods of the liveness thread. */
#define REGION_STALE_WATCH_MS 500

/* Whether the region holds what an earlier run left (slots, an abort, a start) and whether
 * any rank of it is alive: 0 fresh (nothing left), 1 stale (left over, nobody alive), 2 in
 * use (a rank alive: its lock held, or its heartbeat moving). Needs a validated layout. */
static int region_residue(const ivc_region_t *r)
{
    const ivc_region_hdr_t *h = ivc_region_hdr(r);
    int residue = ivc_load_relaxed(&h->abort_state) != 0 || ivc_load_relaxed(&h->started) != 0;
    int unsure = 0;
    for (uint32_t k = 0; k < r->world_size; k++) {
        uint32_t st = ivc_region_member_get(r, k);
        if (st == IVC_MEMBER_ABSENT)
            continue;
        residue = 1;
        if (st != IVC_MEMBER_JOINED && st != IVC_MEMBER_FINALIZED)
            continue;
        int held = ivc_region_lock_held(r, k);
        if (held == 1)
            return 2;
        unsure |= held != 0;
    }
    if (!residue || !unsure)
        return residue;
    /* Some slots' kernels are not this one's: watch their heartbeats. */
    uint64_t *beat = calloc(r->world_size, sizeof(*beat));
    if (beat == NULL)
        return 2; /* cannot tell: never reset a region that may be in use */
    for (uint32_t k = 0; k < r->world_size; k++)
        beat[k] = ivc_load_relaxed(&ivc_region_member(r, k)->heartbeat);
    uint64_t end = ivc_now_ns() + REGION_STALE_WATCH_MS * 1000000ull;
    int alive = 0;
    while (!alive && ivc_now_ns() < end) {
        usleep(20000);
        for (uint32_t k = 0; k < r->world_size && !alive; k++)
            alive = ivc_load_relaxed(&ivc_region_member(r, k)->heartbeat) != beat[k];
    }
    free(beat);
    return alive ? 2 : 1;
}

/* A region an earlier run left behind (an ivshmem BAR or a file outlives its job) is
 * formatted afresh for this job, by one attacher: the winner of the READY->FORMATTING CAS,
 * if the format generation it judged is still the current one (another attacher of this
 * job may have reset the region and joined it meanwhile: then it is this job's). A region
 * with a live rank whose job has started is refused. Returns 0 (usable, as it is or
 * reset), -EBUSY (in use by a live job) or an error of region_format. */
static int region_renew(ivc_region_t *r, uint64_t job, uint32_t world)
{
    ivc_region_hdr_t *h = ivc_region_hdr(r);
    if (world == 0)
        return 0; /* an observer (a tool, a test): it neither joins nor formats */
    for (int tries = 0; tries < 100; tries++) {
        int rc = region_wait_ready(r, job, world);
        if (rc != 0)
            return rc;
        uint32_t gen = ivc_load_acquire(&h->format_gen);
        /* The layout this judgement reads (world size, table) must be the current one: a
         * rank of this job may just have formatted the region for another world size. */
        rc = region_validate(r, 0, 0);
        if (ivc_load_acquire(&h->state) != IVC_REGION_READY ||
            ivc_load_acquire(&h->format_gen) != gen)
            continue;
        if (rc != 0)
            return rc;
        int res = region_residue(r);
        if (res == 0)
            return 0;
        if (res == 2) {
            if (!ivc_load_relaxed(&h->started))
                return 0; /* ranks of this job starting up: join them */
            ivc_error("region %s is in use by a running job (%" PRIu64 ", %u ranks); it is "
                      "refused rather than reset",
                      r->path, h->job_id, h->world_size);
            return -EBUSY;
        }
        uint32_t expect = IVC_REGION_READY;
        if (!ivc_cas(&h->state, &expect, IVC_REGION_FORMATTING))
            continue;
        if (ivc_load_relaxed(&h->format_gen) != gen) {
            /* R0 again: nothing changed, the state goes back as it was. */
            ivc_store_release(&h->state, IVC_REGION_READY);
            continue;
        }
        ivc_warn("region %s holds what an earlier job (%" PRIu64 ", %u ranks) left; nobody "
                 "of it is alive: formatting it for job %" PRIu64,
                 r->path, h->job_id, h->world_size, job);
        return region_format(r, job, world, r->sec_size);
    }
    return 0;
}

/* Maps and checks an existing region; with `renew`, first resets one an earlier job left
 * (a rank joining at start-up), never one of a running job it migrates into. */
static int region_open(const char *path, uint64_t job, uint32_t world, int renew, ivc_region_t *out)
{
    ivc_region_t r;
    int rc = region_map(path, 0, 0, &r);
    if (rc != 0)
        return rc;
    rc = region_wait_ready(&r, job, world);
    /* Layout first (job and world are what an earlier job may have left), then whether an
     * earlier job left it, then whose it is. */
    if (rc == 0 && renew)
        rc = region_validate(&r, 0, 0);
    if (rc == 0 && renew)
        rc = region_renew(&r, job, world);
    if (rc == 0)
        rc = region_validate(&r, job, world);
    if (rc != 0) {
        ivc_region_detach(&r, 0);
        return rc;
    }
    *out = r;
    return 0;
}

int ivc_region_attach(const char *path, uint64_t job, uint32_t world, ivc_region_t *out)
{
    return region_open(path, job, world, 1, out);
}

int ivc_region_attach_running(const char *path, uint64_t job, uint32_t world, ivc_region_t *out)
{
    return region_open(path, job, world, 0, out);
}

void ivc_region_detach(ivc_region_t *r, int unlink_file)
{
    /* The whole mapping: the file and, once joined, every section's reservation. */
    uint64_t len = r->map_size > r->size ? r->map_size : r->size;
    if (r->base != NULL) {
        if (r->keep_len != 0 && r->keep_off <= r->size && r->keep_len <= r->size - r->keep_off) {
            munmap(r->base, r->keep_off);
            uint64_t end = r->keep_off + r->keep_len;
            if (end < len)
                munmap(r->base + end, len - end);
        } else {
            munmap(r->base, len);
        }
    }
    ivc_region_sect_leave(r);
    if (r->base != NULL && r->fd >= 0)
        close(r->fd); /* releases this process's lock */
    r->fd = -1;
    r->locked = 0;
    if (unlink_file && r->path[0] != '\0')
        unlink(r->path);
    r->base = NULL;
}

int ivc_region_alloc(ivc_region_t *r, uint64_t size, uint64_t align, uint64_t *off)
{
    ivc_region_hdr_t *h = ivc_region_hdr(r);
    if (align < IVC_CACHE_LINE)
        align = IVC_CACHE_LINE;
    size = align_up(size, IVC_CACHE_LINE);
    /* Reserve size + align so that the aligned block fits whatever start we get. */
    uint64_t want = size + align;
    uint64_t start = ivc_fetch_add(&h->heap_next, want);
    uint64_t block = align_up(start, align);
    if (start < r->heap_off) {
        ivc_error("region %s: the shared allocation pointer (%" PRIu64 ") lies outside the heap "
                  "[%" PRIu64 ", %" PRIu64 "): the region is corrupt",
                  r->path, start, r->heap_off, r->heap_end);
        return -ENOMEM;
    }
    /* Past the end is no corruption: failed allocations of other ranks move the pointer on. */
    if (block < start || block > r->heap_end || size > r->heap_end - block) {
        uint64_t used = start < r->heap_end ? start - r->heap_off : r->heap_end - r->heap_off;
        ivc_error("region %s: out of shared memory allocating %" PRIu64 " bytes (heap %" PRIu64
                  " of %" PRIu64 " bytes used); start the job with a larger region "
                  "(ivcrun --region-size, IVC_REGION_SIZE, ivc-host --size, QEMU's size=)",
                  r->path, size, used, r->heap_end - r->heap_off);
        return -ENOMEM;
    }
    *off = block;
    return 0;
}

void ivc_region_member_set(const ivc_region_t *r, uint32_t rank, uint32_t state)
{
    if (r->base == NULL || rank >= r->world_size) /* detached: mid-migration */
        return;
    if (r->sec_mapped != NULL && rank == r->sec_me) {
        /* The owner's word first: a peer that reads the file's new state finds it there. */
        ivc_sect_member_t *own = (ivc_sect_member_t *)(r->base + ivc_region_sect_off(r, rank));
        ivc_store_relaxed(&own->kernel_id, r->locked ? ivc_region_kernel_id() : 0);
        ivc_store_release(&own->state, state);
    }
    /* R4: publishes this rank's slot contents; pairs with A4 in ivc_region_member_get(). */
    ivc_store_release(&ivc_region_member(r, rank)->state, state);
}

/* ---- membership where the region has sections ----
 *
 * The file's membership table can be written by every rank and by anyone who can open the
 * file; a rank's section only by that rank. So a slot's state is believed as far as its
 * owner's record says the same, and a failure only when a rank declared it in its own
 * section (or the launcher, for a process that is gone): a forged FAILED, ABORTED or
 * FINALIZED in the file changes nothing, and a declaration names its true author. */

static uint64_t fail_known(const ivc_region_t *r, uint32_t rank)
{
    return __atomic_load_n(&r->sec_fail[rank], __ATOMIC_ACQUIRE);
}

static void fail_note(const ivc_region_t *r, uint32_t rank, uint32_t how, uint32_t by)
{
    uint64_t zero = 0;
    __atomic_compare_exchange_n(&r->sec_fail[rank], &zero, (uint64_t)how << 32 | by, 0,
                                __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* A declaration's word in the declarer's section: `how` in the low byte, a tag of the job,
 * declarer and declared rank above it, so that a rank that scribbles over its own section
 * (a fault, not a decision) does not declare its peers failed by chance. */
static uint32_t accuse_tag(const ivc_region_t *r, uint32_t by, uint32_t rank)
{
    uint64_t h = r->job_id * 0x9e3779b97f4a7c15ull ^ ((uint64_t)by << 32 | rank);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (uint32_t)h & ~0xffu;
}

/* How rank `by` declared `rank` failed in its section (IVC_FAIL_*), 0 if it did not. */
static uint32_t accused(const ivc_region_t *r, const ivc_sect_member_t *d, uint32_t by,
                        uint32_t rank)
{
    uint32_t w = ivc_load_acquire(&((ivc_sect_member_t *)d)->accused[rank]);
    uint32_t how = w & 0xffu;
    return w != 0 && (w & ~0xffu) == accuse_tag(r, by, rank) && how >= IVC_FAIL_EXITED &&
                   how <= IVC_FAIL_NETWORK
               ? how
               : 0;
}

/* Whether the file's FAILED record of `rank` is true: its declarer's section says so, or
 * it is the launcher's and the rank's lock is not held by a live process of this kernel. */
static int fail_confirm(const ivc_region_t *r, uint32_t rank)
{
    const ivc_member_t *m = ivc_region_member(r, rank);
    uint32_t by = m->fail_by; /* a plain word, as every record field: checked below */
    uint32_t how = m->fail_how;
    if (by < r->world_size && by != rank) {
        const ivc_sect_member_t *d = ivc_region_sect_member(r, by);
        if (d == NULL) {
            ivc_region_sect_drain(r);
            d = ivc_region_sect_member(r, by);
        }
        uint32_t h = d != NULL ? accused(r, d, by, rank) : 0;
        if (h == 0)
            return 0;
        fail_note(r, rank, h, by);
        return 1;
    }
    if (by == IVC_FAIL_BY_LAUNCHER && (rank != r->sec_me || !r->locked) &&
        ivc_region_lock_held(r, rank) != 1) {
        fail_note(r, rank, how, by);
        return 1;
    }
    return 0;
}

static uint32_t member_get_sect(const ivc_region_t *r, uint32_t rank, uint32_t st)
{
    const ivc_sect_member_t *own = ivc_region_sect_member(r, rank);
    if (own == NULL && st != IVC_MEMBER_JOINED && st != IVC_MEMBER_ABSENT) {
        ivc_region_sect_drain(r); /* a claim to check: the owner's record may be on its way */
        own = ivc_region_sect_member(r, rank);
    }
    uint32_t mine = own != NULL ? ivc_load_acquire(&((ivc_sect_member_t *)own)->state) : 0;
    if (mine == IVC_MEMBER_FINALIZED || mine == IVC_MEMBER_ABORTED || mine == IVC_MEMBER_MOVED)
        return mine; /* the owner left on its own: no failure to blame */
    if (mine != 0 && mine != IVC_MEMBER_JOINED) {
        /* No state its owner could have set: it wrote over its own record. */
        fail_note(r, rank, IVC_FAIL_PROTOCOL, rank);
        return IVC_MEMBER_FAILED;
    }
    if (fail_known(r, rank) != 0 || (st == IVC_MEMBER_FAILED && fail_confirm(r, rank)))
        return IVC_MEMBER_FAILED;
    if (mine != 0)
        return mine; /* JOINED, whatever the file says */
    if (st == IVC_MEMBER_FAILED)
        return IVC_MEMBER_JOINED; /* unconfirmed: only a joined rank is ever declared */
    return st;
}

uint32_t ivc_region_member_get(const ivc_region_t *r, uint32_t rank)
{
    if (r->base == NULL || rank >= r->world_size) /* detached: mid-migration */
        return IVC_MEMBER_ABSENT;
    /* A4: pairs with R4 in ivc_region_member_set(). */
    uint32_t st = ivc_load_acquire(&ivc_region_member(r, rank)->state);
    return r->sec_mapped != NULL ? member_get_sect(r, rank, st) : st;
}

void ivc_region_member_scan(const ivc_region_t *r)
{
    if (r->base == NULL || r->sec_mapped == NULL)
        return;
    ivc_region_sect_drain(r);
    for (uint32_t d = 0; d < r->world_size; d++) {
        const ivc_sect_member_t *sd = ivc_region_sect_member(r, d);
        for (uint32_t k = 0; sd != NULL && k < r->world_size; k++) {
            if (k == d || fail_known(r, k) != 0)
                continue;
            uint32_t h = accused(r, sd, d, k);
            if (h != 0)
                fail_note(r, k, h, d);
        }
    }
}

int ivc_region_member_repair(const ivc_region_t *r, uint32_t *was)
{
    uint32_t me = r->sec_me;
    if (r->base == NULL || r->sec_mapped == NULL || fail_known(r, me) != 0)
        return 0;
    ivc_member_t *m = ivc_region_member(r, me);
    const ivc_sect_member_t *own = ivc_region_sect_member(r, me);
    uint32_t st = ivc_load_acquire(&m->state);
    uint32_t mine = own != NULL ? ivc_load_acquire(&((ivc_sect_member_t *)own)->state) : 0;
    if (mine == 0 || st == mine || mine == IVC_MEMBER_FAILED || mine > IVC_MEMBER_MOVED)
        return 0;
    if (st == IVC_MEMBER_FAILED && ivc_region_member_get(r, me) == IVC_MEMBER_FAILED)
        return 0; /* confirmed: a true declaration, not a forgery */
    *was = st;
    /* Put back: the slot is this rank's; the claim too, so a true declarer can record. */
    ivc_store_relaxed(&m->fail_claim, 0);
    ivc_store_release(&m->state, mine);
    return 1;
}

/* A barrier waiter's re-check before it sleeps (door.h): the generation moved, or the
 * caller's poll did something (or failed: err). */
typedef struct bar_wait {
    ivc_region_hdr_t *h;
    uint32_t gen;
    int (*poll)(void *);
    void *arg;
    int err;
} bar_wait_t;

static int bar_recheck(void *p)
{
    bar_wait_t *w = p;
    if (ivc_load_acquire(&w->h->bar_generation) != w->gen) /* A3 */
        return 1;
    int rc = w->poll != NULL ? w->poll(w->arg) : 0;
    if (rc < 0)
        w->err = rc;
    return rc != 0;
}

int ivc_region_barrier(const ivc_region_t *r, uint32_t count, uint64_t timeout_ms,
                       int (*poll)(void *), void *arg)
{
    ivc_region_hdr_t *h = ivc_region_hdr(r);
    uint32_t gen = ivc_load_acquire(&h->bar_generation);
    uint32_t arrived = ivc_fetch_add(&h->bar_arrived, 1) + 1;
    if (arrived >= count) {
        ivc_store_relaxed(&h->bar_arrived, 0);
        /* R3: releases the waiters; pairs with A3 below. */
        ivc_store_release(&h->bar_generation, gen + 1);
        ivc_door_kick_all();
        return 0;
    }
    uint64_t start = ivc_now_ns();
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, NULL, NULL);
    bar_wait_t w = {h, gen, poll, arg, 0};
    /* A3: pairs with R3 of the last arrival. */
    for (uint32_t round = 1; ivc_load_acquire(&h->bar_generation) == gen; round++) {
        int rc = poll != NULL ? poll(arg) : 0;
        if (rc < 0)
            return rc;
        if (rc == 0 && ivc_backoff_idle(&b)) {
            ivc_door_wait(bar_recheck, &w);
            ivc_backoff_reset(&b);
            if (w.err < 0)
                return w.err;
        }
        if (timeout_ms != 0 && (round & 63) == 0 && ivc_now_ns() - start > timeout_ms * 1000000ull)
            return -ETIMEDOUT;
    }
    return 0;
}

void ivc_region_abort(const ivc_region_t *r, uint32_t rank, int code)
{
    ivc_region_hdr_t *h = ivc_region_hdr(r);
    uint32_t expect = 0;
    if (!ivc_cas(&h->abort_state, &expect, 1))
        return;
    ivc_store_relaxed(&h->abort_rank, rank);
    ivc_store_relaxed(&h->abort_code, code);
    /* R2: publishes rank and code; pairs with A2 in ivc_region_aborted(). */
    ivc_store_release(&h->abort_state, 2);
}

int ivc_region_aborted(const ivc_region_t *r, uint32_t *rank, int *code)
{
    if (r->base == NULL)
        return 0;
    ivc_region_hdr_t *h = ivc_region_hdr(r);
    /* A2: pairs with R2 in ivc_region_abort(). */
    if (ivc_load_acquire(&h->abort_state) != 2)
        return 0;
    uint32_t who = ivc_load_relaxed(&h->abort_rank);
    /* Believed only when plausible: an aborting rank marks its slot ABORTED before the
     * word, so a word naming a rank that is still running was not written by it. */
    if (who >= r->world_size || ivc_region_member_get(r, who) != IVC_MEMBER_ABORTED)
        return 0;
    /* With sections: only from the rank's own record (the file's slot alone can be forged). */
    const ivc_sect_member_t *own = r->sec_mapped != NULL ? ivc_region_sect_member(r, who) : NULL;
    if (r->sec_mapped != NULL &&
        (own == NULL || ivc_load_acquire(&((ivc_sect_member_t *)own)->state) != IVC_MEMBER_ABORTED))
        return 0;
    *rank = who;
    *code = ivc_load_relaxed(&h->abort_code);
    return 1;
}

int ivc_region_member_fail(const ivc_region_t *r, uint32_t rank, uint32_t how, uint32_t by,
                           const char *what)
{
    if (r->base == NULL || rank >= r->world_size)
        return 0;
    int fresh = 0;
    if (r->sec_mapped != NULL) {
        /* With sections only a declaration in the declarer's own section counts (and the
         * launcher's, checked against the rank's lock): record it there first. */
        uint32_t cur = ivc_region_member_get(r, rank);
        if (cur != IVC_MEMBER_JOINED && cur != IVC_MEMBER_ABSENT)
            return 0;
        if (by == r->sec_me && by != rank) {
            ivc_sect_member_t *own = (ivc_sect_member_t *)(r->base + ivc_region_sect_off(r, by));
            uint32_t none = 0;
            fresh = ivc_cas(&own->accused[rank], &none, accuse_tag(r, by, rank) | (how & 0xffu));
            if (fresh)
                fail_note(r, rank, how, by);
        }
    }
    ivc_member_t *m = ivc_region_member(r, rank);
    uint32_t st = ivc_load_acquire(&m->state);
    if (st != IVC_MEMBER_JOINED && st != IVC_MEMBER_ABSENT && st != IVC_MEMBER_MOVED)
        return fresh;
    uint32_t zero = 0;
    if (!ivc_cas(&m->fail_claim, &zero, 1))
        return fresh;
    m->fail_how = how;
    m->fail_by = by;
    snprintf(m->fail_what, sizeof(m->fail_what), "%s", what != NULL ? what : "");
    /* R9: publishes the record with the state; pairs with A4 in ivc_region_member_get() and
     * ivc_region_member_failure(). A rank that finalized or aborted meanwhile keeps its
     * own state: the CAS fails and the record stays unread. */
    if (ivc_cas(&m->state, &st, IVC_MEMBER_FAILED))
        return 1;
    return fresh;
}

int ivc_region_member_failure(const ivc_region_t *r, uint32_t rank, uint32_t *how, uint32_t *by,
                              char what[IVC_FAIL_WHAT_LEN])
{
    if (ivc_region_member_get(r, rank) != IVC_MEMBER_FAILED)
        return 0;
    const ivc_member_t *m = ivc_region_member(r, rank);
    *how = m->fail_how;
    *by = m->fail_by;
    if (r->sec_mapped != NULL) {
        /* The confirmed declaration; the file's words only when they are its record. */
        uint64_t f = fail_known(r, rank);
        uint32_t fby = (uint32_t)f;
        if (fby != *by || ivc_load_acquire(&((ivc_member_t *)m)->state) != IVC_MEMBER_FAILED) {
            *how = (uint32_t)(f >> 32);
            *by = fby;
            snprintf(what, IVC_FAIL_WHAT_LEN, "%s",
                     fby == rank ? "its own record" : "in its section");
            return 1;
        }
    }
    for (size_t i = 0; i < IVC_FAIL_WHAT_LEN; i++) {
        char ch = m->fail_what[i];
        what[i] = ch == '\0' || (ch >= ' ' && ch <= '~') ? ch : '?';
    }
    what[IVC_FAIL_WHAT_LEN - 1] = '\0';
    return 1;
}

const char *ivc_region_fail_how_text(uint32_t how)
{
    switch (how) {
    case IVC_FAIL_EXITED: return "ended without MPI_Finalize";
    case IVC_FAIL_SILENT: return "stopped responding";
    case IVC_FAIL_PROTOCOL: return "broke the shared-memory protocol";
    case IVC_FAIL_NETWORK: return "lost its network connection";
    default: return "failed";
    }
}

uint64_t ivc_region_kernel_id(void)
{
    static uint64_t id;
    if (id != 0)
        return id;
    char buf[64];
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n < 16)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (ssize_t i = 0; i < n && buf[i] != '\n'; i++)
        h = (h ^ (uint8_t)buf[i]) * 0x100000001b3ull;
    id = h != 0 ? h : 1;
    return id;
}

/* Lock bytes lie far past any region's end: locks need no file bytes. */
#define REGION_LOCK_BASE (1ll << 40)

static struct flock lock_of(uint64_t key, short type)
{
    struct flock fl;
    memset(&fl, 0, sizeof(fl));
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = REGION_LOCK_BASE + (off_t)key;
    fl.l_len = 1;
    return fl;
}

int ivc_region_key_lock(const ivc_region_t *r, uint64_t key)
{
    if (r->fd < 0)
        return -EBADF;
    struct flock fl = lock_of(key, F_WRLCK);
    if (fcntl(r->fd, F_OFD_SETLK, &fl) != 0)
        return errno == EAGAIN || errno == EACCES ? -EBUSY : -errno;
    return 0;
}

int ivc_region_key_locked(const ivc_region_t *r, uint64_t key)
{
    if (r->fd < 0)
        return -EBADF;
    struct flock fl = lock_of(key, F_WRLCK);
    if (fcntl(r->fd, F_OFD_GETLK, &fl) != 0)
        return -errno;
    return fl.l_type != F_UNLCK;
}

int ivc_region_lock(ivc_region_t *r, uint32_t rank)
{
    if (rank >= r->world_size || r->fd < 0)
        return -EINVAL;
    ivc_member_t *m = ivc_region_member(r, rank);
    int rc = ivc_region_key_lock(r, rank);
    if (rc != 0) {
        m->kernel_id = 0;
        return rc;
    }
    r->locked = 1;
    m->kernel_id = ivc_region_kernel_id();
    return 0;
}

int ivc_region_lock_held(const ivc_region_t *r, uint32_t rank)
{
    if (rank >= r->world_size || r->fd < 0)
        return -EOPNOTSUPP;
    uint64_t kid = ivc_region_member(r, rank)->kernel_id;
    const ivc_sect_member_t *own = r->sec_mapped != NULL ? ivc_region_sect_member(r, rank) : NULL;
    if (own != NULL && ivc_load_acquire(&((ivc_sect_member_t *)own)->state) != 0)
        kid = ivc_load_relaxed(&((ivc_sect_member_t *)own)->kernel_id); /* the owner's word */
    if (kid == 0 || kid != ivc_region_kernel_id())
        return -EOPNOTSUPP;
    return ivc_region_key_locked(r, rank);
}

void ivc_region_note_misfit(const ivc_region_t *r, uint32_t rank, uint32_t size)
{
    ivc_region_hdr_t *h = ivc_region_hdr(r);
    uint32_t expect = 0;
    h->misfit_size = size;
    /* R10: publishes misfit_size; pairs with A10 in ivc_region_misfit(). */
    ivc_cas(&h->misfit_rank, &expect, rank + 1);
}

int ivc_region_misfit(const ivc_region_t *r, uint32_t *rank, uint32_t *size)
{
    ivc_region_hdr_t *h = ivc_region_hdr(r);
    /* A10: pairs with R10. */
    uint32_t v = ivc_load_acquire(&h->misfit_rank);
    if (v == 0)
        return 0;
    *rank = v - 1;
    *size = h->misfit_size;
    return 1;
}
