! Module mpi (`use mpi`), hand-written shell around two generated parts:
!   mpi_consts.h        constants, handles and sentinels, written at build time by
!                       fortran_consts.c from mpi.h (the same lines as mpif.h, without EXTERNALs)
!   mpi_interfaces.f90  explicit interfaces of every procedure, written by gen_fortran.py
! Choice buffers take anything (gfortran's NO_ARG_CHECK); MPI_SUBARRAYS_SUPPORTED is .FALSE.
MODULE mpi
  IMPLICIT NONE
  INCLUDE 'mpi_consts.h'
  ! The mpi_f08 status type, for MPI_Status_f2f08 / MPI_Status_f082f.
  TYPE, BIND(C) :: MPI_Status
    INTEGER :: MPI_SOURCE, MPI_TAG, MPI_ERROR
    INTEGER :: ivc_internal(MPI_STATUS_SIZE - 3)
  END TYPE MPI_Status
  INCLUDE 'mpi_interfaces.f90'
  INCLUDE 'sizeof_iface.f90'
CONTAINS
  INCLUDE 'sizeof_procs.f90'
END MODULE mpi
