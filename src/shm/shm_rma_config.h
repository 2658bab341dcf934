/* Tunables of one-sided communication and MPI_Alloc_mem: the size of each rank's arena in
 * the region.
 *
 * The table lives in the shm layer (not in the MPI layer that uses the arena) because region
 * sizing (ivc_shm_region_bytes, used by ivcrun) must account for the arenas. */
#ifndef IVC_SHM_RMA_CONFIG_H
#define IVC_SHM_RMA_CONFIG_H

#include "../base/ivc_config.h"

#include <stdint.h>

typedef struct ivc_rma_config {
    uint64_t arena; /* IVC_RMA_ARENA: bytes of each rank's arena in the region; 0 = none */
} ivc_rma_config_t;

extern const ivc_cfg_table_t ivc_rma_config_table;

/* Loads the table. Returns 0 or -EINVAL after logging which variable is wrong. */
int ivc_rma_config_load(ivc_rma_config_t *cfg);

/* Region bytes one rank's arena takes (page-aligned), 0 when disabled. */
uint64_t ivc_rma_arena_bytes(const ivc_rma_config_t *cfg);

#endif
