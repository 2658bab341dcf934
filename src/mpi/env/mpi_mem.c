/* MPI_Alloc_mem / MPI_Free_mem, and this rank's shared heap in the region.
 *
 * The heap (shm/shm_heap.h) is one block of the region per rank with private bookkeeping,
 * reserved when the shm channel starts (or here, for a rank with no co-located peer):
 * IVC_RMA_ARENA bytes for MPI_Alloc_mem and window memory, plus IVC_SHARED_HEAP_SIZE for the
 * program's own large allocations when IVC_SHARED_HEAP is on (mpi_malloc.c). Memory from it
 * is reachable by every co-located rank, in any VM, at the same region offset: windows over
 * it need no target involvement (mpi_win.c) and messages from or into it are copied once
 * (shm_chan.c). With IVC_RMA_ARENA=0, MPI_Alloc_mem and windows use private memory even
 * when the shared heap is on (windows are then reached through the target, which is what
 * that setting is for). */
#include "mpi_impl.h"

#include "base/ivc_log.h"
#include "shm/shm_heap.h"
#include "shm/shm_rma_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GRAIN 64 /* cache line: blocks never share a line */

static int rma_arena; /* MPI_Alloc_mem and windows take heap memory */

/* Returns 0 (also when there is no heap: then everything uses malloc), -EINVAL for an
 * invalid tunable, or -ENOMEM. */
int ivc_mpi_mem_init(void)
{
    ivc_rma_config_t cfg;
    rma_arena = 0;
    int rc = ivc_rma_config_load(&cfg); /* logs the variable that is wrong */
    if (rc != 0)
        return rc;
    /* A rank that may migrate keeps nothing of the program's in a region it may leave. */
    if (!ivc_coord.have_region || ivc_coord.migrate)
        return 0;
    /* Done already when the shm channel started; a region sized by another tool may lack
     * room: then everything uses private memory. */
    if ((rc = ivc_shm_heap_init(&ivc_coord.region, ivc_rma_arena_bytes(&cfg), 0)) != 0)
        return rc;
    uint64_t off, len;
    ivc_shm_heap_bounds(&off, &len);
    if (len == 0) {
        ivc_debug("no shared heap in the region; MPI_Alloc_mem uses malloc");
        return 0;
    }
    rma_arena = cfg.arena != 0;
    if (cfg.heap_on)
        ivc_mpi_malloc_start(cfg.heap_min);
    return 0;
}

void ivc_mpi_mem_finalize(void)
{
    ivc_mpi_malloc_stop();
    /* Blocks the program still holds keep their contents in private pages. */
    int64_t rc = ivc_shm_heap_close(1);
    if (rc < 0)
        ivc_warn("the shared heap's blocks stay in the region after MPI_Finalize (%s)",
                 strerror((int)-rc));
    rma_arena = 0;
}

void *ivc_mpi_mem_arena_alloc(uint64_t size)
{
    return rma_arena ? ivc_shm_heap_alloc(size, GRAIN) : NULL;
}

int ivc_mpi_mem_arena_free(void *p)
{
    return ivc_shm_heap_free(p) == 1;
}

int ivc_mpi_mem_region_off(const void *p, uint64_t len, uint64_t *off)
{
    const ivc_region_t *r = &ivc_coord.region;
    const uint8_t *b = p;
    if (!ivc_coord.have_region || b < r->base || b >= r->base + r->size)
        return 0;
    uint64_t o = (uint64_t)(b - r->base);
    if (len > r->size - o)
        return 0;
    *off = o;
    return 1;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    const char *fn = "MPI_Alloc_mem";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (size < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_SIZE, fn, "negative size %ld", size);
    CHECK_NULL_ARG(MPI_COMM_WORLD, baseptr, fn, "baseptr");
    void *p = ivc_mpi_mem_arena_alloc((uint64_t)size);
    if (p == NULL && posix_memalign(&p, GRAIN, size > 0 ? (size_t)size : 1) != 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "cannot allocate %ld bytes", size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    int rc = ivc_mpi_check_init("MPI_Free_mem");
    if (rc != MPI_SUCCESS)
        return rc;
    /* Region memory that is not an arena block was never ours to free. */
    uint64_t off;
    if (base != NULL && !ivc_mpi_mem_arena_free(base) && !ivc_mpi_mem_region_off(base, 0, &off))
        free(base);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Free_mem)
