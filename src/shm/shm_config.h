/* Tunables and region sizing of the shared-memory channel. */
#ifndef IVC_SHM_CONFIG_H
#define IVC_SHM_CONFIG_H

#include "../base/ivc_config.h"

#include <stdint.h>

typedef struct ivc_shm_config {
    uint64_t eager_limit; /* IVC_EAGER_LIMIT: largest message sent eagerly */
    uint64_t ring_size;   /* IVC_RING_SIZE: eager ring bytes per ordered pair */
    uint64_t chunk_size;  /* IVC_CHUNK_SIZE: rendezvous pipeline chunk bytes */
    uint64_t nchunks;     /* IVC_CHUNKS: pipeline chunks per ordered pair */
} ivc_shm_config_t;

extern const ivc_cfg_table_t ivc_shm_config_table;

/* Loads and cross-checks the table (e.g. a ring must hold two eager records).
 * Returns 0 or -EINVAL after logging which variables disagree. */
int ivc_shm_config_load(ivc_shm_config_t *cfg);

/* Bytes of one rank's receive block when `nlocal` ranks share the region. */
/* Distance between consecutive inboxes of a receive block. */
uint64_t ivc_shm_inbox_stride(const ivc_shm_config_t *cfg);

uint64_t ivc_shm_rxblock_bytes(const ivc_shm_config_t *cfg, uint32_t nlocal);

/* Region size that holds a job of `world` ranks all sharing it, rounded up to a power of
 * two (ivshmem BARs must be one); 0 with -EINVAL logged if the tunables are invalid. */
uint64_t ivc_shm_region_bytes(uint32_t world);

#endif
