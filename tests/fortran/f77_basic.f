! Fortran 77 (fixed form, include 'mpif.h') at any number of ranks
! >= 2 (registered at 4): nonblocking point-to-point with Waitall
! statuses, MPI_ANY_SOURCE, a vector of DOUBLE PRECISION, Bcast,
! Allreduce (SUM on INTEGER and DOUBLE PRECISION, MAXLOC on
! 2DOUBLE_PRECISION), Alltoall, Gatherv, Comm_split, a user operation,
! MPI_ERRORS_RETURN, character arguments, and handles checked from C
! (f_c2f_helper.c). Exits 0, or prints expected/got and aborts.
      PROGRAM F77B
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER N
      PARAMETER (N=8)
      INTEGER IERR, I, J, K, LEFT, RIGHT, ME, NP, ISUM, OP, CLS
      INTEGER SBUF(N), RBUF(N), REQS(2), STATS(MPI_STATUS_SIZE,2)
      INTEGER ST(MPI_STATUS_SIZE), VEC, SUB, SUBSZ, SUBRK, EXPECT
      INTEGER LEN, DUP, A2AS(64), A2AR(64), CNTS(64), DISPL(64)
      INTEGER GATH(2100), C_CHECK_WORLD
      DOUBLE PRECISION MAT(4,4), ROW(4), DSUM, PAIR(2), POUT(2)
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) PNAME
      CHARACTER*(MPI_MAX_OBJECT_NAME) CNAME
      EXTERNAL MYOP, C_CHECK_WORLD
      COMMON /T77/ ME

      CALL MPI_INIT(IERR)
      CALL CHK('MPI_INIT ierror', MPI_SUCCESS, IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      IF (NP .LT. 2 .OR. NP .GT. 64) THEN
        PRINT *, 'skip: needs 2 to 64 ranks'
        CALL MPI_FINALIZE(IERR)
        STOP 77
      END IF
      LEFT = MOD(ME - 1 + NP, NP)
      RIGHT = MOD(ME + 1, NP)

! nonblocking ring exchange, Waitall with statuses
      DO 10 I = 1, N
        SBUF(I) = ME * 1000 + I
        RBUF(I) = -1
   10 CONTINUE
      CALL MPI_IRECV(RBUF, N, MPI_INTEGER, LEFT, 7, MPI_COMM_WORLD,
     &               REQS(1), IERR)
      CALL MPI_ISEND(SBUF, N, MPI_INTEGER, RIGHT, 7, MPI_COMM_WORLD,
     &               REQS(2), IERR)
      CALL MPI_WAITALL(2, REQS, STATS, IERR)
      CALL CHK('Waitall ierror', MPI_SUCCESS, IERR)
      CALL CHK('Waitall request freed', MPI_REQUEST_NULL, REQS(1))
      CALL CHK('Waitall MPI_SOURCE', LEFT, STATS(MPI_SOURCE,1))
      CALL CHK('Waitall MPI_TAG', 7, STATS(MPI_TAG,1))
      CALL MPI_GET_COUNT(STATS(1,1), MPI_INTEGER, K, IERR)
      CALL CHK('Get_count', N, K)
      DO 20 I = 1, N
        CALL CHK('ring data', LEFT * 1000 + I, RBUF(I))
   20 CONTINUE

! MPI_ANY_SOURCE: rank 0 hears from everyone
      IF (ME .EQ. 0) THEN
        DO 30 J = 1, NP - 1
          CALL MPI_RECV(K, 1, MPI_INTEGER, MPI_ANY_SOURCE, 50,
     &                  MPI_COMM_WORLD, ST, IERR)
          CALL CHK('ANY_SOURCE data', ST(MPI_SOURCE) * 3, K)
          CALL CHK('ANY_SOURCE MPI_TAG', 50, ST(MPI_TAG))
   30   CONTINUE
      ELSE
        CALL MPI_SEND(ME * 3, 1, MPI_INTEGER, 0, 50, MPI_COMM_WORLD,
     &                IERR)
      END IF
      CALL MPI_SENDRECV(ME, 1, MPI_INTEGER, RIGHT, 9, K, 1,
     &     MPI_INTEGER, LEFT, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     IERR)
      CALL CHK('Sendrecv MPI_STATUS_IGNORE', LEFT, K)

! a row of a column-major 4x4 DOUBLE PRECISION matrix
      CALL MPI_TYPE_VECTOR(4, 1, 4, MPI_DOUBLE_PRECISION, VEC, IERR)
      CALL MPI_TYPE_COMMIT(VEC, IERR)
      DO 41 J = 1, 4
        DO 40 I = 1, 4
          MAT(I,J) = 10D0 * I + J + ME
   40   CONTINUE
   41 CONTINUE
      CALL MPI_SENDRECV(MAT(2,1), 1, VEC, RIGHT, 11, ROW, 4,
     &     MPI_DOUBLE_PRECISION, LEFT, 11, MPI_COMM_WORLD, ST, IERR)
      DO 50 J = 1, 4
        CALL CHKD('vector row', 20D0 + J + LEFT, ROW(J))
   50 CONTINUE
      CALL MPI_TYPE_FREE(VEC, IERR)
      CALL CHK('Type_free', MPI_DATATYPE_NULL, VEC)

! collectives
      K = 0
      IF (ME .EQ. 0) K = 4242
      CALL MPI_BCAST(K, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL CHK('Bcast', 4242, K)
      CALL MPI_ALLREDUCE(ME + 1, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHK('Allreduce SUM INTEGER', NP * (NP + 1) / 2, ISUM)
      CALL MPI_ALLREDUCE(0.5D0 * ME, DSUM, 1, MPI_DOUBLE_PRECISION,
     &     MPI_SUM, MPI_COMM_WORLD, IERR)
      CALL CHKD('Allreduce SUM DOUBLE', 0.25D0 * NP * (NP - 1), DSUM)
      PAIR(1) = DBLE(MOD(ME * 7, NP))
      PAIR(2) = DBLE(ME)
      CALL MPI_ALLREDUCE(PAIR, POUT, 1, MPI_2DOUBLE_PRECISION,
     &     MPI_MAXLOC, MPI_COMM_WORLD, IERR)
      CALL CHK('MAXLOC ierror', MPI_SUCCESS, IERR)
      CALL CHKD('MAXLOC value', DBLE(NP - 1), POUT(1))
      EXPECT = -1
      DO 60 J = 0, NP - 1
        IF (MOD(J * 7, NP) .EQ. NP - 1 .AND. EXPECT .LT. 0) EXPECT = J
   60 CONTINUE
      CALL CHKD('MAXLOC index', DBLE(EXPECT), POUT(2))
      DO 70 J = 1, NP
        A2AS(J) = ME * 100 + (J - 1)
        CNTS(J) = J
        DISPL(J) = (J - 1) * J / 2
   70 CONTINUE
      CALL MPI_ALLTOALL(A2AS, 1, MPI_INTEGER, A2AR, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, IERR)
      DO 80 J = 1, NP
        CALL CHK('Alltoall', (J - 1) * 100 + ME, A2AR(J))
   80 CONTINUE
      DO 90 I = 1, N
        SBUF(I) = ME
   90 CONTINUE
      CALL MPI_GATHERV(SBUF, ME + 1, MPI_INTEGER, GATH, CNTS, DISPL,
     &     MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      IF (ME .EQ. 0) THEN
        DO 101 J = 1, NP
          DO 100 I = 1, J
            CALL CHK('Gatherv', J - 1, GATH(DISPL(J) + I))
  100     CONTINUE
  101   CONTINUE
      END IF

! Comm_split: even and odd ranks
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, MOD(ME, 2), -ME, SUB, IERR)
      CALL MPI_COMM_SIZE(SUB, SUBSZ, IERR)
      CALL MPI_COMM_RANK(SUB, SUBRK, IERR)
      CALL CHK('Comm_split size', (NP + 1 - MOD(ME, 2)) / 2, SUBSZ)
      CALL CHK('Comm_split rank', SUBSZ - 1 - ME / 2, SUBRK)

! user operation
      CALL MPI_OP_CREATE(MYOP, .TRUE., OP, IERR)
      CALL CHK('Op_create ierror', MPI_SUCCESS, IERR)
      CALL MPI_ALLREDUCE(ME + 1, K, 1, MPI_INTEGER, OP,
     &     MPI_COMM_WORLD, IERR)
      CALL CHK('user op result', NP * (NP + 1) / 2 + NP - 1, K)
      CALL MPI_OP_FREE(OP, IERR)

! MPI_ERRORS_RETURN and an invalid rank
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, DUP, IERR)
      CALL MPI_COMM_SET_ERRHANDLER(DUP, MPI_ERRORS_RETURN, IERR)
      CALL MPI_SEND(K, 1, MPI_INTEGER, NP + 5, 0, DUP, IERR)
      CALL MPI_ERROR_CLASS(IERR, CLS, K)
      CALL CHK('invalid rank, ERRORS_RETURN', MPI_ERR_RANK, CLS)

! character arguments
      CALL MPI_GET_PROCESSOR_NAME(PNAME, LEN, IERR)
      IF (LEN .LE. 0) CALL CHK('Get_processor_name len', 1, LEN)
      CALL MPI_COMM_SET_NAME(DUP, 'f77 comm', IERR)
      CALL MPI_COMM_GET_NAME(DUP, CNAME, LEN, IERR)
      CALL CHK('Comm_get_name length', 8, LEN)
      IF (CNAME .NE. 'f77 comm') CALL CHK('Comm_get_name text', 0, 1)

! handles seen from C
      CALL CHK('C view of handles', 0,
     &     C_CHECK_WORLD(MPI_COMM_WORLD, MPI_INTEGER, MPI_SUM))

      CALL MPI_COMM_FREE(DUP, IERR)
      CALL MPI_COMM_FREE(SUB, IERR)
      IF (ME .EQ. 0) PRINT *, 'f77_basic: ranks ok:', NP
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE MYOP(INVEC, INOUT, LEN, DTYPE)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER LEN, DTYPE, INVEC(LEN), INOUT(LEN), I
      CALL CHK('user op datatype', MPI_INTEGER, DTYPE)
      DO 10 I = 1, LEN
        INOUT(I) = INVEC(I) + INOUT(I) + 1
   10 CONTINUE
      END

      SUBROUTINE CHK(WHAT, EXPECT, GOT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CHARACTER*(*) WHAT
      INTEGER EXPECT, GOT, ME, IERR
      COMMON /T77/ ME
      IF (EXPECT .NE. GOT) THEN
        WRITE (0, *) 'rank ', ME, ': ', WHAT, ': expected ', EXPECT,
     &       ', got ', GOT
        FLUSH (0)
        CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
        STOP 1
      END IF
      END

      SUBROUTINE CHKD(WHAT, EXPECT, GOT)
      IMPLICIT NONE
      CHARACTER*(*) WHAT
      DOUBLE PRECISION EXPECT, GOT
      INTEGER ME
      COMMON /T77/ ME
      IF (ABS(EXPECT - GOT) .GT. 1D-9) THEN
        WRITE (0, *) 'rank ', ME, ': ', WHAT, ': expected ', EXPECT,
     &       ', got ', GOT
        CALL CHK(WHAT, 0, 1)
      END IF
      END
