/* Fault-tolerance room: what the MPI layer does once a peer has failed, and the ULFM
 * interface of include/mpi-ext.h (ft_core.c: failure bookkeeping, revocation, what fails
 * and what is discarded; ft_agree.c: agreement and shrink; ft_ulfm.c: the MPIX_ calls).
 *
 * Sources of events. The coordinator reports each failed rank once through the channels'
 * upcall (ivc_mpi_on_peer_failed, mpi_match.c); a revocation arrives as a notice on the
 * communicator's fault-tolerance context (comm->ctx + IVC_FT_CTX_OFF, tag FT_TAG_REVOKE).
 * Either event recounts every live communicator (ivc_mpi_ft_scan: ft_nfailed, ft_broken,
 * ft_revoked in comm.h) and sweeps the matching queues. Before the first event,
 * ivc_mpi_ft_state is 0 and every hot path pays one branch on it.
 *
 * What fails (ivc_mpi_ft_check_slow, ivc_mpi_ft_doomed):
 *  - anything with a failed peer; a collective (the collective context) on a communicator
 *    with a failed member, or on an internal communicator of one (hierarchy levels, an
 *    intercommunicator's local group): ft_broken;
 *  - an MPI_ANY_SOURCE receive on a communicator with an unacknowledged failed member:
 *    a blocking one at once; a nonblocking one (posted before the failure or after it)
 *    is reported PENDING by the waits and stays posted (mpi_request.c);
 *  - anything but fault-tolerance traffic on a revoked communicator: MPIX_ERR_REVOKED.
 * Fault-tolerance traffic fails only with its own peer.
 *
 * What nobody waits for. A survivor gives up only receives that were never matched (they
 * are taken off the posted queue) and waits in shared-memory collectives (coll_shm.c). It
 * never abandons a send or a matched rendezvous receive: those stay the channel's, and
 * they complete because the other side keeps serving them:
 *  - messages that no receive may match any more (the collective context of a broken
 *    communicator, every context of a revoked one, any context of a communicator freed
 *    after a failure or revocation) are discarded when they arrive and when that becomes
 *    true of those already queued: an eager one is dropped (a synchronous one
 *    acknowledged), a rendezvous one is accepted with a zero-byte receive, so its sender's
 *    send completes without any data moving. So a survivor's collective send to a live
 *    peer that gave up first completes, no survivor's buffer is read after its call
 *    returned (the sender stays inside its call until its own send completed), and no
 *    receive buffer is written after its call returned (only unmatched receives return
 *    early, and they are gone from the queue).
 *  - a communicator that saw a failure or a revocation never gives its context id back
 *    (mpi_comm.c), so such late messages can never match a later communicator's receive.
 * The cost is that a blocking collective send to a live peer completes only once that peer
 * learns of the failure too; the detector is eventually perfect, so it does.
 *
 * Revocation: MPIX_Comm_revoke marks the communicator and sends a notice to every other
 * member; a member that gets its first notice does the same (flooding), so the notice
 * reaches every live member even if the revoker dies while sending. A notice names the
 * communicator by context id and a hash of its members (ivc_mpi_ft_comm_id); one for a
 * communicator this process has not made yet is kept until it is made.
 *
 * Agreement (ft_agree.c): flooding uniform consensus over the communicator's members with
 * the perfect failure detector the coordinator provides (a rank reported failed has failed
 * and stays so; every failure is eventually reported): n rounds for n members; in each
 * round every member sends its current value to every member it does not know failed and
 * waits for a message from each of them or for its failure. After n rounds every member
 * that returns holds the same value, even if members fail during the call (uniform: also
 * the same as any member that returned and failed later). The value combines the flag
 * (AND), the context ids free at every member (AND, for shrink), the failed members
 * (union) and the failures acknowledged before the call (AND); what the call reports, its
 * error included, comes from the decided value only. n^2 messages per member: meant for recovery,
 * not for the fast path. */
#ifndef IVC_MPI_FT_H
#define IVC_MPI_FT_H

#include "mpi_impl.h"

#include "../../include/mpi-ext.h"

#include <stdint.h>

/* ivc_mpi_ft_state bits */
enum {
    FT_FAILED = 1,  /* a peer failed */
    FT_REVOKED = 2, /* a communicator was revoked */
    FT_RETIRED = 4, /* a context id was retired (freed after a failure or revocation) */
};

#define FT_TAG_REVOKE 0x7ffffff0 /* a revocation notice; payload: the comm's identity */

/* ---- ft_core.c ---- */
/* A rank failed (once per rank, from mpi_match.c): counts it everywhere, ends the job if no
 * error handler could return the error, recovers what it held, sweeps the queues. */
void ivc_mpi_ft_on_failure(int world_rank, int err);
/* A message on a reserved or affected context: 1 if it was consumed (a revocation notice,
 * or discarded), 0 to match it as usual. */
int ivc_mpi_ft_on_message(ivc_inmsg_t *m);
/* Whether a message on context ctx must be discarded (see the top of this file). */
int ivc_mpi_ft_sink_ctx(uint32_t ctx);
/* MPI_SUCCESS, or the error a posted (or being posted) receive completes with now. */
int ivc_mpi_ft_doomed(MPI_Request r);
/* Completion of a discarding receive (ivc_mpi_match_discard). */
void ivc_mpi_ft_sink_done(ivc_chan_op_t *op, int status);
/* Recounts the failed members of every communicator. */
void ivc_mpi_ft_scan(void);
/* Revokes comm here and floods the notice to its other members. */
void ivc_mpi_ft_revoke(MPI_Comm comm);
/* The identity of comm in revocation notices: its context id and members (both groups of
 * an intercommunicator), independent of the member's side. */
uint64_t ivc_mpi_ft_comm_id(MPI_Comm comm);
/* World ranks of comm's failed members (either group) in the order this process learned of
 * the failures: writes up to max of them to out (may be NULL) and returns how many there
 * are. */
int ivc_mpi_ft_failed_members(MPI_Comm comm, int *out, int max);
/* One line naming how world rank `rank` failed and who saw it. */
const char *ivc_mpi_ft_failure_text(int rank, char *buf, size_t len);
/* MPI_SUCCESS, MPIX_ERR_REVOKED or MPIX_ERR_PROC_FAILED for a collective on comm. */
static inline int ivc_mpi_ft_coll_check(MPI_Comm comm)
{
    return ivc_mpi_ft_check(comm, -2, 1);
}

/* ---- ft_agree.c ---- */
typedef struct ft_cons ft_cons_t;
/* Starts an agreement among the members of comm (both groups of an intercommunicator) over
 * flag and, when ids != NULL, over the context ids in ids (IVC_MPI_ID_WORDS words). NULL
 * without memory (*err set). */
ft_cons_t *ivc_mpi_ft_cons_start(MPI_Comm comm, uint32_t flag, const uint64_t *ids, int *err);
/* Advances it; returns 1 once decided. */
int ivc_mpi_ft_cons_step(ft_cons_t *c);
/* The round it is in (the member count once decided). */
int ivc_mpi_ft_cons_round(const ft_cons_t *c);
/* The decision: the flag, the ids (when asked for), the failed members (a byte per member,
 * in the order of ivc_mpi_ft_cons_members(); valid until the agreement is freed). */
uint32_t ivc_mpi_ft_cons_flag(const ft_cons_t *c);
const uint64_t *ivc_mpi_ft_cons_ids(const ft_cons_t *c);
const uint8_t *ivc_mpi_ft_cons_failed(const ft_cons_t *c);
/* The members' world ranks in agreement order (the comm's ranks on an intracommunicator;
 * the group holding the lower world rank first on an intercommunicator); *n of them. */
const int *ivc_mpi_ft_cons_members(const ft_cons_t *c, int *n);
/* The error the agreement reports, the same at every member: MPIX_ERR_PROC_FAILED if a
 * member in the decided failed set was not acknowledged before the call by every member
 * whose contribution counted, else MPI_SUCCESS. */
int ivc_mpi_ft_cons_error(const ft_cons_t *c);
/* Frees it (only once decided, or before any message was sent). */
void ivc_mpi_ft_cons_free(ft_cons_t *c);

#endif
