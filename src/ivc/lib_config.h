/* libivc's tunables (one table, IVC_LIB_* variables). The geometry rows are used by the
 * process that sets up libivc's area in a region; later processes use what it recorded.
 * Compiled into the core library too, so that ivc-info and the MPI layer's check for
 * unknown IVC_* variables know these names. */
#ifndef IVC_LIB_CONFIG_H
#define IVC_LIB_CONFIG_H

#include "../base/ivc_config.h"

#include <stdint.h>

typedef struct ivclib_config {
    uint64_t endpoints, channels, ring_size, ports, lanes, lane_size, barriers, objects, locks,
        log_size;
    uint64_t spin, yields, sleep_max_us, wait_timeout_ms;
    uint64_t heartbeat_ms, liveness_ms, event_us;
    uint64_t region_size;
} ivclib_config_t;

extern const ivc_cfg_table_t ivclib_config_table;

/* Loads and checks the table (powers of two where the layout needs them). Returns 0 or
 * -EINVAL after logging which variable is wrong. */
int ivclib_config_load(ivclib_config_t *c);

#endif
