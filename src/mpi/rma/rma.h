/* One-sided room, as the other rooms see it (design and internals in rma_impl.h). */
#ifndef IVC_MPI_RMA_H
#define IVC_MPI_RMA_H

#include <mpi.h>

#include "chan/chan.h"

#include <stdint.h>

#define WIN_MAGIC 0x57494e44u

/* One-sided: the reserved context of active messages (never a communicator's: those are
 * below 2 * 2048), the message upcall, and finalize. */
#define IVC_RMA_CTX 0xfffffff0u
void ivc_mpi_rma_on_message(ivc_inmsg_t *m);
void ivc_mpi_rma_finalize(void);
/* World rank `rank` failed (src/mpi/ft): releases the locks it held on this rank's windows. */
void ivc_mpi_rma_on_failure(int rank);
/* Clears names of this rank (and, in its own windows' control blocks, of origins on other
 * hosts) that another writer put in window lock words; called while waiting. */
void ivc_mpi_rma_audit(void);

#endif
