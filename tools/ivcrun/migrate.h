/* --migrate VM:HOST@SECONDS: moves a simulated VM, with all its ranks, to another simulated
 * host while the job runs (the library's side is src/coord/coord_move.h).
 *
 * Every VM of such a job sees every host's region file (a real guest would see the region
 * of whichever host it runs on), the ranks get IVC_MIGRATE=1 and IVC_HOST_REGIONS, and the
 * network stays as it is: the job's VMs share one bridge, as a live-migrated guest keeps
 * its address. A move writes an order into the slot of each of the VM's ranks in the
 * region of the host it is on, waits until every one of them says in the new host's region
 * that it switched, and prints the move and how long the ranks took. Moves run one at a
 * time, in the order of their times. */
#ifndef IVCRUN_MIGRATE_H
#define IVCRUN_MIGRATE_H

#include "job.h"

#include <stdint.h>

/* Parses VM:HOST@SECONDS into opts' list. Returns 0 or -EINVAL (printed). */
int migrate_parse(ivcrun_opts_t *o, const char *v);

/* Checks the moves against the layout (after it is known). Returns 0 or -EINVAL. */
int migrate_check(const ivcrun_opts_t *o);

/* Starts the clock (the ranks run from now) and sets up the VMs' current hosts. */
int migrate_start(job_t *job, uint64_t now_ms);

/* Carries out what is due at `now_ms`; returns the ms until it needs to run again, or -1. */
int migrate_tick(job_t *job, uint64_t now_ms);

#endif
