/* Fault tolerance: failure bookkeeping, revocation, and the rules of what fails and what
 * is discarded once a peer failed (design in ft.h). */
#include "ft/ft.h"

#include "base/ivc_log.h"
#include "coll/coll_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t ivc_mpi_ft_state;

static int *fail_err; /* world rank -> the error its failure was reported with, 0: alive */
static int *order;    /* world ranks in the order their failures became known here */
static int norder;
static int fail_cap; /* entries of fail_err and order (dynamic-process peers grow them) */
static uint8_t *retired; /* context id -> 1: freed after a failure or a revocation */

/* Revocation notices for communicators this process has not made (yet). */
static struct pend {
    int id;
    uint64_t fid;
} *pend;
static int npend, cappend;

/* ---- members ---- */

static int has_member(MPI_Comm c, int w)
{
    for (int i = 0; i < c->size; i++)
        if (c->world[i] == w)
            return 1;
    if (c->inter)
        for (int i = 0; i < c->local_size; i++)
            if (c->local_world[i] == w)
                return 1;
    return 0;
}

int ivc_mpi_ft_failed_members(MPI_Comm comm, int *out, int max)
{
    int n = 0;
    for (int i = 0; i < norder; i++) {
        if (!has_member(comm, order[i]))
            continue;
        if (out != NULL && n < max)
            out[n] = order[i];
        n++;
    }
    return n;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t ivc_mpi_ft_comm_id(MPI_Comm c)
{
    /* A sum of hashed members does not depend on order or on the side of an
     * intercommunicator (both groups are summed). */
    uint64_t h = 0;
    for (int i = 0; i < c->size; i++)
        h += mix64((uint64_t)c->world[i] + 1);
    if (c->inter)
        for (int i = 0; i < c->local_size; i++)
            h += mix64((uint64_t)c->local_world[i] + 1);
    return h ^ mix64(0x100000000ull + (uint64_t)c->ctx_id);
}

/* ---- counting ---- */

/* An internal communicator of a broken or revoked one follows it. */
static void follow(MPI_Comm parent, MPI_Comm c)
{
    if (c == NULL || c == MPI_COMM_NULL || !ivc_mpi_comm_valid(c))
        return;
    if (parent->ft_nfailed || parent->ft_broken)
        c->ft_broken = 1;
    if (parent->ft_revoked)
        c->ft_revoked = 1;
}

void ivc_mpi_ft_scan(void)
{
    int ids = ivc_mpi_comm_ids();
    for (int id = 0; id < ids; id++) {
        MPI_Comm c = ivc_mpi_comm_by_id(id);
        if (c != NULL && norder > 0)
            c->ft_nfailed = ivc_mpi_ft_failed_members(c, NULL, 0);
    }
    for (int id = 0; id < ids; id++) {
        MPI_Comm c = ivc_mpi_comm_by_id(id);
        if (c == NULL || !(c->ft_nfailed || c->ft_broken || c->ft_revoked))
            continue;
        if (c->inter)
            follow(c, c->local_comm);
        if (c->coll != NULL) {
            follow(c, c->coll->node);
            follow(c, c->coll->leaders);
        }
    }
}

/* ---- failures ---- */

const char *ivc_mpi_ft_failure_text(int rank, char *buf, size_t len)
{
    if (ivc_coord_peer_failed((uint32_t)rank))
        return ivc_coord_failure_text((uint32_t)rank, buf, len);
    int err = fail_err != NULL && rank >= 0 && rank < fail_cap ? fail_err[rank] : 0;
    if (rank >= ivc_mpi_world_size) { /* a dynamic-process peer (coord.h) */
        snprintf(buf, len,
                 "a process of another job (spawned, spawning or connected; peer id %d) %s "
                 "(its socket to rank %d closed)",
                 rank, err == -EPROTO ? "broke the protocol" : "ended without disconnecting",
                 ivc_mpi_world_rank);
        return buf;
    }
    const char *how = err == -EPROTO       ? "broke the shared-memory protocol"
                      : err == -ECONNRESET ? "lost its network connection"
                                           : "died or stopped responding";
    snprintf(buf, len, "rank %d %s (reported by its channel to rank %d)", rank, how,
             ivc_mpi_world_rank);
    return buf;
}

/* Whether every communicator's handler ends the job: then nothing could ever return the
 * error, and the job ends now, naming the failure. Not while MPI starts: the program has
 * had no chance to set a handler yet (ft/barrier: a rank that exits right after MPI_Init,
 * seen by a peer still finishing MPI_Init, ended the job before that peer could set
 * MPI_ERRORS_RETURN); the failure is recorded, and an operation that involves the failed
 * rank raises it on its communicator's handler then. */
static int all_fatal(void)
{
    int ids = ivc_mpi_comm_ids();
    for (int id = 0; id < ids; id++) {
        MPI_Comm c = ivc_mpi_comm_by_id(id);
        if (c != NULL && c->errh != NULL && c->errh->kind != ERRH_FATAL &&
            c->errh->kind != ERRH_ABORT)
            return 0;
    }
    return 1;
}

void ivc_mpi_ft_on_failure(int rank, int err)
{
    int npeers = (int)ivc_coord.nvcs; /* world ids past the job's: dynamic-process peers */
    if (rank < 0 || rank >= npeers)
        return;
    if (fail_cap < npeers) {
        int *f = realloc(fail_err, (size_t)npeers * sizeof(int));
        if (f != NULL)
            fail_err = f;
        int *o = realloc(order, (size_t)npeers * sizeof(int));
        if (o != NULL)
            order = o;
        if (f == NULL || o == NULL)
            ivc_mpi_die(MPI_ERR_NO_MEM, "out of memory recording a failed peer");
        memset(fail_err + fail_cap, 0, (size_t)(npeers - fail_cap) * sizeof(int));
        fail_cap = npeers;
    }
    if (fail_err[rank] != 0)
        return;
    fail_err[rank] = err < 0 ? err : -EOWNERDEAD;
    order[norder++] = rank;
    ivc_mpi_ft_state |= FT_FAILED;
    ivc_mpi_ft_scan();
    char text[256];
    ivc_mpi_ft_failure_text(rank, text, sizeof(text));
    if (ivc_mpi_initialized && all_fatal()) {
        char msg[400];
        snprintf(msg, sizeof(msg),
                 "%s; the error handler is MPI_ERRORS_ARE_FATAL: ending the job", text);
        ivc_mpi_die(MPI_ERR_PROC_FAILED, msg);
    }
    /* A rank found to have written over its own membership record (region.c) was caught
     * by whoever read it, and no channel reported it: this line is that report. */
    uint32_t how = 0, by = 0;
    char what[IVC_FAIL_WHAT_LEN];
    if (rank < ivc_mpi_world_size &&
        ivc_region_member_failure(&ivc_coord.region, (uint32_t)rank, &how, &by, what) &&
        how == IVC_FAIL_PROTOCOL && by == (uint32_t)rank)
        ivc_error("%s; operations involving it fail with MPI_ERR_PROC_FAILED", text);
    else
        ivc_warn("%s; operations involving it fail with MPI_ERR_PROC_FAILED", text);
    ivc_mpi_rma_on_failure(rank);
    ivc_mpi_match_ft_sweep();
}

/* ---- what fails ---- */

int ivc_mpi_ft_check_slow(MPI_Comm comm, int peer, uint32_t ctx_off)
{
    if (peer >= 0 && ivc_mpi_peer_failed(peer))
        return MPI_ERR_PROC_FAILED;
    if (ctx_off == IVC_FT_CTX_OFF)
        return MPI_SUCCESS;
    if (comm->ft_revoked)
        return MPIX_ERR_REVOKED;
    if (ctx_off == 1 && (comm->ft_nfailed || comm->ft_broken))
        return MPI_ERR_PROC_FAILED;
    if (peer == -1 && comm->ft_nfailed > comm->ft_nacked)
        return MPI_ERR_PROC_FAILED;
    return MPI_SUCCESS;
}

int ivc_mpi_ft_doomed(MPI_Request r)
{
    MPI_Comm c = r->comm;
    if (c == NULL)
        return MPI_SUCCESS;
    uint32_t off = r->ctx - c->ctx;
    if (r->peer >= 0 && ivc_mpi_peer_failed(r->peer))
        return MPI_ERR_PROC_FAILED;
    if (off == IVC_FT_CTX_OFF)
        return MPI_SUCCESS;
    if (c->ft_revoked)
        return MPIX_ERR_REVOKED;
    if (off == 1 && (c->ft_nfailed || c->ft_broken))
        return MPI_ERR_PROC_FAILED;
    /* MPI_ANY_SOURCE: a blocking receive cannot stay pending; a nonblocking one, posted
     * before the failure or after it (ULFM: it starts, and stays pending until the failure
     * is acknowledged), is reported by the waits (ivc_mpi_ft_pending). */
    if (r->peer < 0 && c->ft_nfailed > c->ft_nacked && r->on_stack)
        return MPI_ERR_PROC_FAILED;
    return MPI_SUCCESS;
}

int ivc_mpi_ft_pending(MPI_Request r)
{
    if (r->kind == REQ_PERSIST) {
        r = r->u.p.inner;
        if (r == NULL)
            return MPI_SUCCESS;
    }
    if (r->kind != REQ_RECV || r->done || r->peer >= 0 || r->comm == NULL)
        return MPI_SUCCESS;
    MPI_Comm c = r->comm;
    if (r->ctx - c->ctx == IVC_FT_CTX_OFF || c->ft_nfailed <= c->ft_nacked)
        return MPI_SUCCESS;
    return MPIX_ERR_PROC_FAILED_PENDING;
}

int ivc_mpi_ft_req_error(MPI_Request r)
{
    int err = r->status.MPI_ERROR;
    if (err != MPI_SUCCESS || r->kind != REQ_SEND || r->comm == NULL || !r->comm->ft_revoked ||
        r->status.MPI_SOURCE == MPI_PROC_NULL || r->op.env.ctx - r->comm->ctx == IVC_FT_CTX_OFF)
        return err;
    return MPIX_ERR_REVOKED;
}

/* ---- what is discarded ---- */

int ivc_mpi_ft_sink_ctx(uint32_t ctx)
{
    uint32_t ids = (uint32_t)ivc_mpi_comm_ids(), base;
    if (ctx < 2 * ids)
        base = ctx;
    else if (ctx >= IVC_PART_CTX_OFF && ctx - IVC_PART_CTX_OFF < (1u << 29) &&
             ((ctx - IVC_PART_CTX_OFF) & ((1u << IVC_PART_SEQ_SHIFT) - 1)) < 2 * ids)
        base = (ctx - IVC_PART_CTX_OFF) & ((1u << IVC_PART_SEQ_SHIFT) - 2);
    else
        return 0;
    int id = (int)(base >> 1);
    MPI_Comm c = ivc_mpi_comm_by_id(id);
    if (c == NULL || c->ctx != 2u * (uint32_t)id)
        return retired != NULL && retired[id];
    if (c->ft_revoked)
        return 1;
    return (base & 1) && (c->ft_nfailed || c->ft_broken);
}

void ivc_mpi_ft_sink_done(ivc_chan_op_t *op, int status)
{
    (void)status;
    free(op);
}

/* ---- revocation ---- */

/* Sends comm's revocation notice to world rank w (fire and forget). */
static void note_send(MPI_Comm c, int w, uint64_t fid)
{
    if (w == ivc_mpi_world_rank || ivc_mpi_peer_failed(w))
        return;
    /* A notice that cannot go is no loss: the other members forward it too. */
    ivc_mpi_send_notice(w, c->ctx + IVC_FT_CTX_OFF, c->rank, FT_TAG_REVOKE, &fid, sizeof(fid));
}

void ivc_mpi_ft_revoke(MPI_Comm c)
{
    if (c->ft_revoked)
        return;
    c->ft_revoked = 1;
    ivc_mpi_ft_state |= FT_REVOKED;
    ivc_mpi_ft_scan(); /* internal communicators follow */
    uint64_t fid = ivc_mpi_ft_comm_id(c);
    for (int i = 0; i < c->size; i++)
        note_send(c, c->world[i], fid);
    if (c->inter)
        for (int i = 0; i < c->local_size; i++)
            note_send(c, c->local_world[i], fid);
    ivc_mpi_match_ft_sweep();
}

static void on_notice(int id, uint64_t fid)
{
    MPI_Comm c = ivc_mpi_comm_by_id(id);
    if (c != NULL && c->ctx == 2u * (uint32_t)id && ivc_mpi_ft_comm_id(c) == fid) {
        ivc_mpi_ft_revoke(c);
        return;
    }
    if (retired != NULL && retired[id])
        return; /* a communicator already freed here */
    for (int i = 0; i < npend; i++)
        if (pend[i].id == id && pend[i].fid == fid)
            return;
    if (npend == cappend) {
        int cap = cappend ? 2 * cappend : 8;
        struct pend *n = realloc(pend, (size_t)cap * sizeof(*n));
        if (n == NULL)
            return;
        pend = n;
        cappend = cap;
    }
    pend[npend++] = (struct pend){id, fid};
}

int ivc_mpi_ft_on_message(ivc_inmsg_t *m)
{
    uint32_t ctx = m->env.ctx, ids = (uint32_t)ivc_mpi_comm_ids();
    if (ctx >= IVC_FT_CTX_OFF && ctx - IVC_FT_CTX_OFF < 2 * ids) {
        if (m->env.tag != FT_TAG_REVOKE)
            return 0;
        uint64_t fid;
        if (m->rndv || m->env.len != sizeof(fid) || m->data == NULL) {
            ivc_mpi_match_discard(m); /* not a notice this library sends */
            return 1;
        }
        memcpy(&fid, m->data, sizeof(fid));
        on_notice((int)((ctx - IVC_FT_CTX_OFF) >> 1), fid);
        return 1;
    }
    if (ivc_mpi_ft_state != 0 && ivc_mpi_ft_sink_ctx(ctx)) {
        ivc_mpi_match_discard(m);
        return 1;
    }
    return 0;
}

/* ---- communicators ---- */

void ivc_mpi_ft_comm_new(MPI_Comm c)
{
    c->ft_nfailed = c->ft_broken = c->ft_revoked = c->ft_nacked = 0;
    c->ft_seq = 0;
    if (norder > 0)
        c->ft_nfailed = ivc_mpi_ft_failed_members(c, NULL, 0);
    if (npend == 0)
        return;
    uint64_t fid = ivc_mpi_ft_comm_id(c);
    for (int i = 0; i < npend; i++) {
        if (pend[i].id == c->ctx_id && pend[i].fid == fid) {
            pend[i] = pend[--npend];
            ivc_mpi_ft_revoke(c);
            return;
        }
    }
}

int ivc_mpi_ft_comm_release(MPI_Comm c)
{
    int retire = !c->predefined && c->ctx_id >= 0 &&
                 (c->ft_nfailed || c->ft_broken || c->ft_revoked);
    if (retire) {
        if (retired == NULL && (retired = calloc((size_t)ivc_mpi_comm_ids(), 1)) == NULL)
            return 1; /* still never reused; late messages then only wait in the queue */
        retired[c->ctx_id] = 1;
        ivc_mpi_ft_state |= FT_RETIRED;
        ivc_mpi_match_ft_sweep();
    }
    if (c->predefined && c == MPI_COMM_WORLD) {
        /* MPI_Finalize: forget everything (a later runtime would be a new process). */
        free(fail_err);
        free(order);
        free(retired);
        free(pend);
        fail_err = order = NULL;
        fail_cap = 0;
        retired = NULL;
        pend = NULL;
        norder = npend = cappend = 0;
        ivc_mpi_ft_state = 0;
    }
    return retire;
}
