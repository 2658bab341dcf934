#define _GNU_SOURCE /* fallocate, mremap */

#include "shm_heap.h"

#include "../base/ivc_log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GRAIN     64u         /* cache line: blocks never share a line */
#define PAGE      4096u
#define HEAP_MIN  (1u << 20)  /* a smaller share of a full region is not worth having */

_Atomic(uintptr_t) ivc_shm_heap_lo, ivc_shm_heap_hi;

typedef struct extent {
    struct extent *next;
    uint64_t off, len; /* relative to the heap */
    int used;
} extent_t;

static struct {
    pthread_mutex_t lock;
    ivc_region_t *region;
    uint8_t *base; /* NULL: no heap */
    uint64_t off, size;
    extent_t *head;    /* every extent, free or used, by offset */
    uint64_t reserved; /* heap bytes from the start whose pages fallocate() has backed */
    int no_reserve;    /* the region cannot fallocate (a BAR): backed already */
    int closed;
    uint64_t live, peak, refused;
} H = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* ---- fork: the child gets private pages (see the header) ---- */

static int64_t privatize_locked(void);

static void atfork_prepare(void)
{
    pthread_mutex_lock(&H.lock);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&H.lock);
}

static void atfork_child(void)
{
    /* Only this thread exists in the child; the lock was held by it in prepare. */
    pthread_mutex_unlock(&H.lock);
    if (H.base == NULL)
        return;
    H.closed = 1;
    if (H.live != 0 && privatize_locked() < 0) {
        /* Its buffers would stay shared with the parent: unusable. The child's program
         * cannot be told, so it must not run on. */
        static const char msg[] = "ivc: a forked child could not get a private copy of its "
                                  "shared-heap buffers; it exits (IVC_SHARED_HEAP=off avoids "
                                  "this)\n";
        ssize_t w = write(2, msg, sizeof(msg) - 1);
        (void)w;
        _exit(127);
    }
}

int ivc_shm_heap_init(ivc_region_t *r, uint64_t bytes, uint64_t cap)
{
    pthread_mutex_lock(&H.lock);
    if (H.base != NULL || H.region != NULL || bytes == 0) {
        pthread_mutex_unlock(&H.lock);
        return 0;
    }
    H.region = r; /* tried once, whatever comes of it */
    bytes = align_up(bytes, PAGE);
    if (cap != 0 && bytes > cap) {
        ivc_debug("the region holds a %llu-byte shared heap per rank, not %llu",
                  (unsigned long long)cap, (unsigned long long)bytes);
        bytes = cap / PAGE * PAGE;
        if (bytes < HEAP_MIN) {
            pthread_mutex_unlock(&H.lock);
            return 0;
        }
    }
    /* Room left in the region: a heap never takes more than half of it, so that the other
     * ranks' blocks (allocated later, e.g. collective areas) still fit. */
    uint64_t next = ivc_load_relaxed(&ivc_region_hdr(r)->heap_next);
    uint64_t room = next < r->heap_end ? r->heap_end - next : 0;
    if (bytes + 2 * PAGE > room) {
        uint64_t share = room / 2 / PAGE * PAGE;
        if (share < HEAP_MIN) {
            ivc_debug("no room for a shared heap in the region (%llu bytes left)",
                      (unsigned long long)room);
            pthread_mutex_unlock(&H.lock);
            return 0;
        }
        ivc_debug("the region has room for a %llu-byte shared heap, not %llu",
                  (unsigned long long)share, (unsigned long long)bytes);
        bytes = share;
    }
    uint64_t off;
    extent_t *e = malloc(sizeof(*e));
    if (e == NULL) {
        pthread_mutex_unlock(&H.lock);
        return -ENOMEM;
    }
    if (ivc_region_alloc(r, bytes, PAGE, &off) != 0 || ivc_region_at(r, off, bytes) == NULL) {
        free(e);
        pthread_mutex_unlock(&H.lock);
        return 0;
    }
    *e = (extent_t){NULL, 0, bytes, 0};
    H.base = r->base + off;
    H.off = off;
    H.size = bytes;
    H.head = e;
    H.no_reserve = r->fd < 0;
    atomic_store_explicit(&ivc_shm_heap_hi, (uintptr_t)(H.base + bytes), memory_order_relaxed);
    atomic_store_explicit(&ivc_shm_heap_lo, (uintptr_t)H.base, memory_order_relaxed);
    static int registered;
    if (!registered && pthread_atfork(atfork_prepare, atfork_parent, atfork_child) == 0)
        registered = 1;
    pthread_mutex_unlock(&H.lock);
    return 0;
}

void ivc_shm_heap_bounds(uint64_t *off, uint64_t *len)
{
    *off = H.base != NULL ? H.off : 0;
    *len = H.base != NULL ? H.size : 0;
}

/* Backs heap bytes [0, end) with pages of the region file. Returns 0 or -ENOSPC. */
static int reserve_locked(uint64_t end)
{
    if (H.no_reserve || end <= H.reserved)
        return 0;
    end = align_up(end, 1u << 20) < H.size ? align_up(end, 1u << 20) : H.size;
    if (fallocate(H.region->fd, 0, (off_t)(H.off + H.reserved), (off_t)(end - H.reserved)) != 0) {
        if (errno == ENOSPC || errno == EFBIG || errno == EINTR)
            return -ENOSPC;
        /* Not a filesystem that reserves (a BAR, a device): the host backs it. */
        H.no_reserve = 1;
        return 0;
    }
    H.reserved = end;
    return 0;
}

void *ivc_shm_heap_alloc(uint64_t size, uint64_t align)
{
    if (H.base == NULL)
        return NULL;
    if (align < GRAIN)
        align = GRAIN;
    if (size > (UINT64_MAX >> 2) || (align & (align - 1)) != 0 || align > (1u << 30))
        return NULL;
    uint64_t len = size == 0 ? GRAIN : align_up(size, GRAIN);
    void *out = NULL;
    pthread_mutex_lock(&H.lock);
    if (H.closed) {
        pthread_mutex_unlock(&H.lock);
        return NULL;
    }
    for (extent_t *e = H.head; e != NULL; e = e->next) {
        if (e->used)
            continue;
        /* The block starts at the first aligned address of the extent (absolute, since
         * callers align addresses, and the heap is only page-aligned). */
        uint64_t abs = (uint64_t)(uintptr_t)(H.base + e->off);
        uint64_t pad = align_up(abs, align) - abs;
        if (pad > e->len || len > e->len - pad)
            continue;
        if (reserve_locked(e->off + pad + len) != 0)
            break;
        extent_t *front = NULL, *rest = NULL;
        if (pad && (front = malloc(sizeof(*front))) == NULL)
            break;
        if (e->len > pad + len && (rest = malloc(sizeof(*rest))) == NULL) {
            free(front);
            break;
        }
        if (rest != NULL) {
            *rest = (extent_t){e->next, e->off + pad + len, e->len - pad - len, 0};
            e->next = rest;
        }
        if (front != NULL) {
            /* e becomes the free front; the block follows it. */
            *front = (extent_t){e->next, e->off + pad, len, 1};
            e->next = front;
            e->len = pad;
            e = front;
        } else {
            e->len = len;
            e->used = 1;
        }
        H.live += len;
        if (H.live > H.peak)
            H.peak = H.live;
        out = H.base + e->off;
        break;
    }
    if (out == NULL)
        H.refused++;
    pthread_mutex_unlock(&H.lock);
    return out;
}

static extent_t *find_locked(const void *p, extent_t **prev)
{
    uint64_t off = (uint64_t)((const uint8_t *)p - H.base);
    extent_t *pr = NULL;
    for (extent_t *e = H.head; e != NULL && e->off <= off; pr = e, e = e->next) {
        if (e->off == off && e->used) {
            if (prev)
                *prev = pr;
            return e;
        }
    }
    return NULL;
}

int ivc_shm_heap_free(void *p)
{
    if (!ivc_shm_heap_has(p))
        return 0;
    pthread_mutex_lock(&H.lock);
    extent_t *prev = NULL, *e = find_locked(p, &prev);
    if (e == NULL) {
        pthread_mutex_unlock(&H.lock);
        return -EINVAL;
    }
    e->used = 0;
    H.live -= e->len;
    extent_t *n = e->next;
    if (n != NULL && !n->used) {
        e->len += n->len;
        e->next = n->next;
        free(n);
    }
    if (prev != NULL && !prev->used) {
        prev->len += e->len;
        prev->next = e->next;
        free(e);
    }
    pthread_mutex_unlock(&H.lock);
    return 1;
}

uint64_t ivc_shm_heap_block_size(const void *p)
{
    if (!ivc_shm_heap_has(p))
        return 0;
    pthread_mutex_lock(&H.lock);
    extent_t *e = find_locked(p, NULL);
    uint64_t len = e != NULL ? e->len : 0;
    pthread_mutex_unlock(&H.lock);
    return len;
}

int ivc_shm_heap_offset(const void *p, uint64_t len, uint64_t *off)
{
    if (H.base == NULL || !ivc_shm_heap_has(p))
        return 0;
    uint64_t o = (uint64_t)((const uint8_t *)p - H.base);
    if (len > H.size - o)
        return 0;
    *off = H.off + o;
    return 1;
}

/* Replaces the heap's shared pages by private ones holding the live blocks, in one step
 * (mremap), so that no thread ever sees the range unmapped or empty. The copy is built in
 * an anonymous mapping between two PROT_NONE guard pages, which keeps the kernel from
 * merging it with a neighbouring mapping (a merged, forked one may refuse to move). */
static int64_t privatize_locked(void)
{
    uint8_t *g = mmap(NULL, H.size + 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g == MAP_FAILED)
        return -errno;
    uint8_t *tmp = g + PAGE;
    if (mprotect(tmp, H.size, PROT_READ | PROT_WRITE) != 0) {
        int err = errno;
        munmap(g, H.size + 2 * PAGE);
        return -err;
    }
    int64_t copied = 0;
    for (extent_t *e = H.head; e != NULL; e = e->next) {
        if (!e->used)
            continue;
        memcpy(tmp + e->off, H.base + e->off, e->len);
        copied += (int64_t)e->len;
    }
    int err = 0;
    /* The system call itself: UCX's memory hooks (libucm) replace mremap() with a version
     * that drops the fifth argument, so MREMAP_FIXED fails with EINVAL through libc. */
    if ((void *)syscall(SYS_mremap, tmp, H.size, H.size, MREMAP_MAYMOVE | MREMAP_FIXED,
                        H.base) == MAP_FAILED)
        err = errno;
    munmap(g, PAGE);
    munmap(err ? g + PAGE : g + PAGE + H.size, err ? H.size + PAGE : PAGE);
    return err ? -err : copied;
}

int64_t ivc_shm_heap_close(int privatize)
{
    int64_t rc = 0;
    pthread_mutex_lock(&H.lock);
    if (H.base != NULL && !H.closed) {
        H.closed = 1;
        if (privatize && H.live != 0) {
            rc = privatize_locked();
            if (rc >= 0) {
                /* Detaching the region must leave these pages mapped. */
                H.region->keep_off = H.off;
                H.region->keep_len = H.size;
            }
        }
    }
    pthread_mutex_unlock(&H.lock);
    return rc;
}

void ivc_shm_heap_stats(uint64_t *live, uint64_t *peak, uint64_t *refused)
{
    pthread_mutex_lock(&H.lock);
    *live = H.live;
    *peak = H.peak;
    *refused = H.refused;
    pthread_mutex_unlock(&H.lock);
}
