/* Collectives over point-to-point on each communicator's collective context: dissemination
 * barrier, binomial broadcast and reduction, linear gather. These are the baseline the
 * shared-memory collectives will replace; communicator management uses them too. */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* Tags on the collective context, one per operation so that a mismatched pair of
 * collectives cannot silently match each other. */
enum { TAG_BARRIER = 1, TAG_BCAST, TAG_REDUCE, TAG_GATHER };

int ivc_mpi_coll_barrier(MPI_Comm comm)
{
    int size = comm->size, rank = comm->rank;
    for (int k = 1; k < size; k <<= 1) {
        int rc =
            ivc_mpi_sendrecv_x(NULL, 0, MPI_BYTE, (rank + k) % size, TAG_BARRIER, NULL, 0, MPI_BYTE,
                               (rank - k + size) % size, TAG_BARRIER, comm, 1, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int size = comm->size, rel = (comm->rank - root + size) % size;
    int mask = 1;
    /* Receive from the parent: the rank that differs in the lowest set bit of rel. */
    while (mask < size) {
        if (rel & mask) {
            int rc = ivc_mpi_recv_x(buf, count, dt, (rel - mask + root) % size, TAG_BCAST, comm, 1,
                                    MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return rc;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < size) {
            int rc = ivc_mpi_send_x(buf, count, dt, (rel + mask + root) % size, TAG_BCAST, comm, 1);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Binomial reduction of packed data: every rank packs its contribution, children's packed
 * contributions are combined into it, and the root unpacks the result. Predefined
 * operations apply to the packed elements of the datatype's basic kind. */
static int coll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                       int root, MPI_Comm comm)
{
    if (dt->basic == B_NONE || dt->basic_size == 0)
        return MPI_ERR_TYPE;
    int size = comm->size, rel = (comm->rank - root + size) % size;
    ivc_data_t d;
    ivc_mpi_data(&d, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt);
    uint64_t bytes = d.bytes, n = bytes / dt->basic_size;
    uint8_t *acc = malloc(bytes ? 2 * bytes : 1);
    if (acc == NULL)
        return MPI_ERR_NO_MEM;
    uint8_t *in = acc + bytes;
    ivc_data_pack(&d, 0, acc, bytes);
    int rc = MPI_SUCCESS;
    for (int mask = 1; mask < size; mask <<= 1) {
        if (rel & mask) {
            rc = ivc_mpi_send_x(acc, (int)bytes, MPI_BYTE, (rel - mask + root) % size, TAG_REDUCE,
                                comm, 1);
            break;
        }
        if (rel + mask < size) {
            rc = ivc_mpi_recv_x(in, (int)bytes, MPI_BYTE, (rel + mask + root) % size, TAG_REDUCE,
                                comm, 1, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                break;
            /* acc = acc op in, keeping lower ranks on the left */
            rc = ivc_mpi_op_apply(op, acc, in, n, dt->basic);
            if (rc != MPI_SUCCESS)
                break;
            memcpy(acc, in, bytes);
        }
    }
    if (rc == MPI_SUCCESS && rel == 0) {
        ivc_data_t out;
        ivc_mpi_data(&out, rbuf, count, dt);
        ivc_data_unpack(&out, 0, acc, bytes);
    }
    free(acc);
    return rc;
}

int ivc_mpi_coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                           MPI_Comm comm)
{
    /* Reduce then broadcast: every rank gets bit-identical results. */
    int rc = coll_reduce(sbuf, rbuf, count, dt, op, 0, comm);
    if (rc == MPI_SUCCESS)
        rc = coll_bcast(rbuf, count, dt, 0, comm);
    return rc;
}

static int coll_gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, int root, MPI_Comm comm)
{
    if (comm->rank != root)
        return ivc_mpi_send_x(sbuf, scount, sdt, root, TAG_GATHER, comm, 1);
    int64_t stride = (int64_t)rcount * rdt->map.extent;
    for (int r = 0; r < comm->size; r++) {
        char *dst = (char *)rbuf + r * stride;
        int rc;
        if (r == root) {
            if (sbuf == MPI_IN_PLACE)
                continue;
            rc = ivc_mpi_sendrecv_x(sbuf, scount, sdt, root, TAG_GATHER, dst, rcount, rdt, root,
                                    TAG_GATHER, comm, 1, MPI_STATUS_IGNORE);
        } else {
            rc = ivc_mpi_recv_x(dst, rcount, rdt, r, TAG_GATHER, comm, 1, MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int ivc_mpi_coll_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                           MPI_Datatype rdt, MPI_Comm comm)
{
    if (sbuf == MPI_IN_PLACE && comm->rank != 0) {
        /* My block is already in place in rbuf: send it from there. */
        sbuf = (char *)rbuf + (int64_t)comm->rank * rcount * rdt->map.extent;
        scount = rcount;
        sdt = rdt;
    }
    int rc = coll_gather(sbuf, scount, sdt, rbuf, rcount, rdt, 0, comm);
    if (rc == MPI_SUCCESS)
        rc = coll_bcast(rbuf, rcount * comm->size, rdt, 0, comm);
    return rc;
}

/* ---- the MPI calls ---- */

static int check_coll(MPI_Comm comm, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    return MPI_SUCCESS;
}

static int check_buf(MPI_Comm comm, int count, MPI_Datatype dt, const char *fn)
{
    if (count < 0)
        return ivc_mpi_raise(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (!ivc_mpi_dt_valid(dt) || !dt->committed)
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    return MPI_SUCCESS;
}

static int check_root(MPI_Comm comm, int root, const char *fn)
{
    if (root < 0 || root >= comm->size)
        return ivc_mpi_raise(comm, MPI_ERR_ROOT, fn, "root %d is not in the communicator", root);
    return MPI_SUCCESS;
}

static int check_op(MPI_Comm comm, MPI_Op op, MPI_Datatype dt, const char *fn)
{
    if (!ivc_mpi_op_valid(op))
        return ivc_mpi_raise(comm, MPI_ERR_OP, fn, "invalid operation");
    if (dt->basic == B_NONE)
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn,
                             "reductions need a datatype made of one basic type");
    return MPI_SUCCESS;
}

static int done(MPI_Comm comm, int rc, const char *fn)
{
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "the collective failed");
    return MPI_SUCCESS;
}

int PMPI_Barrier(MPI_Comm comm)
{
    int rc = check_coll(comm, "MPI_Barrier");
    if (rc != MPI_SUCCESS)
        return rc;
    return done(comm, ivc_mpi_coll_barrier(comm), "MPI_Barrier");
}
IVC_MPI_WEAK(Barrier)

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Bcast";
    int rc = check_coll(comm, fn);
    if (rc == MPI_SUCCESS)
        rc = check_buf(comm, count, datatype, fn);
    if (rc == MPI_SUCCESS)
        rc = check_root(comm, root, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    return done(comm, coll_bcast(buffer, count, datatype, root, comm), fn);
}
IVC_MPI_WEAK(Bcast)

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    const char *fn = "MPI_Reduce";
    int rc = check_coll(comm, fn);
    if (rc == MPI_SUCCESS)
        rc = check_buf(comm, count, datatype, fn);
    if (rc == MPI_SUCCESS)
        rc = check_root(comm, root, fn);
    if (rc == MPI_SUCCESS)
        rc = check_op(comm, op, datatype, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sendbuf == MPI_IN_PLACE && comm->rank != root)
        return ivc_mpi_raise(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only valid at the root");
    return done(comm, coll_reduce(sendbuf, recvbuf, count, datatype, op, root, comm), fn);
}
IVC_MPI_WEAK(Reduce)

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    const char *fn = "MPI_Allreduce";
    int rc = check_coll(comm, fn);
    if (rc == MPI_SUCCESS)
        rc = check_buf(comm, count, datatype, fn);
    if (rc == MPI_SUCCESS)
        rc = check_op(comm, op, datatype, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    return done(comm, ivc_mpi_coll_allreduce(sendbuf, recvbuf, count, datatype, op, comm), fn);
}
IVC_MPI_WEAK(Allreduce)

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Gather";
    int rc = check_coll(comm, fn);
    if (rc == MPI_SUCCESS)
        rc = check_root(comm, root, fn);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = check_buf(comm, sendcount, sendtype, fn);
    if (rc == MPI_SUCCESS && comm->rank == root)
        rc = check_buf(comm, recvcount, recvtype, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    return done(comm,
                coll_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
                fn);
}
IVC_MPI_WEAK(Gather)

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "MPI_Allgather";
    int rc = check_coll(comm, fn);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = check_buf(comm, sendcount, sendtype, fn);
    if (rc == MPI_SUCCESS)
        rc = check_buf(comm, recvcount, recvtype, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    return done(
        comm,
        ivc_mpi_coll_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
        fn);
}
IVC_MPI_WEAK(Allgather)
