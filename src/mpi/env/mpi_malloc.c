/* The program's large allocations in the shared heap (IVC_SHARED_HEAP).
 *
 * libivcmpi defines malloc, free, calloc, realloc, reallocarray, posix_memalign,
 * aligned_alloc, memalign and malloc_usable_size. A program linked with it (mpicc puts
 * -livcmpi before libc) resolves these here, libc's own internal calls included, so that
 * between MPI_Init and MPI_Finalize an allocation of at least IVC_SHARED_HEAP_MIN bytes
 * comes from this rank's shared heap (shm/shm_heap.h), where a peer in any VM reaches it
 * and a message from or into it is copied once (shm_chan.c "One copy"). Everything else
 * goes to glibc's allocator through its __libc_* entry points, so the cost for a small
 * allocation is one load and one compare, and for a free two compares (is the pointer in
 * the heap's address range).
 *
 * It never breaks a program (each case falls back to ordinary memory):
 *  - before MPI_Init and after MPI_Finalize (heap_min is 0): glibc. Blocks handed out
 *    before MPI_Finalize stay valid after it (shm_heap.h: their pages become private).
 *  - heap full, or the region's filesystem cannot back more pages: glibc.
 *  - fork: the child gets private copies of the heap's live blocks (shm_heap.c) and takes
 *    nothing more from the heap; it never writes into its parent's buffers.
 *  - free/realloc/malloc_usable_size of memory the heap did not give (glibc's, memory from
 *    before MPI_Init, valloc/pvalloc, which are not replaced): glibc, by address range.
 *  - realloc of glibc memory stays in glibc (its usable size is glibc's to know).
 *  - a free of an address inside the heap that starts no block is ignored, where glibc
 *    would abort: it cannot be glibc's either.
 *  - programs that load libivcmpi with dlopen (mpi4py) keep the allocator found first
 *    (glibc's): these definitions are then never called, and nothing mixes.
 *  - sanitizer builds: ASan's allocator must see every block, so nothing is defined here
 *    (IVC_SHARED_HEAP resolves to off; shm_rma_config.c). */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "mpi_impl.h"

#include "shm/shm_heap.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define IVC_NO_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IVC_NO_MALLOC 1
#endif
#endif

/* Smallest allocation placed in the heap; 0 while the heap takes none. */
static _Atomic(size_t) heap_min;

void ivc_mpi_malloc_start(uint64_t min)
{
    atomic_store_explicit(&heap_min, (size_t)(min ? min : 1), memory_order_release);
}

void ivc_mpi_malloc_stop(void)
{
    atomic_store_explicit(&heap_min, 0, memory_order_release);
}

#ifndef IVC_NO_MALLOC

#define EXPORT __attribute__((visibility("default")))

extern void *__libc_malloc(size_t n);
extern void __libc_free(void *p);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static inline int heap_wanted(size_t n)
{
    size_t min = atomic_load_explicit(&heap_min, memory_order_relaxed);
    return __builtin_expect(min != 0, 0) && n >= min;
}

EXPORT void *malloc(size_t n)
{
    if (heap_wanted(n)) {
        void *p = ivc_shm_heap_alloc(n, 64);
        if (p != NULL)
            return p;
    }
    return __libc_malloc(n);
}

EXPORT void free(void *p)
{
    if (__builtin_expect(ivc_shm_heap_has(p), 0)) {
        ivc_shm_heap_free(p); /* -EINVAL (no block there) is ignored: see above */
        return;
    }
    __libc_free(p);
}

EXPORT void *calloc(size_t n, size_t m)
{
    size_t total;
    if (__builtin_mul_overflow(n, m, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    if (heap_wanted(total)) {
        void *p = ivc_shm_heap_alloc(total, 64);
        if (p != NULL) {
            memset(p, 0, total); /* a block may have been used before */
            return p;
        }
    }
    return __libc_calloc(n, m);
}

EXPORT void *realloc(void *p, size_t n)
{
    if (!ivc_shm_heap_has(p))
        return p == NULL ? malloc(n) : __libc_realloc(p, n);
    uint64_t old = ivc_shm_heap_block_size(p);
    if (old == 0) {
        /* Inside the heap but no block: a wild pointer. glibc would abort; so do we, since
         * the program's memory is not what it believes. */
        static const char msg[] = "ivc: realloc() of a pointer that is not a block of the "
                                  "shared heap\n";
        ssize_t w = write(2, msg, sizeof(msg) - 1);
        (void)w;
        abort();
    }
    if (n == 0) {
        ivc_shm_heap_free(p);
        return NULL;
    }
    if (n <= old && n >= old / 2)
        return p;
    void *q = malloc(n);
    if (q == NULL)
        return NULL; /* p stays valid, as realloc requires */
    memcpy(q, p, n < old ? n : old);
    ivc_shm_heap_free(p);
    return q;
}

EXPORT void *reallocarray(void *p, size_t n, size_t m)
{
    size_t total;
    if (__builtin_mul_overflow(n, m, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, total);
}

static void *aligned(size_t align, size_t n)
{
    if (heap_wanted(n)) {
        void *p = ivc_shm_heap_alloc(n, align);
        if (p != NULL)
            return p;
    }
    return __libc_memalign(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)) != 0)
        return EINVAL;
    void *p = aligned(align, n);
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (align == 0 || (align & (align - 1)) != 0) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(align, n);
}

EXPORT void *memalign(size_t align, size_t n)
{
    if (align & (align - 1)) { /* glibc rounds up to a power of two */
        size_t a = 1;
        while (a < align && a)
            a <<= 1;
        align = a;
    }
    return aligned(align ? align : 1, n);
}

/* glibc's, found once: it has no __libc_ entry point. */
static size_t (*libc_usable)(void *);

EXPORT size_t malloc_usable_size(void *p)
{
    if (ivc_shm_heap_has(p))
        return (size_t)ivc_shm_heap_block_size(p);
    if (p == NULL)
        return 0;
    size_t (*f)(void *) = __atomic_load_n(&libc_usable, __ATOMIC_ACQUIRE);
    if (f == NULL) {
        f = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
        if (f == NULL || f == malloc_usable_size)
            return 0;
        __atomic_store_n(&libc_usable, f, __ATOMIC_RELEASE);
    }
    return f(p);
}

#endif
