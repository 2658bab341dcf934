/* ivcrun's side of dynamic processes (src/mpi/comm/mpi_dyn.c): one SOCK_SEQPACKET socket
 * pair per rank, the rank's end passed as IVC_DYN_FD. Each datagram is a list of
 * NUL-terminated words; replies may carry descriptors (SCM_RIGHTS).
 *
 * Requests (from a rank) and replies (to it):
 *   SPAWN np root w_0..w_np-1 napps {maxprocs prog wdir vm nargs arg...}...
 *       from the root of a spawn: the parents' world ranks w_i (comm order). ivcrun starts
 *       a child ivcrun (new simulated VMs, or --no-ns for vm "plain") running the apps as
 *       one MPMD job, makes one connected stream socket pair per (parent, child), and sends
 *       every parent  PAIRED 0 tag nchildren 0 ""  with its ends (child order), or
 *       PAIRED <class> 0 0 0 <why> on failure (to every parent).
 *   OPEN                      -> OK <port name> | ERR <why>
 *   CLOSE port                -> OK - | ERR <why>
 *   ACCEPT port n root w...   \  once both sides of a port met: each rank of each side gets
 *   CONNECT port n root w...  /  PAIRED 0 tag n_other root_other "" with its ends
 *   PUBLISH service port      -> OK - | ERR <why>   (names: files under the name directory,
 *   UNPUBLISH service         -> OK - | ERR <why>    shared by every ivcrun of this user on
 *   LOOKUP service            -> OK port | ERR <why> this host)
 *
 * A port name is "ivc-port:<ivcrun pid>:<n>". A CONNECT to another ivcrun's port goes to
 * that ivcrun's listening socket (in the name directory, <pid>.sock), which pairs the groups
 * and sends the connecting side's ends back over that connection.
 *
 * The children's ivcrun (--dyn-parent FD) reads one PAIRED datagram per child rank from FD
 * before it starts them and queues each in its rank's socket, where the rank reads it at
 * MPI_Init (IVC_DYN_SPAWNED=1).
 *
 * Everything a rank sends is checked (counts, ranks, lengths); a malformed request gets an
 * error reply. */
#ifndef IVCRUN_DYN_SERVER_H
#define IVCRUN_DYN_SERVER_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct job;
typedef struct dyn_server dyn_server_t;

/* Socket pairs for the job's ranks. Returns NULL after printing why. */
dyn_server_t *dyn_server_create(struct job *job);

/* Rank r's end (close-on-exec; the rank dup()s it into IVC_DYN_FD). */
int dyn_server_rank_fd(const dyn_server_t *d, uint32_t r);

/* In the children's ivcrun: reads the parents' sockets from upstream_fd and queues them in
 * the ranks' sockets. Returns 0, or -1 after printing why. */
int dyn_server_prime(dyn_server_t *d, int upstream_fd);

/* Closes ivcrun's copies of the ranks' ends once they are started. */
void dyn_server_close_rank_fds(dyn_server_t *d);

/* The sockets to poll, appended to fds[0..max); returns how many. */
size_t dyn_server_pollfds(const dyn_server_t *d, struct pollfd *fds, size_t max);

/* Serves what poll() reported. */
void dyn_server_handle(dyn_server_t *d, const struct pollfd *fds, size_t n);

/* A child ivcrun ended (pid reaped with wait status ws): returns 1 if it was one of ours
 * (its end is reported; *failed is set when it did not exit 0), else 0. */
int dyn_server_reaped(dyn_server_t *d, pid_t pid, int ws, int *failed);

/* Child ivcruns still running. */
uint32_t dyn_server_children(const dyn_server_t *d);

/* Signals every child ivcrun still running. */
void dyn_server_signal(dyn_server_t *d, int sig);

/* Stops the children still running (SIGTERM, then waits for them), closes everything. */
void dyn_server_destroy(dyn_server_t *d);

#endif
