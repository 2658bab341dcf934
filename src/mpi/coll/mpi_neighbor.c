/* Neighbourhood collectives on Cartesian, graph and distributed-graph communicators:
 * blocking (a schedule run to completion), nonblocking and persistent forms, all over the
 * schedule of coll_sched.c (build_neighbor): every receive from the sources and every send
 * to the destinations in one round. Neighbour order is the topology's: for a Cartesian one,
 * for each dimension the -1 then the +1 neighbour, MPI_PROC_NULL where there is none (that
 * block is neither sent nor written); for a graph, the adjacency list of MPI_Graph_neighbors;
 * for a distributed graph, the sources and destinations as given at creation. */
#include "coll/coll_impl.h"

static int nb_run(MPI_Comm comm, const coll_args_t *a, int v, const char *fn)
{
    int rc = coll_chk_comm(comm, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, a, v, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm, coll_run(comm, a), fn);
}

static int nb_start(MPI_Comm comm, const coll_args_t *a, int v, MPI_Request *request,
                    const char *fn)
{
    int rc = coll_chk_request(comm, request, fn);
    if (rc == MPI_SUCCESS)
        rc = coll_chk_args(comm, a, v, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_done(comm, coll_issue(comm, a, -1, request), fn);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_args_t a = {.kind = CK_NB_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return nb_run(comm, &a, 0, "MPI_Neighbor_allgather");
}
IVC_MPI_WEAK(Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return nb_start(comm, &a, 0, request, "MPI_Ineighbor_allgather");
}
IVC_MPI_WEAK(Ineighbor_allgather)

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Neighbor_allgather_init");
}
IVC_MPI_WEAK(Neighbor_allgather_init)

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_args_t a = {.kind = CK_NB_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = displs,
                     .rdt = recvtype};
    return nb_run(comm, &a, 1, "MPI_Neighbor_allgatherv");
}
IVC_MPI_WEAK(Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = displs,
                     .rdt = recvtype};
    return nb_start(comm, &a, 1, request, "MPI_Ineighbor_allgatherv");
}
IVC_MPI_WEAK(Ineighbor_allgatherv)

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLGATHER,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = displs,
                     .rdt = recvtype};
    return coll_persistent(comm, &a, 1, info, request, "MPI_Neighbor_allgatherv_init");
}
IVC_MPI_WEAK(Neighbor_allgatherv_init)

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_args_t a = {.kind = CK_NB_ALLTOALL,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return nb_run(comm, &a, 0, "MPI_Neighbor_alltoall");
}
IVC_MPI_WEAK(Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLTOALL,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return nb_start(comm, &a, 0, request, "MPI_Ineighbor_alltoall");
}
IVC_MPI_WEAK(Ineighbor_alltoall)

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLTOALL,
                     .sbuf = sendbuf,
                     .scount = sendcount,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcount = recvcount,
                     .rdt = recvtype};
    return coll_persistent(comm, &a, 0, info, request, "MPI_Neighbor_alltoall_init");
}
IVC_MPI_WEAK(Neighbor_alltoall_init)

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_args_t a = {.kind = CK_NB_ALLTOALL,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = rdispls,
                     .rdt = recvtype};
    return nb_run(comm, &a, 1, "MPI_Neighbor_alltoallv");
}
IVC_MPI_WEAK(Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLTOALL,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = rdispls,
                     .rdt = recvtype};
    return nb_start(comm, &a, 1, request, "MPI_Ineighbor_alltoallv");
}
IVC_MPI_WEAK(Ineighbor_alltoallv)

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLTOALL,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .sdt = sendtype,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = rdispls,
                     .rdt = recvtype};
    return coll_persistent(comm, &a, 1, info, request, "MPI_Neighbor_alltoallv_init");
}
IVC_MPI_WEAK(Neighbor_alltoallv_init)

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    coll_args_t a = {.kind = CK_NB_ALLTOALL,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls_a = sdispls,
                     .sdts = sendtypes,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls_a = rdispls,
                     .rdts = recvtypes};
    return nb_run(comm, &a, 2, "MPI_Neighbor_alltoallw");
}
IVC_MPI_WEAK(Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLTOALL,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls_a = sdispls,
                     .sdts = sendtypes,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls_a = rdispls,
                     .rdts = recvtypes};
    return nb_start(comm, &a, 2, request, "MPI_Ineighbor_alltoallw");
}
IVC_MPI_WEAK(Ineighbor_alltoallw)

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    coll_args_t a = {.kind = CK_NB_ALLTOALL,
                     .sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls_a = sdispls,
                     .sdts = sendtypes,
                     .rbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls_a = rdispls,
                     .rdts = recvtypes};
    return coll_persistent(comm, &a, 2, info, request, "MPI_Neighbor_alltoallw_init");
}
IVC_MPI_WEAK(Neighbor_alltoallw_init)
