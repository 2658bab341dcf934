C     mpif.h from Fortran 77 (one procedure called with different argument types, as such
C     programs do): rank 0 prints "hello f77 ok".
      PROGRAM HELLO77
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, ITOTAL
      DOUBLE PRECISION X, XTOTAL
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_ALLREDUCE(1, ITOTAL, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      X = 1.5D0
      CALL MPI_ALLREDUCE(X, XTOTAL, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (XTOTAL .NE. 1.5D0 * ITOTAL) STOP 1
      IF (RANK .EQ. 0) PRINT '(A)', 'hello f77 ok'
      CALL MPI_FINALIZE(IERR)
      END
