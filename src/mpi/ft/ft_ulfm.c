/* The ULFM calls of include/mpi-ext.h (MPIX_*, with PMPIX_* twins). */
#include "ft/ft.h"

#include <stdlib.h>
#include <string.h>

#define IVC_MPIX_WEAK(name) IVC_MT_ALIAS_X_##name /* as IVC_MPI_WEAK (mpi_impl.h) */

int PMPIX_Comm_revoke(MPI_Comm comm)
{
    CHECK_COMM(comm, "MPIX_Comm_revoke");
    ivc_mpi_ft_revoke(comm);
    return MPI_SUCCESS;
}
IVC_MPIX_WEAK(Comm_revoke)

int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag)
{
    CHECK_COMM(comm, "MPIX_Comm_is_revoked");
    if (flag == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, "MPIX_Comm_is_revoked", "NULL flag");
    ivc_mpi_progress(); /* a notice may be waiting */
    *flag = comm->ft_revoked;
    return MPI_SUCCESS;
}
IVC_MPIX_WEAK(Comm_is_revoked)

/* ---- acknowledgements ---- */

int PMPIX_Comm_failure_ack(MPI_Comm comm)
{
    CHECK_COMM(comm, "MPIX_Comm_failure_ack");
    ivc_mpi_progress(); /* acknowledge what can be known now */
    comm->ft_nacked = comm->ft_nfailed;
    return MPI_SUCCESS;
}
IVC_MPIX_WEAK(Comm_failure_ack)

/* The group of the first n failed members of comm (order of detection here). */
static int failed_group(MPI_Comm comm, int n, MPI_Group *out, const char *fn)
{
    if (out == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL group");
    int total = ivc_mpi_ft_failed_members(comm, NULL, 0);
    int *w = malloc((size_t)(total > 0 ? total : 1) * sizeof(int));
    if (w == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    ivc_mpi_ft_failed_members(comm, w, total);
    MPI_Group g = ivc_mpi_group_new(w, n < total ? n : total);
    free(w);
    if (g == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    *out = g;
    return MPI_SUCCESS;
}

int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp)
{
    CHECK_COMM(comm, "MPIX_Comm_failure_get_acked");
    return failed_group(comm, comm->ft_nacked, failedgrp, "MPIX_Comm_failure_get_acked");
}
IVC_MPIX_WEAK(Comm_failure_get_acked)

int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp)
{
    CHECK_COMM(comm, "MPIX_Comm_get_failed");
    ivc_mpi_progress();
    return failed_group(comm, comm->ft_nfailed, failedgrp, "MPIX_Comm_get_failed");
}
IVC_MPIX_WEAK(Comm_get_failed)

int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked)
{
    const char *fn = "MPIX_Comm_ack_failed";
    CHECK_COMM(comm, fn);
    if (num_to_ack < 0 || num_acked == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "negative num_to_ack or NULL num_acked");
    int n = num_to_ack < comm->ft_nfailed ? num_to_ack : comm->ft_nfailed;
    if (n > comm->ft_nacked)
        comm->ft_nacked = n;
    *num_acked = comm->ft_nacked;
    return MPI_SUCCESS;
}
IVC_MPIX_WEAK(Comm_ack_failed)

/* ---- agreement ---- */

/* An agreement's ready() (ivc_wait.h), its re-check before sleeping: a step finished the
 * agreement or moved it to another round (whose requests were just posted: look again
 * before sleeping). Everything it waits for is a message or a failure, and their senders
 * and the failure detector ring this rank, so it may sleep. */
static int agree_ready(void *arg)
{
    ft_cons_t *c = arg;
    int round = ivc_mpi_ft_cons_round(c);
    return ivc_mpi_ft_cons_step(c) || ivc_mpi_ft_cons_round(c) != round;
}

static int agree_run(ft_cons_t *c)
{
    ivc_backoff_t b;
    ivc_backoff_init_idle(&b, agree_ready, c);
    while (!ivc_mpi_ft_cons_step(c))
        ivc_mpi_poll(&b);
    return MPI_SUCCESS;
}

int PMPIX_Comm_agree(MPI_Comm comm, int *flag)
{
    const char *fn = "MPIX_Comm_agree";
    CHECK_COMM(comm, fn);
    if (flag == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL flag");
    int err = MPI_SUCCESS;
    ft_cons_t *c = ivc_mpi_ft_cons_start(comm, (uint32_t)*flag, NULL, &err);
    if (c == NULL)
        return ivc_mpi_raise(comm, err, fn,
                             err == MPI_ERR_COMM ? "too many members for an agreement"
                                                 : "out of memory");
    agree_run(c);
    *flag = (int)ivc_mpi_ft_cons_flag(c);
    /* Decided with the flag, so the same at every member (ft_agree.c). */
    err = ivc_mpi_ft_cons_error(c);
    ivc_mpi_ft_cons_free(c);
    if (err != MPI_SUCCESS)
        return ivc_mpi_raise(comm, err, fn, "a member failed and is not acknowledged");
    return MPI_SUCCESS;
}
IVC_MPIX_WEAK(Comm_agree)

typedef struct {
    ft_cons_t *c;
    int *flag;
} iagree_t;

static int iagree_poll(MPI_Request r)
{
    iagree_t *a = r->u.x.state;
    if (a->c == NULL)
        return 1;
    if (!ivc_mpi_ft_cons_step(a->c))
        return 0;
    *a->flag = (int)ivc_mpi_ft_cons_flag(a->c);
    r->status.MPI_ERROR = ivc_mpi_ft_cons_error(a->c);
    ivc_mpi_ft_cons_free(a->c);
    a->c = NULL;
    return 1;
}

static void iagree_drop(MPI_Request r)
{
    iagree_t *a = r->u.x.state;
    ivc_mpi_ft_cons_free(a->c);
    free(a);
}

int PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request)
{
    const char *fn = "MPIX_Comm_iagree";
    CHECK_COMM(comm, fn);
    if (flag == NULL || request == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL flag or request");
    iagree_t *a = calloc(1, sizeof(*a));
    if (a == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int err = MPI_SUCCESS;
    a->flag = flag;
    a->c = ivc_mpi_ft_cons_start(comm, (uint32_t)*flag, NULL, &err);
    MPI_Request r = a->c != NULL ? ivc_mpi_req_poll_new(comm, iagree_poll, iagree_drop, a) : NULL;
    if (r == NULL) {
        if (a->c != NULL) { /* sends already posted: finish the agreement here */
            agree_run(a->c);
            ivc_mpi_ft_cons_free(a->c);
            err = MPI_ERR_NO_MEM;
        }
        free(a);
        return ivc_mpi_raise(comm, err, fn,
                             err == MPI_ERR_COMM ? "too many members for an agreement"
                                                 : "out of memory");
    }
    *request = r;
    return MPI_SUCCESS;
}
IVC_MPIX_WEAK(Comm_iagree)

/* ---- shrink ---- */

/* Whether world rank w is in comm's local group. */
static int local_has(MPI_Comm comm, int w)
{
    for (int i = 0; i < comm->local_size; i++)
        if (comm->local_world[i] == w)
            return 1;
    return 0;
}

int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm)
{
    const char *fn = "MPIX_Comm_shrink";
    CHECK_COMM(comm, fn);
    if (newcomm == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL newcomm");
    /* One agreement decides both the members (those not failed in the union of what every
     * member knew) and the context id (free at every live member). The ids offered stay
     * reserved meanwhile, as in every blocking agreement on ids (mpi_comm.c). */
    uint64_t mine[IVC_MPI_ID_WORDS];
    ivc_mpi_comm_ids_offer(mine);
    ivc_mpi_comm_ids_reserve(mine);
    int err = MPI_SUCCESS;
    ft_cons_t *c = ivc_mpi_ft_cons_start(comm, 1, mine, &err);
    if (c == NULL) {
        ivc_mpi_comm_ids_reserve(NULL);
        return ivc_mpi_raise(comm, err, fn,
                             err == MPI_ERR_COMM ? "too many members for an agreement"
                                                 : "out of memory");
    }
    agree_run(c);
    ivc_mpi_comm_ids_reserve(NULL);
    uint64_t ids[IVC_MPI_ID_WORDS];
    memcpy(ids, ivc_mpi_ft_cons_ids(c), sizeof(ids));
    /* The survivors, in agreement order: on an intercommunicator each group keeps its own
     * rank order, so split them back by group. */
    const uint8_t *failed = ivc_mpi_ft_cons_failed(c);
    int n, nl = 0, nr = 0;
    const int *members = ivc_mpi_ft_cons_members(c, &n);
    int *lw = malloc((size_t)n * sizeof(int)), *rw = malloc((size_t)n * sizeof(int));
    if (lw != NULL && rw != NULL)
        for (int i = 0; i < n; i++) {
            if (failed[i])
                continue;
            int local = !comm->inter || local_has(comm, members[i]);
            if (local)
                lw[nl++] = members[i];
            else
                rw[nr++] = members[i];
        }
    ivc_mpi_ft_cons_free(c);
    if (lw == NULL || rw == NULL) {
        free(lw);
        free(rw);
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    int id[2] = {ivc_mpi_comm_id_pop(ids), -1};
    if (comm->inter)
        id[1] = ivc_mpi_comm_id_pop(ids);
    if (id[0] < 0 || (comm->inter && id[1] < 0)) {
        free(lw);
        free(rw);
        return ivc_mpi_raise(comm, MPI_ERR_INTERN, fn, "no context id is free at every member");
    }
    if (!comm->inter) {
        free(rw);
        err = ivc_mpi_comm_with_id(comm->errh, id[0], lw, nl, newcomm);
    } else if (nr == 0) {
        /* Every member of the other group failed: no intercommunicator can remain. */
        free(lw);
        free(rw);
        return ivc_mpi_raise(comm, MPIX_ERR_PROC_FAILED, fn,
                             "every member of the remote group failed");
    } else {
        err = ivc_mpi_intercomm_with_ids(comm->errh, id, lw, nl, rw, nr, newcomm);
    }
    if (err != MPI_SUCCESS)
        return ivc_mpi_raise(comm, err, fn, "making the communicator failed");
    return MPI_SUCCESS;
}
IVC_MPIX_WEAK(Comm_shrink)
