/* Cancelling a send (MPI_Cancel of a send request).
 *
 * A send can be taken back only while no receive has matched it, and only the receiver
 * knows that. So the sender asks: it names the message by its number among those it sent
 * to that peer (ivc_chan_op_t.serial, counted by the coordinator; the receiver counts
 * arrivals per peer the same way, mpi_match.c) in an ASK on the reserved context
 * IVC_CANCEL_CTX. Every channel keeps a pair's messages in order, so the ASK arrives after
 * the message it names. The receiver looks for it in its unexpected queue: if it is still
 * there (with the envelope the ASK describes), it is removed and discarded as a failure
 * discards a message (the sender's send completes: a rendezvous payload is pulled into
 * nothing, a synchronous send acknowledged), and the answer is yes; if a receive took it
 * (or a matched probe), no. The sender's request stays incomplete until the answer has
 * come and its channel operation has finished; then MPI_Test_cancelled says which.
 *
 * So MPI_Wait on a cancelled send returns whatever the receiver's program does, as the
 * standard requires, once the receiver's library progresses (it answers from any MPI call).
 * A peer that fails before it answers leaves the send not cancelled. Nothing in an ASK or
 * an answer is trusted: a rank can only ask about its own messages (the receiver takes the
 * sender from the channel, not from the payload), and an answer only completes a request
 * that asked that peer about that number. */
#include "mpi_impl.h"

#include "ft/ft.h"

#include <stdlib.h>
#include <string.h>

enum { CANCEL_ASK = 1, CANCEL_ANSWER = 2 };

/* The payload of an ASK (which message: its number and envelope) and of its answer (the
 * same, with `yes` set when the message was withdrawn). */
typedef struct cancel_wire {
    uint64_t serial;
    uint64_t len;
    uint32_t ctx;
    int32_t tag;
    int32_t src;
    uint32_t yes;
} cancel_wire_t;

/* Send requests waiting for an answer (few: one per MPI_Cancel of a send in flight). */
static MPI_Request *pending;
static int npending, cap_pending;

/* Sends an ASK or an answer to world rank `peer`. Returns 0 or -errno. */
static int note_send(int peer, int kind, const cancel_wire_t *w)
{
    return ivc_mpi_send_notice(peer, IVC_CANCEL_CTX, ivc_mpi_world_rank, kind, w, sizeof(*w));
}

static void finish(MPI_Request r)
{
    r->cancel = REQ_CANCEL_ANSWERED;
    if (r->cancel_opdone)
        ivc_mpi_req_complete(r);
}

static void pending_drop(int i)
{
    pending[i] = pending[--npending];
}

void ivc_mpi_cancel_send(MPI_Request r)
{
    /* Once per request; only messages a channel numbered, to a peer whose numbers still
     * agree with ours; a send that failed or went to MPI_PROC_NULL has nothing to take back. */
    if (r->cancel != REQ_CANCEL_NONE || r->peer < 0 || r->op.serial == 0 ||
        r->status.MPI_ERROR != MPI_SUCCESS || !ivc_coord_serial_ok((uint32_t)r->peer) ||
        ivc_mpi_peer_failed(r->peer) || r->op.env.ctx >= IVC_FT_CTX_OFF)
        return;
    if (npending == cap_pending) {
        int cap = cap_pending ? 2 * cap_pending : 8;
        MPI_Request *p = realloc(pending, (size_t)cap * sizeof(*p));
        if (p == NULL)
            return; /* not cancelled: the send completes normally */
        pending = p;
        cap_pending = cap;
    }
    cancel_wire_t w = {.serial = r->op.serial,
                       .len = r->op.env.len,
                       .ctx = r->op.env.ctx,
                       .tag = r->op.env.tag,
                       .src = r->op.env.src};
    if (note_send(r->peer, CANCEL_ASK, &w) != 0)
        return;
    r->cancel = REQ_CANCEL_ASKED;
    r->cancel_opdone = (uint8_t)r->done;
    r->done = 0;
    pending[npending++] = r;
}

/* The receiver's side: withdraws the message if no receive has taken it, and answers. */
static void on_ask(const ivc_inmsg_t *m, cancel_wire_t w)
{
    ivc_env_t env = {.ctx = w.ctx, .src = w.src, .tag = w.tag, .len = w.len};
    w.yes = (uint32_t)ivc_mpi_match_withdraw(m->peer, w.serial, &env);
    note_send(m->peer, CANCEL_ANSWER, &w); /* a sender we cannot answer has failed */
}

static void on_answer(const ivc_inmsg_t *m, const cancel_wire_t *w)
{
    for (int i = 0; i < npending; i++) {
        MPI_Request r = pending[i];
        if (r->peer != m->peer || r->op.serial != w->serial)
            continue;
        pending_drop(i);
        if (w->yes) {
            r->status.ivc_cancelled = 1;
            r->status.ivc_count = 0;
        }
        finish(r);
        return;
    }
    /* An answer nobody asked for: ignored. */
}

void ivc_mpi_cancel_on_message(const ivc_inmsg_t *m)
{
    if (m->rndv || m->data == NULL || m->env.len != sizeof(cancel_wire_t)) {
        ivc_mpi_match_discard(m); /* not ours to read; release its sender */
        return;
    }
    cancel_wire_t w;
    memcpy(&w, m->data, sizeof(w));
    if (m->env.tag == CANCEL_ASK)
        on_ask(m, w);
    else if (m->env.tag == CANCEL_ANSWER)
        on_answer(m, &w);
}

void ivc_mpi_cancel_peer_failed(int peer)
{
    for (int i = 0; i < npending;) {
        MPI_Request r = pending[i];
        if (r->peer == peer) {
            pending_drop(i);
            finish(r); /* not cancelled */
        } else {
            i++;
        }
    }
}
