/* The nonblocking collective calls (MPI_Ibarrier ... MPI_Ialltoallw): each describes its
 * operation as a coll_args_t, checks it (coll_chk_args, shared with the persistent and
 * neighbourhood calls) and starts its schedule (coll_sched.c). Every check runs at every
 * rank before anything is sent, so an argument error never leaves a message behind. */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>

/* Send side (s = 1) or receive side of a over n blocks. v: 0 one count and type, 1 count
 * and displacement arrays (v forms), 2 count, displacement and datatype arrays (w forms). */
static int chk_vside(MPI_Comm comm, const coll_args_t *a, int s, int n, int v, const char *fn)
{
    MPI_Datatype dt = s ? a->sdt : a->rdt;
    if (v == 0)
        return coll_chk_buf(comm, s ? a->scount : a->rcount, dt, fn);
    const int *counts = s ? a->scounts : a->rcounts;
    const MPI_Datatype *dts = s ? a->sdts : a->rdts;
    const void *sd = a->sdispls != NULL ? (const void *)a->sdispls : (const void *)a->sdispls_a;
    const void *rd = a->rdispls != NULL ? (const void *)a->rdispls : (const void *)a->rdispls_a;
    const void *d = s ? sd : rd;
    if (n > 0 && (counts == NULL || d == NULL || (v == 2 && dts == NULL)))
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL count, displacement or datatype array");
    for (int r = 0; r < n; r++) {
        int rc = coll_chk_buf(comm, counts[r], v == 2 ? dts[r] : dt, fn);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int in_place_root_only(MPI_Comm comm, const char *fn)
{
    return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only valid at the root");
}

/* The arguments of a on an intercommunicator: roots are MPI_ROOT, MPI_PROC_NULL (the
 * root's group) or a rank of the remote group; MPI_IN_PLACE has no meaning there. */
static int chk_inter(MPI_Comm comm, const coll_args_t *a, int v, const char *fn)
{
    int k = a->kind, n = comm->size, rc = MPI_SUCCESS;
    int rooted = k == CK_BCAST || k == CK_REDUCE || k == CK_GATHER || k == CK_SCATTER;
    if (k == CK_SCAN || k == CK_EXSCAN)
        return ivc_mpi_raise(comm, MPI_ERR_COMM, fn, "not defined on an intercommunicator");
    if (k == CK_NB_ALLGATHER || k == CK_NB_ALLTOALL)
        return ivc_mpi_raise(comm, MPI_ERR_TOPOLOGY, fn, "an intercommunicator has no topology");
    if (rooted && a->root != MPI_ROOT && a->root != MPI_PROC_NULL && (a->root < 0 || a->root >= n))
        return ivc_mpi_raise(comm, MPI_ERR_ROOT, fn,
                             "root %d is neither MPI_ROOT, MPI_PROC_NULL nor a remote rank",
                             a->root);
    if (rooted && a->root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int sends = k == CK_ALLGATHER || k == CK_ALLTOALL || k == CK_ALLREDUCE ||
                k == CK_REDUCE_SCATTER || ((k == CK_GATHER || k == CK_REDUCE) && a->root >= 0) ||
                (k == CK_SCATTER && a->root == MPI_ROOT);
    int recvs = k != CK_BARRIER && k != CK_BCAST && !(k == CK_GATHER && a->root >= 0) &&
                !(k == CK_REDUCE && a->root >= 0) && !(k == CK_SCATTER && a->root == MPI_ROOT);
    if ((sends && a->sbuf == MPI_IN_PLACE && k != CK_BCAST) || (recvs && a->rbuf == MPI_IN_PLACE))
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn,
                             "MPI_IN_PLACE is not allowed on an intercommunicator");
    switch (k) {
    case CK_BARRIER: break;
    case CK_BCAST: rc = coll_chk_buf(comm, a->rcount, a->rdt, fn); break;
    case CK_REDUCE:
    case CK_ALLREDUCE:
        rc = coll_chk_buf(comm, a->rcount, a->rdt, fn);
        if (rc == MPI_SUCCESS)
            rc = coll_chk_op(comm, a->op, a->rdt, fn);
        break;
    case CK_REDUCE_SCATTER:
        rc = v ? coll_chk_counts(comm, a->rcounts, comm->local_size, a->rdt, fn)
               : coll_chk_buf(comm, a->rcount, a->rdt, fn);
        if (rc == MPI_SUCCESS)
            rc = coll_chk_op(comm, a->op, a->rdt, fn);
        break;
    case CK_GATHER:
        rc = a->root == MPI_ROOT ? chk_vside(comm, a, 0, n, v, fn)
                                 : coll_chk_buf(comm, a->scount, a->sdt, fn);
        break;
    case CK_SCATTER:
        rc = a->root == MPI_ROOT ? chk_vside(comm, a, 1, n, v, fn)
                                 : coll_chk_buf(comm, a->rcount, a->rdt, fn);
        break;
    case CK_ALLGATHER:
        rc = coll_chk_buf(comm, a->scount, a->sdt, fn);
        if (rc == MPI_SUCCESS)
            rc = chk_vside(comm, a, 0, n, v, fn);
        break;
    case CK_ALLTOALL:
        rc = chk_vside(comm, a, 1, n, v, fn);
        if (rc == MPI_SUCCESS)
            rc = chk_vside(comm, a, 0, n, v, fn);
        break;
    default: rc = ivc_mpi_raise(comm, MPI_ERR_INTERN, fn, "unknown collective");
    }
    return rc;
}

/* ---- NULL buffers (after the counts and datatypes are checked) ----
 *
 * A buffer that holds data at this rank may not be NULL, unless it is MPI_BOTTOM with
 * absolute addresses: ivc_mpi_dt_null_buf_at (dtype.h) decides, per block at its
 * displacement. MPI_IN_PLACE is not NULL. Only what the rank uses is looked at (the
 * receive buffer of Gather at the root ...), as the counts and types were. */

static int chk_one(MPI_Comm comm, const void *buf, int64_t count, MPI_Datatype dt,
                   const char *what, const char *fn)
{
    if (ivc_mpi_dt_null_buf(buf, count, dt))
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn, "NULL %s buffer for %lld elements", what,
                             (long long)count);
    return MPI_SUCCESS;
}

/* Side s (1: send) of a, blocks 0..n-1, each at its displacement. */
static int chk_blocks(MPI_Comm comm, const coll_args_t *a, int s, int n, const char *fn)
{
    if ((s ? a->sbuf : a->rbuf) != NULL)
        return MPI_SUCCESS;
    for (int r = 0; r < n; r++) {
        int count = s ? ca_scount(a, r) : ca_rcount(a, r);
        MPI_Datatype dt = s ? ca_sdt(a, r) : ca_rdt(a, r);
        int64_t off = s ? ca_disp(a->sdispls, a->sdispls_a, a->disp_bytes, r, a->scount, dt)
                        : ca_disp(a->rdispls, a->rdispls_a, a->disp_bytes, r, a->rcount, dt);
        if (ivc_mpi_dt_null_buf_at(NULL, count, dt, off))
            return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn,
                                 "NULL %s buffer for block %d (%d elements)",
                                 s ? "send" : "receive", r, count);
    }
    return MPI_SUCCESS;
}

/* Sum of the n receive counts (v) or n times the count. */
static int64_t rtotal(const coll_args_t *a, int n)
{
    int64_t t = 0;
    for (int r = 0; r < n; r++)
        t += ca_rcount(a, r);
    return t;
}

/* The buffers of a, checked by coll_chk_args. */
static int chk_bufs(MPI_Comm comm, const coll_args_t *a, const char *fn)
{
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS, k = a->kind;
    int in_place = a->sbuf == MPI_IN_PLACE;
    if (comm->inter) {
        /* Rooted calls: MPI_ROOT uses the root's side, a remote root's group the other. */
        int root = a->root == MPI_ROOT, leaf = a->root >= 0;
        switch (k) {
        case CK_BCAST:
            if (root || leaf)
                rc = chk_one(comm, a->rbuf, a->rcount, a->rdt, "broadcast", fn);
            break;
        case CK_REDUCE:
            if (leaf)
                rc = chk_one(comm, a->sbuf, a->rcount, a->rdt, "send", fn);
            else if (root)
                rc = chk_one(comm, a->rbuf, a->rcount, a->rdt, "receive", fn);
            break;
        case CK_ALLREDUCE:
        case CK_REDUCE_SCATTER: {
            int64_t total = k == CK_ALLREDUCE ? a->rcount : rtotal(a, comm->local_size);
            int mine = k == CK_ALLREDUCE ? a->rcount : ca_rcount(a, me);
            rc = chk_one(comm, a->sbuf, total, a->rdt, "send", fn);
            if (rc == MPI_SUCCESS)
                rc = chk_one(comm, a->rbuf, mine, a->rdt, "receive", fn);
            break;
        }
        case CK_GATHER:
            if (root)
                rc = chk_blocks(comm, a, 0, n, fn);
            else if (leaf)
                rc = chk_one(comm, a->sbuf, a->scount, a->sdt, "send", fn);
            break;
        case CK_SCATTER:
            if (root)
                rc = chk_blocks(comm, a, 1, n, fn);
            else if (leaf)
                rc = chk_one(comm, a->rbuf, a->rcount, a->rdt, "receive", fn);
            break;
        case CK_ALLGATHER:
            rc = chk_one(comm, a->sbuf, a->scount, a->sdt, "send", fn);
            if (rc == MPI_SUCCESS)
                rc = chk_blocks(comm, a, 0, n, fn);
            break;
        case CK_ALLTOALL:
            rc = chk_blocks(comm, a, 1, n, fn);
            if (rc == MPI_SUCCESS)
                rc = chk_blocks(comm, a, 0, n, fn);
            break;
        default: break;
        }
        return rc;
    }
    switch (k) {
    case CK_BCAST: rc = chk_one(comm, a->rbuf, a->rcount, a->rdt, "broadcast", fn); break;
    case CK_REDUCE:
    case CK_ALLREDUCE:
    case CK_SCAN:
    case CK_EXSCAN:
        if (!in_place)
            rc = chk_one(comm, a->sbuf, a->rcount, a->rdt, "send", fn);
        if (rc == MPI_SUCCESS && (k != CK_REDUCE || me == a->root))
            rc = chk_one(comm, a->rbuf, a->rcount, a->rdt, "receive", fn);
        break;
    case CK_REDUCE_SCATTER: {
        /* In place, the receive buffer holds the whole input. */
        int64_t total = rtotal(a, n);
        rc = chk_one(comm, in_place ? a->rbuf : a->sbuf, total, a->rdt,
                     in_place ? "receive" : "send", fn);
        if (rc == MPI_SUCCESS)
            rc = chk_one(comm, a->rbuf, ca_rcount(a, me), a->rdt, "receive", fn);
        break;
    }
    case CK_GATHER:
        if (!in_place)
            rc = chk_one(comm, a->sbuf, a->scount, a->sdt, "send", fn);
        if (rc == MPI_SUCCESS && me == a->root)
            rc = chk_blocks(comm, a, 0, n, fn);
        break;
    case CK_SCATTER:
        if (me == a->root)
            rc = chk_blocks(comm, a, 1, n, fn);
        if (rc == MPI_SUCCESS && a->rbuf != MPI_IN_PLACE)
            rc = chk_one(comm, a->rbuf, a->rcount, a->rdt, "receive", fn);
        break;
    case CK_ALLGATHER:
        if (!in_place)
            rc = chk_one(comm, a->sbuf, a->scount, a->sdt, "send", fn);
        if (rc == MPI_SUCCESS)
            rc = chk_blocks(comm, a, 0, n, fn);
        break;
    case CK_ALLTOALL:
        if (!in_place)
            rc = chk_blocks(comm, a, 1, n, fn);
        if (rc == MPI_SUCCESS)
            rc = chk_blocks(comm, a, 0, n, fn);
        break;
    case CK_NB_ALLGATHER:
    case CK_NB_ALLTOALL: {
        int ns, nr;
        coll_args_lengths(comm, a, &ns, &nr);
        if (k == CK_NB_ALLGATHER)
            rc = chk_one(comm, a->sbuf, ns > 0 ? a->scount : 0, a->sdt, "send", fn);
        else
            rc = chk_blocks(comm, a, 1, ns, fn);
        if (rc == MPI_SUCCESS)
            rc = chk_blocks(comm, a, 0, nr, fn);
        break;
    }
    default: break;
    }
    return rc;
}

/* coll_chk_args less the buffers. */
static int checks(MPI_Comm comm, const coll_args_t *a, int v, const char *fn)
{
    int rc = MPI_SUCCESS, n = comm->size, me = comm->rank;
    if (comm->inter)
        return chk_inter(comm, a, v, fn);
    switch (a->kind) {
    case CK_BARRIER: break;
    case CK_BCAST:
        rc = coll_chk_buf(comm, a->rcount, a->rdt, fn);
        if (rc == MPI_SUCCESS)
            rc = coll_chk_root(comm, a->root, fn);
        break;
    case CK_REDUCE:
        rc = coll_chk_root(comm, a->root, fn);
        if (rc == MPI_SUCCESS && a->sbuf == MPI_IN_PLACE && me != a->root)
            rc = in_place_root_only(comm, fn);
        /* fall through */
    case CK_ALLREDUCE:
    case CK_SCAN:
    case CK_EXSCAN:
        if (rc == MPI_SUCCESS)
            rc = coll_chk_buf(comm, a->rcount, a->rdt, fn);
        if (rc == MPI_SUCCESS)
            rc = coll_chk_op(comm, a->op, a->rdt, fn);
        break;
    case CK_REDUCE_SCATTER:
        if (v)
            rc = coll_chk_counts(comm, a->rcounts, n, a->rdt, fn);
        else
            rc = coll_chk_buf(comm, a->rcount, a->rdt, fn);
        if (rc == MPI_SUCCESS)
            rc = coll_chk_op(comm, a->op, a->rdt, fn);
        break;
    case CK_GATHER:
        rc = coll_chk_root(comm, a->root, fn);
        if (rc == MPI_SUCCESS && a->sbuf == MPI_IN_PLACE && me != a->root)
            rc = in_place_root_only(comm, fn);
        if (rc == MPI_SUCCESS && a->sbuf != MPI_IN_PLACE)
            rc = coll_chk_buf(comm, a->scount, a->sdt, fn);
        if (rc == MPI_SUCCESS && me == a->root)
            rc = chk_vside(comm, a, 0, n, v, fn);
        break;
    case CK_SCATTER:
        rc = coll_chk_root(comm, a->root, fn);
        if (rc == MPI_SUCCESS && a->rbuf == MPI_IN_PLACE && me != a->root)
            rc = in_place_root_only(comm, fn);
        if (rc == MPI_SUCCESS && me == a->root)
            rc = chk_vside(comm, a, 1, n, v, fn);
        if (rc == MPI_SUCCESS && a->rbuf != MPI_IN_PLACE)
            rc = coll_chk_buf(comm, a->rcount, a->rdt, fn);
        break;
    case CK_ALLGATHER:
        if (a->sbuf != MPI_IN_PLACE)
            rc = coll_chk_buf(comm, a->scount, a->sdt, fn);
        if (rc == MPI_SUCCESS)
            rc = chk_vside(comm, a, 0, n, v, fn);
        break;
    case CK_ALLTOALL:
        if (a->sbuf != MPI_IN_PLACE)
            rc = chk_vside(comm, a, 1, n, v, fn);
        if (rc == MPI_SUCCESS)
            rc = chk_vside(comm, a, 0, n, v, fn);
        break;
    case CK_NB_ALLGATHER:
    case CK_NB_ALLTOALL: {
        if (comm->topo == NULL)
            return ivc_mpi_raise(comm, MPI_ERR_TOPOLOGY, fn, "the communicator has no topology");
        if (a->sbuf == MPI_IN_PLACE || a->rbuf == MPI_IN_PLACE)
            return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn,
                                 "MPI_IN_PLACE is not allowed in neighbourhood collectives");
        int ns, nr;
        coll_args_lengths(comm, a, &ns, &nr);
        if (a->kind == CK_NB_ALLGATHER)
            rc = coll_chk_buf(comm, a->scount, a->sdt, fn);
        else
            rc = chk_vside(comm, a, 1, ns, v, fn);
        if (rc == MPI_SUCCESS)
            rc = chk_vside(comm, a, 0, nr, v, fn);
        break;
    }
    default: rc = ivc_mpi_raise(comm, MPI_ERR_INTERN, fn, "unknown collective");
    }
    return rc;
}

/* Checks a (its kind's arguments, then its buffers) on comm. v: 0 plain, 1 v form, 2 w form
 * of the call (chk_vside). Returns MPI_SUCCESS or the raised error class. */
/* Send and receive buffers that are the same memory (MPI-4.1 section 2.3 forbids aliasing
 * them; MPI_IN_PLACE is the way to say so): the same address, or the send buffer at this
 * rank's own block of the receive buffer (and the reverse for scatter). Raised at once by
 * every rank that passes such buffers, before anything moves; pointer comparisons only.
 * MPI_BOTTOM (NULL) is exempt: absolute addresses in the datatypes may well be disjoint. */
/* Whether an all-to-all moves any element: buffers of zero elements may share an address
 * (mpi4py passes empty arrays that way) without aliasing anything. */
static int moves_bytes(MPI_Comm comm, const coll_args_t *a)
{
    for (int i = 0; i < comm->size; i++)
        if (ca_scount(a, i) > 0 || ca_rcount(a, i) > 0)
            return 1;
    return 0;
}

static int chk_alias(MPI_Comm comm, const coll_args_t *a, const char *fn)
{
    const void *s = a->sbuf, *r = a->rbuf;
    int me = comm->rank, alias = 0;
    if (s == MPI_IN_PLACE || r == MPI_IN_PLACE || s == MPI_BOTTOM || r == MPI_BOTTOM || comm->inter)
        return MPI_SUCCESS;
    switch (a->kind) {
    case CK_REDUCE: alias = me == a->root && s == r && a->rcount > 0; break;
    case CK_ALLREDUCE:
    case CK_SCAN:
    case CK_EXSCAN:
    case CK_REDUCE_SCATTER: alias = s == r && ca_rcount(a, me) > 0; break;
    case CK_GATHER:
        alias = me == a->root && a->scount > 0 && (s == r || s == ca_rptr(a, me));
        break;
    case CK_ALLGATHER: alias = a->scount > 0 && (s == r || s == ca_rptr(a, me)); break;
    case CK_SCATTER:
        alias = me == a->root && a->rcount > 0 && (s == r || r == ca_sptr(a, me));
        break;
    case CK_ALLTOALL: alias = s == r && moves_bytes(comm, a); break;
    default: break;
    }
    if (alias)
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn,
                             "send and receive buffers are the same memory (use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

int coll_chk_args(MPI_Comm comm, const coll_args_t *a, int v, const char *fn)
{
    int rc = checks(comm, a, v, fn);
    if (rc == MPI_SUCCESS)
        rc = chk_bufs(comm, a, fn);
    return rc == MPI_SUCCESS ? chk_alias(comm, a, fn) : rc;
}

/* Entry checks of a nonblocking or persistent call. */
int coll_chk_request(MPI_Comm comm, MPI_Request *request, const char *fn)
{
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && request == NULL)
        rc = ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL request pointer");
    return rc;
}

/* Checks a, then starts it as a nonblocking operation. */
static int icoll(MPI_Comm comm, const coll_args_t *a, int v, MPI_Request *request,
                 const char *fn)
{
    int rc = coll_chk_request(comm, request, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, a, v, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm, coll_issue(comm, a, -1, request), fn);
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_BARRIER};
    return icoll(comm, &a, 0, request, "MPI_Ibarrier");
}
IVC_MPI_WEAK(Ibarrier)

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    coll_args_t a = {
        .kind = CK_BCAST, .rbuf = buffer, .rcount = count, .rdt = datatype, .root = root};
    return icoll(comm, &a, 0, request, "MPI_Ibcast");
}
IVC_MPI_WEAK(Ibcast)

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_REDUCE,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = count,
                     .rdt = datatype,
                     .op = op,
                     .root = root};
    return icoll(comm, &a, 0, request, "MPI_Ireduce");
}
IVC_MPI_WEAK(Ireduce)

static int ireduction(int kind, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                      const char *fn)
{
    coll_args_t a = {
        .kind = kind, .sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype, .op = op};
    return icoll(comm, &a, 0, request, fn);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    return ireduction(CK_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm, request,
                      "MPI_Iallreduce");
}
IVC_MPI_WEAK(Iallreduce)

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    return ireduction(CK_SCAN, sendbuf, recvbuf, count, datatype, op, comm, request, "MPI_Iscan");
}
IVC_MPI_WEAK(Iscan)

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    return ireduction(CK_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, request,
                      "MPI_Iexscan");
}
IVC_MPI_WEAK(Iexscan)

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    return ireduction(CK_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, datatype, op, comm, request,
                      "MPI_Ireduce_scatter_block");
}
IVC_MPI_WEAK(Ireduce_scatter_block)

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_REDUCE_SCATTER,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdt = datatype,
                     .op = op};
    return icoll(comm, &a, 1, request, "MPI_Ireduce_scatter");
}
IVC_MPI_WEAK(Ireduce_scatter)

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    coll_args_t a = {.kind = CK_GATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype,
                     .root = root};
    return icoll(comm, &a, 0, request, "MPI_Igather");
}
IVC_MPI_WEAK(Igather)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_GATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = displs,
                     .rdt = recvtype,
                     .root = root};
    return icoll(comm, &a, 1, request, "MPI_Igatherv");
}
IVC_MPI_WEAK(Igatherv)

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    coll_args_t a = {.kind = CK_SCATTER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype,
                     .root = root};
    return icoll(comm, &a, 0, request, "MPI_Iscatter");
}
IVC_MPI_WEAK(Iscatter)

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_SCATTER,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = displs,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype,
                     .root = root};
    return icoll(comm, &a, 1, request, "MPI_Iscatterv");
}
IVC_MPI_WEAK(Iscatterv)

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return icoll(comm, &a, 0, request, "MPI_Iallgather");
}
IVC_MPI_WEAK(Iallgather)

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = displs,
                     .rdt = recvtype};
    return icoll(comm, &a, 1, request, "MPI_Iallgatherv");
}
IVC_MPI_WEAK(Iallgatherv)

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_ALLTOALL,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return icoll(comm, &a, 0, request, "MPI_Ialltoall");
}
IVC_MPI_WEAK(Ialltoall)

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    coll_args_t a = {.kind = CK_ALLTOALL,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = rdispls,
                     .rdt = recvtype};
    return icoll(comm, &a, 1, request, "MPI_Ialltoallv");
}
IVC_MPI_WEAK(Ialltoallv)

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    coll_args_t a = {.kind = CK_ALLTOALL,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .sdts = sendtypes,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = rdispls,
                     .rdts = recvtypes,
                     .disp_bytes = 1};
    return icoll(comm, &a, 2, request, "MPI_Ialltoallw");
}
IVC_MPI_WEAK(Ialltoallw)
