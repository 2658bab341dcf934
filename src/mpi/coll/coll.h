/* Collective room, as the other rooms see it: reduction operations and the hooks of the
 * collectives (mpi_op.c, mpi_coll.c; internals in coll_impl.h). */
#ifndef IVC_MPI_COLL_H
#define IVC_MPI_COLL_H

#include <mpi.h>


#include <stdint.h>

#define OP_MAGIC 0x4f504f50u

struct ivc_mpi_op_s {
    uint32_t magic;
    int id; /* OP_MAX ... */
    int commute;
    MPI_User_function *fn;
    int predefined;
    int fortran; /* fn is a Fortran procedure: takes the datatype's Fortran handle (src/binding/fortran) */
    int bigcount; /* fn is an MPI_User_function_c (MPI_Op_create_c): its len is an MPI_Count */
};
enum {
    OP_MAX,
    OP_MIN,
    OP_SUM,
    OP_PROD,
    OP_LAND,
    OP_BAND,
    OP_LOR,
    OP_BOR,
    OP_LXOR,
    OP_BXOR,
    OP_MAXLOC,
    OP_MINLOC,
    OP_REPLACE,
    OP_NO_OP,
    OP_USER
};

/* What this process offers as a new communicator's first collective sequence number: above
 * every one it ever published. The MAX over the members is the communicator's coll_seq0. */
uint64_t ivc_mpi_coll_seq_offer(void);

/* inout[i] = in[i] op inout[i] for n elements of basic kind `basic`.
 * Returns MPI_SUCCESS or MPI_ERR_OP when op is not defined on that kind. */
int ivc_mpi_op_apply(MPI_Op op, const void *in, void *inout, uint64_t n, int basic);
/* out[i] = in[i] op in2[i]: the same in one pass over three buffers (out may be in2; it is
 * neither overlapping in2 partly nor overlapping in unless equal to it). */
int ivc_mpi_op_apply3(MPI_Op op, const void *in, const void *in2, void *out, uint64_t n,
                      int basic);
int ivc_mpi_op_valid(MPI_Op op);
/* 1 if the predefined operation op is defined on basic kind `basic` (MPI_NO_OP on all). */
int ivc_mpi_op_defined(MPI_Op op, int basic);

/* MPI_Init / MPI_Finalize hooks: reserve this rank's collective area in the region and learn
 * the others' (collective over COMM_WORLD); forget them. Init returns MPI_SUCCESS or an error
 * class. */
int ivc_mpi_coll_init(void);
void ivc_mpi_coll_finalize(void);
/* Puts back control words of this rank's collective area that another writer changed
 * (coll_impl.h, "Other writers"); called by waits now and then (ivc_mpi_poll). */
void ivc_mpi_coll_audit(void);
/* Frees a communicator's collective state (from ivc_mpi_comm_release). */
void ivc_mpi_coll_comm_free(MPI_Comm comm);
/* Advances nonblocking collectives; returns the number of steps taken. Called by the
 * request machinery's waits and tests while any is in flight. */
extern int ivc_mpi_nbc_active;
int ivc_mpi_nbc_progress(void);


#endif
