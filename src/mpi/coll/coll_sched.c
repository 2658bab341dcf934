/* Schedules of the collectives over point-to-point (coll_impl.h: coll_args_t), for the
 * nonblocking, persistent and neighbourhood calls. Every schedule is built whole from the
 * arguments when the operation starts; counts, displacements and datatype arrays are read
 * only here, so the caller's arrays may go away once the call returned.
 *
 *  Barrier         dissemination
 *  Bcast           binomial tree
 *  Reduce          binomial tree of packed data (toward rank 0, then to the root, for a
 *                  non-commutative operation, so ranks combine in order)
 *  Allreduce       binomial reduction to rank 0, binomial broadcast of the result
 *  Reduce_scatter  allreduce of everything, then this rank's slice
 *  Scan, Exscan    linear chain
 *  Gather, Scatter linear at the root, every transfer in one round
 *  Allgather, Alltoall, neighbourhoods: every transfer in one round
 * Datatypes travel as they are (the point-to-point layer packs them); reductions work on
 * packed copies and unpack into the receive buffer in a last local step. A rank's own
 * block is copied locally while the schedule is built. */
#include "coll/coll_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

int coll_local_copy(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                      MPI_Datatype rdt)
{
    ivc_data_t sd, rd;
    ivc_mpi_data(&sd, sbuf, scount, sdt);
    ivc_mpi_data(&rd, rbuf, rcount, rdt);
    if (sd.bytes > rd.bytes)
        return MPI_ERR_TRUNCATE;
    uint8_t *tmp = malloc(sd.bytes ? sd.bytes : 1);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    ivc_data_pack(&sd, 0, tmp, sd.bytes);
    ivc_data_unpack(&rd, 0, tmp, sd.bytes);
    free(tmp);
    return MPI_SUCCESS;
}

/* The local block of a schedule's own contribution (gather, scatter, allgather, all-to-all
 * at this rank's place): a block whose send and receive sizes differ is this rank's own
 * length mismatch; it fails the operation like a mismatched receive (coll_impl.h), so the
 * schedule still runs and its peers fail too instead of waiting for this rank. */
static int self_copy(nbc_t *s, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                     int rcount, MPI_Datatype rdt)
{
    uint64_t sb = coll_bytes(scount, sdt), rb = coll_bytes(rcount, rdt);
    if (sb == rb)
        return coll_local_copy(sbuf, scount, sdt, rbuf, rcount, rdt);
    nbc_mark_mismatch(s);
    return MPI_SUCCESS;
}

uint8_t *coll_pack_new(nbc_t *s, const void *buf, uint64_t count, MPI_Datatype dt,
                       uint64_t extra)
{
    uint64_t bytes = count * dt->map.size;
    uint8_t *p = nbc_scratch(s, bytes + extra);
    if (p != NULL) {
        ivc_data_t d;
        ivc_mpi_data(&d, buf, 0, dt);
        d.count = count;
        d.bytes = bytes;
        ivc_data_pack(&d, 0, p, bytes);
    }
    return p;
}

int coll_tree_bcast(nbc_t *s, MPI_Comm comm, void *buf, int count, MPI_Datatype dt, int root)
{
    int size = comm->size, rel = (comm->rank - root + size) % size, mask = 1, rc;
    while (mask < size) {
        if (rel & mask) {
            rc = nbc_xfer_on(s, comm, NBC_RECV, (rel - mask + root) % size, buf, count, dt, 0);
            if (rc != MPI_SUCCESS)
                return rc;
            nbc_end_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < size) {
            rc = nbc_xfer_on(s, comm, NBC_SEND, (rel + mask + root) % size, buf, count, dt, 0);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    nbc_end_round(s);
    return MPI_SUCCESS;
}

int coll_tree_reduce(nbc_t *s, MPI_Comm comm, uint8_t *acc, uint8_t *in, uint64_t count,
                     uint64_t bytes, int top)
{
    int size = comm->size, rel = (comm->rank - top + size) % size, rc = MPI_SUCCESS;
    for (int mask = 1; mask < size && rc == MPI_SUCCESS; mask <<= 1) {
        if (rel & mask) {
            rc = nbc_xfer_on(s, comm, NBC_SEND, (rel - mask + top) % size, acc, (int)bytes,
                             MPI_BYTE, 0);
            nbc_end_round(s);
            break;
        }
        if (rel + mask < size) {
            /* in = acc op in (the partner holds higher ranks), then acc = in */
            rc = nbc_xfer_on(s, comm, NBC_RECV, (rel + mask + top) % size, in, (int)bytes,
                             MPI_BYTE, 0);
            if (rc == MPI_SUCCESS)
                rc = nbc_reduce(s, acc, in, count);
            if (rc == MPI_SUCCESS)
                rc = nbc_copy(s, acc, in, bytes);
            nbc_end_round(s);
        }
    }
    return rc;
}

/* ---- the collectives ---- */

int coll_dissemination(nbc_t *s, MPI_Comm comm)
{
    int size = comm->size, rank = comm->rank, rc = MPI_SUCCESS;
    /* Dissemination: round k signals rank + 2^k and hears from rank - 2^k. */
    for (int k = 1; k < size && rc == MPI_SUCCESS; k <<= 1) {
        rc = nbc_xfer_on(s, comm, NBC_SEND, (rank + k) % size, NULL, 0, MPI_BYTE, 0);
        if (rc == MPI_SUCCESS)
            rc = nbc_xfer_on(s, comm, NBC_RECV, (rank - k + size) % size, NULL, 0, MPI_BYTE, 0);
        nbc_end_round(s);
    }
    return rc;
}

/* Reduce, Allreduce, Reduce_scatter(_block), Scan, Exscan. */
static int build_reduction(nbc_t *s, const coll_args_t *a)
{
    MPI_Comm comm = nbc_comm(s);
    int size = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    MPI_Datatype dt = a->rdt;
    uint64_t count = (uint64_t)a->rcount, first = 0, mine = count;
    if (a->kind == CK_REDUCE_SCATTER) {
        count = 0;
        for (int r = 0; r < size; r++) {
            if (r == me)
                first = count;
            count += (uint64_t)ca_rcount(a, r);
        }
        mine = (uint64_t)ca_rcount(a, me);
    }
    uint64_t bytes = count * dt->map.size;
    if (bytes > INT_MAX)
        return MPI_ERR_COUNT; /* moved as one message of bytes */
    nbc_set_op(s, a->op, dt);
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    uint8_t *acc = coll_pack_new(s, src, count, dt, bytes);
    if (acc == NULL)
        return MPI_ERR_NO_MEM;
    uint8_t *in = acc + bytes;
    switch (a->kind) {
    case CK_REDUCE: {
        int top = coll_op_commutes(a->op) ? a->root : 0;
        rc = coll_tree_reduce(s, comm, acc, in, count, bytes, top);
        if (rc == MPI_SUCCESS && top != a->root && me == top)
            rc = nbc_xfer(s, NBC_SEND, a->root, acc, (int)bytes, MPI_BYTE, 0);
        else if (rc == MPI_SUCCESS && top != a->root && me == a->root)
            rc = nbc_xfer(s, NBC_RECV, top, acc, (int)bytes, MPI_BYTE, 0);
        nbc_end_round(s);
        if (rc == MPI_SUCCESS && me == a->root)
            rc = nbc_unpack(s, a->rbuf, count, dt, acc);
        break;
    }
    case CK_ALLREDUCE:
    case CK_REDUCE_SCATTER:
        rc = coll_tree_reduce(s, comm, acc, in, count, bytes, 0);
        if (rc == MPI_SUCCESS)
            rc = coll_tree_bcast(s, comm, acc, (int)bytes, MPI_BYTE, 0);
        if (rc == MPI_SUCCESS)
            rc = nbc_unpack(s, a->rbuf, mine, dt, acc + first * dt->map.size);
        break;
    default: /* CK_SCAN, CK_EXSCAN: in = prefix of ranks 0..me-1, acc = in op mine */
        if (me > 0) {
            rc = nbc_xfer(s, NBC_RECV, me - 1, in, (int)bytes, MPI_BYTE, 0);
            if (rc == MPI_SUCCESS)
                rc = nbc_reduce(s, in, acc, count);
            nbc_end_round(s);
        }
        if (rc == MPI_SUCCESS && me < size - 1)
            rc = nbc_xfer(s, NBC_SEND, me + 1, acc, (int)bytes, MPI_BYTE, 0);
        nbc_end_round(s);
        if (rc == MPI_SUCCESS && a->kind == CK_SCAN)
            rc = nbc_unpack(s, a->rbuf, count, dt, acc);
        else if (rc == MPI_SUCCESS && me > 0)
            rc = nbc_unpack(s, a->rbuf, count, dt, in);
        break;
    }
    return rc;
}

static int build_gather(nbc_t *s, const coll_args_t *a)
{
    MPI_Comm comm = nbc_comm(s);
    int me = comm->rank, root = a->root, rc = MPI_SUCCESS;
    if (me != root)
        return nbc_xfer(s, NBC_SEND, root, (void *)a->sbuf, a->scount, a->sdt, 0);
    for (int r = 0; r < comm->size && rc == MPI_SUCCESS; r++) {
        if (r != me)
            rc = nbc_xfer(s, NBC_RECV, r, ca_rptr(a, r), ca_rcount(a, r), a->rdt, 0);
        else if (a->sbuf != MPI_IN_PLACE)
            rc = self_copy(s, a->sbuf, a->scount, a->sdt, ca_rptr(a, r), ca_rcount(a, r), a->rdt);
    }
    return rc;
}

static int build_scatter(nbc_t *s, const coll_args_t *a)
{
    MPI_Comm comm = nbc_comm(s);
    int me = comm->rank, root = a->root, rc = MPI_SUCCESS;
    if (me != root)
        return nbc_xfer(s, NBC_RECV, root, a->rbuf, a->rcount, a->rdt, 0);
    for (int r = 0; r < comm->size && rc == MPI_SUCCESS; r++) {
        if (r != me)
            rc = nbc_xfer(s, NBC_SEND, r, (void *)ca_sptr(a, r), ca_scount(a, r), a->sdt, 0);
        else if (a->rbuf != MPI_IN_PLACE)
            rc = self_copy(s, ca_sptr(a, r), ca_scount(a, r), a->sdt, a->rbuf, a->rcount, a->rdt);
    }
    return rc;
}

static int build_allgather(nbc_t *s, const coll_args_t *a)
{
    MPI_Comm comm = nbc_comm(s);
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    const void *sb = a->sbuf;
    int sc = a->scount;
    MPI_Datatype sdt = a->sdt;
    if (sb == MPI_IN_PLACE) { /* my block is already in place in rbuf */
        sb = ca_rptr(a, me);
        sc = ca_rcount(a, me);
        sdt = a->rdt;
    } else {
        rc = self_copy(s, sb, sc, sdt, ca_rptr(a, me), ca_rcount(a, me), a->rdt);
    }
    for (int k = 1; k < n && rc == MPI_SUCCESS; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        rc = nbc_xfer(s, NBC_RECV, from, ca_rptr(a, from), ca_rcount(a, from), a->rdt, 0);
        if (rc == MPI_SUCCESS)
            rc = nbc_xfer(s, NBC_SEND, to, (void *)sb, sc, sdt, 0);
    }
    return rc;
}

static int build_alltoall(nbc_t *s, const coll_args_t *a)
{
    MPI_Comm comm = nbc_comm(s);
    int n = comm->size, me = comm->rank, rc = MPI_SUCCESS;
    uint8_t *copy = NULL;
    uint64_t *off = NULL;
    if (a->sbuf == MPI_IN_PLACE) {
        /* Every block of the receive buffer goes out packed, from a copy taken now. */
        off = nbc_scratch(s, (uint64_t)n * sizeof(*off) + sizeof(*off));
        if (off == NULL)
            return MPI_ERR_NO_MEM;
        off[0] = 0;
        for (int r = 0; r < n; r++) {
            uint64_t b = coll_bytes(ca_rcount(a, r), ca_rdt(a, r));
            if (b > INT_MAX)
                return MPI_ERR_COUNT; /* in place, a block goes as bytes: at most 2 GiB */
            off[r + 1] = off[r] + b;
        }
        if ((copy = nbc_scratch(s, off[n])) == NULL)
            return MPI_ERR_NO_MEM;
        for (int r = 0; r < n; r++) {
            ivc_data_t d;
            ivc_mpi_data(&d, ca_rptr(a, r), ca_rcount(a, r), ca_rdt(a, r));
            ivc_data_pack(&d, 0, copy + off[r], d.bytes);
        }
    } else {
        rc = self_copy(s, ca_sptr(a, me), ca_scount(a, me), ca_sdt(a, me), ca_rptr(a, me),
                       ca_rcount(a, me), ca_rdt(a, me));
    }
    for (int k = 1; k < n && rc == MPI_SUCCESS; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        rc = nbc_xfer(s, NBC_RECV, from, ca_rptr(a, from), ca_rcount(a, from), ca_rdt(a, from), 0);
        if (rc != MPI_SUCCESS)
            break;
        if (copy != NULL)
            rc = nbc_xfer(s, NBC_SEND, to, copy + off[to], (int)(off[to + 1] - off[to]), MPI_BYTE,
                          0);
        else
            rc = nbc_xfer(s, NBC_SEND, to, (void *)ca_sptr(a, to), ca_scount(a, to), ca_sdt(a, to),
                          0);
    }
    return rc;
}

/* ---- neighbourhoods ---- */

int coll_neighbors(MPI_Comm comm, int *indeg, int **in, int *outdeg, int **out)
{
    const struct ivc_mpi_topo *t = comm->topo;
    if (t == NULL)
        return MPI_ERR_TOPOLOGY;
    int ni = 0, no = 0, me = comm->rank;
    if (t->kind == MPI_CART) {
        ni = no = 2 * t->ndims;
    } else if (t->kind == MPI_GRAPH) {
        ni = no = t->index[me] - (me > 0 ? t->index[me - 1] : 0);
    } else {
        ni = t->indeg;
        no = t->outdeg;
    }
    int *pi = malloc((size_t)(ni + no + 1) * sizeof(int)), *po = pi + ni;
    if (pi == NULL)
        return MPI_ERR_NO_MEM;
    if (t->kind == MPI_CART) {
        /* For each dimension the -1 then the +1 neighbour; both lists are the same. */
        for (int d = 0; d < t->ndims; d++) {
            int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
            PMPI_Cart_shift(comm, d, 1, &src, &dst);
            pi[2 * d] = po[2 * d] = src;
            pi[2 * d + 1] = po[2 * d + 1] = dst;
        }
    } else if (t->kind == MPI_GRAPH) {
        const int *e = t->edges + (me > 0 ? t->index[me - 1] : 0);
        memcpy(pi, e, (size_t)ni * sizeof(int));
        memcpy(po, e, (size_t)no * sizeof(int));
    } else {
        if (ni > 0)
            memcpy(pi, t->in, (size_t)ni * sizeof(int));
        if (no > 0)
            memcpy(po, t->out, (size_t)no * sizeof(int));
    }
    /* One allocation: the caller frees *in. */
    *indeg = ni;
    *outdeg = no;
    *in = pi;
    *out = po;
    return MPI_SUCCESS;
}

/* Tag offsets of Cartesian neighbourhoods: a block sent toward -1 arrives in the
 * receiver's +1 slot and the other way round; with both neighbours one rank (a periodic
 * dimension of 1 or 2), only the slot in the tag tells the two messages apart. Slot k uses
 * tag + (k + 1) * CART_TAG_STEP, above every nonblocking tag; dimensions past
 * CART_MAX_SLOTS / 2 share tag + 0 (matched in order). */
#define CART_TAG_STEP  0x200000
#define CART_MAX_SLOTS 1000

static int build_neighbor(nbc_t *s, const coll_args_t *a)
{
    MPI_Comm comm = nbc_comm(s);
    int ni, no, *in, *out;
    int rc = coll_neighbors(comm, &ni, &in, &no, &out);
    if (rc != MPI_SUCCESS)
        return rc;
    int cart = comm->topo->kind == MPI_CART && ni <= CART_MAX_SLOTS;
    for (int k = 0; k < ni && rc == MPI_SUCCESS; k++)
        rc = nbc_xfer(s, NBC_RECV, in[k], ca_rptr(a, k), ca_rcount(a, k), ca_rdt(a, k),
                      cart ? (k + 1) * CART_TAG_STEP : 0);
    for (int k = 0; k < no && rc == MPI_SUCCESS; k++) {
        int slot = k ^ 1; /* the receiver's slot of this block */
        int tagoff = cart ? (slot + 1) * CART_TAG_STEP : 0;
        if (a->kind == CK_NB_ALLGATHER)
            rc = nbc_xfer(s, NBC_SEND, out[k], (void *)a->sbuf, a->scount, a->sdt, tagoff);
        else
            rc = nbc_xfer(s, NBC_SEND, out[k], (void *)ca_sptr(a, k), ca_scount(a, k),
                          ca_sdt(a, k), tagoff);
    }
    free(in);
    return rc;
}

int coll_build(nbc_t *s, const coll_args_t *a)
{
    if (nbc_comm(s)->inter)
        return coll_build_inter(s, a);
    switch (a->kind) {
    case CK_BARRIER: return coll_dissemination(s, nbc_comm(s));
    case CK_BCAST: return coll_tree_bcast(s, nbc_comm(s), a->rbuf, a->rcount, a->rdt, a->root);
    case CK_REDUCE:
    case CK_ALLREDUCE:
    case CK_REDUCE_SCATTER:
    case CK_SCAN:
    case CK_EXSCAN: return build_reduction(s, a);
    case CK_GATHER: return build_gather(s, a);
    case CK_SCATTER: return build_scatter(s, a);
    case CK_ALLGATHER: return build_allgather(s, a);
    case CK_ALLTOALL: return build_alltoall(s, a);
    case CK_NB_ALLGATHER:
    case CK_NB_ALLTOALL: return build_neighbor(s, a);
    default: return MPI_ERR_INTERN;
    }
}

void coll_args_lengths(MPI_Comm comm, const coll_args_t *a, int *ns, int *nr)
{
    *ns = *nr = comm->size; /* the remote group's on an intercommunicator */
    if (comm->inter && a->kind == CK_REDUCE_SCATTER)
        *nr = comm->local_size;
    if (a->kind == CK_NB_ALLGATHER || a->kind == CK_NB_ALLTOALL) {
        int *in = NULL, *out;
        if (coll_neighbors(comm, nr, &in, ns, &out) != MPI_SUCCESS)
            *ns = *nr = 0;
        free(in);
    }
}
