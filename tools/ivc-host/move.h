/* `ivc-host move`: tells ranks of a job to leave this host (VM migration, issue 12): writes
 * a move order into their slots of the host's region and waits until each one says MOVED
 * (it drained its shared-memory pairs and let go of the region), which is when the
 * administrator may unplug the guest's ivshmem device and migrate it. */
#ifndef IVC_HOST_MOVE_H
#define IVC_HOST_MOVE_H

/* argv[1] is "move". Returns the exit status (0: every rank left; 1: one failed, finalized
 * or did not leave in time; 2: usage). */
int host_move(int argc, char **argv);

#endif
