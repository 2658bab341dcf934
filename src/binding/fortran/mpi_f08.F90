! Module mpi_f08 (`use mpi_f08`), hand-written shell around generated parts:
!   mpi_f08_int.h       integer constants (build time, fortran_consts.c)
!   mpi_f08_handles.h   predefined handles as TYPE(MPI_Comm) ... constants (build time)
!   mpi_f08_procs.f90   callback interfaces, handle operators and one module procedure
!                       MPI_<Name>_f08 per MPI procedure without a choice buffer, generic name
!                       MPI_<Name>, each calling the C glue of the F77 binding; for a routine
!                       with choice buffers, the interfaces of its external specifics
!                       MPI_<Name>_f08ts / MPI_<Name>_c_f08ts behind MPI_<Name>, and of
!                       PMPI_<Name>_f08ts ... behind PMPI_<Name> (gen_fortran.py; the
!                       procedures are in mpi_f08_ts.f90, their C glue in mpi_f08_ts_glue.c)
! Handle types hold the Fortran INTEGER handle in MPI_VAL; TYPE(MPI_Status) holds the C
! MPI_Status bit for bit (MPI_STATUS_SIZE integers). Choice buffers are TYPE(*),
! DIMENSION(..) with ASYNCHRONOUS where the standard has it, passed to C as descriptors: an
! array section reaches the library as it is (a datatype describes it, see fortran_ts.c), so
! MPI_SUBARRAYS_SUPPORTED and MPI_ASYNC_PROTECTS_NONBLOCKING are .TRUE. here (.FALSE. in
! mpif.h and module mpi).
MODULE mpi_f08
  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR
  IMPLICIT NONE
  INCLUDE 'mpi_f08_int.h'

  TYPE, BIND(C) :: MPI_Comm
    INTEGER :: MPI_VAL
  END TYPE MPI_Comm
  TYPE, BIND(C) :: MPI_Datatype
    INTEGER :: MPI_VAL
  END TYPE MPI_Datatype
  TYPE, BIND(C) :: MPI_Group
    INTEGER :: MPI_VAL
  END TYPE MPI_Group
  TYPE, BIND(C) :: MPI_Request
    INTEGER :: MPI_VAL
  END TYPE MPI_Request
  TYPE, BIND(C) :: MPI_Op
    INTEGER :: MPI_VAL
  END TYPE MPI_Op
  TYPE, BIND(C) :: MPI_Errhandler
    INTEGER :: MPI_VAL
  END TYPE MPI_Errhandler
  TYPE, BIND(C) :: MPI_Info
    INTEGER :: MPI_VAL
  END TYPE MPI_Info
  TYPE, BIND(C) :: MPI_Win
    INTEGER :: MPI_VAL
  END TYPE MPI_Win
  TYPE, BIND(C) :: MPI_Message
    INTEGER :: MPI_VAL
  END TYPE MPI_Message
  TYPE, BIND(C) :: MPI_Session
    INTEGER :: MPI_VAL
  END TYPE MPI_Session
  TYPE, BIND(C) :: MPI_File
    INTEGER :: MPI_VAL
  END TYPE MPI_File
  TYPE, BIND(C) :: MPI_Status
    INTEGER :: MPI_SOURCE, MPI_TAG, MPI_ERROR
    INTEGER :: ivc_internal(MPI_STATUS_SIZE - 3)
  END TYPE MPI_Status

  INCLUDE 'mpi_f08_handles.h'

  ! Sentinels: the same common blocks as mpif.h's, whose storage libmpi defines.
  INTEGER :: MPI_BOTTOM, MPI_IN_PLACE, MPI_BUFFER_AUTOMATIC
  COMMON /IVC_OBJ_F_BOTTOM/ MPI_BOTTOM
  COMMON /IVC_OBJ_F_IN_PLACE/ MPI_IN_PLACE
  COMMON /IVC_OBJ_F_BUFFER_AUTOMATIC/ MPI_BUFFER_AUTOMATIC
  TYPE(MPI_Status) :: MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE(1)
  COMMON /IVC_OBJ_F_STATUS_IGNORE/ MPI_STATUS_IGNORE
  COMMON /IVC_OBJ_F_STATUSES_IGNORE/ MPI_STATUSES_IGNORE
  INTEGER :: MPI_ERRCODES_IGNORE(1), MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)
  COMMON /IVC_OBJ_F_ERRCODES_IGNORE/ MPI_ERRCODES_IGNORE
  COMMON /IVC_OBJ_F_UNWEIGHTED/ MPI_UNWEIGHTED
  COMMON /IVC_OBJ_F_WEIGHTS_EMPTY/ MPI_WEIGHTS_EMPTY
  CHARACTER(LEN=1) :: MPI_ARGV_NULL(1), MPI_ARGVS_NULL(1, 1)
  COMMON /IVC_OBJ_F_ARGV_NULL/ MPI_ARGV_NULL
  COMMON /IVC_OBJ_F_ARGVS_NULL/ MPI_ARGVS_NULL

  INCLUDE 'sizeof_iface.f90'
  INCLUDE 'mpi_f08_procs.f90'
  INCLUDE 'sizeof_procs.f90'
END MODULE mpi_f08
