/* Persistent collectives (MPI-4: MPI_Barrier_init ... MPI_Neighbor_alltoallw_init).
 *
 * Init checks the arguments at every rank (as the nonblocking call would), keeps a deep copy
 * of them (count, displacement and datatype arrays included: the large-count wrappers free
 * their temporary arrays when the call returns; datatypes retained; the operation copied, so
 * the user may free it) and reserves the operation's tag; each MPI_Start builds the schedule
 * afresh from the copy and starts it under that tag (ivc_mpi_preq_new, src/mpi/p2p/p2p.h).
 *
 * One tag for every round of one persistent operation is enough: a round starts only once
 * this rank's previous round completed, every pair's messages of a round go in one order
 * that both ends agree on, and the non-overtaking rule keeps the next round's messages
 * behind the previous round's. (The tag comes from the communicator's count of nonblocking
 * operations; it could only collide with one started more than 2^20 operations later while
 * this one is still in use.) */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct pcoll {
    coll_args_t a; /* arrays and op point into this block */
    MPI_Comm comm;
    int tag;
    int ns, nr;             /* lengths of the copied send and receive arrays (0: none) */
    struct ivc_mpi_op_s op; /* copy of the operation */
} pcoll_t;

static int pcoll_start(MPI_Request preq, void *args, MPI_Request *inner)
{
    (void)preq;
    pcoll_t *p = args;
    return coll_issue(p->comm, &p->a, p->tag, inner);
}

static void pcoll_free(void *args)
{
    pcoll_t *p = args;
    if (p->a.sdt != NULL)
        ivc_mpi_dt_release(p->a.sdt);
    if (p->a.rdt != NULL)
        ivc_mpi_dt_release(p->a.rdt);
    for (int r = 0; p->a.sdts != NULL && r < p->ns; r++)
        ivc_mpi_dt_release(p->a.sdts[r]);
    for (int r = 0; p->a.rdts != NULL && r < p->nr; r++)
        ivc_mpi_dt_release(p->a.rdts[r]);
    free(p);
}

/* Bytes of the arrays of one side of n blocks; copies them to *at when dst != NULL. */
static size_t side_copy(const int *counts, const int *displs, const MPI_Aint *displs_a,
                        const MPI_Datatype *dts, int n, char **at, const int **oc,
                        const int **od, const MPI_Aint **oda, const MPI_Datatype **odt)
{
    size_t bytes = 0;
#define COPY(src, T, out)                                                                          \
    do {                                                                                           \
        if ((src) != NULL) {                                                                       \
            size_t b_ = (size_t)n * sizeof(T);                                                     \
            if (at != NULL) {                                                                      \
                memcpy(*at, (src), b_);                                                            \
                *(out) = (const T *)(void *)*at;                                                   \
                *at += b_;                                                                         \
            }                                                                                      \
            bytes += b_;                                                                           \
        }                                                                                          \
    } while (0)
    COPY(displs_a, MPI_Aint, oda); /* the widest first: every array stays aligned */
    COPY(dts, MPI_Datatype, odt);
    COPY(counts, int, oc);
    COPY(displs, int, od);
#undef COPY
    /* The int arrays may end off an 8-byte boundary: the next side starts aligned again. */
    if (at != NULL)
        *at += (size_t)(-(uintptr_t)*at & (sizeof(MPI_Aint) - 1));
    return bytes + sizeof(MPI_Aint);
}

/* Which per-block arrays of a this rank reads (send side *s, receive side *r) and which of
 * the single datatypes (*sd, *rd): only those were checked, the others may be anything. */
static void sides_used(MPI_Comm comm, const coll_args_t *a, int *s, int *r, int *sd, int *rd)
{
    int k = a->kind, w = a->sdts != NULL || a->rdts != NULL, inter = comm->inter;
    int root = inter ? a->root == MPI_ROOT : comm->rank == a->root;
    int sin = a->sbuf == MPI_IN_PLACE, rin = a->rbuf == MPI_IN_PLACE;
    int rooted = k == CK_BCAST || k == CK_REDUCE || k == CK_GATHER || k == CK_SCATTER;
    *s = *r = *sd = *rd = 0;
    if (inter && rooted && a->root == MPI_PROC_NULL)
        return; /* takes no part */
    *s = (k == CK_SCATTER && root) || k == CK_NB_ALLTOALL || (k == CK_ALLTOALL && !sin);
    *r = (k == CK_GATHER && root) || k == CK_ALLGATHER || k == CK_ALLTOALL ||
         k == CK_REDUCE_SCATTER || k == CK_NB_ALLGATHER || k == CK_NB_ALLTOALL;
    *sd = !w && (((k == CK_ALLGATHER || k == CK_ALLTOALL) && !sin) ||
                 (k == CK_GATHER && !sin && !(inter && root)) || (k == CK_SCATTER && root) ||
                 k == CK_NB_ALLGATHER || k == CK_NB_ALLTOALL);
    *rd = !w && k != CK_BARRIER && (k != CK_GATHER || root) &&
          (k != CK_SCATTER || (!rin && !(inter && root)));
}

int coll_persistent(MPI_Comm comm, const coll_args_t *a, int v, MPI_Info info,
                    MPI_Request *request, const char *fn)
{
    (void)info; /* no hints are used */
    int rc = coll_chk_request(comm, request, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, a, v, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    int ns, nr, us, ur, usd, urd;
    coll_args_lengths(comm, a, &ns, &nr);
    sides_used(comm, a, &us, &ur, &usd, &urd);
    ns = us ? ns : 0;
    nr = ur ? nr : 0;
    size_t bytes = sizeof(pcoll_t);
    bytes += side_copy(a->scounts, a->sdispls, a->sdispls_a, a->sdts, ns, NULL, 0, 0, 0, 0);
    bytes += side_copy(a->rcounts, a->rdispls, a->rdispls_a, a->rdts, nr, NULL, 0, 0, 0, 0);
    int tag = coll_nbc_tag(comm);
    pcoll_t *p = tag >= 0 ? calloc(1, bytes + sizeof(MPI_Aint)) : NULL;
    if (p == NULL)
        return ivc_mpi_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    p->a = *a;
    p->comm = comm;
    p->tag = tag;
    p->ns = ns;
    p->nr = nr;
    p->a.scounts = p->a.rcounts = p->a.sdispls = p->a.rdispls = NULL;
    p->a.sdispls_a = p->a.rdispls_a = NULL;
    p->a.sdts = p->a.rdts = NULL;
    char *at = (char *)(p + 1);
    at += (size_t)(-(uintptr_t)at & (sizeof(MPI_Aint) - 1));
    side_copy(a->scounts, a->sdispls, a->sdispls_a, a->sdts, ns, &at, &p->a.scounts,
              &p->a.sdispls, &p->a.sdispls_a, &p->a.sdts);
    side_copy(a->rcounts, a->rdispls, a->rdispls_a, a->rdts, nr, &at, &p->a.rcounts,
              &p->a.rdispls, &p->a.rdispls_a, &p->a.rdts);
    if (a->op != MPI_OP_NULL && a->op != NULL) {
        p->op = *a->op;
        p->a.op = &p->op;
    }
    /* Datatypes that the schedule will read stay alive until the request is freed. */
    if (usd)
        ivc_mpi_dt_retain(p->a.sdt);
    else
        p->a.sdt = NULL;
    if (urd)
        ivc_mpi_dt_retain(p->a.rdt);
    else
        p->a.rdt = NULL;
    for (int r = 0; p->a.sdts != NULL && r < ns; r++)
        ivc_mpi_dt_retain(p->a.sdts[r]);
    for (int r = 0; p->a.rdts != NULL && r < nr; r++)
        ivc_mpi_dt_retain(p->a.rdts[r]);
    rc = ivc_mpi_preq_new(comm, pcoll_start, p, pcoll_free, request);
    if (rc != MPI_SUCCESS) {
        pcoll_free(p);
        return ivc_mpi_raise(comm, rc, fn, "out of memory");
    }
    return MPI_SUCCESS;
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_BARRIER};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Barrier_init");
}
IVC_MPI_WEAK(Barrier_init)

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_BCAST,
                     .rbuf = buffer,
                     .rcount = count,
                     .rdt = datatype,
                     .root = root};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Bcast_init");
}
IVC_MPI_WEAK(Bcast_init)

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_REDUCE,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = count,
                     .rdt = datatype,
                     .op = op,
                     .root = root};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Reduce_init");
}
IVC_MPI_WEAK(Reduce_init)

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_ALLREDUCE,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = count,
                     .rdt = datatype,
                     .op = op};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Allreduce_init");
}
IVC_MPI_WEAK(Allreduce_init)

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_SCAN,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = count,
                     .rdt = datatype,
                     .op = op};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Scan_init");
}
IVC_MPI_WEAK(Scan_init)

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_EXSCAN,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = count,
                     .rdt = datatype,
                     .op = op};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Exscan_init");
}
IVC_MPI_WEAK(Exscan_init)

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    coll_args_t a = {.kind = CK_REDUCE_SCATTER,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = datatype,
                     .op = op};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Reduce_scatter_block_init");
}
IVC_MPI_WEAK(Reduce_scatter_block_init)

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    coll_args_t a = {.kind = CK_REDUCE_SCATTER,
                     .sbuf = sendbuf,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdt = datatype,
                     .op = op};
    return coll_persistent(comm, &a, 1, info, request, "MPI_Reduce_scatter_init");
}
IVC_MPI_WEAK(Reduce_scatter_init)

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
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
    return coll_persistent(comm, &a, 0, info, request, "MPI_Gather_init");
}
IVC_MPI_WEAK(Gather_init)

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
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
    return coll_persistent(comm, &a, 1, info, request, "MPI_Gatherv_init");
}
IVC_MPI_WEAK(Gatherv_init)

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
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
    return coll_persistent(comm, &a, 0, info, request, "MPI_Scatter_init");
}
IVC_MPI_WEAK(Scatter_init)

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
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
    return coll_persistent(comm, &a, 1, info, request, "MPI_Scatterv_init");
}
IVC_MPI_WEAK(Scatterv_init)

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    coll_args_t a = {.kind = CK_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Allgather_init");
}
IVC_MPI_WEAK(Allgather_init)

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = displs,
                     .rdt = recvtype};
    return coll_persistent(comm, &a, 1, info, request, "MPI_Allgatherv_init");
}
IVC_MPI_WEAK(Allgatherv_init)

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    coll_args_t a = {.kind = CK_ALLTOALL,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Alltoall_init");
}
IVC_MPI_WEAK(Alltoall_init)

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
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
    return coll_persistent(comm, &a, 1, info, request, "MPI_Alltoallv_init");
}
IVC_MPI_WEAK(Alltoallv_init)

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
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
    return coll_persistent(comm, &a, 2, info, request, "MPI_Alltoallw_init");
}
IVC_MPI_WEAK(Alltoallw_init)
