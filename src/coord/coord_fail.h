/* The coordinator's failure detector (coord_fail.c); private to src/coord. The public side
 * (what the MPI layer may ask) is in coord.h. */
#ifndef IVC_COORD_FAIL_H
#define IVC_COORD_FAIL_H

#include "coord.h"

typedef struct ivc_fail_config {
    uint64_t timeout_ms; /* IVC_LIVENESS_TIMEOUT */
    uint64_t period_ms;  /* IVC_HEARTBEAT_PERIOD */
} ivc_fail_config_t;

extern const ivc_cfg_table_t ivc_fail_config_table;

/* Reads the tunables and sets up the per-rank tables for this rank `me` of region `r` (NULL
 * for a singleton); `up` is the MPI layer's. Returns 0, -EINVAL (bad tunable, logged) or
 * -ENOMEM. */
int ivc_coord_fail_init(const ivc_region_t *r, uint32_t me, const ivc_chan_upcalls_t *up);
/* Starts / stops the liveness thread (after this rank locked and joined its slot / before
 * it lets go of them). Start returns 0 or -errno (logged). */
int ivc_coord_fail_start(void);
void ivc_coord_fail_stop(void);
/* Starts the liveness thread again after a stop, on the region the state points at (which
 * migration replaced in place: coord_move.c), with fresh clocks. Returns as start does. */
int ivc_coord_fail_restart(void);
void ivc_coord_fail_free(void);

/* The channels' on_peer_failed: records the failure and tells the MPI layer once. */
void ivc_coord_on_peer_failed(void *arg, int peer, int err);

/* Turns slots the liveness thread saw turn FAILED into channel failures. Returns how many
 * peers it handled. Called when ivc_coord.fail_pending is set. */
int ivc_coord_fail_handle(void);

#endif
