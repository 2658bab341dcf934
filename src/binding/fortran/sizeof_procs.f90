! MPI_Sizeof's specific procedures (hand-written; see sizeof_iface.f90).
SUBROUTINE ivcf_sizeof_i1(x, size, ierror)
  INTEGER(KIND=1), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_i1
SUBROUTINE ivcf_sizeof_i2(x, size, ierror)
  INTEGER(KIND=2), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_i2
SUBROUTINE ivcf_sizeof_i4(x, size, ierror)
  INTEGER(KIND=4), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_i4
SUBROUTINE ivcf_sizeof_i8(x, size, ierror)
  INTEGER(KIND=8), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_i8
SUBROUTINE ivcf_sizeof_i16(x, size, ierror)
  INTEGER(KIND=16), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_i16
SUBROUTINE ivcf_sizeof_r4(x, size, ierror)
  REAL(KIND=4), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_r4
SUBROUTINE ivcf_sizeof_r8(x, size, ierror)
  REAL(KIND=8), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_r8
SUBROUTINE ivcf_sizeof_r16(x, size, ierror)
  REAL(KIND=16), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_r16
SUBROUTINE ivcf_sizeof_c4(x, size, ierror)
  COMPLEX(KIND=4), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_c4
SUBROUTINE ivcf_sizeof_c8(x, size, ierror)
  COMPLEX(KIND=8), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_c8
SUBROUTINE ivcf_sizeof_c16(x, size, ierror)
  COMPLEX(KIND=16), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_c16
SUBROUTINE ivcf_sizeof_l(x, size, ierror)
  LOGICAL, DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_l
SUBROUTINE ivcf_sizeof_ch(x, size, ierror)
  CHARACTER(LEN=*), DIMENSION(..), INTENT(IN) :: x
  INTEGER, INTENT(OUT) :: size
  INTEGER, OPTIONAL, INTENT(OUT) :: ierror
  size = STORAGE_SIZE(x) / 8
  IF (PRESENT(ierror)) ierror = MPI_SUCCESS
END SUBROUTINE ivcf_sizeof_ch
