! `use mpi_f08` with gfortran's 16-byte kinds: the checks of f90_real16.f90 with
! TYPE(MPI_Datatype) and TYPE(MPI_Status), at 2 to 4 ranks (registered at 4): REAL(16)
! (IEEE binary128), COMPLEX(16) and INTEGER(16) as MPI_REAL16, MPI_COMPLEX32 and
! MPI_INTEGER16 (MPI-4.1 section 3.2.2, optional datatypes). Their names; MPI_Sizeof and
! MPI_Type_match_size find them; a ring of REAL(16) values no double holds; Allreduce SUM,
! MAX, MIN and PROD of REAL(16), SUM and PROD of COMPLEX(16), SUM and BXOR of INTEGER(16),
! each against the value folded here. One rank (k mod size) holds a value with bits far
! below a double's, the others small dyadic ones, so every result is exact in any order.
! Exits 0, or prints expected/got and aborts.
program f08_real16
  use mpi_f08
  implicit none
  integer, parameter :: qp = 16, n = 4
  integer :: ierr, me, np, k, r, sz, nlen, prev, next
  type(MPI_Datatype) :: dt
  type(MPI_Status) :: status
  real(kind=qp) :: x(n), y(n), ref(n), v
  complex(kind=qp) :: cx(n), cy(n), cref(n)
  integer(kind=16) :: ix(n), iy(n), iref(n)
  character(len=MPI_MAX_OBJECT_NAME) :: name

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np > 4) then
    if (me == 0) print '(a)', 'SKIP: the exact products assume at most 4 ranks'
    call MPI_Finalize(ierr)
    stop 77
  end if

  call MPI_Type_get_name(MPI_REAL16, name, nlen, ierr)
  call checks('MPI_REAL16 name', 'MPI_REAL16', name(1:nlen))
  call MPI_Type_get_name(MPI_COMPLEX32, name, nlen, ierr)
  call checks('MPI_COMPLEX32 name', 'MPI_COMPLEX32', name(1:nlen))
  call MPI_Type_get_name(MPI_INTEGER16, name, nlen, ierr)
  call checks('MPI_INTEGER16 name', 'MPI_INTEGER16', name(1:nlen))
  call MPI_Sizeof(v, sz, ierr)
  call check('MPI_Sizeof(REAL(16))', 16, sz)
  call MPI_Type_match_size(MPI_TYPECLASS_REAL, sz, dt, ierr)
  call check('Type_match_size(REAL, 16)', MPI_REAL16%MPI_VAL, dt%MPI_VAL)
  if (dt /= MPI_REAL16) call check('Type_match_size(REAL, 16) /= MPI_REAL16', 0, 1)
  call MPI_Sizeof(cx, sz, ierr)
  call check('MPI_Sizeof(COMPLEX(16))', 32, sz)
  call MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, sz, dt, ierr)
  call check('Type_match_size(COMPLEX, 32)', MPI_COMPLEX32%MPI_VAL, dt%MPI_VAL)
  call MPI_Sizeof(ix, sz, ierr)
  call check('MPI_Sizeof(INTEGER(16))', 16, sz)
  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, sz, dt, ierr)
  call check('Type_match_size(INTEGER, 16)', MPI_INTEGER16%MPI_VAL, dt%MPI_VAL)

  ! A ring: 2**rank / 3 and 1 + (rank*n + k) * 2**-100.
  next = mod(me + 1, np)
  prev = mod(me + np - 1, np)
  do k = 1, n
    x(k) = ring(me, k)
  end do
  call MPI_Sendrecv(x, n, MPI_REAL16, next, 1, y, n, MPI_REAL16, prev, 1, MPI_COMM_WORLD, &
                    status, ierr)
  call MPI_Get_count(status, MPI_REAL16, sz, ierr)
  call check('REAL16 count', n, sz)
  do k = 1, n
    if (real(y(k), 8) == y(k)) call check('a ring value that fits a double', 0, k)
    call checkq('REAL16 from the previous rank', ring(prev, k), y(k))
  end do

  ! Allreduce on REAL(16): SUM, MAX, MIN, PROD.
  do k = 1, n
    x(k) = rval(me, k)
  end do
  call MPI_Allreduce(x, y, n, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('Allreduce SUM REAL16 ierror', MPI_SUCCESS, ierr)
  do k = 1, n
    ref(k) = rval(0, k)
    do r = 1, np - 1
      ref(k) = ref(k) + rval(r, k)
    end do
    call checkq('Allreduce SUM REAL16', ref(k), y(k))
  end do
  ! Element 1 sums to n(n+1)/2 + 2**-100 exactly.
  call checkq('the sum itself', real(np * (np + 1) / 2, qp) + 2.0_qp**(-100), y(1))
  call MPI_Allreduce(x, y, n, MPI_REAL16, MPI_MAX, MPI_COMM_WORLD, ierr)
  do k = 1, n
    ref(k) = rval(0, k)
    do r = 1, np - 1
      ref(k) = max(ref(k), rval(r, k))
    end do
    call checkq('Allreduce MAX REAL16', ref(k), y(k))
  end do
  call MPI_Allreduce(x, y, n, MPI_REAL16, MPI_MIN, MPI_COMM_WORLD, ierr)
  do k = 1, n
    ref(k) = rval(0, k)
    do r = 1, np - 1
      ref(k) = min(ref(k), rval(r, k))
    end do
    call checkq('Allreduce MIN REAL16', ref(k), y(k))
  end do
  call MPI_Allreduce(x, y, n, MPI_REAL16, MPI_PROD, MPI_COMM_WORLD, ierr)
  do k = 1, n
    ref(k) = rval(0, k)
    do r = 1, np - 1
      ref(k) = ref(k) * rval(r, k)
    end do
    call checkq('Allreduce PROD REAL16', ref(k), y(k))
  end do

  ! Allreduce on COMPLEX(16): SUM, PROD.
  do k = 1, n
    cx(k) = cval(me, k)
  end do
  call MPI_Allreduce(cx, cy, n, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('Allreduce SUM COMPLEX32 ierror', MPI_SUCCESS, ierr)
  do k = 1, n
    cref(k) = cval(0, k)
    do r = 1, np - 1
      cref(k) = cref(k) + cval(r, k)
    end do
    call checkq('Allreduce SUM COMPLEX32 (real part)', real(cref(k)), real(cy(k)))
    call checkq('Allreduce SUM COMPLEX32 (imaginary part)', aimag(cref(k)), aimag(cy(k)))
  end do
  call MPI_Allreduce(cx, cy, n, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD, ierr)
  do k = 1, n
    cref(k) = cval(0, k)
    do r = 1, np - 1
      cref(k) = cref(k) * cval(r, k)
    end do
    call checkq('Allreduce PROD COMPLEX32 (real part)', real(cref(k)), real(cy(k)))
    call checkq('Allreduce PROD COMPLEX32 (imaginary part)', aimag(cref(k)), aimag(cy(k)))
  end do

  ! INTEGER(16): SUM and BXOR beyond 2**64.
  do k = 1, n
    ix(k) = 2_16**(64 + k) + me * k
  end do
  call MPI_Allreduce(ix, iy, n, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD, ierr)
  do k = 1, n
    iref(k) = np * 2_16**(64 + k) + k * (np * (np - 1) / 2)
    call checki('Allreduce SUM INTEGER16', iref(k), iy(k))
  end do
  call MPI_Allreduce(ix, iy, n, MPI_INTEGER16, MPI_BXOR, MPI_COMM_WORLD, ierr)
  do k = 1, n
    iref(k) = 2_16**(64 + k) * mod(np, 2)
    do r = 0, np - 1
      iref(k) = ieor(iref(k), int(r * k, 16))
    end do
    call checki('Allreduce BXOR INTEGER16', iref(k), iy(k))
  end do

  call MPI_Finalize(ierr)

contains
  function ring(rk, k) result(v)
    integer, intent(in) :: rk, k
    real(kind=qp) :: v
    if (k == 1) then
      v = 2.0_qp**rk / 3
    else
      v = 1 + (rk * n + k - 1) * 2.0_qp**(-100)
    end if
  end function ring

  function rval(rk, k) result(v)
    integer, intent(in) :: rk, k
    real(kind=qp) :: v
    logical :: fine
    fine = rk == mod(k - 1, np)
    select case (k)
    case (1)
      v = rk + 1
      if (fine) v = 1 + 2.0_qp**(-100)
    case (2)
      v = 1
      if (fine) v = 1 + 2.0_qp**(-100)
    case (3)
      v = 1
      if (fine) v = 1 - 2.0_qp**(-101)
    case default
      v = -real(rk + 1, qp) / 4
      if (fine) v = -(3 + 2.0_qp**(-98))
    end select
  end function rval

  function cval(rk, k) result(z)
    integer, intent(in) :: rk, k
    complex(kind=qp) :: z
    if (rk == mod(k - 1, np)) then
      z = cmplx(1 + 2.0_qp**(-100), 3 - 2.0_qp**(-99), kind=qp)
    else
      z = cmplx(1, 1 - 2 * mod(rk + k, 2), kind=qp)
    end if
  end function cval

  subroutine fail()
    flush (0)
    call MPI_Abort(MPI_COMM_WORLD, 1)
    stop 1
  end subroutine fail

  subroutine check(what, expected, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got
    if (expected /= got) then
      write (0, '(a,i0,a,a,a,i0,a,i0)') 'rank ', me, ': ', what, ': expected ', expected, ', got ', got
      call fail()
    end if
  end subroutine check

  subroutine checks(what, expected, got)
    character(len=*), intent(in) :: what, expected, got
    if (expected /= got) then
      write (0, '(a,i0,a,a,a,a,a,a)') 'rank ', me, ': ', what, ': expected ', expected, ', got ', got
      call fail()
    end if
  end subroutine checks

  subroutine checki(what, expected, got)
    character(len=*), intent(in) :: what
    integer(kind=16), intent(in) :: expected, got
    if (expected /= got) then
      write (0, '(a,i0,a,a,a,z32.32,a,z32.32)') 'rank ', me, ': ', what, ': expected 0x', expected, &
        ', got 0x', got
      call fail()
    end if
  end subroutine checki

  ! Exact comparison; both values printed to binary128's 36 significant digits.
  subroutine checkq(what, expected, got)
    character(len=*), intent(in) :: what
    real(kind=qp), intent(in) :: expected, got
    if (expected /= got) then
      write (0, '(a,i0,a,a,a,es44.35e4,a,es44.35e4)') 'rank ', me, ': ', what, ': expected ', &
        expected, ', got ', got
      call fail()
    end if
  end subroutine checkq
end program f08_real16
