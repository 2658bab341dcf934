/* MPI_Alloc_mem / MPI_Free_mem and this rank's arena in the region.
 *
 * The region's allocator is a shared bump pointer with no free, so at MPI_Init each rank
 * reserves one arena of IVC_RMA_ARENA bytes from it and manages that privately: a list of
 * extents sorted by offset, first fit, neighbours merged on free. The arena belongs to this
 * rank alone and its bookkeeping lives in private memory, so nothing a peer writes into the
 * region can corrupt it (peers may write the arena's data through windows, which is what it
 * is for). Memory from the arena is reachable by every co-located rank, in any VM, at the
 * same region offset: windows over it need no target involvement (mpi_win.c). */
#include "mpi_impl.h"

#include "base/ivc_log.h"
#include "shm/shm_rma_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GRAIN 64 /* cache line: blocks never share a line */

typedef struct extent {
    struct extent *next;
    uint64_t off, len; /* relative to the arena */
    int used;
} extent_t;

static struct {
    uint8_t *base; /* NULL: no arena */
    uint64_t size;
    extent_t *head; /* every extent, free or used, by offset */
} arena;

/* Returns 0 (also when there is no arena: then everything uses malloc), -EINVAL for an
 * invalid IVC_RMA_ARENA, or -ENOMEM. */
int ivc_mpi_mem_init(void)
{
    ivc_rma_config_t cfg;
    memset(&arena, 0, sizeof(arena));
    int rc = ivc_rma_config_load(&cfg); /* logs the variable that is wrong */
    if (rc != 0)
        return rc;
    if (!ivc_coord.have_region)
        return 0;
    uint64_t bytes = ivc_rma_arena_bytes(&cfg), off;
    if (bytes == 0)
        return 0;
    /* A region sized by another tool may lack room: then everything uses private memory. */
    if (ivc_region_alloc(&ivc_coord.region, bytes, 4096, &off) != 0) {
        ivc_debug("no room for a %llu-byte RMA arena in the region; MPI_Alloc_mem uses malloc",
                  (unsigned long long)bytes);
        return 0;
    }
    uint8_t *p = ivc_region_at(&ivc_coord.region, off, bytes);
    if (p == NULL)
        return 0;
    extent_t *e = malloc(sizeof(*e));
    if (e == NULL)
        return -ENOMEM;
    *e = (extent_t){NULL, 0, bytes, 0};
    arena.base = p;
    arena.size = bytes;
    arena.head = e;
    return 0;
}

void ivc_mpi_mem_finalize(void)
{
    while (arena.head != NULL) {
        extent_t *e = arena.head;
        arena.head = e->next;
        free(e);
    }
    arena.base = NULL;
}

void *ivc_mpi_mem_arena_alloc(uint64_t size)
{
    if (arena.base == NULL)
        return NULL;
    uint64_t len = size == 0 ? GRAIN : (size + GRAIN - 1) / GRAIN * GRAIN;
    if (len < size) /* overflow */
        return NULL;
    for (extent_t *e = arena.head; e != NULL; e = e->next) {
        if (e->used || e->len < len)
            continue;
        if (e->len > len) {
            extent_t *rest = malloc(sizeof(*rest));
            if (rest == NULL)
                return NULL;
            *rest = (extent_t){e->next, e->off + len, e->len - len, 0};
            e->next = rest;
            e->len = len;
        }
        e->used = 1;
        return arena.base + e->off;
    }
    return NULL;
}

int ivc_mpi_mem_arena_free(void *p)
{
    uint8_t *b = p;
    if (arena.base == NULL || b < arena.base || b >= arena.base + arena.size)
        return 0;
    uint64_t off = (uint64_t)(b - arena.base);
    extent_t *prev = NULL;
    for (extent_t *e = arena.head; e != NULL; prev = e, e = e->next) {
        if (e->off != off || !e->used)
            continue;
        e->used = 0;
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
        return 1;
    }
    return 0;
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
