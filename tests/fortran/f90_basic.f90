! `use mpi` (Fortran 90) at any number of ranks >= 2 (registered at 4): point-to-point with
! nonblocking calls and Waitall statuses, MPI_ANY_SOURCE status fields, a vector of DOUBLE
! PRECISION, collectives (Bcast, Allreduce SUM on INTEGER and DOUBLE PRECISION, MAXLOC on
! 2DOUBLE_PRECISION, Alltoall, Gatherv), Comm_split, a user operation and a user error handler
! written in Fortran, MPI_ERRORS_RETURN, character arguments, attributes, and c2f/f2c round
! trips through a C file (f_c2f_helper.c). Exits 0, or prints expected/got and aborts.
module t
  use mpi
  implicit none
  integer :: me = -1, np = 0
  integer :: errh_calls = 0, errh_code = 0, errh_comm = -1
contains
  subroutine fail(what, expected, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got
    integer :: ierr
    write (0, '(a,i0,a,a,a,i0,a,i0)') 'rank ', me, ': ', what, ': expected ', expected, ', got ', got
    flush (0)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    stop 1
  end subroutine fail

  subroutine check(what, expected, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got
    if (expected /= got) call fail(what, expected, got)
  end subroutine check

  subroutine checkd(what, expected, got)
    character(len=*), intent(in) :: what
    double precision, intent(in) :: expected, got
    if (abs(expected - got) > 1d-9) then
      write (0, '(a,i0,a,a,a,g0,a,g0)') 'rank ', me, ': ', what, ': expected ', expected, ', got ', got
      call fail(what, 0, 1)
    end if
  end subroutine checkd

  ! User operation: inoutvec = invec + inoutvec + 1 on INTEGERs (associative), and the
  ! datatype argument must be MPI_INTEGER's Fortran handle.
  subroutine my_op(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    integer :: i
    if (datatype /= MPI_INTEGER) call fail('user op datatype', MPI_INTEGER, datatype)
    do i = 1, len
      inoutvec(i) = invec(i) + inoutvec(i) + 1
    end do
  end subroutine my_op

  subroutine my_errh(comm, code)
    integer :: comm, code
    errh_calls = errh_calls + 1
    errh_code = code
    errh_comm = comm
  end subroutine my_errh
end module t

program f90_basic
  use t
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
  integer, parameter :: n = 8
  integer :: ierr, i, j, k, left, right, flag
  integer :: sbuf(n), rbuf(n), reqs(4), stats(MPI_STATUS_SIZE, 4), st(MPI_STATUS_SIZE)
  double precision :: mat(4, 4), row(4), dsum, pair(2, 1), pout(2, 1)
  integer :: vec, isum, op, cls, sub, subrank, subsize, expect, errh, dup, len, kv
  integer, allocatable :: a2a_s(:), a2a_r(:), counts(:), displs(:), gath(:)
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  character(len=MPI_MAX_ERROR_STRING) :: estr
  integer(kind=MPI_ADDRESS_KIND) :: aval, extra
  logical :: lflag
  type(c_ptr) :: memp
  integer, pointer :: memarr(:)
  integer :: c_check_world
  external :: c_check_world, c_make_dup

  call MPI_Init(ierr)
  call check('MPI_Init ierror', MPI_SUCCESS, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np < 2) then
    print *, 'skip: needs at least 2 ranks'
    call MPI_Finalize(ierr)
    stop 77
  end if
  left = mod(me - 1 + np, np)
  right = mod(me + 1, np)

  ! ---- nonblocking ring exchange, Waitall with statuses ----
  do i = 1, n
    sbuf(i) = me * 1000 + i
  end do
  rbuf = -1
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, n, MPI_INTEGER, right, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, stats, ierr)
  call check('Waitall ierror', MPI_SUCCESS, ierr)
  call check('Waitall request 1 freed', MPI_REQUEST_NULL, reqs(1))
  call check('Waitall status MPI_SOURCE', left, stats(MPI_SOURCE, 1))
  call check('Waitall status MPI_TAG', 7, stats(MPI_TAG, 1))
  call MPI_Get_count(stats(:, 1), MPI_INTEGER, k, ierr)
  call check('Get_count', n, k)
  do i = 1, n
    call check('ring data', left * 1000 + i, rbuf(i))
  end do

  ! ---- MPI_ANY_SOURCE: rank 0 hears from everyone, statuses name the sender ----
  if (me == 0) then
    do j = 1, np - 1
      ! A call that completes one receive leaves MPI_ERROR as it was (MPI 3.2.5).
      st(MPI_ERROR) = MPI_ERR_TAG
      call MPI_Recv(k, 1, MPI_INTEGER, MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, st, ierr)
      call check('ANY_SOURCE data matches MPI_SOURCE', st(MPI_SOURCE) * 3, k)
      call check('ANY_SOURCE MPI_TAG', 50, st(MPI_TAG))
      call check('ANY_SOURCE MPI_ERROR left as it was', MPI_ERR_TAG, st(MPI_ERROR))
    end do
  else
    call MPI_Send(me * 3, 1, MPI_INTEGER, 0, 50, MPI_COMM_WORLD, ierr)
  end if
  ! MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE
  call MPI_Sendrecv(me, 1, MPI_INTEGER, right, 9, k, 1, MPI_INTEGER, left, 9, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  call check('Sendrecv with MPI_STATUS_IGNORE', left, k)
  call MPI_Irecv(k, 1, MPI_INTEGER, left, 10, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(me, 1, MPI_INTEGER, right, 10, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check('Waitall with MPI_STATUSES_IGNORE', left, k)

  ! ---- derived datatype: a row of a column-major 4x4 DOUBLE PRECISION matrix ----
  call MPI_Type_vector(4, 1, 4, MPI_DOUBLE_PRECISION, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  call check('Type_vector/commit ierror', MPI_SUCCESS, ierr)
  do j = 1, 4
    do i = 1, 4
      mat(i, j) = 10d0 * i + j + me
    end do
  end do
  call MPI_Sendrecv(mat(2, 1), 1, vec, right, 11, row, 4, MPI_DOUBLE_PRECISION, left, 11, &
                    MPI_COMM_WORLD, st, ierr)
  do j = 1, 4
    call checkd('vector row', 20d0 + j + left, row(j))
  end do
  call MPI_Type_free(vec, ierr)
  call check('Type_free sets MPI_DATATYPE_NULL', MPI_DATATYPE_NULL, vec)

  ! ---- collectives ----
  k = 0
  if (me == 0) k = 4242
  call MPI_Bcast(k, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check('Bcast', 4242, k)
  call MPI_Allreduce(me + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('Allreduce SUM INTEGER', np * (np + 1) / 2, isum)
  call MPI_Allreduce(0.5d0 * me, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call checkd('Allreduce SUM DOUBLE PRECISION', 0.25d0 * np * (np - 1), dsum)
  pair(1, 1) = dble(mod(me * 7, np))  ! value
  pair(2, 1) = dble(me)               ! index
  call MPI_Allreduce(pair, pout, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check('MAXLOC ierror', MPI_SUCCESS, ierr)
  call checkd('MAXLOC value', dble(np - 1), pout(1, 1))
  expect = -1
  do j = 0, np - 1
    if (mod(j * 7, np) == np - 1 .and. expect < 0) expect = j
  end do
  call checkd('MAXLOC index', dble(expect), pout(2, 1))
  ! in place
  isum = me
  call MPI_Allreduce(MPI_IN_PLACE, isum, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check('Allreduce MPI_IN_PLACE MAX', np - 1, isum)

  allocate (a2a_s(np), a2a_r(np), counts(np), displs(np), gath(np * (np + 1) / 2))
  do j = 1, np
    a2a_s(j) = me * 100 + (j - 1)
  end do
  call MPI_Alltoall(a2a_s, 1, MPI_INTEGER, a2a_r, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do j = 1, np
    call check('Alltoall', (j - 1) * 100 + me, a2a_r(j))
  end do
  ! Gatherv: rank r contributes r+1 copies of r
  do j = 1, np
    counts(j) = j
    displs(j) = (j - 1) * j / 2
  end do
  sbuf = me
  gath = -1
  call MPI_Gatherv(sbuf, me + 1, MPI_INTEGER, gath, counts, displs, MPI_INTEGER, 0, &
                   MPI_COMM_WORLD, ierr)
  if (me == 0) then
    do j = 1, np
      do i = 1, j
        call check('Gatherv', j - 1, gath(displs(j) + i))
      end do
    end do
  end if

  ! ---- Comm_split: even and odd ranks ----
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), -me, sub, ierr)
  call MPI_Comm_size(sub, subsize, ierr)
  call MPI_Comm_rank(sub, subrank, ierr)
  call check('Comm_split size', (np + 1 - mod(me, 2)) / 2, subsize)
  call check('Comm_split rank (key -me)', subsize - 1 - me / 2, subrank)
  call MPI_Allreduce(1, k, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
  call check('Allreduce over split', subsize, k)

  ! ---- user operation written in Fortran ----
  call MPI_Op_create(my_op, .true., op, ierr)
  call check('Op_create ierror', MPI_SUCCESS, ierr)
  sbuf(1) = me + 1
  call MPI_Allreduce(sbuf, k, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check('user op result', np * (np + 1) / 2 + np - 1, k)
  call MPI_Op_free(op, ierr)
  call check('Op_free sets MPI_OP_NULL', MPI_OP_NULL, op)

  ! ---- errors: MPI_ERRORS_RETURN, then a Fortran error handler ----
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(k, 1, MPI_INTEGER, np + 5, 0, dup, ierr)
  call MPI_Error_class(ierr, cls, k)
  call check('invalid rank with MPI_ERRORS_RETURN', MPI_ERR_RANK, cls)
  call MPI_Error_string(ierr, estr, len, k)
  if (len <= 0 .or. len_trim(estr) /= len) call fail('Error_string length', len_trim(estr), len)
  call MPI_Comm_create_errhandler(my_errh, errh, ierr)
  call check('Comm_create_errhandler ierror', MPI_SUCCESS, ierr)
  call MPI_Comm_set_errhandler(dup, errh, ierr)
  call MPI_Send(k, 1, MPI_INTEGER, np + 5, 0, dup, ierr)
  call check('user error handler calls', 1, errh_calls)
  call check('user error handler code class', MPI_ERR_RANK, errh_code)
  call check('user error handler comm', dup, errh_comm)
  call check('ierror after user handler', MPI_ERR_RANK, ierr)
  call MPI_Errhandler_free(errh, ierr)

  ! ---- character arguments ----
  pname = 'x'
  call MPI_Get_processor_name(pname, len, ierr)
  if (len <= 0 .or. len_trim(pname) /= len) call fail('Get_processor_name length', len_trim(pname), len)
  call MPI_Comm_set_name(dup, 'fortran dup   ', ierr)
  cname = '?'
  call MPI_Comm_get_name(dup, cname, len, ierr)
  call check('Comm_get_name length (trailing blanks trimmed)', 11, len)
  if (cname /= 'fortran dup') call fail('Comm_get_name text', 0, 1)

  ! ---- attributes: predefined MPI_TAG_UB, and a user key with Fortran callbacks ----
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, aval, lflag, ierr)
  if (.not. lflag .or. aval < 32767) call fail('MPI_TAG_UB attribute', 32767, int(min(aval, 99999_8)))
  extra = 5
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv, extra, ierr)
  call check('Comm_create_keyval ierror', MPI_SUCCESS, ierr)
  aval = 123456789012_8
  call MPI_Comm_set_attr(dup, kv, aval, ierr)
  call MPI_Comm_dup(dup, k, ierr)
  aval = 0
  call MPI_Comm_get_attr(k, kv, aval, lflag, ierr)
  if (.not. lflag .or. aval /= 123456789012_8) call fail('attribute copied by MPI_COMM_DUP_FN', 1, 0)
  call MPI_Comm_free(k, ierr)
  call MPI_Comm_free_keyval(kv, ierr)

  ! ---- MPI_Alloc_mem: the INTEGER(KIND=MPI_ADDRESS_KIND) and the TYPE(C_PTR) forms ----
  call MPI_Alloc_mem(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, memp, ierr)
  call check('Alloc_mem (TYPE(C_PTR)) ierror', MPI_SUCCESS, ierr)
  call c_f_pointer(memp, memarr, [16])
  memarr = me
  call MPI_Alloc_mem(8_MPI_ADDRESS_KIND, MPI_INFO_NULL, aval, ierr)
  if (aval == 0) call fail('Alloc_mem (address) result', 1, 0)
  call MPI_Free_mem(memarr, ierr)
  call check('Free_mem ierror', MPI_SUCCESS, ierr)

  ! ---- MPI_Sizeof ----
  call MPI_Sizeof(dsum, k, ierr)
  call check('MPI_Sizeof(DOUBLE PRECISION)', 8, k)
  call MPI_Sizeof(sbuf, k, ierr)
  call check('MPI_Sizeof(INTEGER array)', 4, k)

  ! ---- handles across languages (f_c2f_helper.c) ----
  call check('C sees MPI_COMM_WORLD/MPI_INTEGER/MPI_SUM', 0, c_check_world(MPI_COMM_WORLD, MPI_INTEGER, MPI_SUM))
  call c_make_dup(dup, k)          ! a communicator made in C, used from Fortran
  call MPI_Comm_size(k, j, ierr)
  call check('size of a C-made communicator', np, j)
  call MPI_Comm_compare(k, dup, flag, ierr)
  call check('C dup congruent', MPI_CONGRUENT, flag)
  call MPI_Comm_free(k, ierr)
  call check('Comm_free sets MPI_COMM_NULL', MPI_COMM_NULL, k)

  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(sub, ierr)
  deallocate (a2a_s, a2a_r, counts, displs, gath)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (me == 0) print '(a,i0,a)', 'f90_basic: ', np, ' ranks ok'
  call MPI_Finalize(ierr)
end program f90_basic
