#include "shm_rma_config.h"

#include "../base/ivc_log.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Sanitizer builds interpose malloc themselves (ASan's allocator must see every block), so
 * the shared heap does not take the program's allocations there. */
#if defined(__SANITIZE_ADDRESS__)
#define HEAP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_SANITIZED 1
#endif
#endif
#ifndef HEAP_SANITIZED
#define HEAP_SANITIZED 0
#endif

/* The arena default holds a 4 MiB window (bench/rma.c's largest size) plus a few small ones;
 * the shared heap's default holds a few large buffers of a benchmark's cyclic pool or an
 * application's arrays. The region file is sparse and every block's pages are reserved only
 * when it is handed out (shm_heap.h), so an unused heap costs nothing. */
static const ivc_cfg_entry_t rma_entries[] = {
    {"RMA_ARENA", "8M",
     "bytes of each rank's arena in the region, from which MPI_Alloc_mem and "
     "MPI_Win_allocate(_shared) take memory that co-located ranks reach with plain loads and "
     "stores; beyond it they fall back to private memory (reached through the target); 0 = none",
     IVC_CFG_SIZE, 0, (uint64_t)1 << 40, offsetof(ivc_rma_config_t, arena)},
    {"SHARED_HEAP", "off",
     "on: the program's large allocations (malloc, calloc, realloc, posix_memalign, "
     "aligned_alloc, memalign from IVC_SHARED_HEAP_MIN bytes) go to this rank's shared heap in "
     "the region, so that messages from and into them are copied once, but every VM of the "
     "job can then read and write them (containment traded for one copy); off (the default): "
     "the program's memory stays private; auto = on except in sanitizer builds (which "
     "interpose malloc themselves)",
     IVC_CFG_STRING, 0, 0, offsetof(ivc_rma_config_t, shared_heap)},
    {"SHARED_HEAP_SIZE", "256M",
     "bytes each rank's shared heap adds to its arena for the program's allocations when "
     "IVC_SHARED_HEAP is on; allocations beyond it use private memory",
     IVC_CFG_SIZE, 0, (uint64_t)1 << 40, offsetof(ivc_rma_config_t, heap_size)},
    {"SHARED_HEAP_MIN", "64K",
     "allocations of at least this many bytes go to the shared heap (smaller ones rarely "
     "carry large messages, and would fragment it); at least 4K",
     IVC_CFG_SIZE, 4096, (uint64_t)1 << 40, offsetof(ivc_rma_config_t, heap_min)},
};

const ivc_cfg_table_t ivc_rma_config_table = {"one-sided, MPI_Alloc_mem and the shared heap",
                                              rma_entries,
                                              sizeof(rma_entries) / sizeof(rma_entries[0])};

int ivc_rma_config_load(ivc_rma_config_t *cfg)
{
    int rc = ivc_cfg_load(&ivc_rma_config_table, cfg);
    if (rc != 0)
        return rc;
    const char *h = cfg->shared_heap;
    if (strcmp(h, "auto") == 0)
        cfg->heap_on = !HEAP_SANITIZED;
    else if (strcmp(h, "on") == 0 || strcmp(h, "yes") == 0 || strcmp(h, "1") == 0)
        cfg->heap_on = 1;
    else if (strcmp(h, "off") == 0 || strcmp(h, "no") == 0 || strcmp(h, "0") == 0)
        cfg->heap_on = 0;
    else {
        ivc_error("IVC_SHARED_HEAP=%s must be auto, on or off", h);
        return -EINVAL;
    }
    if (HEAP_SANITIZED && cfg->heap_on) {
        ivc_warn("IVC_SHARED_HEAP=%s: this is a sanitizer build, whose allocator takes every "
                 "malloc; the shared heap holds MPI_Alloc_mem memory only",
                 h);
        cfg->heap_on = 0;
    }
    return 0;
}

uint64_t ivc_rma_arena_bytes(const ivc_rma_config_t *cfg)
{
    uint64_t bytes = cfg->arena + (cfg->heap_on ? cfg->heap_size : 0);
    return (bytes + 4095) / 4096 * 4096;
}
