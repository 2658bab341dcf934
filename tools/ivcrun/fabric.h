/* The virtual network of a multi-host job in simulated VMs: a bridge in a namespace of its
 * own ("ivc-<job>") and one veth pair per VM, its end named eth0 inside the VM with the
 * address 10.77.<k / 250>.<k % 250 + 1>/16 for VM k. Ranks of different hosts reach each
 * other only over it. Built with iproute2 (`ip`), which needs CAP_NET_ADMIN. */
#ifndef IVCRUN_FABRIC_H
#define IVCRUN_FABRIC_H

#include "job.h"

/* Creates the bridge and connects every started VM. Returns 0 or -1 (printed). */
int fabric_create(job_t *job);

/* Removes the bridge's namespace (the VMs' ends go with their namespaces). */
void fabric_destroy(job_t *job);

#endif
