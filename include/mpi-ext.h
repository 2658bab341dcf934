/* IVC's MPI extensions: the fault-tolerance interface (ULFM, "User-Level Failure
 * Mitigation") as proposed to the MPI Forum and shipped by Open MPI 5 (mpi-ext.h,
 * OMPI_HAVE_MPI_EXT_FTMPI), so that programs written for Open MPI's ULFM compile unchanged.
 *
 * Semantics, in short (details at each function):
 *  - With MPI_ERRORS_RETURN (or a user handler) on a communicator, an operation that
 *    involves a failed process returns MPIX_ERR_PROC_FAILED: receives from it, sends to it,
 *    blocking MPI_ANY_SOURCE receives while a failure in the communicator is not acknowledged
 *    (MPIX_Comm_failure_ack / MPIX_Comm_ack_failed), and every collective on a communicator
 *    that contains it. Operations between live processes go on.
 *  - A nonblocking MPI_ANY_SOURCE receive that is pending while a failure is not
 *    acknowledged (posted before the failure or after it) is reported by MPI_Wait/MPI_Test
 *    as MPIX_ERR_PROC_FAILED_PENDING and stays active.
 *  - MPIX_Comm_revoke makes every operation on the communicator, at every member, return
 *    MPIX_ERR_REVOKED (pending ones complete with it), except MPIX_Comm_agree/iagree,
 *    MPIX_Comm_shrink, the acknowledgement calls and MPI_Comm_free.
 * Failures are detected by IVC itself (no launcher needed): a detected failure is never
 * retracted, and every live process eventually learns it. */
#ifndef IVC_MPI_EXT_H
#define IVC_MPI_EXT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Feature macros: Open MPI's, and a plain one. */
#define OMPI_HAVE_MPI_EXT          1
#define OMPI_HAVE_MPI_EXT_FTMPI    1
#define OMPI_HAVE_MPI_EXT_FTMPI_C  1
#define MPIX_FT                    1
#define IVC_HAVE_ULFM              1

/* Error classes (MPI_Error_class and MPI_Error_string know them). MPIX_ERR_PROC_FAILED is
 * mpi.h's MPI_ERR_PROC_FAILED; the other two come right after MPI_ERR_LASTCODE, and
 * MPI_Add_error_class hands out values above them. */
#define MPIX_ERR_PROC_FAILED         MPI_ERR_PROC_FAILED
#define MPIX_ERR_PROC_FAILED_PENDING (MPI_ERR_LASTCODE + 1)
#define MPIX_ERR_REVOKED             (MPI_ERR_LASTCODE + 2)
#define IVC_MPIX_ERR_LASTCODE        (MPI_ERR_LASTCODE + 2)

/* Revokes comm at every member: returns MPI_SUCCESS (MPI_ERR_COMM: invalid comm). */
int MPIX_Comm_revoke(MPI_Comm comm);
/* *flag = 1 once comm is revoked here. */
int MPIX_Comm_is_revoked(MPI_Comm comm, int *flag);
/* A new communicator of comm's members that have not failed, in comm's order, agreed by
 * every live member (collective over them; works on a revoked comm). Returns MPI_SUCCESS
 * or MPI_ERR_COMM (intercommunicators are not supported), MPI_ERR_NO_MEM. */
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
/* Uniform agreement on the bitwise AND of *flag over the live members (collective; works
 * on a revoked comm; members that fail during the call do not block it). Every member
 * that returns gets the same *flag. Returns MPI_SUCCESS, or MPIX_ERR_PROC_FAILED when comm
 * has a failed member this process has not acknowledged (*flag is set either way). */
int MPIX_Comm_agree(MPI_Comm comm, int *flag);
/* Nonblocking MPIX_Comm_agree: *flag is written when the request completes. */
int MPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request);
/* Acknowledges every failure of comm's members known now: MPI_ANY_SOURCE receives work
 * again (until a further failure). */
int MPIX_Comm_failure_ack(MPI_Comm comm);
/* The group of the failed members acknowledged by the last MPIX_Comm_failure_ack. */
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
/* The group of comm's members known to have failed, in the order they were detected here. */
int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp);
/* Acknowledges the first num_to_ack failures in MPIX_Comm_get_failed's order (already
 * acknowledged ones stay so); *num_acked = the number now acknowledged. */
int MPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked);

int PMPIX_Comm_revoke(MPI_Comm comm);
int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag);
int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int PMPIX_Comm_agree(MPI_Comm comm, int *flag);
int PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request);
int PMPIX_Comm_failure_ack(MPI_Comm comm);
int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp);
int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked);

#ifdef __cplusplus
}
#endif

#endif
