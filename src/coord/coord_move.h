/* VM migration: a rank's VM moves to another host while the job runs, and each of its peers
 * switches between the shared-memory channel and the network channel without losing,
 * duplicating or reordering a message (issue 12; the published VM-aware MPI design).
 *
 * Mode. Only a job started with IVC_MIGRATE=1 (ivcrun --migrate sets it) can move: every
 * rank then connects the network channel to every peer at start-up, co-located or not, and
 * its shm channel is sparse (every block has a slot for every rank of the job, so that a
 * newcomer needs nothing new from the ranks already there). Nothing the program owns lives
 * in a region in this mode (no shared heap, MPI_Alloc_mem and window memory are private,
 * windows are reached through active messages, collectives run over point-to-point), so a
 * rank can leave its region with all its data: window memory stays reachable wherever its
 * owner goes.
 *
 * The order. The launcher (or host daemon) writes a move order into the rank's slot of the
 * region it is in (ivc_move_t): go to host region k of IVC_HOST_REGIONS. The rank reads it
 * every few hundred progress calls, so a rank moves while it is in MPI calls.
 *
 * The switch of one pair, by flush markers (a zero-byte message on a reserved context):
 *  - Every message carries on through the channel its sender chose, and every channel keeps
 *    per-pair order. A sender that switches sends FLUSH on the old channel and everything
 *    after it on the new one; a receiver accepts a peer's messages from one channel at a
 *    time and holds those from the other until FLUSH arrives on the one it accepts. So a
 *    message on the new path can never pass one still in the old: MPI's non-overtaking rule
 *    holds, and since matching happens above the channels, MPI_ANY_SOURCE too.
 *  - Leaving (shm -> network): the mover sends FLUSH through shm to each co-located peer
 *    and sends through the network from then on; a peer that receives it answers with its
 *    own FLUSH through shm and switches too. Each side closes the pair once both FLUSHes
 *    passed and nothing with the peer is in flight on shm (rendezvous transfers, sends
 *    waiting for an answer, received messages whose answer is still owed: a rendezvous not
 *    yet matched, a synchronous send not yet acknowledged): operations in flight complete
 *    on the channel they started on. Then the mover marks its slot MOVED (so that nobody
 *    takes its leaving for a failure), lets go of the region and maps the new one.
 *  - Arriving (network -> shm): the mover joins the new region with a fresh channel block
 *    and sends HELLO over the network to each rank there; a resident clears both slots of
 *    the pair (its own for the mover, the mover's for it), binds to them, and answers FLUSH
 *    over the network, after which it sends through shm; the mover, on that FLUSH, binds to
 *    the pair's slots, answers its own FLUSH over the network and sends through shm.
 * The move is done when every pair has switched; the rank then writes `done` and the time
 * it took into its slot of the new region, where the launcher reads them.
 *
 * Coming back: a rank that returns to a region it visited takes its channel block of that
 * visit again (the region's allocator never frees); each resident clears the returning
 * rank's slot for it there on the HELLO, once its pair of the last visit is closed
 * (shm_chan.c: block_again, ivc_shm_chan_outbox_reset).
 *
 * Failure: a peer that dies mid-switch fails through its channels as always (its shm
 * operations fail, which ends the drain); the network channel stays connected throughout,
 * so the failure of a rank on another host is still seen there. Since operations with a
 * peer may be pending on both channels during a switch, a failure fails the peer on both,
 * whichever saw it (coord_fail.c). IVC_MOVE_TEST_DIE (testing only) makes a moving rank
 * kill itself at one of three points of its switch, for tests/migrate/die.c. */
#ifndef IVC_COORD_MOVE_H
#define IVC_COORD_MOVE_H

#include "../chan/chan.h"

#include <stdint.h>

/* Reserved context of the coordinator's own messages (tag: MOVE_* of coord_move.c). */
#define IVC_MOVE_CTX 0xfffffff8u

/* ivc_inmsg_t.via in migration mode: the channel that brought a message. */
enum { IVC_VIA_VC = 0, IVC_VIA_SHM = 1, IVC_VIA_NET = 2 };

/* Start-up, after the region is attached and before the channels are created: reads
 * IVC_HOST_REGIONS, finds this rank's region in it, and returns the upcalls the shm and
 * network channels must use (they tag each message with its channel). Returns 0 or -errno
 * (logged). */
int ivc_coord_move_init(const ivc_chan_upcalls_t *up, ivc_chan_upcalls_t *shm_up,
                        ivc_chan_upcalls_t *net_up);

/* Looks for a move order and advances a move in progress; from ivc_coord_progress(). */
int ivc_coord_move_progress(void);

/* MPI_Finalize: no new move orders are taken; a move under way is finished (10 s at most). */
void ivc_coord_move_close(void);

/* Every rank of the job, ascending: the local set of a sparse shm channel. */
const uint32_t *ivc_coord_move_all(void);

/* Whether a move is in progress (this rank's pairs switching). */
int ivc_coord_move_busy(void);

/* The channel's operations for a message that arrived `via` a channel (migration mode). */
void ivc_coord_move_route(uint32_t peer, int via, const ivc_chan_ops_t **ops, void **ep);

/* Frees the state. */
void ivc_coord_move_free(void);

#endif
