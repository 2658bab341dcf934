/* This rank's shared heap: one block of the region that every co-located rank maps, home of
 * MPI_Alloc_mem memory, window memory and (IVC_SHARED_HEAP) the program's large allocations.
 *
 * Why: a buffer that lies in the region needs no mapping step to be reached by a peer in
 * another VM, so a rendezvous whose sender's or receiver's buffer lies here copies once,
 * straight between the two buffers (shm_chan.c), instead of twice through the pipeline.
 *
 * The block is reserved from the region's bump allocator once per process (at the shm
 * channel's creation, so that its bounds go out in the receive block: ivc_rxblock_t.heap_off
 * and heap_len, which peers validate once at connect and against which they check every
 * offset this rank publishes). Its bookkeeping is private (first fit over a list of extents
 * sorted by offset, neighbours merged on free) so that nothing a peer writes into the region
 * can corrupt it; peers may write the data, which is what it is for.
 *
 * The heap is process-wide and thread-safe (one mutex): the malloc interposer
 * (mpi/env/mpi_malloc.c) calls it from any thread.
 *
 * Backing: a region that is a file (tmpfs) can be larger than the memory the filesystem
 * has left, and touching a page it cannot back raises SIGBUS where malloc would have failed
 * politely. So every allocation first reserves its pages with fallocate() (a high-water
 * mark: pages stay reserved after a free), and fails (the caller falls back to private
 * memory) when the filesystem is full. A region that cannot fallocate (an ivshmem BAR) is
 * backed by the host already.
 *
 * Lifetime: blocks stay valid after the region is left. ivc_shm_heap_close() (MPI_Finalize)
 * and the fork child handler replace the heap's pages by a private copy of its live blocks
 * (mremap over the same addresses), so a program that keeps using or freeing its buffers
 * after MPI_Finalize works, and a forked child gets copy-on-fork memory as everywhere else
 * instead of writing into its parent's buffers through the shared mapping. */
#ifndef IVC_SHM_HEAP_H
#define IVC_SHM_HEAP_H

#include "../region/region.h"

#include <stdatomic.h>
#include <stdint.h>

/* The heap's address range in this process ([lo, hi), both 0 when there is none); read on
 * every free() by the interposer, so plain globals (written once, before the heap is used). */
extern _Atomic(uintptr_t) ivc_shm_heap_lo, ivc_shm_heap_hi;

static inline int ivc_shm_heap_has(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return a >= atomic_load_explicit(&ivc_shm_heap_lo, memory_order_relaxed) &&
           a < atomic_load_explicit(&ivc_shm_heap_hi, memory_order_relaxed);
}

/* Reserves the heap of `bytes` (rounded to pages) from region `r`, once per process; a
 * second call returns 0 and keeps the first heap. At most `cap` bytes (0: no cap): the
 * caller's fair share of a region too small for every rank's full heap, so that the ranks
 * that allocate later still find room for their own blocks. When the region has less room
 * still, takes half of what is left. Below 1 MiB, or with `bytes` == 0, the process goes
 * without a heap (returns 0); either shortfall is said with ivc_debug. Returns 0 or
 * -ENOMEM (private bookkeeping). */
int ivc_shm_heap_init(ivc_region_t *r, uint64_t bytes, uint64_t cap);

/* The heap's region offset and length (both 0 when there is none). */
void ivc_shm_heap_bounds(uint64_t *off, uint64_t *len);

/* A block of at least `size` bytes aligned to `align` (a power of two; at least 64), or NULL
 * when the heap has none (no heap, full, closed, or the filesystem cannot back it). */
void *ivc_shm_heap_alloc(uint64_t size, uint64_t align);

/* Frees block p. Returns 1 when p was a block of the heap, 0 when p lies outside the heap,
 * -EINVAL when p lies inside but starts no live block (nothing is changed). */
int ivc_shm_heap_free(void *p);

/* Usable bytes of block p, or 0 when p starts no live block. */
uint64_t ivc_shm_heap_block_size(const void *p);

/* 1 and p's region offset when [p, p + len) lies inside the heap, else 0. */
int ivc_shm_heap_offset(const void *p, uint64_t len, uint64_t *off);

/* Stops handing out blocks. With `privatize`, also gives the live blocks private pages
 * holding their contents (see above); returns the bytes copied, or -errno (then the heap's
 * pages stay shared, which is what they were). The region layer is told (keep_off/keep_len)
 * not to unmap the range when it detaches. */
int64_t ivc_shm_heap_close(int privatize);

/* Statistics for ivc-info and the path report: bytes in live blocks, the most ever, and the
 * number of allocations refused for want of room. */
void ivc_shm_heap_stats(uint64_t *live, uint64_t *peak, uint64_t *refused);

#endif
