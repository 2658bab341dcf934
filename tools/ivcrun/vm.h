/* A simulated VM: a set of Linux namespaces that shares nothing with the host or the other
 * VMs but the job's region file.
 *
 *   pid    its first process is the VM's init (vm_init.h), pid 1
 *   ipc    no shared SysV/POSIX IPC
 *   uts    hostname vm<k>
 *   net    only loopback, brought up
 *   mount  "/" made recursively private first, so nothing mounted here reaches the host;
 *          fresh tmpfs on /dev/shm and /tmp; a fresh /proc for the pid namespace; the
 *          region file bind-mounted at its host path inside the private /dev/shm
 *   user   only when the caller lacks the privilege for the others: the caller's uid and
 *          gid mapped to themselves
 *
 * The rest of the host's file system stays visible, as the program and its libraries must
 * be. So that a program built under the host's /tmp (say /tmp/b/tests/x with its libraries
 * in /tmp/b/lib) runs as one built anywhere else does, the /tmp entries holding the
 * program (/tmp/b), the directories its loader searches (an installation under /tmp/x: see
 * job_find_tmp_trees()) and the working directory are bind-mounted back at their paths;
 * everything else in the VM's /tmp is its own.
 *
 * How the region (or a kept /tmp entry) gets in: right after the clone, the VM's mount
 * namespace is a copy of the host's, so the file is still visible at its host path; the VM
 * opens it there (a bind mount's source must belong to the VM's own namespace), covers
 * /dev/shm with a tmpfs and bind-mounts /proc/self/fd/N onto an empty file at the same path.
 * That /proc is still the host's, where /proc/self names this process by its host pid; only
 * then is /proc replaced. */
#ifndef IVCRUN_VM_H
#define IVCRUN_VM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Most host paths brought back into a covered directory (/tmp: the trees of the programs,
 * their libraries and the working directories). */
#define VM_KEEP_MAX 16

/* VM k's address on the job's bridge (fabric.h), without the /16: "10.77.<k/250>.<k%250+1>".
 * One numbering for the bridge's set-up and the VMs' /etc/hosts. */
#define VM_NET_ADDR_MAX 24
static inline void vm_net_addr(uint32_t k, char buf[VM_NET_ADDR_MAX])
{
    snprintf(buf, VM_NET_ADDR_MAX, "10.77.%u.%u", k / 250, k % 250 + 1);
}

typedef struct vm_conf {
    uint32_t index; /* k: hostname vm<k> */
    int userns;     /* also create a user namespace */
    uid_t uid;      /* caller's ids, mapped to themselves with userns */
    gid_t gid;
    const char *region_path; /* the region file in the host's /dev/shm; the same path inside */
    /* --migrate: every host's region file (a VM may move to any host); else 0 */
    const char *regions[VM_KEEP_MAX];
    int nregions;
    const char *tmp_trees[VM_KEEP_MAX]; /* entries of the host's /tmp kept visible */
    int ntmp_trees;
    /* The job's VMs are on a bridge (--net, --hosts; fabric.h): /etc/hosts names all `nvms`
     * by their addresses. Otherwise it names this VM's own host name on its loopback. */
    int net;
    uint32_t nvms;
} vm_conf_t;

/* Like fork(), but the child is pid 1 of a new VM's namespaces and runs `fn(arg)`, then
 * exits with its value. The child must call vm_setup() before anything that depends on the
 * VM.
 * Returns the child's pid or -errno from clone (e.g. -EPERM without privileges). */
pid_t vm_clone(int userns, int (*fn)(void *), void *arg);

/* In the child of vm_clone(): maps ids, builds the private mounts, hostname, /etc/hosts and
 * loopback.
 * Returns 0, or -errno with `why` describing the step that failed (nothing is printed). */
int vm_setup(const vm_conf_t *c, char *why, size_t len);

/* Builds a throwaway VM to learn whether this machine lets us (with c->userns or not).
 * Returns 0, or -errno of clone or pipe, or -EPERM when a step of vm_setup() failed in the
 * child; `why` then says which step and why (nothing is printed). */
int vm_probe(const vm_conf_t *c, char *why, size_t len);

#endif
