#include "shm_rma_config.h"

#include <stddef.h>

/* The default holds a 4 MiB window (bench/rma.c's largest size) plus a few small ones; the
 * region file is sparse, so untouched arena pages cost nothing. */
static const ivc_cfg_entry_t rma_entries[] = {
    {"RMA_ARENA", "8M",
     "bytes of each rank's arena in the region, from which MPI_Alloc_mem and "
     "MPI_Win_allocate(_shared) take memory that co-located ranks reach with plain loads and "
     "stores; beyond it they fall back to private memory (reached through the target); 0 = none",
     IVC_CFG_SIZE, 0, (uint64_t)1 << 40, offsetof(ivc_rma_config_t, arena)},
};

const ivc_cfg_table_t ivc_rma_config_table = {"one-sided and MPI_Alloc_mem", rma_entries,
                                              sizeof(rma_entries) / sizeof(rma_entries[0])};

int ivc_rma_config_load(ivc_rma_config_t *cfg)
{
    return ivc_cfg_load(&ivc_rma_config_table, cfg);
}

uint64_t ivc_rma_arena_bytes(const ivc_rma_config_t *cfg)
{
    return (cfg->arena + 4095) / 4096 * 4096;
}
