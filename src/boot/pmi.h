/* A PMI-1 client over the wire protocol of MPICH's process managers (Hydra's
 * mpiexec.hydra, Slurm's srun --mpi=pmi2 in its PMI-1 compatibility, ...): the manager
 * passes a connected socket as PMI_FD (or an address as PMI_PORT, host:port) together with
 * PMI_RANK and PMI_SIZE; requests and replies are single lines of "key=value" words,
 * e.g. "cmd=barrier_in" answered by "cmd=barrier_out". */
#ifndef IVC_BOOT_PMI_H
#define IVC_BOOT_PMI_H

#include <stddef.h>

#define IVC_PMI_NAME_MAX 256
#define IVC_PMI_VAL_MAX  1024

typedef struct ivc_pmi {
    int fd;
    char kvsname[IVC_PMI_NAME_MAX];
} ivc_pmi_t;

/* Connects (PMI_FD or PMI_PORT), says init and learns the key-value space's name.
 * Returns 0, -ENOENT when neither variable is set, or -errno / -EPROTO (logged). */
int ivc_pmi_init(ivc_pmi_t *p);

/* Publishes key=value in the job's key-value space. Returns 0 or -errno (logged). */
int ivc_pmi_put(ivc_pmi_t *p, const char *key, const char *value);

/* Reads a key another rank put before the last barrier. Returns 0, -ENOENT (no such
 * key), or -errno (logged). */
int ivc_pmi_get(ivc_pmi_t *p, const char *key, char *value, size_t len);

/* Waits for every rank of the job (and makes earlier puts visible). Returns 0 or -errno. */
int ivc_pmi_barrier(ivc_pmi_t *p);

/* The same barrier for a job in which a rank may have failed: a process manager that
 * leaves the other ranks running after one failed (Slurm's srun does, unless asked to
 * kill the step) never completes it. Calls give_up(arg) every few milliseconds while the
 * reply is not there; once it returns non-zero, closes the connection (nothing more can
 * be said on it: finalize and abort become no-ops) and returns -ECANCELED. Otherwise
 * returns 0 or -errno (logged). */
int ivc_pmi_barrier_until(ivc_pmi_t *p, int (*give_up)(void *arg), void *arg);

/* Asks the process manager to end the job with `code`; may not return. A no-op once the
 * connection is closed. */
void ivc_pmi_abort(ivc_pmi_t *p, int code, const char *msg);

/* Says finalize and closes the connection. */
void ivc_pmi_finalize(ivc_pmi_t *p);

#endif
