/* The variables MPICH's mpi.h declares extern, which programs read at run time: the
 * sentinel addresses. Kept out of the wrappers' files because IVC's mpi.h defines the same
 * names as macros.
 *
 * MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY hold IVC's own sentinel addresses, so that the
 * topology wrappers pass them through unconverted. */
#define ABI_PUBLIC __attribute__((visibility("default")))

typedef int abi_Fint;
typedef struct {
    abi_Fint count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR;
} abi_F08_status;

extern int ivc_obj_unweighted[1], ivc_obj_weights_empty[1];

ABI_PUBLIC int *const MPI_UNWEIGHTED = ivc_obj_unweighted;
ABI_PUBLIC int *const MPI_WEIGHTS_EMPTY = ivc_obj_weights_empty;
ABI_PUBLIC int *const MPIR_C_MPI_UNWEIGHTED = ivc_obj_unweighted;
ABI_PUBLIC int *const MPIR_C_MPI_WEIGHTS_EMPTY = ivc_obj_weights_empty;

/* Fortran's MPI_STATUS(ES)_IGNORE as C sees them (MPI_Status_f2c & co. of a C program). */
ABI_PUBLIC abi_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
ABI_PUBLIC abi_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
ABI_PUBLIC int MPIR_F08_MPI_IN_PLACE;
ABI_PUBLIC int MPIR_F08_MPI_BOTTOM;
ABI_PUBLIC abi_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
ABI_PUBLIC abi_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;
static abi_Fint f_status_ignore[5], f_statuses_ignore[5];
ABI_PUBLIC abi_Fint *MPI_F_STATUS_IGNORE = f_status_ignore;
ABI_PUBLIC abi_Fint *MPI_F_STATUSES_IGNORE = f_statuses_ignore;

/* IVC's MPI_T_PVAR_ALL_HANDLES is the pointer value 1: the tool wrappers pass it through. */
ABI_PUBLIC struct abi_t_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES =
    (struct abi_t_pvar_handle_s *)1;
