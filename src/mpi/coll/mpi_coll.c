/* The collective MPI calls: argument checks, MPI_IN_PLACE, and the choice of algorithm.
 *
 * A communicator whose members all share the region runs the shared-memory algorithms of
 * coll_shm.c; one that spans hosts runs the hierarchical ones below where they apply and
 * the point-to-point ones of coll_p2p.c otherwise (coll_impl.h explains why the choice is the
 * same at every member). With more ranks on a host than cores, small rooted operations
 * run point-to-point (ivc_coll.rooted_p2p, IVC_COLL_ROOTED_P2P): eager messages let a root
 * run ahead where the area would make it wait for every reader to be scheduled. The v/w
 * variants always run point-to-point: their block sizes differ per rank, and they are rare
 * on hot paths. Reduce_scatter(_block) is an allreduce followed by a local copy of this
 * rank's slice. On an intercommunicator every call runs the schedule of coll_inter.c.
 * Every rank checks that a reduction's operation is defined on its datatype before
 * anything moves (coll_chk_op): a rank that only contributes would otherwise send. */
#include "coll/coll_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- internal collectives (communicator management and the other MPI modules) ---- */

/* Describes count elements of dt at buf; count may exceed an int (n blocks of a count). */
static void data_n(ivc_data_t *d, const void *buf, uint64_t count, MPI_Datatype dt)
{
    ivc_mpi_data(d, buf, 0, dt);
    d->count = count;
    d->bytes = count * dt->map.size;
}

static int reduce_packed(const void *mine, void *out, uint64_t count, MPI_Datatype dt, MPI_Op op,
                         int root, int mode, MPI_Comm comm);
static int bcast_x(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);

/* ---- hierarchy: communicators that span regions (hosts) ----
 *
 * Barrier, Bcast, and Reduce/Allreduce with commutative operations run in three steps:
 * shared memory inside each node (the members that share a region), point-to-point among
 * the nodes' leaders (each node's lowest-ranked member), shared memory again. The other
 * collectives, and non-commutative reductions (whose rank order a node grouping would
 * break), stay flat point-to-point. */

/* Decides once, in a blocking collective (every member decides at the same call, from the
 * same allgathered table), whether comm runs hierarchically; builds its node and leaders
 * communicators. Returns 1 if it does. */
static int hier_usable(MPI_Comm comm, ivc_coll_comm_t *cc)
{
    if (cc->hier != 0)
        return cc->hier > 0;
    if (comm->ctx != 2u * (uint32_t)comm->ctx_id || comm->size < 3)
        return 0;  /* a stand-in communicator, or too small to gain anything */
    cc->hier = -1; /* flat while setting up: the set-up's own collectives are point-to-point */
    int n = comm->size, me = comm->rank;
    int *t = malloc((size_t)n * 2 * sizeof(int) + (size_t)n * 2 * sizeof(int));
    if (t == NULL)
        return 0;
    int *cnt = t + 2 * n, *dsp = cnt + n;
    int mine[2] = {me, ivc_coll.on};
    for (int r = 0; r < n; r++) {
        cnt[r] = 2;
        dsp[r] = 2 * r;
        if (r < me && ivc_coll.lidx != NULL && comm->world[r] < ivc_mpi_world_size &&
            ivc_coll.lidx[comm->world[r]] >= 0 && mine[0] == me)
            mine[0] = r; /* the lowest-ranked member sharing this rank's region */
    }
    int rc = coll_p2p_allgatherv(mine, 2, MPI_INT, t, cnt, dsp, MPI_INT, comm);
    /* What the others sent is checked: leaders in range and leaders of themselves. */
    int ok = rc == MPI_SUCCESS, grouped = 0, nl = 0;
    for (int r = 0; ok && r < n; r++) {
        int l = t[2 * r];
        ok = l >= 0 && l <= r && t[2 * l] == l && t[2 * r + 1] == 1;
        grouped |= l != r;
        nl += l == r;
    }
    if (!ok || !grouped || nl < 2) {
        free(t);
        return 0;
    }
    cc->leader_of = malloc((size_t)n * sizeof(int));
    cc->lindex = malloc((size_t)n * sizeof(int));
    int *nodew = malloc((size_t)n * sizeof(int)), *leadw = malloc((size_t)n * sizeof(int));
    if (cc->leader_of == NULL || cc->lindex == NULL || nodew == NULL || leadw == NULL) {
        free(nodew);
        free(leadw);
        free(t);
        return 0; /* a member short of memory breaks agreement; the next error says so */
    }
    int nn = 0, k = 0;
    for (int r = 0; r < n; r++) {
        cc->leader_of[r] = t[2 * r];
        cc->lindex[r] = t[2 * r] == r ? k : -1;
        if (t[2 * r] == r)
            leadw[k++] = comm->world[r];
        if (t[2 * r] == t[2 * me])
            nodew[nn++] = comm->world[r];
    }
    free(t);
    rc = ivc_mpi_comm_make(comm, comm, 1, nodew, nn, &cc->node);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_comm_make(comm, comm, cc->leader_of[me] == me, leadw, nl, &cc->leaders);
    else
        free(leadw);
    if (rc != MPI_SUCCESS)
        return 0;
    cc->hier = 1;
    return 1;
}

/* Rank of comm rank r in its node communicator (node members keep comm order). */
static int hier_node_rank(const ivc_coll_comm_t *cc, int r)
{
    int k = 0;
    for (int q = 0; q < r; q++)
        k += cc->leader_of[q] == cc->leader_of[r];
    return k;
}

static int hier_barrier(ivc_coll_comm_t *cc)
{
    int rc = ivc_mpi_coll_barrier(cc->node);
    if (rc == MPI_SUCCESS && cc->leaders != MPI_COMM_NULL)
        rc = ivc_mpi_coll_barrier(cc->leaders);
    if (rc == MPI_SUCCESS)
        rc = ivc_mpi_coll_barrier(cc->node);
    return rc;
}

/* The next stage of a hierarchical broadcast at a rank that saw a length mismatch in the
 * one before (it holds no right data to pass on): a message its receivers see as
 * mismatched too (coll_impl.h), so that none of them waits. Returns MPI_ERR_TRUNCATE, or
 * MPI_ERR_NO_MEM. */
static int bcast_poison(uint64_t want, int root, MPI_Comm comm)
{
    int n = coll_len_poison(want);
    void *p = calloc(1, (size_t)n + 1);
    if (p == NULL)
        return MPI_ERR_NO_MEM;
    bcast_x(p, n, MPI_BYTE, root, comm);
    free(p);
    return MPI_ERR_TRUNCATE;
}

static int hier_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                      ivc_coll_comm_t *cc)
{
    int me = comm->rank, rl = cc->leader_of[root], rc = MPI_SUCCESS;
    if (cc->leader_of[me] == rl) { /* the root's node: from the root, then to the leaders */
        rc = bcast_x(buf, count, dt, hier_node_rank(cc, root), cc->node);
        if (rc == MPI_SUCCESS && me == rl)
            rc = bcast_x(buf, count, dt, cc->lindex[rl], cc->leaders);
        else if (rc == MPI_ERR_TRUNCATE && me == rl)
            rc = bcast_poison(coll_bytes(count, dt), cc->lindex[rl], cc->leaders);
        return rc;
    }
    if (cc->leader_of[me] == me)
        rc = bcast_x(buf, count, dt, cc->lindex[rl], cc->leaders);
    if (rc == MPI_SUCCESS)
        rc = bcast_x(buf, count, dt, 0, cc->node);
    else if (rc == MPI_ERR_TRUNCATE)
        rc = bcast_poison(coll_bytes(count, dt), 0, cc->node);
    return rc;
}

/* Broadcast of n packed bytes in pieces below 2 GiB. */
static int bcast_bytes(void *buf, uint64_t n, int root, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    for (uint64_t off = 0; rc == MPI_SUCCESS && off < n; off += 1u << 30) {
        uint64_t len = n - off < (1u << 30) ? n - off : (1u << 30);
        rc = bcast_x((uint8_t *)buf + off, (int)len, MPI_BYTE, root, comm);
    }
    return rc;
}

/* Reduce (to root) or Allreduce of packed data with a commutative operation. */
static int hier_reduce(const void *mine, void *out, uint64_t count, MPI_Datatype dt, MPI_Op op,
                       int root, int mode, MPI_Comm comm, ivc_coll_comm_t *cc)
{
    int me = comm->rank, leader = cc->leader_of[me] == me;
    uint64_t bytes = count * dt->map.size;
    uint8_t *tmp = NULL;
    void *acc = out;
    if (leader && out == NULL && (acc = tmp = malloc(bytes ? bytes : 1)) == NULL)
        return MPI_ERR_NO_MEM;
    int rc = reduce_packed(mine, leader ? acc : NULL, count, dt, op, 0, COLL_REDUCE, cc->node);
    if (mode == COLL_ALLREDUCE) {
        if (rc == MPI_SUCCESS && leader)
            rc = reduce_packed(acc, acc, count, dt, op, 0, COLL_ALLREDUCE, cc->leaders);
        if (rc == MPI_SUCCESS)
            rc = bcast_bytes(acc, bytes, 0, cc->node);
    } else {
        int rl = cc->leader_of[root];
        if (rc == MPI_SUCCESS && leader)
            rc = reduce_packed(acc, me == rl ? acc : NULL, count, dt, op, cc->lindex[rl],
                               COLL_REDUCE, cc->leaders);
        if (rc == MPI_SUCCESS && root != rl && me == rl)
            rc = coll_send_bytes(acc, bytes, root, TAG_REDUCE, comm);
        else if (rc == MPI_SUCCESS && root != rl && me == root)
            rc = coll_recv_bytes(out, bytes, rl, TAG_REDUCE, comm);
    }
    free(tmp);
    return rc;
}

int ivc_mpi_coll_barrier(MPI_Comm comm)
{
    if (comm->size == 1)
        return MPI_SUCCESS;
    ivc_coll_comm_t *cc = ivc_coll_comm(comm);
    if (cc == NULL)
        return MPI_ERR_NO_MEM;
    if (coll_shm_usable(comm, cc))
        return coll_shm_barrier(comm, cc);
    if (hier_usable(comm, cc))
        return hier_barrier(cc);
    return coll_p2p_barrier(comm);
}

static int bcast_x(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    if (comm->size == 1)
        return MPI_SUCCESS;
    ivc_coll_comm_t *cc = ivc_coll_comm(comm);
    if (cc == NULL)
        return MPI_ERR_NO_MEM;
    uint64_t limit = ivc_coll.cfg.bcast_p2p;
    if (coll_shm_usable(comm, cc)) {
        uint64_t bytes = coll_bytes(count, dt);
        /* An empty broadcast goes where the smallest ones go: ranks whose counts differ
         * (erroneous) then still meet in one algorithm, which reports it (coll_shm.c). */
        int pair = comm->size == 2 && ivc_coll.pair_bcast != 0 && bytes <= ivc_coll.pair_bcast;
        if ((limit == 0 || bytes < limit) && !pair &&
            (bytes > ivc_coll.rooted_p2p || ivc_coll.rooted_p2p == 0))
            return coll_shm_bcast(buf, count, dt, root, comm, cc);
    } else if (hier_usable(comm, cc)) {
        return hier_bcast(buf, count, dt, root, comm, cc);
    }
    return coll_p2p_bcast(buf, count, dt, root, comm);
}

/* Reduction with user buffers: packs when the datatype is not contiguous. mode as in
 * coll_shm_reduce(); `in` is the contribution (already resolved from MPI_IN_PLACE). */
static int reduce_x(const void *in, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                    int mode, MPI_Comm comm)
{
    int has_out = mode != COLL_REDUCE || comm->rank == root;
    if (mode == COLL_EXSCAN && comm->rank == 0)
        has_out = 0;
    if (dt->map.contig)
        return reduce_packed(in, has_out ? rbuf : NULL, (uint64_t)count, dt, op, root, mode, comm);
    ivc_data_t di, dout;
    ivc_mpi_data(&di, in, count, dt);
    uint8_t *tmp = malloc(di.bytes ? 2 * di.bytes : 1);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    ivc_data_pack(&di, 0, tmp, di.bytes);
    int rc = reduce_packed(tmp, tmp + di.bytes, (uint64_t)count, dt, op, root, mode, comm);
    if (rc == MPI_SUCCESS && has_out) {
        ivc_mpi_data(&dout, rbuf, count, dt);
        ivc_data_unpack(&dout, 0, tmp + di.bytes, di.bytes);
    }
    free(tmp);
    return rc;
}

int ivc_mpi_coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                           MPI_Comm comm)
{
    return reduce_x(sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op, 0, COLL_ALLREDUCE,
                    comm);
}

/* Gather-family block exchange of count elements per rank through the areas, or
 * point-to-point. all: every rank receives (allgather). */
static int gather_x(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt, int root, int all, MPI_Comm comm)
{
    int n = comm->size, me = comm->rank;
    ivc_coll_comm_t *cc = ivc_coll_comm(comm);
    if (cc == NULL)
        return MPI_ERR_NO_MEM;
    uint64_t blk = sbuf != MPI_IN_PLACE ? coll_bytes(scount, sdt) : coll_bytes(rcount, rdt);
    if (n > 1 && coll_shm_usable(comm, cc) && (all || blk > ivc_coll.rooted_p2p)) {
        ivc_data_t sd, rd;
        int reader = all || me == root;
        if (sbuf != MPI_IN_PLACE)
            ivc_mpi_data(&sd, sbuf, scount, sdt);
        if (reader)
            data_n(&rd, rbuf, (uint64_t)rcount * n, rdt);
        return coll_shm_gather(sbuf != MPI_IN_PLACE ? &sd : NULL, reader ? &rd : NULL, blk, root,
                               all, comm, cc);
    }
    int *counts = malloc((size_t)n * 2 * sizeof(int));
    if (counts == NULL)
        return MPI_ERR_NO_MEM;
    int *displs = counts + n;
    for (int r = 0; r < n; r++) {
        counts[r] = rcount;
        displs[r] = r * rcount;
    }
    int rc = all ? coll_p2p_allgatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt, comm)
                 : coll_p2p_gatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt, root, comm);
    free(counts);
    return rc;
}

int ivc_mpi_coll_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                           MPI_Datatype rdt, MPI_Comm comm)
{
    return gather_x(sbuf, scount, sdt, rbuf, rcount, rdt, 0, 1, comm);
}

/* Packed reduction: mine -> out (out NULL where this rank gets no result). */
static int reduce_packed(const void *mine, void *out, uint64_t count, MPI_Datatype dt, MPI_Op op,
                         int root, int mode, MPI_Comm comm)
{
    ivc_coll_comm_t *cc = ivc_coll_comm(comm);
    if (cc == NULL)
        return MPI_ERR_NO_MEM;
    uint64_t bytes = count * dt->map.size;
    if (comm->size > 1 && coll_shm_usable(comm, cc) &&
        (mode != COLL_REDUCE || bytes > ivc_coll.rooted_p2p))
        return coll_shm_reduce(mine, out, count, dt, op, root, mode, comm, cc);
    if ((mode == COLL_REDUCE || mode == COLL_ALLREDUCE) && coll_op_commutes(op) &&
        hier_usable(comm, cc))
        return hier_reduce(mine, out, count, dt, op, root, mode, comm, cc);
    uint8_t *acc = malloc(bytes ? bytes : 1);
    if (acc == NULL)
        return MPI_ERR_NO_MEM;
    memcpy(acc, mine, bytes);
    int rc;
    if (mode == COLL_SCAN || mode == COLL_EXSCAN) {
        rc = coll_p2p_scan_packed(acc, count, dt, op, mode == COLL_EXSCAN, comm);
    } else {
        rc = coll_p2p_reduce_packed(acc, count, dt, op, mode == COLL_REDUCE ? root : 0, comm);
        /* Allreduce: the result goes out from rank 0 in pieces below 2 GiB. */
        for (uint64_t off = 0; mode == COLL_ALLREDUCE && rc == MPI_SUCCESS && off < bytes;
             off += 1u << 30) {
            uint64_t len = bytes - off < (1u << 30) ? bytes - off : (1u << 30);
            rc = coll_p2p_bcast(acc + off, (int)len, MPI_BYTE, 0, comm);
        }
    }
    if (rc == MPI_SUCCESS && out != NULL)
        memcpy(out, acc, bytes);
    free(acc);
    return rc;
}

/* ---- argument checks ---- */

int coll_chk_comm(MPI_Comm comm, const char *fn)
{
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ivc_mpi_comm_valid(comm))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "invalid communicator");
    return MPI_SUCCESS;
}

int coll_chk_buf(MPI_Comm comm, int count, MPI_Datatype dt, const char *fn)
{
    if (count < 0)
        return ivc_mpi_raise(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (!ivc_mpi_dt_valid(dt) || !dt->committed)
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    return MPI_SUCCESS;
}

int coll_chk_counts(MPI_Comm comm, const int *counts, int n, MPI_Datatype dt, const char *fn)
{
    if (counts == NULL && n > 0)
        return ivc_mpi_raise(comm, MPI_ERR_ARG, fn, "NULL count array");
    for (int r = 0; r < n; r++) {
        int rc = coll_chk_buf(comm, counts[r], dt, fn);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int coll_chk_root(MPI_Comm comm, int root, const char *fn)
{
    if (root < 0 || root >= comm->size)
        return ivc_mpi_raise(comm, MPI_ERR_ROOT, fn, "root %d is not in the communicator", root);
    return MPI_SUCCESS;
}

int coll_chk_op(MPI_Comm comm, MPI_Op op, MPI_Datatype dt, const char *fn)
{
    if (!ivc_mpi_op_valid(op))
        return ivc_mpi_raise(comm, MPI_ERR_OP, fn, "invalid operation");
    if (op->id != OP_USER && dt->basic == B_NONE)
        return ivc_mpi_raise(comm, MPI_ERR_TYPE, fn,
                             "predefined reductions need a datatype made of one basic type");
    /* Checked at every rank before anything is sent: a rank that only contributes would
     * otherwise send data that no combining rank ever receives. */
    if (op->id != OP_USER && !ivc_mpi_op_defined(op, dt->basic))
        return ivc_mpi_raise(comm, MPI_ERR_OP, fn, "the operation is not defined on datatype %s",
                             dt->name[0] ? dt->name : "(unnamed)");
    return MPI_SUCCESS;
}

int coll_done(MPI_Comm comm, int rc, const char *fn)
{
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(comm, rc, fn, "the collective failed");
    return MPI_SUCCESS;
}

/* ---- the MPI calls ---- */

int PMPI_Barrier(MPI_Comm comm)
{
    int rc = coll_chk_comm(comm, "MPI_Barrier");
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->inter) {
        coll_args_t a = {.kind = CK_BARRIER};
        return coll_inter_run(comm, &a, 0, "MPI_Barrier");
    }
    return coll_done(comm, ivc_mpi_coll_barrier(comm), "MPI_Barrier");
}
IVC_MPI_WEAK(Barrier)

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Bcast";
    coll_args_t a = {.kind = CK_BCAST,
                     .rbuf = buffer,
                     .rcount = count,
                     .rdt = datatype,
                     .root = root};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 0, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm, bcast_x(buffer, count, datatype, root, comm), fn);
}
IVC_MPI_WEAK(Bcast)

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    const char *fn = "MPI_Reduce";
    coll_args_t a = {.kind = CK_REDUCE,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = count,
                     .rdt = datatype,
                     .op = op,
                     .root = root};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 0, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    return coll_done(comm, reduce_x(in, recvbuf, count, datatype, op, root, COLL_REDUCE, comm), fn);
}
IVC_MPI_WEAK(Reduce)

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    const char *fn = "MPI_Allreduce";
    coll_args_t a = {.kind = CK_ALLREDUCE,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = count,
                     .rdt = datatype,
                     .op = op};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 0, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm, ivc_mpi_coll_allreduce(sendbuf, recvbuf, count, datatype, op, comm), fn);
}
IVC_MPI_WEAK(Allreduce)

static int scan_common(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, int mode, const char *fn)
{
    coll_args_t a = {.kind = mode == COLL_SCAN ? CK_SCAN : CK_EXSCAN,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = count,
                     .rdt = datatype,
                     .op = op};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 0, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    return coll_done(comm, reduce_x(in, recvbuf, count, datatype, op, 0, mode, comm), fn);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return scan_common(sendbuf, recvbuf, count, datatype, op, comm, COLL_SCAN, "MPI_Scan");
}
IVC_MPI_WEAK(Scan)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return scan_common(sendbuf, recvbuf, count, datatype, op, comm, COLL_EXSCAN, "MPI_Exscan");
}
IVC_MPI_WEAK(Exscan)

/* Reduce_scatter(_block): rank r gets elements [first_r, first_r + counts_r) of the sum
 * (counts NULL: `count` elements each). Among ranks that share the region, a reduce-scatter
 * of its own (coll_shm_reduce_scatter): each rank folds only its slice, straight from the
 * others' areas, into recvbuf when that is contiguous, reading a contiguous sendbuf where it
 * lies. Otherwise an allreduce of the whole input into scratch, then this rank's slice
 * (displacement in elements `first`, `count` elements) goes to recvbuf. */
static int reduce_scatter_x(const void *sendbuf, void *recvbuf, int64_t total, int64_t first,
                            int count, const int *counts, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm)
{
    uint64_t esz = dt->map.size, bytes = (uint64_t)total * esz;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    ivc_coll_comm_t *cc = ivc_coll_comm(comm);
    int n = comm->size;
    if (cc != NULL && n > 1 && coll_shm_usable(comm, cc)) {
        uint64_t *firsts = malloc((size_t)n * 2 * sizeof(uint64_t));
        if (firsts == NULL)
            return MPI_ERR_NO_MEM;
        uint64_t *cnts = firsts + n, at = 0;
        for (int r = 0; r < n; r++) {
            firsts[r] = at;
            cnts[r] = counts != NULL ? (uint64_t)counts[r] : (uint64_t)count;
            at += cnts[r];
        }
        /* In place the input is recvbuf, which the result overwrites: staged, as are
         * buffers that are not contiguous. */
        int direct_in = sendbuf != MPI_IN_PLACE && dt->map.contig;
        int direct_out = dt->map.contig && sendbuf != MPI_IN_PLACE;
        uint8_t *tmp = NULL;
        if (!direct_in || !direct_out) {
            tmp = malloc(bytes + (uint64_t)count * esz + 1);
            if (tmp == NULL) {
                free(firsts);
                return MPI_ERR_NO_MEM;
            }
        }
        const void *mine = in;
        if (!direct_in) {
            ivc_data_t d;
            ivc_mpi_data(&d, in, 0, dt);
            d.count = (uint64_t)total;
            d.bytes = bytes;
            ivc_data_pack(&d, 0, tmp, bytes);
            mine = tmp;
        }
        void *out = direct_out ? recvbuf : tmp + bytes;
        int rc = coll_shm_reduce_scatter(mine, out, firsts, cnts, (uint64_t)total, dt, op, comm,
                                         cc);
        if (rc == MPI_SUCCESS && !direct_out) {
            ivc_data_t o;
            ivc_mpi_data(&o, recvbuf, count, dt);
            ivc_data_unpack(&o, 0, out, o.bytes);
        }
        free(tmp);
        free(firsts);
        return rc;
    }
    uint8_t *tmp = malloc(bytes ? 2 * bytes : 1);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    ivc_data_t d;
    ivc_mpi_data(&d, in, 0, dt);
    d.count = (uint64_t)total;
    d.bytes = bytes;
    ivc_data_pack(&d, 0, tmp, bytes);
    int rc = reduce_packed(tmp, tmp + bytes, (uint64_t)total, dt, op, 0, COLL_ALLREDUCE, comm);
    if (rc == MPI_SUCCESS) {
        ivc_data_t out;
        ivc_mpi_data(&out, recvbuf, count, dt);
        ivc_data_unpack(&out, 0, tmp + bytes + (uint64_t)first * esz, out.bytes);
    }
    free(tmp);
    return rc;
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const char *fn = "MPI_Reduce_scatter_block";
    coll_args_t a = {.kind = CK_REDUCE_SCATTER,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = datatype,
                     .op = op};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 0, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t total = (int64_t)recvcount * comm->size, first = (int64_t)recvcount * comm->rank;
    return coll_done(
        comm,
        reduce_scatter_x(sendbuf, recvbuf, total, first, recvcount, NULL, datatype, op, comm), fn);
}
IVC_MPI_WEAK(Reduce_scatter_block)

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const char *fn = "MPI_Reduce_scatter";
    coll_args_t a = {.kind = CK_REDUCE_SCATTER,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdt = datatype,
                     .op = op};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 1, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 1, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t total = 0, first = 0;
    for (int r = 0; r < comm->size; r++) {
        if (r == comm->rank)
            first = total;
        total += recvcounts[r];
    }
    return coll_done(comm,
                reduce_scatter_x(sendbuf, recvbuf, total, first, recvcounts[comm->rank],
                                 recvcounts, datatype, op, comm),
                fn);
}
IVC_MPI_WEAK(Reduce_scatter)

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Gather";
    coll_args_t a = {.kind = CK_GATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype,
                     .root = root};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 0, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm,
                gather_x(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, 0, comm),
                fn);
}
IVC_MPI_WEAK(Gather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    const char *fn = "MPI_Gatherv";
    coll_args_t a = {.kind = CK_GATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = displs,
                     .rdt = recvtype,
                     .root = root};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 1, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 1, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm,
                coll_p2p_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype, root, comm),
                fn);
}
IVC_MPI_WEAK(Gatherv)

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Scatter";
    coll_args_t a = {.kind = CK_SCATTER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype,
                     .root = root};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 0, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    int n = comm->size, me = comm->rank;
    ivc_coll_comm_t *cc = ivc_coll_comm(comm);
    if (cc == NULL)
        return coll_done(comm, MPI_ERR_NO_MEM, fn);
    uint64_t blk =
        recvbuf != MPI_IN_PLACE ? coll_bytes(recvcount, recvtype) : coll_bytes(sendcount, sendtype);
    if (n > 1 && coll_shm_usable(comm, cc) && blk > ivc_coll.rooted_p2p) {
        ivc_data_t sd, rd;
        if (me == root)
            data_n(&sd, sendbuf, (uint64_t)sendcount * n, sendtype);
        if (recvbuf != MPI_IN_PLACE)
            ivc_mpi_data(&rd, recvbuf, recvcount, recvtype);
        return coll_done(comm,
                    coll_shm_scatter(me == root ? &sd : NULL, recvbuf != MPI_IN_PLACE ? &rd : NULL,
                                     blk, root, comm, cc),
                    fn);
    }
    int *counts = malloc((size_t)n * 2 * sizeof(int));
    if (counts == NULL)
        return coll_done(comm, MPI_ERR_NO_MEM, fn);
    for (int r = 0; r < n; r++) {
        counts[r] = sendcount;
        counts[n + r] = r * sendcount;
    }
    rc = coll_p2p_scatterv(sendbuf, counts, counts + n, sendtype, recvbuf, recvcount, recvtype,
                           root, comm);
    free(counts);
    return coll_done(comm, rc, fn);
}
IVC_MPI_WEAK(Scatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    const char *fn = "MPI_Scatterv";
    coll_args_t a = {.kind = CK_SCATTER,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = displs,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype,
                     .root = root};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 1, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 1, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm,
                coll_p2p_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                  recvtype, root, comm),
                fn);
}
IVC_MPI_WEAK(Scatterv)

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "MPI_Allgather";
    coll_args_t a = {.kind = CK_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 0, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(
        comm,
        ivc_mpi_coll_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
        fn);
}
IVC_MPI_WEAK(Allgather)

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    const char *fn = "MPI_Allgatherv";
    coll_args_t a = {.kind = CK_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = displs,
                     .rdt = recvtype};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 1, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 1, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm,
                coll_p2p_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, comm),
                fn);
}
IVC_MPI_WEAK(Allgatherv)

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "MPI_Alltoall";
    coll_args_t a = {.kind = CK_ALLTOALL,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 0, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    int n = comm->size;
    ivc_coll_comm_t *cc = ivc_coll_comm(comm);
    if (cc == NULL)
        return coll_done(comm, MPI_ERR_NO_MEM, fn);
    if (n > 1 && coll_shm_usable(comm, cc)) {
        ivc_data_t sd, rd;
        data_n(&rd, recvbuf, (uint64_t)recvcount * n, recvtype);
        if (sendbuf != MPI_IN_PLACE)
            data_n(&sd, sendbuf, (uint64_t)sendcount * n, sendtype);
        else
            sd = rd;
        return coll_done(comm,
                         coll_shm_alltoall(&sd, &rd, coll_bytes(recvcount, recvtype), comm, cc),
                         fn);
    }
    int *counts = malloc((size_t)n * 2 * sizeof(int));
    MPI_Aint *displs = malloc((size_t)n * 2 * sizeof(MPI_Aint));
    MPI_Datatype *types = malloc((size_t)n * 2 * sizeof(MPI_Datatype));
    if (counts == NULL || displs == NULL || types == NULL) {
        free(counts);
        free(displs);
        free(types);
        return coll_done(comm, MPI_ERR_NO_MEM, fn);
    }
    for (int r = 0; r < n; r++) {
        counts[r] = sendcount;
        counts[n + r] = recvcount;
        displs[r] = sendbuf == MPI_IN_PLACE ? 0 : (MPI_Aint)r * sendcount * sendtype->map.extent;
        displs[n + r] = (MPI_Aint)r * recvcount * recvtype->map.extent;
        types[r] = sendtype;
        types[n + r] = recvtype;
    }
    rc = coll_p2p_alltoallw(sendbuf, counts, displs, types, recvbuf, counts + n, displs + n,
                            types + n, comm);
    free(counts);
    free(displs);
    free(types);
    return coll_done(comm, rc, fn);
}
IVC_MPI_WEAK(Alltoall)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "MPI_Alltoallv";
    coll_args_t a = {.kind = CK_ALLTOALL,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = rdispls,
                     .rdt = recvtype};
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 1, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 1, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    int n = comm->size;
    MPI_Aint *displs = malloc((size_t)n * 2 * sizeof(MPI_Aint));
    MPI_Datatype *types = malloc((size_t)n * 2 * sizeof(MPI_Datatype));
    if (displs == NULL || types == NULL) {
        free(displs);
        free(types);
        return coll_done(comm, MPI_ERR_NO_MEM, fn);
    }
    for (int r = 0; r < n; r++) {
        displs[r] = sendbuf == MPI_IN_PLACE ? 0 : (MPI_Aint)sdispls[r] * sendtype->map.extent;
        displs[n + r] = (MPI_Aint)rdispls[r] * recvtype->map.extent;
        types[r] = sendtype;
        types[n + r] = recvtype;
    }
    rc = coll_p2p_alltoallw(sendbuf, sendcounts, displs, types, recvbuf, recvcounts, displs + n,
                            types + n, comm);
    free(displs);
    free(types);
    return coll_done(comm, rc, fn);
}
IVC_MPI_WEAK(Alltoallv)

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    const char *fn = "MPI_Alltoallw";
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
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS && comm->inter)
        return coll_inter_run(comm, &a, 2, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, &a, 2, fn); /* mpi_icoll.c */
    if (rc != MPI_SUCCESS)
        return rc;
    int n = comm->size;
    MPI_Aint *displs = malloc((size_t)n * 2 * sizeof(MPI_Aint));
    if (displs == NULL)
        return coll_done(comm, MPI_ERR_NO_MEM, fn);
    for (int r = 0; r < n; r++) {
        displs[r] = sendbuf == MPI_IN_PLACE ? 0 : sdispls[r];
        displs[n + r] = rdispls[r];
    }
    rc = coll_p2p_alltoallw(sendbuf, sendcounts, displs, sendtypes, recvbuf, recvcounts, displs + n,
                            recvtypes, comm);
    free(displs);
    return coll_done(comm, rc, fn);
}
IVC_MPI_WEAK(Alltoallw)
