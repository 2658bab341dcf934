/* Write-exclusive sections (region_sect.h): the rank's side. */
#define _GNU_SOURCE
#include "region_sect.h"

#include "ivshmem.h"

#include "../base/ivc_fdpass.h"
#include "../base/ivc_log.h"
#include "../base/ivc_wait.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int ivc_region_sect_check(int fd, uint64_t size, const char **why)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *why = "not a memory file";
        return -EBADF;
    }
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0) {
        *why = "not sealable";
        return -EBADF;
    }
    if ((seals & IVC_SECT_SEALS_NEEDED) != IVC_SECT_SEALS_NEEDED) {
        *why = "not sealed against writers and resizing";
        return -EPERM;
    }
    if ((uint64_t)st.st_size != size) {
        *why = "of the wrong size";
        return -EBADF;
    }
    return 0;
}

/* What this process knows of rank k's private part for it. */
struct ivc_sect_priv {
    int fd;          /* received, not mapped yet (the public section has not come), or -1 */
    int mapped;      /* mapped over [at, at + len) of k's section */
    uint64_t at, len;
};

/* Whoever takes messages from the launcher's socket holds this: a rank's threads (a waiter
 * in ivc_region_sect_at, the liveness thread's drain) may want a section at once. */
static pthread_mutex_t sect_mu = PTHREAD_MUTEX_INITIALIZER;

static int send_fd(int sock, const ivc_sect_msg_t *m, int fd)
{
    ssize_t n = ivc_fd_send(sock, m, sizeof(*m), fd, 0);
    return n == (ssize_t)sizeof(*m) ? 0 : n < 0 ? (int)n : -EIO;
}

/* A sealed memory file of `len` bytes named after its owner (and its reader), mapped
 * read-write at `at` of this process's mapping. Returns its descriptor or -errno, with
 * *what saying which step failed. */
static int make_sealed(const char *name, uint8_t *at, uint64_t len, const char **what)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    *what = "create";
    int rc = fd < 0 ? -errno : 0;
    if (rc == 0 && ftruncate(fd, (off_t)len) != 0) {
        *what = "size";
        rc = -errno;
    }
    /* Map before sealing: F_SEAL_FUTURE_WRITE keeps writable mappings made before it. */
    if (rc == 0 &&
        mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        *what = "map";
        rc = -errno;
    }
    if (rc == 0 && fcntl(fd, F_ADD_SEALS, IVC_SECT_SEALS_NEEDED) != 0) {
        *what = "seal";
        rc = -errno;
    }
    if (rc != 0 && fd >= 0)
        close(fd);
    return rc != 0 ? rc : fd;
}

/* Reserves the address range of every section after the file's mapping and moves the
 * mapping to its start (PROT_NONE until a section is mapped, so a stray access faults
 * instead of reading zeros). Returns 0 or -errno (printed). */
static int reserve(ivc_region_t *r)
{
    uint64_t total = r->sec_off + (uint64_t)r->world_size * r->sec_size;
    void *res = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED) {
        int err = errno;
        ivc_error("region %s: cannot reserve %" PRIu64 " bytes of address space for its sections: %s",
                  r->path, total, strerror(err));
        return -err;
    }
    /* The system call itself: UCX's memory hooks (libucm) replace mremap() with a version
     * that drops the new address (as shm_heap.c found). */
    void *moved = (void *)syscall(SYS_mremap, r->base, r->size, r->size,
                                  MREMAP_MAYMOVE | MREMAP_FIXED, res);
    if (moved == MAP_FAILED) {
        int err = errno;
        munmap(res, total);
        ivc_error("region %s: cannot move its mapping in front of its sections: %s", r->path,
                  strerror(err));
        return -err;
    }
    r->base = moved;
    r->map_size = total;
    return 0;
}

/* ---- in a guest: sections are ivshmem devices behind IVC_SECT_BRIDGE ---- */

#define SECT_SYSFS "/sys/bus/pci/devices/" IVC_SECT_BRIDGE

static int read_id(const char *dir, const char *name, unsigned *out)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "re");
    if (f == NULL)
        return -1;
    int ok = fscanf(f, "%x", out) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

/* The BAR2 file of the ivshmem device at slot k behind the bridge, and its size. Returns 0
 * or -ENODEV. */
static int dev_bar(uint32_t k, char *path, size_t n, uint64_t *size)
{
    DIR *d = opendir(SECT_SYSFS);
    if (d == NULL)
        return -ENODEV;
    struct dirent *de;
    int rc = -ENODEV;
    while (rc != 0 && (de = readdir(d)) != NULL) {
        unsigned dom, bus, slot, fn, vendor, device;
        char dir[128];
        struct stat st;
        if (strlen(de->d_name) > 32 || sscanf(de->d_name, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4 || slot != k ||
            fn != 0)
            continue;
        snprintf(dir, sizeof(dir), SECT_SYSFS "/%s", de->d_name);
        if (read_id(dir, "vendor", &vendor) != 0 || vendor != IVC_IVSHMEM_VENDOR ||
            read_id(dir, "device", &device) != 0 || device != IVC_IVSHMEM_DEVICE)
            continue;
        snprintf(path, n, "%s/resource2", dir);
        if (stat(path, &st) == 0 && st.st_size > 0) {
            *size = (uint64_t)st.st_size;
            rc = 0;
        }
    }
    closedir(d);
    return rc;
}

/* The bridge's 32 slots (ivc-vm attaches one device per rank to it). */
#define SECT_DEV_MAX 32

uint64_t ivc_region_sect_dev_size(const char *path, uint32_t world)
{
    char bar[PATH_MAX];
    uint64_t size = 0, sz;
    /* Only a guest's own region (its ivshmem BAR) goes with devices of that guest. */
    if (path == NULL || strncmp(path, "/sys/", 5) != 0 || world < 2 ||
        dev_bar(0, bar, sizeof(bar), &size) != 0)
        return 0;
    if (world > SECT_DEV_MAX) {
        ivc_warn("region %s: this guest has section devices, but %u ranks are more than the %d "
                 "a bridge holds: no sections",
                 path, world, SECT_DEV_MAX);
        return 0;
    }
    for (uint32_t k = 1; k < world; k++) {
        if (dev_bar(k, bar, sizeof(bar), &sz) != 0 || sz != size) {
            ivc_warn("region %s: this guest's section devices (behind %s) do not fit a job of %u "
                     "ranks (rank %u's %s): no sections",
                     path, IVC_SECT_BRIDGE, world, k, sz != size ? "has another size" : "is missing");
            return 0;
        }
    }
    return size % 4096 == 0 ? size : 0;
}

/* Maps every rank's section device: this rank's read-write (and clears it: a device file
 * outlives jobs), the others' read-only. */
static int join_devices(ivc_region_t *r, uint32_t rank)
{
    int rc = reserve(r);
    for (uint32_t k = 0; rc == 0 && k < r->world_size; k++) {
        char bar[PATH_MAX];
        uint64_t size = 0;
        int mine = k == rank, fd = -1;
        const char *what = "find";
        if (dev_bar(k, bar, sizeof(bar), &size) != 0 || size != r->sec_size) {
            rc = -ENODEV;
        } else if ((fd = open(bar, (mine ? O_RDWR : O_RDONLY) | O_CLOEXEC)) < 0) {
            what = "open";
            rc = -errno;
        } else if (mmap(r->base + ivc_region_sect_off(r, k), r->sec_size,
                        mine ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED | MAP_FIXED, fd,
                        0) == MAP_FAILED) {
            what = "map";
            rc = -errno;
        }
        if (fd >= 0)
            close(fd);
        if (rc != 0) {
            ivc_error("region %s: cannot %s rank %u's section device (slot %u behind %s, %" PRIu64
                      " bytes): %s",
                      r->path, what, k, k, IVC_SECT_BRIDGE, r->sec_size, strerror(-rc));
            return rc;
        }
        __atomic_store_n(&r->sec_mapped[k], 1, __ATOMIC_RELEASE);
    }
    memset(r->base + ivc_region_sect_off(r, rank), 0, r->sec_size);
    r->sec_dev = 1;
    return 0;
}

int ivc_region_sect_join(ivc_region_t *r, uint32_t rank, uint64_t wait_ms)
{
    if (!ivc_region_has_sections(r))
        return 0;
    if (rank >= r->world_size)
        return -EINVAL;
    const char *env = getenv("IVC_SECTION_FD");
    char *end = NULL;
    long sock = env != NULL ? strtol(env, &end, 10) : -1;
    int have_sock = env != NULL && end != env && *end == '\0' && sock >= 0 && sock <= INT32_MAX &&
                    fcntl((int)sock, F_GETFD) >= 0;
    char bar[PATH_MAX];
    uint64_t size;
    int in_guest = !have_sock && dev_bar(rank, bar, sizeof(bar), &size) == 0;
    if (!have_sock && !in_guest) {
        ivc_error("region %s has write-exclusive sections, which only the launcher that made "
                  "it hands out (or a guest's section devices), and this process has no "
                  "IVC_SECTION_FD from it and no section device",
                  r->path);
        return -ENOTCONN;
    }
    if (r->sec_size < ivc_sect_member_bytes(r->world_size)) {
        ivc_error("region %s: sections of %" PRIu64 " bytes cannot hold a membership record "
                  "for %u ranks",
                  r->path, r->sec_size, r->world_size);
        return -EINVAL;
    }
    r->sec_mapped = calloc(r->world_size, 1);
    r->sec_priv = calloc(r->world_size, sizeof(*r->sec_priv));
    r->sec_fail = calloc(r->world_size, sizeof(*r->sec_fail));
    if (r->sec_mapped == NULL || r->sec_priv == NULL || r->sec_fail == NULL)
        return -ENOMEM;
    for (uint32_t k = 0; k < r->world_size; k++)
        r->sec_priv[k].fd = -1;
    r->sec_sock = -1;
    r->sec_me = rank;
    r->sec_next = ivc_sect_member_bytes(r->world_size); /* the membership record */
    r->sec_wait_ms = wait_ms;
    if (in_guest)
        return join_devices(r, rank);
    r->sec_sock = (int)sock;
    fcntl(r->sec_sock, F_SETFD, FD_CLOEXEC); /* programs this rank starts get none */
    int rc = reserve(r);
    if (rc != 0)
        return rc;

    char name[32];
    snprintf(name, sizeof(name), "ivc-sec-%u", rank);
    const char *what;
    int fd = make_sealed(name, r->base + ivc_region_sect_off(r, rank), r->sec_size, &what);
    rc = fd;
    if (fd >= 0) {
        ivc_sect_msg_t m = {IVC_SECT_MAGIC, rank, IVC_SECT_ALL, 0, 0, r->sec_size};
        what = "hand over";
        rc = send_fd(r->sec_sock, &m, fd);
        close(fd); /* the mapping and the launcher's copy keep it */
    }
    if (rc < 0) {
        ivc_error("region %s: cannot %s this rank's section (%" PRIu64 " bytes): %s", r->path,
                  what, r->sec_size, strerror(-rc));
        return rc;
    }
    __atomic_store_n(&r->sec_mapped[rank], 1, __ATOMIC_RELEASE);
    return 0;
}

int ivc_region_sect_alloc(ivc_region_t *r, uint64_t size, uint64_t align, uint64_t *off)
{
    if (r->sec_mapped == NULL)
        return -ENOENT;
    if (align < IVC_CACHE_LINE)
        align = IVC_CACHE_LINE;
    size = (size + IVC_CACHE_LINE - 1) & ~(uint64_t)(IVC_CACHE_LINE - 1);
    uint64_t at = (r->sec_next + align - 1) & ~(align - 1);
    if (at > r->sec_size || size > r->sec_size - at)
        return -ENOMEM;
    r->sec_next = at + size;
    *off = ivc_region_sect_off(r, r->sec_me) + at;
    return 0;
}

int ivc_region_sect_private(ivc_region_t *r, uint64_t off, uint64_t len, uint32_t reader)
{
    if (r->sec_mapped == NULL || reader >= r->world_size || reader == r->sec_me)
        return -EINVAL;
    uint64_t lo = ivc_region_sect_off(r, r->sec_me);
    if (off < lo || off % 4096 || len == 0 || len % 4096 || off - lo > r->sec_size ||
        len > r->sec_size - (off - lo))
        return -EINVAL;
    if (r->sec_dev)
        return 0; /* a guest: the part stays in the section (region_sect.h) */
    char name[48];
    snprintf(name, sizeof(name), "ivc-sec-%u-to-%u", r->sec_me, reader);
    const char *what;
    int fd = make_sealed(name, r->base + off, len, &what);
    int rc = fd;
    if (fd >= 0) {
        ivc_sect_msg_t m = {IVC_SECT_MAGIC, r->sec_me, reader, 0, off - lo, len};
        what = "hand over";
        rc = send_fd(r->sec_sock, &m, fd);
        close(fd);
    }
    if (rc < 0)
        ivc_error("region %s: cannot %s this rank's part for rank %u (%" PRIu64 " bytes): %s",
                  r->path, what, reader, len, strerror(-rc));
    return rc < 0 ? rc : 0;
}

/* Maps rank k's private part for this rank over its public section (which must be mapped
 * first: mapping the public file later would cover it). */
static int map_private(const ivc_region_t *r, uint32_t k)
{
    struct ivc_sect_priv *p = &r->sec_priv[k];
    if (mmap(r->base + ivc_region_sect_off(r, k) + p->at, p->len, PROT_READ,
             MAP_SHARED | MAP_FIXED, p->fd, 0) == MAP_FAILED)
        return -errno;
    close(p->fd);
    p->fd = -1;
    __atomic_store_n(&p->mapped, 1, __ATOMIC_RELEASE);
    return 0;
}

/* Takes one section from the launcher's socket and maps it read-only. Returns 1 when one
 * was mapped (or a duplicate dropped), 0 when none came within wait_ms, -errno on a broken
 * socket or message. */
static int sect_receive(const ivc_region_t *r, int wait_ms)
{
    struct pollfd p = {r->sec_sock, POLLIN, 0};
    int n = poll(&p, 1, wait_ms);
    if (n <= 0)
        return n < 0 && errno != EINTR ? -errno : 0;
    ivc_sect_msg_t m;
    int fd;
    ssize_t got = ivc_fd_recv(r->sec_sock, &m, sizeof(m), &fd, 0);
    if (got == -EAGAIN)
        return 1;
    if (got == 0)
        return -ECONNRESET;
    int rc = 1;
    const char *why = "a malformed message";
    if (got != (ssize_t)sizeof(m) || m.magic != IVC_SECT_MAGIC || m.rank >= r->world_size ||
        fd < 0 ||
        (m.to != IVC_SECT_ALL && (m.to != r->sec_me || m.at % 4096 || m.len == 0 ||
                                  m.len % 4096 || m.at > r->sec_size ||
                                  m.len > r->sec_size - m.at))) {
        rc = -EPROTO;
    } else if (m.to != IVC_SECT_ALL) {
        /* A private part for this rank: mapped once the public section is. */
        struct ivc_sect_priv *p = &r->sec_priv[m.rank];
        if (p->fd < 0 && !p->mapped && (rc = ivc_region_sect_check(fd, m.len, &why)) == 0) {
            p->fd = fd;
            fd = -1;
            p->at = m.at;
            p->len = m.len;
            rc = r->sec_mapped[m.rank] ? map_private(r, m.rank) : 0;
            why = "a private part it cannot map";
            rc = rc == 0 ? 1 : rc;
        }
    } else if (!r->sec_mapped[m.rank] &&
               (rc = ivc_region_sect_check(fd, r->sec_size, &why)) == 0) {
        if (mmap(r->base + ivc_region_sect_off(r, m.rank), r->sec_size, PROT_READ,
                 MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
            rc = -errno;
            why = "a section it cannot map";
        } else {
            /* Published last: other threads read the section once they see this. */
            __atomic_store_n(&r->sec_mapped[m.rank], 1, __ATOMIC_RELEASE);
            rc = 1;
            if (r->sec_priv[m.rank].fd >= 0 && (rc = map_private(r, m.rank)) != 0)
                why = "a private part it cannot map";
            rc = rc == 0 ? 1 : rc;
        }
    }
    if (fd >= 0)
        close(fd);
    if (rc < 0)
        ivc_error("region %s: the launcher's section socket brought %s (%s)", r->path, why,
                  strerror(-rc));
    return rc;
}

/* Whether [off, off + len) lies in rank k's section (k < world_size, sections joined). */
static int in_section(const ivc_region_t *r, uint32_t k, uint64_t off, uint64_t len)
{
    uint64_t lo = ivc_region_sect_off(r, k);
    return off >= lo && off - lo <= r->sec_size && len <= r->sec_size - (off - lo);
}

/* Takes what the launcher sends until rank k's section (or, with `part`, its private part
 * for this rank) is mapped, as long as the join said. Returns 0, or -1 (printed) on
 * time-out or a broken socket. */
static int await(ivc_region_t *r, uint32_t k, int part)
{
    if (part ? __atomic_load_n(&r->sec_priv[k].mapped, __ATOMIC_ACQUIRE)
             : __atomic_load_n(&r->sec_mapped[k], __ATOMIC_ACQUIRE))
        return 0;
    uint64_t deadline = ivc_now_ns() + r->sec_wait_ms * 1000000ull;
    int rc = 0;
    pthread_mutex_lock(&sect_mu);
    while (!(part ? r->sec_priv[k].mapped : r->sec_mapped[k])) {
        uint64_t now = ivc_now_ns();
        if (now >= deadline) {
            ivc_error("region %s: rank %u's %s never came from the launcher", r->path, k,
                      part ? "part for this rank" : "section");
            rc = -1;
            break;
        }
        uint64_t left_ms = (deadline - now) / 1000000 + 1;
        /* The liveness thread's drain skips its turns while this holds the lock: it
         * takes sections on its own next round. */
        if (sect_receive(r, left_ms > 50 ? 50 : (int)left_ms) < 0) {
            rc = -1;
            break;
        }
    }
    pthread_mutex_unlock(&sect_mu);
    return rc;
}

void ivc_region_sect_drain(const ivc_region_t *r)
{
    if (r->sec_mapped == NULL || r->sec_sock < 0 || pthread_mutex_trylock(&sect_mu) != 0)
        return;
    while (sect_receive(r, 0) > 0)
        ;
    pthread_mutex_unlock(&sect_mu);
}

const ivc_sect_member_t *ivc_region_sect_member(const ivc_region_t *r, uint32_t k)
{
    if (r->sec_mapped == NULL || k >= r->world_size ||
        !__atomic_load_n(&r->sec_mapped[k], __ATOMIC_ACQUIRE))
        return NULL;
    return (const ivc_sect_member_t *)(r->base + ivc_region_sect_off(r, k));
}

void *ivc_region_sect_at(ivc_region_t *r, uint32_t k, uint64_t off, uint64_t len)
{
    if (r->sec_mapped == NULL || k >= r->world_size || !in_section(r, k, off, len))
        return NULL;
    return await(r, k, 0) == 0 ? r->base + off : NULL;
}

void *ivc_region_sect_private_at(ivc_region_t *r, uint32_t k, uint64_t off, uint64_t len)
{
    if (r->sec_mapped == NULL || k >= r->world_size || k == r->sec_me ||
        !in_section(r, k, off, len))
        return NULL;
    if (r->sec_dev)
        return r->base + off;
    struct ivc_sect_priv *p = &r->sec_priv[k];
    if (await(r, k, 1) != 0)
        return NULL;
    uint64_t lo = ivc_region_sect_off(r, k);
    if (p->at != off - lo || p->len != len) {
        ivc_error("region %s: rank %u made bytes %" PRIu64 "..%" PRIu64 " of its section private "
                  "for this rank, not %" PRIu64 "..%" PRIu64,
                  r->path, k, p->at, p->at + p->len, off - lo, off - lo + len);
        return NULL;
    }
    return r->base + off;
}

void ivc_region_sect_leave(ivc_region_t *r)
{
    for (uint32_t k = 0; r->sec_priv != NULL && k < r->world_size; k++)
        if (r->sec_priv[k].fd >= 0)
            close(r->sec_priv[k].fd);
    free(r->sec_priv);
    r->sec_priv = NULL;
    /* Only a joined region owns its socket (a zeroed ivc_region_t says fd 0). */
    if (r->sec_mapped != NULL && r->sec_sock >= 0)
        close(r->sec_sock);
    r->sec_sock = -1;
    free(r->sec_mapped);
    r->sec_mapped = NULL;
    free(r->sec_fail);
    r->sec_fail = NULL;
    r->sec_dev = 0;
}
