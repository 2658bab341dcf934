! MPI_Sizeof (hand-written, included by mpi.F90 and mpi_f08.F90): the size in bytes of a
! variable of any intrinsic type and kind, scalar or array of any rank (assumed rank).
! The 16-byte kinds (INTEGER(16), REAL(16), COMPLEX(16)) are those of MPI_INTEGER16,
! MPI_REAL16 and MPI_COMPLEX32, which MPI_Type_match_size finds from these sizes.
INTERFACE MPI_Sizeof
  MODULE PROCEDURE ivcf_sizeof_i1, ivcf_sizeof_i2, ivcf_sizeof_i4, ivcf_sizeof_i8, &
                   ivcf_sizeof_i16, ivcf_sizeof_r4, ivcf_sizeof_r8, ivcf_sizeof_r16, &
                   ivcf_sizeof_c4, ivcf_sizeof_c8, ivcf_sizeof_c16, ivcf_sizeof_l, ivcf_sizeof_ch
END INTERFACE MPI_Sizeof
PRIVATE :: ivcf_sizeof_i1, ivcf_sizeof_i2, ivcf_sizeof_i4, ivcf_sizeof_i8, ivcf_sizeof_i16, &
           ivcf_sizeof_r4, ivcf_sizeof_r8, ivcf_sizeof_r16, ivcf_sizeof_c4, ivcf_sizeof_c8, &
           ivcf_sizeof_c16, ivcf_sizeof_l, ivcf_sizeof_ch
