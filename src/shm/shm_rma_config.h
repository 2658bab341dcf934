/* Tunables of one-sided communication, MPI_Alloc_mem and the shared heap (shm_heap.h): the
 * size of each rank's arena in the region, and whether and from which size the program's
 * own allocations go there.
 *
 * The table lives in the shm layer (not in the MPI layer that uses the arena) because region
 * sizing (ivc_shm_region_bytes, used by ivcrun) must account for the arenas. */
#ifndef IVC_SHM_RMA_CONFIG_H
#define IVC_SHM_RMA_CONFIG_H

#include "../base/ivc_config.h"

#include <stdint.h>

typedef struct ivc_rma_config {
    uint64_t arena;          /* IVC_RMA_ARENA: bytes of each rank's arena in the region; 0 = none */
    const char *shared_heap; /* IVC_SHARED_HEAP: auto, on, off */
    uint64_t heap_size;      /* IVC_SHARED_HEAP_SIZE: heap bytes for the program's allocations */
    uint64_t heap_min;       /* IVC_SHARED_HEAP_MIN: smallest allocation placed in the heap */
    int heap_on;             /* IVC_SHARED_HEAP resolved (auto: on unless a sanitizer build) */
} ivc_rma_config_t;

extern const ivc_cfg_table_t ivc_rma_config_table;

/* Loads the table and resolves heap_on. Returns 0 or -EINVAL after logging which variable
 * is wrong. */
int ivc_rma_config_load(ivc_rma_config_t *cfg);

/* Region bytes one rank's heap takes (page-aligned): the RMA arena, plus the shared heap
 * when it is on; 0 when both are off. */
uint64_t ivc_rma_arena_bytes(const ivc_rma_config_t *cfg);

#endif
