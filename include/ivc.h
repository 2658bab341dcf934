/* libivc: inter-VM communication for programs that are not MPI.
 *
 * Processes in co-located VMs (or in one machine) that share an IVC region (a file such as
 * /dev/shm/ivc-<job>, or an ivshmem device's memory inside a guest) talk through it with:
 *  - endpoints: each process registers under a name and gets a job-wide id (ivc_open);
 *  - channels: socket-style byte streams between two endpoints (connect/accept, read/write
 *    that move what fits and return the count, blocking forms, poll, close);
 *  - ports: datagrams to (endpoint, port) addresses;
 *  - barriers: N participants, spin/yield/blocking waits, reusable;
 *  - minitransactions: compare-and-write items over shared memory, all or nothing;
 *  - named shared memory blocks to put data in.
 * MPI programs may use it side by side with MPI: it never touches the MPI ranks' state.
 *
 * Errors are negative errno values. Every call says what it returns. A handle (ivc_t) and
 * the objects made from it are for one thread at a time; use one handle per thread to
 * work from several threads. Everything read from the region is validated: a peer that
 * scribbles over the shared structures gets its channels and barriers -EPROTO, never a
 * crash or a hang of this process.
 *
 * Link with -livc (pkg-config ivc). */
#ifndef IVC_H
#define IVC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IVC_API_VERSION 1

/* Longest endpoint, barrier or shared-block name, NUL included. */
#define IVC_NAME_MAX 32

typedef struct ivc ivc_t;
typedef struct ivc_chan ivc_chan_t;
typedef struct ivc_port ivc_port_t;
typedef struct ivc_barrier ivc_barrier_t;

/* ---- endpoints ---- */

/* ivc_open flags */
#define IVC_OPEN_CREATE 1u /* create the region file when it does not exist */

/* Attaches the region and registers this process as an endpoint named `name`.
 *
 * `region`: a file path, an ivshmem selector ("ivshmem", "ivshmem:N", "ivshmem:<bdf>"), or
 * NULL for the launch environment: IVC_REGION (as MPI ranks use it), else the first ivshmem
 * device. With IVC_OPEN_CREATE a file that does not exist is created (IVC_LIB_REGION_SIZE
 * bytes) for processes started by hand; it is removed by nobody (rm it when done).
 * `name`: up to IVC_NAME_MAX-1 printable characters, unique among live endpoints; NULL
 * gives "rank<R>" for a rank of an ivcrun job (PMI_RANK set), else "pid<P>.<host>".
 *
 * Identity: a rank R of an ivcrun (or other PMI) job takes endpoint id R when that slot is
 * free; any other process takes the first free id at or above the job's size. An id whose
 * process died (its lock on the region file released, or its heartbeat stopped for
 * IVC_LIB_LIVENESS_TIMEOUT ms) is free again.
 *
 * Returns 0 and *out; -EINVAL (bad name or flags); -EADDRINUSE (a live endpoint has that
 * name); -ENOSPC (every endpoint id in use); -ENOMEM (the region's heap is full); -ENOENT
 * (no region: IVC_REGION unset and no ivshmem device, or the file does not exist);
 * -EPROTO (not an IVC region of this version, or libivc's area in it is damaged);
 * -ETIMEDOUT (another process started setting up libivc's area and never finished);
 * other -errno from opening or mapping the region. */
int ivc_open(const char *region, const char *name, unsigned flags, ivc_t **out);

/* Closes every channel, port and barrier of the handle, unregisters the endpoint and
 * detaches the region. NULL is ignored. Returns 0. */
int ivc_close(ivc_t *ivc);

/* This endpoint's id (0 .. ivc_max_endpoints()-1). */
uint32_t ivc_id(const ivc_t *ivc);
/* How many endpoint ids the region's libivc area has. */
uint32_t ivc_max_endpoints(const ivc_t *ivc);

typedef struct ivc_peer {
    uint32_t id;
    int32_t rank;              /* PMI rank of an ivcrun job, -1 for other processes */
    char name[IVC_NAME_MAX];   /* endpoint name */
    char host[IVC_NAME_MAX];   /* its (simulated or real) VM's host name */
} ivc_peer_t;

/* Lists the live endpoints other than this one, in id order, into out[0..max-1].
 * Returns how many there are (may exceed max: only max are written), or -EPROTO. */
int ivc_peers(ivc_t *ivc, ivc_peer_t *out, int max);

/* The id of the live endpoint named `name`, waiting up to timeout_ms for it to appear
 * (0: look once; -1: forever). Returns the id (>= 0), -ENOENT (not there, timeout_ms 0),
 * -ETIMEDOUT, -EINVAL (bad name). */
int ivc_lookup(ivc_t *ivc, const char *name, int timeout_ms);

/* ---- channels: byte streams between two endpoints ---- */

#define IVC_PORT_ANY UINT32_MAX

/* Connects to endpoint `peer`'s `port` and waits up to timeout_ms (-1: forever) for it to
 * accept. Returns 0 and *out; -EHOSTUNREACH (no live endpoint `peer`); -ECONNREFUSED (the
 * peer closed or died before accepting); -ETIMEDOUT (not accepted in time); -ENFILE
 * (channel table full); -ENOMEM (region heap full); -EINVAL (peer is this endpoint, or
 * port is IVC_PORT_ANY). */
int ivc_connect(ivc_t *ivc, uint32_t peer, uint32_t port, int timeout_ms, ivc_chan_t **out);

/* Accepts a connection made to this endpoint's `port` (IVC_PORT_ANY: any port), waiting up
 * to timeout_ms (0: do not wait; -1: forever). Returns 0 and *out; -EAGAIN (none pending,
 * timeout_ms 0); -ETIMEDOUT; -ENOMEM. */
int ivc_accept(ivc_t *ivc, uint32_t port, int timeout_ms, ivc_chan_t **out);

/* Writes as many of len bytes as fit without waiting. Returns the count (> 0, or 0 when
 * len is 0); -EAGAIN (no room); -EPIPE (the peer closed the channel); -ECONNRESET (the
 * peer died); -EPROTO (the peer corrupted the channel); -EBADF (closed handle). */
ssize_t ivc_write(ivc_chan_t *ch, const void *buf, size_t len);

/* Reads up to len bytes that are there without waiting. Returns the count (> 0); 0 at end
 * of stream (the peer closed and everything it wrote was read); -EAGAIN (nothing yet);
 * -ECONNRESET (the peer died; what it wrote before is read first); -EPROTO; -EBADF. */
ssize_t ivc_read(ivc_chan_t *ch, void *buf, size_t len);

/* Blocking forms: ivc_write_wait writes all len bytes, waiting for room; ivc_read_wait
 * waits until at least one byte (or the end) is there. timeout_ms -1 waits forever.
 * Returns what ivc_write / ivc_read return, except that a wait that times out returns the
 * bytes moved so far if any, else -ETIMEDOUT; an error after some bytes were written
 * returns that count (the next call returns the error). */
ssize_t ivc_write_wait(ivc_chan_t *ch, const void *buf, size_t len, int timeout_ms);
ssize_t ivc_read_wait(ivc_chan_t *ch, void *buf, size_t len, int timeout_ms);

/* The peer's endpoint id and the port of the channel. */
uint32_t ivc_chan_peer(const ivc_chan_t *ch);
uint32_t ivc_chan_port(const ivc_chan_t *ch);

/* Closes the channel: the peer reads what was written, then end of stream; its writes get
 * -EPIPE. Returns 0. NULL is ignored. */
int ivc_chan_close(ivc_chan_t *ch);

/* ---- ports: datagrams ---- */

/* Binds port `port` of this endpoint for datagrams. Returns 0 and *out; -EADDRINUSE (bound
 * already); -ENFILE (port table full); -ENOMEM; -EINVAL (IVC_PORT_ANY). */
int ivc_port_open(ivc_t *ivc, uint32_t port, ivc_port_t **out);

/* Largest datagram the region's ports carry, in bytes. */
size_t ivc_port_max_msg(const ivc_t *ivc);

/* Sends len bytes as one datagram to `peer`'s port without waiting. Returns len; -EAGAIN
 * (the port's queue for this sender is full); -EHOSTUNREACH (no such live endpoint or
 * port not bound); -EMSGSIZE (longer than ivc_port_max_msg); -EBUSY (every sender lane of
 * the port is taken by other live senders); -EPROTO. */
ssize_t ivc_sendto(ivc_t *ivc, uint32_t peer, uint32_t port, const void *buf, size_t len);

/* Receives one datagram without waiting: up to len bytes are copied, the rest of a longer
 * one is dropped (as recv() truncates). *from (may be NULL) gets the sender's id. Returns
 * the bytes copied; -EAGAIN (none); -EPROTO (a sender corrupted its lane: its lane is
 * reset); -EBADF. */
ssize_t ivc_recvfrom(ivc_port_t *p, void *buf, size_t len, uint32_t *from);

/* Blocking forms (timeout_ms -1: forever): return as above, or -ETIMEDOUT. */
ssize_t ivc_sendto_wait(ivc_t *ivc, uint32_t peer, uint32_t port, const void *buf, size_t len,
                        int timeout_ms);
ssize_t ivc_recvfrom_wait(ivc_port_t *p, void *buf, size_t len, uint32_t *from, int timeout_ms);

/* Unbinds the port; datagrams not received are dropped. Returns 0. NULL is ignored. */
int ivc_port_close(ivc_port_t *p);

/* ---- readiness ---- */

#define IVC_POLLIN  0x1 /* data, end of stream or an error to read; a connection to accept */
#define IVC_POLLOUT 0x4 /* room to write */
#define IVC_POLLERR 0x8 /* the peer died or corrupted the channel */
#define IVC_POLLHUP 0x10 /* the peer closed (or died) */

enum { IVC_POLL_CHAN = 1, IVC_POLL_PORT = 2, IVC_POLL_ACCEPT = 3 };

typedef struct ivc_pollent {
    int kind;        /* IVC_POLL_CHAN: chan; IVC_POLL_PORT: port; IVC_POLL_ACCEPT: a pending
                      * connection to accept_port (IVC_PORT_ANY: any) of the handle */
    ivc_chan_t *chan;
    ivc_port_t *port;
    uint32_t accept_port;
    short events;    /* IVC_POLLIN | IVC_POLLOUT */
    short revents;   /* set by ivc_poll; ERR and HUP are reported whether asked or not */
} ivc_pollent_t;

/* Waits up to timeout_ms (0: check once; -1: forever) for any entry to become ready.
 * Returns how many entries have revents != 0 (0 on timeout), or -EINVAL (bad entry). */
int ivc_poll(ivc_t *ivc, ivc_pollent_t *ents, int n, int timeout_ms);

/* A file descriptor for a program's event loop (select/poll/epoll): it becomes readable
 * while any channel or port of the handle is readable (or has hung up) or a connection is
 * pending. A watcher thread, started by the first call, looks every IVC_LIB_EVENT_PERIOD
 * microseconds and signals an eventfd; read the fd (8 bytes) to clear it, then call
 * ivc_poll(..., 0) to see which object is ready. The fd stays the handle's: do not close
 * it. Returns the fd, or -errno (eventfd, pthread_create). */
int ivc_event_fd(ivc_t *ivc);

/* ---- barriers ---- */

enum {
    IVC_WAIT_SPIN = 0,  /* busy-poll with a pause instruction: fastest, holds a core */
    IVC_WAIT_YIELD = 1, /* spin a little, then sched_yield between polls */
    IVC_WAIT_BLOCK = 2, /* spin, yield, then sleep (short nanosleeps, doorbells later) */
};

/* Joins the barrier `name` of `count` participants (1 .. 64), creating it when it does
 * not exist. Every participant opens it with the same count.
 * Returns 0 and *out; -EINVAL (bad name or count, or a count that differs from the
 * barrier's); -EUSERS (count live participants joined already); -ENFILE (barrier table
 * full); -EPROTO. */
int ivc_barrier_open(ivc_t *ivc, const char *name, uint32_t count, ivc_barrier_t **out);

/* Waits until all `count` participants arrived. The barrier is reusable at once.
 * Returns 0; -EOWNERDEAD (a participant died or left while others waited: the barrier is
 * broken for everyone from then on); -ETIMEDOUT (timeout_ms passed, -1: never; the
 * barrier is broken too, since this arrival cannot be taken back); -EPROTO (its words
 * were overwritten); -EINVAL (bad mode). */
int ivc_barrier_wait(ivc_barrier_t *b, int mode, int timeout_ms);

/* Leaves the barrier; the last participant to leave frees it. Returns 0. NULL ignored. */
int ivc_barrier_close(ivc_barrier_t *b);

/* ---- shared memory and minitransactions ---- */

/* Finds the shared block `name`, creating it zero-filled with `size` bytes (cache-line
 * aligned) when it does not exist. *off gets its region offset, *size_out (may be NULL)
 * its size. Returns 0; -EINVAL (bad name, size 0, or an existing block smaller than
 * size); -ENFILE (table full); -ENOMEM (heap full); -EPROTO. */
int ivc_shm_get(ivc_t *ivc, const char *name, uint64_t size, uint64_t *off, uint64_t *size_out);

/* This process's address of region bytes [off, off+len), or NULL outside the region. */
void *ivc_ptr(const ivc_t *ivc, uint64_t off, uint64_t len);

/* Item flags */
#define IVC_MTX_CMP   0x1u /* the bytes at off must equal cmp */
#define IVC_MTX_WRITE 0x2u /* write wr to off if every compare holds */
#define IVC_MTX_READ  0x4u /* copy the bytes at off to rd (after the compares, before the writes:
                             * rd may be cmp, to get the current value for a retry) */

typedef struct ivc_mtx_item {
    uint64_t off;    /* region offset, inside the heap (e.g. in an ivc_shm_get block) */
    uint32_t len;    /* bytes, 1 .. 4096 */
    uint32_t flags;  /* IVC_MTX_* */
    const void *cmp; /* compare value (len bytes) for IVC_MTX_CMP */
    const void *wr;  /* write value (len bytes) for IVC_MTX_WRITE */
    void *rd;        /* read buffer (len bytes) for IVC_MTX_READ */
} ivc_mtx_item_t;

/* Outcomes */
enum {
    IVC_MTX_COMMITTED = 0,      /* every compare held, every write applied, reads filled */
    IVC_MTX_LOCK_FAILED = 1,    /* another live endpoint held a lock: nothing done; retry */
    IVC_MTX_COMPARE_FAILED = 2, /* a compare did not hold: nothing written; reads filled */
};

/* Commits a minitransaction: try-locks every cache line the items touch (never waits),
 * evaluates the compares, and applies the writes only if all hold. The writes go through
 * a per-endpoint redo log, so a committer that dies midway leaves all or none of them
 * once the next committer that meets its locks recovers them.
 * Returns IVC_MTX_COMMITTED, IVC_MTX_LOCK_FAILED or IVC_MTX_COMPARE_FAILED; -EINVAL (an
 * item outside the heap, len 0 or > 4096, no flags, or n not in 1..64); -E2BIG (the
 * writes exceed the redo log, IVC_LIB_LOG_SIZE); -EPROTO (the lock table or a log was
 * overwritten). */
int ivc_mtx_commit(ivc_t *ivc, ivc_mtx_item_t *items, int n);

/* ivc_mtx_commit, retried with exponential backoff while locks fail, up to timeout_ms
 * (-1: forever). Returns IVC_MTX_COMMITTED, IVC_MTX_COMPARE_FAILED, -ETIMEDOUT, or an
 * error of ivc_mtx_commit. */
int ivc_mtx_retry(ivc_t *ivc, ivc_mtx_item_t *items, int n, int timeout_ms);

/* ---- misc ---- */

/* Text for a negative return value of this library. */
const char *ivc_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
