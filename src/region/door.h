/* Doorbells: how a waiting rank sleeps and how a peer wakes it.
 *
 * Each rank has a slot in the region's doorbell table (ivc_door_t, region_layout.h) and a
 * doorbell outside it: an eventfd it blocks on, which its co-located peers can write. Where
 * the eventfds come from (door.c):
 *   - IVC_DOORBELL_FDS=<domain>:<first>:<fd>,<fd>,...  set by ivcrun, which creates one
 *     eventfd per rank before it starts them and lets every rank inherit all of them
 *     (rank first+k's doorbell is the k-th fd; <domain> is a hex id of that set);
 *   - IVC_DOORBELL_SOCKET=<path>  the Unix socket of a doorbell server speaking QEMU's
 *     ivshmem-server protocol (ivc-host -S): the rank connects as a peer and receives its
 *     own eventfd and one per peer; its peer id is its doorbell address;
 *   - in a guest whose region is an ivshmem-doorbell device bound to vfio-pci: MSI-X
 *     vector 0 of the device, routed to an eventfd (door_vfio.h); the device's peer id
 *     (IVPosition) is the doorbell address, and a peer is rung through BAR0's Doorbell
 *     register. The domain is the job's region (every guest gets its doorbells and its
 *     region from the same ivc-host). IVC_DOORBELL_DEVICE=ivshmem:N|ivshmem:<bdf> takes
 *     the doorbells of another device of the same server (one per rank of a guest).
 * Without any of them a rank has no doorbell and never sleeps (ivc_wait.h: it yields instead).
 *
 * The handshake, with W the sleeper's `sleeping` word:
 *   sleeper:   W = 1; fence (D1); re-check everything it waits for; if nothing: block on
 *              its eventfd (with a timeout); W = 0.
 *   publisher: publish (its release store); fence (D2); if W: write the sleeper's eventfd.
 * D1 and D2 are full fences: either the re-check sees the publication or the publisher sees
 * W = 1 and rings, so a wake-up is never lost. A publisher that sees W = 0 pays one load of
 * a line the sleeper rarely writes and no system call. The eventfd counts rings, so a ring
 * that lands between the re-check and the block makes the block return at once.
 *
 * Doorbells are used only when every co-located rank published the same doorbell domain
 * (the same launcher's eventfds, or the same server): a rank that could not ring a sleeping
 * peer would leave it asleep. All ranks decide this from the same table after the start-up
 * barrier, so they all decide alike. The sleep timeout (IVC_WAIT_TIMEOUT) bounds what a
 * missed ring could cost; the failure detector rings its own rank when it records a failure,
 * so a rank asleep in a wait learns of a dead peer within the detection time. */
#ifndef IVC_DOOR_H
#define IVC_DOOR_H

#include "region.h"

#include "../base/ivc_config.h"

#include <stdint.h>

typedef struct ivc_door_config {
    const char *mode;    /* IVC_WAIT: spin, yield, block, auto */
    uint64_t poll_us;    /* IVC_WAIT_POLL: auto: µs of polling before sleeping; 0 = auto */
    uint64_t timeout_ms; /* IVC_WAIT_TIMEOUT: longest single sleep */
} ivc_door_config_t;

extern const ivc_cfg_table_t ivc_door_config_table;

typedef struct ivc_doors {
    int on;                  /* doorbells usable: kicks check peers' words */
    const ivc_region_t *region;
    uint32_t me;
    int my_fd;               /* this rank's eventfd (read side), -1: none */
    uint64_t domain;         /* 0: no doorbells */
    uint32_t door_id;        /* this rank's address in the domain */
    int *ring_fd;            /* per global rank: eventfd that rings it (validated), or -1;
                              * with vfio (door_vfio.h) the rank's ivshmem peer id instead */
    uint32_t *local;         /* co-located global ranks (ivc_door_connect's copy) */
    uint32_t nlocal;
    uint64_t timeout_ns;
    uint64_t sleeps, rung, timeouts, late; /* statistics (late: a timeout found work) */
    int undrained;           /* my_fd holds the rings that ended the last sleep */
    int sock;                /* doorbell server connection, -1 none */
    ivc_door_config_t cfg;
} ivc_doors_t;

extern ivc_doors_t ivc_doors;

/* Reads IVC_WAIT* and the doorbell source of this rank (`rank` of `world`) and sets the
 * waiting policy of ivc_wait.h. `ivshmem_bdf`: the PCI address of the ivshmem device whose
 * BAR2 is the region (in a guest), else NULL or "".
 * Returns 0 (with or without doorbells) or -EINVAL (a bad variable, logged). */
int ivc_door_open(uint32_t rank, uint32_t world, const char *ivshmem_bdf);

/* Writes this rank's doorbell address into its slot; before the rank marks JOINED. */
void ivc_door_publish(const ivc_region_t *r, uint32_t rank);

/* After the start-up barrier: uses doorbells only if every rank of `local` published this
 * rank's domain and an address it can ring. `ncpu`: cores this rank may run on, for auto.
 * Returns 1 when doorbells are on, else 0. */
int ivc_door_connect(const uint32_t *local, uint32_t nlocal, uint32_t ncpu);

/* Rings `rank` (global, co-located) now. */
void ivc_door_ring(uint32_t rank);

/* Publisher side: call after publishing anything `rank` may wait for. */
static inline void ivc_door_kick(uint32_t rank)
{
    if (!ivc_doors.on)
        return;
    /* D2: orders the publication before the load of W; pairs with D1 in
     * ivc_door_announce(). */
    ivc_fence_seq_cst();
    if (__builtin_expect(ivc_load_relaxed(&ivc_region_door(ivc_doors.region, rank)->sleeping) != 0,
                         0))
        ivc_door_ring(rank);
}

/* The same for every co-located rank (a publication all of them may read). */
void ivc_door_kick_all(void);

/* Sleeper side. announce: W = 1 and D1; the caller then re-checks. sleep: blocks until
 * rung or the timeout; returns 1 rung, 0 timed out; it leaves the rings in the eventfd
 * (ivc_door_wait reads them off before its next re-check). awake: W = 0. */
void ivc_door_announce(void);
int ivc_door_sleep(void);
/* Other descriptors a sleep also wakes on (dynamic-process peers' sockets: their messages
 * ring no doorbell); set by the coordinator, NULL while there are none. Fills fds[0..max)
 * (struct pollfd) and returns how many. */
struct pollfd;
extern int (*ivc_door_extra_fds)(struct pollfd *fds, int max);
void ivc_door_awake(void);

/* The whole sleeper side: announce, n = recheck(arg) (> 0: something to do), sleep if
 * n == 0, awake. Returns n (0 after a sleep that a ring ended). */
int ivc_door_wait(int (*recheck)(void *), void *arg);

/* Rings this rank's own doorbell (async-signal-safe; from the failure detector's thread). */
void ivc_door_wake_self(void);

/* Closes the doorbells; after it kicks are no-ops. */
void ivc_door_close(void);

#endif
