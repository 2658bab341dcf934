/* Internal definitions of the MPI layer: the objects behind mpi.h's handles, the request
 * and matching core, and the functions the MPI modules share.
 *
 * Every MPI_X is a weak alias of PMPI_X (IVC_MPI_WEAK), so a profiling library can wrap
 * MPI_X and call PMPI_X; inside libmpi, calls go to internal functions or PMPI_ names. */
#ifndef IVC_MPI_IMPL_H
#define IVC_MPI_IMPL_H

#include <mpi.h>

#include "env/env.h"
#include "dtype/dtype.h"
#include "comm/comm.h"
#include "p2p/p2p.h"
#include "coll/coll.h"
#include "rma/rma.h"

#define IVC_MPI_STR(x)     #x
#define IVC_MPI_WEAK(name) _Pragma(IVC_MPI_STR(weak MPI_##name = PMPI_##name))

/* One round of progress: the channels, then nonblocking collectives while any is active. */
static inline int ivc_mpi_progress(void)
{
    int n = ivc_coord_progress();
    if (ivc_mpi_nbc_active)
        n += ivc_mpi_nbc_progress();
    if (ivc_mpi_comm_pending) /* MPI_Comm_idup agreements (comm/mpi_idup.c) */
        n += ivc_mpi_comm_progress();
    return n;
}

#endif
