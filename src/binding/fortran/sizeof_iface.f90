! MPI_Sizeof (hand-written, included by mpi.F90 and mpi_f08.F90): the size in bytes of a
! variable of any intrinsic type and kind, scalar or array of any rank (assumed rank).
INTERFACE MPI_Sizeof
  MODULE PROCEDURE ivcf_sizeof_i1, ivcf_sizeof_i2, ivcf_sizeof_i4, ivcf_sizeof_i8, &
                   ivcf_sizeof_r4, ivcf_sizeof_r8, ivcf_sizeof_c4, ivcf_sizeof_c8, &
                   ivcf_sizeof_l, ivcf_sizeof_ch
END INTERFACE MPI_Sizeof
PRIVATE :: ivcf_sizeof_i1, ivcf_sizeof_i2, ivcf_sizeof_i4, ivcf_sizeof_i8, ivcf_sizeof_r4, &
           ivcf_sizeof_r8, ivcf_sizeof_c4, ivcf_sizeof_c8, ivcf_sizeof_l, ivcf_sizeof_ch
