/* Collectives on intercommunicators (MPI-4.1 section 6.2.2), blocking, nonblocking and
 * persistent alike, as schedules (coll_nbc.c) over the intercommunicator (whose ranks are
 * the remote group's) and its local_comm (the local group, comm.h):
 *
 *  Barrier         dissemination in the local group, the two leaders (local rank 0)
 *                  exchange a message, broadcast in the local group
 *  Bcast           MPI_ROOT sends to remote rank 0, which broadcasts in its group;
 *                  MPI_PROC_NULL does nothing
 *  Gather(v)       every member of the other group sends to the root (MPI_ROOT), which
 *  Scatter(v)      receives block r from remote rank r (scatter: the reverse)
 *  Allgather(v)    every rank sends its block to every remote rank and receives block r
 *  Alltoall(v, w)  from remote rank r
 *  Reduce          the other group reduces to its rank 0 (rank order kept) which sends the
 *                  result to the root
 *  Allreduce       each group reduces to its leader; the leaders swap results; each
 *                  leader broadcasts in its group the other group's result
 *  Reduce_scatter  as Allreduce, then every rank keeps its slice; a group's input vectors
 *                  have as many elements as its own recvcounts add up to (the standard asks
 *                  both groups' sums to agree)
 * Every transfer carries the operation's tag, on the intercommunicator's or local_comm's
 * collective context; local_comm serves no other nonblocking operation, so they never
 * meet another operation's messages. */
#include "coll/coll_impl.h"

#include <limits.h>
#include <stdlib.h>

static int inter_reduction(nbc_t *s, const coll_args_t *a)
{
    MPI_Comm ic = nbc_comm(s), lc = ic->local_comm;
    int lr = ic->rank, rc = MPI_SUCCESS;
    MPI_Datatype dt = a->rdt;
    uint64_t count = (uint64_t)a->rcount, first = 0, mine = count;
    if (a->kind == CK_REDUCE_SCATTER) {
        count = 0;
        for (int r = 0; r < ic->local_size; r++) {
            if (r == lr)
                first = count;
            count += (uint64_t)ca_rcount(a, r);
        }
        mine = (uint64_t)ca_rcount(a, lr);
    }
    uint64_t bytes = count * dt->map.size;
    if (bytes > INT_MAX)
        return MPI_ERR_COUNT;
    nbc_set_op(s, a->op, dt);
    if (a->kind == CK_REDUCE && a->root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (a->kind == CK_REDUCE && a->root == MPI_ROOT) {
        uint8_t *res = nbc_scratch(s, bytes);
        if (res == NULL)
            return MPI_ERR_NO_MEM;
        rc = nbc_xfer(s, NBC_RECV, 0, res, (int)bytes, MPI_BYTE, 0);
        nbc_end_round(s);
        return rc == MPI_SUCCESS ? nbc_unpack(s, a->rbuf, count, dt, res) : rc;
    }
    /* acc: my group's reduction (at the leader); in: scratch; res: the other group's */
    uint8_t *acc = coll_pack_new(s, a->sbuf, count, dt, 2 * bytes);
    if (acc == NULL)
        return MPI_ERR_NO_MEM;
    uint8_t *in = acc + bytes, *res = in + bytes;
    rc = coll_tree_reduce(s, lc, acc, in, count, bytes, 0);
    if (a->kind == CK_REDUCE) {
        if (rc == MPI_SUCCESS && lr == 0)
            rc = nbc_xfer(s, NBC_SEND, a->root, acc, (int)bytes, MPI_BYTE, 0);
        return rc;
    }
    if (rc == MPI_SUCCESS && lr == 0) {
        rc = nbc_xfer(s, NBC_SEND, 0, acc, (int)bytes, MPI_BYTE, 0);
        if (rc == MPI_SUCCESS)
            rc = nbc_xfer(s, NBC_RECV, 0, res, (int)bytes, MPI_BYTE, 0);
        nbc_end_round(s);
    }
    if (rc == MPI_SUCCESS)
        rc = coll_tree_bcast(s, lc, res, (int)bytes, MPI_BYTE, 0);
    if (rc == MPI_SUCCESS)
        rc = nbc_unpack(s, a->rbuf, mine, dt, res + first * dt->map.size);
    return rc;
}

int coll_build_inter(nbc_t *s, const coll_args_t *a)
{
    MPI_Comm ic = nbc_comm(s), lc = ic->local_comm;
    int n = ic->size, lr = ic->rank, rc = MPI_SUCCESS;
    if (lc == NULL || lc == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    switch (a->kind) {
    case CK_BARRIER:
        rc = coll_dissemination(s, lc);
        if (rc == MPI_SUCCESS && lr == 0) {
            rc = nbc_xfer(s, NBC_SEND, 0, NULL, 0, MPI_BYTE, 0);
            if (rc == MPI_SUCCESS)
                rc = nbc_xfer(s, NBC_RECV, 0, NULL, 0, MPI_BYTE, 0);
            nbc_end_round(s);
        }
        return rc == MPI_SUCCESS ? coll_tree_bcast(s, lc, NULL, 0, MPI_BYTE, 0) : rc;
    case CK_BCAST:
        if (a->root == MPI_ROOT)
            return nbc_xfer(s, NBC_SEND, 0, a->rbuf, a->rcount, a->rdt, 0);
        if (a->root == MPI_PROC_NULL)
            return MPI_SUCCESS;
        if (lr == 0)
            rc = nbc_xfer(s, NBC_RECV, a->root, a->rbuf, a->rcount, a->rdt, 0);
        nbc_end_round(s);
        return rc == MPI_SUCCESS ? coll_tree_bcast(s, lc, a->rbuf, a->rcount, a->rdt, 0) : rc;
    case CK_GATHER:
        if (a->root == MPI_ROOT)
            for (int r = 0; r < n && rc == MPI_SUCCESS; r++)
                rc = nbc_xfer(s, NBC_RECV, r, ca_rptr(a, r), ca_rcount(a, r), a->rdt, 0);
        else if (a->root != MPI_PROC_NULL)
            rc = nbc_xfer(s, NBC_SEND, a->root, (void *)a->sbuf, a->scount, a->sdt, 0);
        return rc;
    case CK_SCATTER:
        if (a->root == MPI_ROOT)
            for (int r = 0; r < n && rc == MPI_SUCCESS; r++)
                rc = nbc_xfer(s, NBC_SEND, r, (void *)ca_sptr(a, r), ca_scount(a, r), a->sdt, 0);
        else if (a->root != MPI_PROC_NULL)
            rc = nbc_xfer(s, NBC_RECV, a->root, a->rbuf, a->rcount, a->rdt, 0);
        return rc;
    case CK_ALLGATHER:
    case CK_ALLTOALL:
        for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
            int r = (lr + k) % n; /* spread the load over the remote ranks */
            rc = nbc_xfer(s, NBC_RECV, r, ca_rptr(a, r), ca_rcount(a, r), ca_rdt(a, r), 0);
            if (rc != MPI_SUCCESS)
                break;
            if (a->kind == CK_ALLGATHER)
                rc = nbc_xfer(s, NBC_SEND, r, (void *)a->sbuf, a->scount, a->sdt, 0);
            else
                rc = nbc_xfer(s, NBC_SEND, r, (void *)ca_sptr(a, r), ca_scount(a, r), ca_sdt(a, r),
                              0);
        }
        return rc;
    case CK_REDUCE:
    case CK_ALLREDUCE:
    case CK_REDUCE_SCATTER: return inter_reduction(s, a);
    default: return MPI_ERR_COMM; /* scans and neighbourhoods have no intercommunicator form */
    }
}

int coll_inter_run(MPI_Comm comm, const coll_args_t *a, int v, const char *fn)
{
    int rc = coll_chk_args(comm, a, v, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm, coll_run(comm, a), fn);
}
