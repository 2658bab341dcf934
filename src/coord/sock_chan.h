/* The socket channel: reaches a peer of another job (dynamic processes: a spawned child or
 * its parent, the other side of MPI_Comm_accept/connect or MPI_Comm_join) through a
 * connected stream socket of its own, one per pair.
 *
 * Why sockets and not the region: the two jobs have separate regions, sized and cut into
 * write-exclusive sections at their start, and the channel blocks of a region are sized for
 * the ranks it had then. A connected Unix-domain socket (made by ivcrun, which passes the
 * two ends to the two ranks; or the user's own socket for MPI_Comm_join) needs nothing
 * shared but itself, crosses the namespaces of simulated VMs, and reports the death of the
 * peer's process as EOF, which is how this channel learns of a failure.
 *
 * Protocol: frames of a fixed header (sock_hdr_t in sock_chan.c) and, for a message, its
 * whole payload (eager only: the receiver buffers it; no rendezvous). A synchronous send
 * waits for an ACK frame carrying its cookie; a BYE frame says the peer closes on purpose
 * (MPI_Finalize or MPI_Comm_disconnect), so that the EOF after it is no failure. Every
 * header read is untrusted: an unknown type, a cookie not in flight or an implausible length
 * fails the peer (-EPROTO). */
#ifndef IVC_SOCK_CHAN_H
#define IVC_SOCK_CHAN_H

#include "../chan/chan.h"

#include <stdint.h>

typedef struct ivc_sock_chan ivc_sock_chan_t;

extern const ivc_chan_ops_t ivc_sock_chan_ops;

/* Creates the channel (no peers yet). Returns NULL without memory. */
ivc_sock_chan_t *ivc_sock_chan_create(const ivc_chan_upcalls_t *up);

/* Adds the peer reached through `fd` (taken over: made nonblocking, closed by the channel)
 * under world id `peer`. Returns its endpoint, or NULL without memory (fd is then closed). */
void *ivc_sock_chan_add(ivc_sock_chan_t *s, int fd, int peer);

/* Sends BYE to the peer of `ep` (MPI_Comm_disconnect): its EOF is then no failure. */
void ivc_sock_chan_bye(void *ep);

/* Moves what can move without waiting on every socket. Returns the number of events. */
int ivc_sock_chan_progress(void *chan);

/* The sockets of live peers, for a sleep to wake on (POLLIN, and POLLOUT where frames wait
 * to be written), up to max; returns how many. */
struct pollfd;
int ivc_sock_chan_fds(const ivc_sock_chan_t *s, struct pollfd *fds, int max);

/* Says goodbye to every peer (BYE frames, flushed for at most timeout_ms), then closes
 * every socket and frees the channel. */
void ivc_sock_chan_destroy(ivc_sock_chan_t *s, int timeout_ms);

#endif
