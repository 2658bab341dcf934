/* Collectives over point-to-point on each communicator's collective context: the algorithms
 * for communicators whose members do not all share the region (and for IVC_COLL_SHM=no).
 * Dissemination barrier, binomial broadcast and reduction, linear gather/scatter, ring
 * allgather, pairwise all-to-all, linear scan. Reductions move packed bytes, in pieces below
 * 2 GiB so that byte counts never pass through an int. */
#include "coll/coll_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define PIECE (1u << 30)

/* A collective on a communicator with a failed member or a revoked one fails at every
 * member that knows it, before anything moves (src/mpi/ft/ft.h); one branch until then. */
#define P2P_FT_ENTRY(comm)                                                                         \
    do {                                                                                           \
        int e_ = ivc_mpi_ft_check(comm, -2, 1);                                                    \
        if (__builtin_expect(e_ != MPI_SUCCESS, 0))                                                \
            return e_;                                                                             \
    } while (0)

int coll_send_bytes(const void *buf, uint64_t n, int dest, int tag, MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
    uint64_t off = 0;
    do {
        uint64_t len = n - off < PIECE ? n - off : PIECE;
        int rc = ivc_mpi_send_x((const char *)buf + off, (int)len, MPI_BYTE, dest, tag, comm, 1);
        if (rc != MPI_SUCCESS)
            return rc;
        off += len;
    } while (off < n);
    return MPI_SUCCESS;
}

int coll_recv_bytes(void *buf, uint64_t n, int src, int tag, MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
    uint64_t off = 0;
    do {
        uint64_t len = n - off < PIECE ? n - off : PIECE;
        int rc = ivc_mpi_recv_x((char *)buf + off, (int)len, MPI_BYTE, src, tag, comm, 1,
                                MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        off += len;
    } while (off < n);
    return MPI_SUCCESS;
}

int coll_p2p_barrier(MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
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

int coll_p2p_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
    int size = comm->size, rel = (comm->rank - root + size) % size;
    int mask = 1, bad = 0;
    uint64_t want = coll_bytes(count, dt);
    /* Receive from the parent: the rank that differs in the lowest set bit of rel. */
    while (mask < size) {
        if (rel & mask) {
            MPI_Status st = {.ivc_count = 0};
            int rc =
                ivc_mpi_recv_x(buf, count, dt, (rel - mask + root) % size, TAG_BCAST, comm, 1, &st);
            if (coll_len_mismatch(rc, st.ivc_count, want))
                bad = 1; /* the children still get a message: a mismatched one */
            else if (rc != MPI_SUCCESS)
                return rc;
            break;
        }
        mask <<= 1;
    }
    void *poison = NULL;
    int n = 0;
    if (bad) {
        n = coll_len_poison(want);
        if ((poison = calloc(1, (size_t)n + 1)) == NULL)
            return MPI_ERR_NO_MEM;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < size) {
            int rc = bad ? ivc_mpi_send_x(poison, n, MPI_BYTE, (rel + mask + root) % size,
                                          TAG_BCAST, comm, 1)
                         : ivc_mpi_send_x(buf, count, dt, (rel + mask + root) % size, TAG_BCAST,
                                          comm, 1);
            if (rc != MPI_SUCCESS) {
                free(poison);
                return rc;
            }
        }
    }
    free(poison);
    return bad ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

/* Binomial reduction of packed data. Ranks combine in the order of `rel`; a
 * non-commutative operation therefore reduces toward rank 0 (rel == rank, so lower ranks
 * stay on the left) and rank 0 forwards the result to the root. */
int coll_p2p_reduce_packed(void *acc, uint64_t count, MPI_Datatype dt, MPI_Op op, int root,
                           MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
    int size = comm->size, rank = comm->rank;
    int top = coll_op_commutes(op) ? root : 0;
    int rel = (rank - top + size) % size;
    uint64_t bytes = count * dt->map.size;
    uint8_t *in = malloc(bytes ? bytes : 1);
    if (in == NULL)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (int mask = 1; mask < size; mask <<= 1) {
        if (rel & mask) {
            rc = coll_send_bytes(acc, bytes, (rel - mask + top) % size, TAG_REDUCE, comm);
            break;
        }
        if (rel + mask < size) {
            rc = coll_recv_bytes(in, bytes, (rel + mask + top) % size, TAG_REDUCE, comm);
            if (rc != MPI_SUCCESS)
                break;
            /* acc = acc op in: the partner holds higher ranks */
            rc = coll_op_apply(op, dt, acc, in, count);
            if (rc != MPI_SUCCESS)
                break;
            memcpy(acc, in, bytes);
        }
    }
    if (rc == MPI_SUCCESS && top != root) {
        if (rank == top)
            rc = coll_send_bytes(acc, bytes, root, TAG_REDUCE, comm);
        else if (rank == root)
            rc = coll_recv_bytes(acc, bytes, top, TAG_REDUCE, comm);
    }
    free(in);
    return rc;
}

int coll_p2p_gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                     const int *displs, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
    if (comm->rank != root)
        return ivc_mpi_send_x(sbuf, scount, sdt, root, TAG_GATHER, comm, 1);
    for (int r = 0; r < comm->size; r++) {
        char *dst = (char *)rbuf + (int64_t)displs[r] * rdt->map.extent;
        int rc;
        if (r == root) {
            if (sbuf == MPI_IN_PLACE)
                continue;
            rc = ivc_mpi_sendrecv_x(sbuf, scount, sdt, root, TAG_GATHER, dst, rcounts[r], rdt, root,
                                    TAG_GATHER, comm, 1, MPI_STATUS_IGNORE);
        } else {
            rc = ivc_mpi_recv_x(dst, rcounts[r], rdt, r, TAG_GATHER, comm, 1, MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int coll_p2p_scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype sdt,
                      void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
    if (comm->rank != root)
        return ivc_mpi_recv_x(rbuf, rcount, rdt, root, TAG_SCATTER, comm, 1, MPI_STATUS_IGNORE);
    for (int r = 0; r < comm->size; r++) {
        const char *src = (const char *)sbuf + (int64_t)displs[r] * sdt->map.extent;
        int rc;
        if (r == root) {
            if (rbuf == MPI_IN_PLACE)
                continue;
            rc = ivc_mpi_sendrecv_x(src, scounts[r], sdt, root, TAG_SCATTER, rbuf, rcount, rdt,
                                    root, TAG_SCATTER, comm, 1, MPI_STATUS_IGNORE);
        } else {
            rc = ivc_mpi_send_x(src, scounts[r], sdt, r, TAG_SCATTER, comm, 1);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Ring: in step s every rank passes on the block it got in step s - 1. */
int coll_p2p_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
    int n = comm->size, me = comm->rank, right = (me + 1) % n, left = (me - 1 + n) % n;
    int64_t ext = rdt->map.extent;
    if (sbuf != MPI_IN_PLACE) {
        int rc = ivc_mpi_sendrecv_x(sbuf, scount, sdt, me, TAG_ALLGATHER,
                                    (char *)rbuf + displs[me] * ext, rcounts[me], rdt, me,
                                    TAG_ALLGATHER, comm, 1, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int s = 0; s < n - 1; s++) {
        int sb = (me - s + n) % n, rb = (me - s - 1 + n) % n;
        int rc = ivc_mpi_sendrecv_x((char *)rbuf + displs[sb] * ext, rcounts[sb], rdt, right,
                                    TAG_ALLGATHER, (char *)rbuf + displs[rb] * ext, rcounts[rb],
                                    rdt, left, TAG_ALLGATHER, comm, 1, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Pairwise exchange: in step s, send to me + s and receive from me - s. In place, the
 * receive buffer is first copied aside as the send buffer. */
int coll_p2p_alltoallw(const void *sbuf, const int *scounts, const MPI_Aint *sdispls,
                       const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                       const MPI_Aint *rdispls, const MPI_Datatype *rdts, MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS, bad = 0;
    MPI_Status st = {.ivc_count = 0};
    char *copy = NULL;
    MPI_Aint *cdispls = NULL;
    if (sbuf == MPI_IN_PLACE) {
        /* Pack every block of the receive buffer aside; send them as bytes. */
        uint64_t total = 0;
        cdispls = malloc((size_t)n * sizeof(MPI_Aint));
        if (cdispls == NULL)
            return MPI_ERR_NO_MEM;
        for (int r = 0; r < n; r++) {
            cdispls[r] = (MPI_Aint)total;
            total += coll_bytes(rcounts[r], rdts[r]);
        }
        copy = malloc(total ? total : 1);
        if (copy == NULL) {
            free(cdispls);
            return MPI_ERR_NO_MEM;
        }
        for (int r = 0; r < n; r++) {
            ivc_data_t d;
            ivc_mpi_data(&d, (char *)rbuf + rdispls[r], rcounts[r], rdts[r]);
            ivc_data_pack(&d, 0, copy + cdispls[r], d.bytes);
        }
    }
    for (int s = 0; s < n && rc == MPI_SUCCESS; s++) {
        int dst = (me + s) % n, src = (me - s + n) % n;
        if (copy != NULL) {
            uint64_t sn = coll_bytes(rcounts[dst], rdts[dst]);
            if (sn > INT_MAX) {
                rc = MPI_ERR_COUNT; /* in place, a block goes as bytes: at most 2 GiB */
                break;
            }
            rc = ivc_mpi_sendrecv_x(copy + cdispls[dst], (int)sn, MPI_BYTE, dst, TAG_ALLTOALL,
                                    (char *)rbuf + rdispls[src], rcounts[src], rdts[src], src,
                                    TAG_ALLTOALL, comm, 1, &st);
        } else {
            rc = ivc_mpi_sendrecv_x((const char *)sbuf + sdispls[dst], scounts[dst], sdts[dst], dst,
                                    TAG_ALLTOALL, (char *)rbuf + rdispls[src], rcounts[src],
                                    rdts[src], src, TAG_ALLTOALL, comm, 1, &st);
        }
        /* A length mismatch with one peer: the exchanges with the others still happen (each
         * pair exchanges directly, so they see their own mismatches). */
        if (coll_len_mismatch(rc, st.ivc_count, coll_bytes(rcounts[src], rdts[src]))) {
            bad = 1;
            rc = MPI_SUCCESS;
        }
    }
    if (rc == MPI_SUCCESS && bad)
        rc = MPI_ERR_TRUNCATE;
    free(copy);
    free(cdispls);
    return rc;
}

/* Linear scan: rank r gets the prefix of ranks 0..r-1 from r - 1, combines, passes on. */
int coll_p2p_scan_packed(void *acc, uint64_t count, MPI_Datatype dt, MPI_Op op, int exclusive,
                         MPI_Comm comm)
{
    P2P_FT_ENTRY(comm);
    int me = comm->rank, n = comm->size, rc = MPI_SUCCESS;
    uint64_t bytes = count * dt->map.size;
    uint8_t *prev = malloc(bytes ? bytes : 1);
    if (prev == NULL)
        return MPI_ERR_NO_MEM;
    if (me > 0) {
        rc = coll_recv_bytes(prev, bytes, me - 1, TAG_SCAN, comm);
        if (rc == MPI_SUCCESS)
            rc = coll_op_apply(op, dt, prev, acc, count); /* acc = prefix op mine */
    }
    if (rc == MPI_SUCCESS && me < n - 1)
        rc = coll_send_bytes(acc, bytes, me + 1, TAG_SCAN, comm);
    if (rc == MPI_SUCCESS && exclusive && me > 0)
        memcpy(acc, prev, bytes); /* the exclusive result is what came in */
    free(prev);
    return rc;
}
