! `use mpi_f08` (Fortran 2008) at any number of ranks >= 2 (registered at 4): the checks of
! f90_basic.f90 with TYPE(MPI_Comm) ... handles, TYPE(MPI_Status), optional ierror and the
! handle operators. Exits 0, or prints expected/got and aborts.
module t08
  use mpi_f08
  implicit none
  integer :: me = -1, np = 0
  integer :: errh_calls = 0, errh_code = 0, greq_freed = 0, deletes = 0
  integer(kind=MPI_ADDRESS_KIND) :: deleted_sum = 0
  type(MPI_Comm) :: errh_comm
contains
  subroutine fail(what, expected, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got
    write (0, '(a,i0,a,a,a,i0,a,i0)') 'rank ', me, ': ', what, ': expected ', expected, ', got ', got
    flush (0)
    call MPI_Abort(MPI_COMM_WORLD, 1)
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

  ! inoutvec = invec + inoutvec + 1 on INTEGERs; the f08 interface passes C pointers.
  subroutine my_op(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) call fail('user op datatype', MPI_INTEGER%MPI_VAL, datatype%MPI_VAL)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a + b + 1
  end subroutine my_op

  ! Attribute callbacks: the copy doubles the value (extra_state must be 7), the delete
  ! counts calls.
  subroutine my_copy(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
    logical :: flag
    if (extra_state /= 7) call fail('copy callback extra_state', 7, int(extra_state))
    val_out = 2 * val_in
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine my_copy
  subroutine my_delete(comm, keyval, val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
    deletes = deletes + 1
    deleted_sum = deleted_sum + val
    ierror = MPI_SUCCESS
  end subroutine my_delete

  ! Generalized request callbacks: extra_state counts the calls.
  subroutine gq(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    extra_state = extra_state + 1
    status%MPI_SOURCE = 77
    status%MPI_TAG = 88
    status%MPI_ERROR = MPI_SUCCESS
    ierror = MPI_SUCCESS
  end subroutine gq
  subroutine gf(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    greq_freed = greq_freed + 1
    ierror = MPI_SUCCESS
  end subroutine gf
  subroutine gc(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine gc

  subroutine my_errh(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    errh_calls = errh_calls + 1
    errh_code = code
    errh_comm = comm
  end subroutine my_errh
end module t08

program f08_basic
  use t08
  implicit none
  integer, parameter :: n = 8
  integer :: ierr, i, j, k, left, right, flag
  integer :: sbuf(n), rbuf(n)
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: stats(2), st
  double precision :: mat(4, 4), row(4), dsum, pair(2), pout(2)
  type(MPI_Datatype) :: vec
  type(MPI_Comm) :: sub, dup, dup2
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: errh
  integer :: isum, cls, subrank, subsize, expect, len, kv
  integer, allocatable :: a2a_s(:), a2a_r(:), counts(:), displs(:), gath(:)
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  character(len=MPI_MAX_ERROR_STRING) :: estr
  integer(kind=MPI_ADDRESS_KIND) :: aval, extra
  logical :: lflag

  call MPI_Init(ierr)
  call check('MPI_Init ierror', MPI_SUCCESS, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me)          ! ierror is optional
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  if (np < 2) then
    print *, 'skip: needs at least 2 ranks'
    call MPI_Finalize()
    stop 77
  end if
  left = mod(me - 1 + np, np)
  right = mod(me + 1, np)
  if (.not. (MPI_COMM_WORLD == MPI_COMM_WORLD) .or. MPI_COMM_WORLD /= MPI_COMM_WORLD) &
    call fail('handle operators', 1, 0)
  if (MPI_COMM_WORLD == MPI_COMM_SELF) call fail('MPI_COMM_WORLD == MPI_COMM_SELF', 0, 1)

  ! ---- nonblocking ring exchange, Waitall with statuses ----
  do i = 1, n
    sbuf(i) = me * 1000 + i
  end do
  rbuf = -1
  call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sbuf, n, MPI_INTEGER, right, 7, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, stats, ierr)
  call check('Waitall ierror', MPI_SUCCESS, ierr)
  if (reqs(1) /= MPI_REQUEST_NULL) call fail('Waitall request freed', MPI_REQUEST_NULL%MPI_VAL, reqs(1)%MPI_VAL)
  call check('Waitall status%MPI_SOURCE', left, stats(1)%MPI_SOURCE)
  call check('Waitall status%MPI_TAG', 7, stats(1)%MPI_TAG)
  call MPI_Get_count(stats(1), MPI_INTEGER, k)
  call check('Get_count', n, k)
  do i = 1, n
    call check('ring data', left * 1000 + i, rbuf(i))
  end do

  ! ---- MPI_ANY_SOURCE ----
  if (me == 0) then
    do j = 1, np - 1
      ! A call that completes one receive leaves MPI_ERROR as it was (MPI 3.2.5).
      st%MPI_ERROR = MPI_ERR_TAG
      call MPI_Recv(k, 1, MPI_INTEGER, MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, st)
      call check('ANY_SOURCE data matches MPI_SOURCE', st%MPI_SOURCE * 3, k)
      call check('ANY_SOURCE MPI_TAG', 50, st%MPI_TAG)
      call check('ANY_SOURCE MPI_ERROR left as it was', MPI_ERR_TAG, st%MPI_ERROR)
    end do
  else
    call MPI_Send(me * 3, 1, MPI_INTEGER, 0, 50, MPI_COMM_WORLD)
  end if
  call MPI_Sendrecv(me, 1, MPI_INTEGER, right, 9, k, 1, MPI_INTEGER, left, 9, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  call check('Sendrecv with MPI_STATUS_IGNORE', left, k)
  call MPI_Irecv(k, 1, MPI_INTEGER, left, 10, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(me, 1, MPI_INTEGER, right, 10, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check('Waitall with MPI_STATUSES_IGNORE', left, k)

  ! ---- derived datatype: a row of a column-major 4x4 DOUBLE PRECISION matrix ----
  call MPI_Type_vector(4, 1, 4, MPI_DOUBLE_PRECISION, vec)
  call MPI_Type_commit(vec)
  do j = 1, 4
    do i = 1, 4
      mat(i, j) = 10d0 * i + j + me
    end do
  end do
  call MPI_Sendrecv(mat(2, 1), 1, vec, right, 11, row, 4, MPI_DOUBLE_PRECISION, left, 11, &
                    MPI_COMM_WORLD, st)
  do j = 1, 4
    call checkd('vector row', 20d0 + j + left, row(j))
  end do
  call MPI_Type_free(vec)
  if (vec /= MPI_DATATYPE_NULL) call fail('Type_free sets MPI_DATATYPE_NULL', 0, vec%MPI_VAL)

  ! ---- collectives ----
  k = 0
  if (me == 0) k = 4242
  call MPI_Bcast(k, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check('Bcast', 4242, k)
  call MPI_Allreduce(me + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check('Allreduce SUM INTEGER', np * (np + 1) / 2, isum)
  call MPI_Allreduce(0.5d0 * me, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call checkd('Allreduce SUM DOUBLE PRECISION', 0.25d0 * np * (np - 1), dsum)
  pair(1) = dble(mod(me * 7, np))
  pair(2) = dble(me)
  call MPI_Allreduce(pair, pout, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check('MAXLOC ierror', MPI_SUCCESS, ierr)
  call checkd('MAXLOC value', dble(np - 1), pout(1))
  expect = -1
  do j = 0, np - 1
    if (mod(j * 7, np) == np - 1 .and. expect < 0) expect = j
  end do
  call checkd('MAXLOC index', dble(expect), pout(2))
  isum = me
  call MPI_Allreduce(MPI_IN_PLACE, isum, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check('Allreduce MPI_IN_PLACE MAX', np - 1, isum)

  allocate (a2a_s(np), a2a_r(np), counts(np), displs(np), gath(np * (np + 1) / 2))
  do j = 1, np
    a2a_s(j) = me * 100 + (j - 1)
  end do
  call MPI_Alltoall(a2a_s, 1, MPI_INTEGER, a2a_r, 1, MPI_INTEGER, MPI_COMM_WORLD)
  do j = 1, np
    call check('Alltoall', (j - 1) * 100 + me, a2a_r(j))
  end do
  do j = 1, np
    counts(j) = j
    displs(j) = (j - 1) * j / 2
  end do
  sbuf = me
  gath = -1
  call MPI_Gatherv(sbuf, me + 1, MPI_INTEGER, gath, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (me == 0) then
    do j = 1, np
      do i = 1, j
        call check('Gatherv', j - 1, gath(displs(j) + i))
      end do
    end do
  end if

  ! ---- Comm_split ----
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), -me, sub)
  call MPI_Comm_size(sub, subsize)
  call MPI_Comm_rank(sub, subrank)
  call check('Comm_split size', (np + 1 - mod(me, 2)) / 2, subsize)
  call check('Comm_split rank (key -me)', subsize - 1 - me / 2, subrank)
  call MPI_Allreduce(1, k, 1, MPI_INTEGER, MPI_SUM, sub)
  call check('Allreduce over split', subsize, k)

  ! ---- user operation ----
  call MPI_Op_create(my_op, .true., op, ierr)
  call check('Op_create ierror', MPI_SUCCESS, ierr)
  sbuf(1) = me + 1
  call MPI_Allreduce(sbuf, k, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check('user op result', np * (np + 1) / 2 + np - 1, k)
  call MPI_Op_free(op)
  if (op /= MPI_OP_NULL) call fail('Op_free sets MPI_OP_NULL', 0, op%MPI_VAL)

  ! ---- errors ----
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
  call MPI_Send(k, 1, MPI_INTEGER, np + 5, 0, dup, ierr)
  call MPI_Error_class(ierr, cls)
  call check('invalid rank with MPI_ERRORS_RETURN', MPI_ERR_RANK, cls)
  call MPI_Error_string(ierr, estr, len)
  if (len <= 0 .or. len_trim(estr) /= len) call fail('Error_string length', len_trim(estr), len)
  call MPI_Comm_create_errhandler(my_errh, errh)
  call MPI_Comm_set_errhandler(dup, errh)
  call MPI_Send(k, 1, MPI_INTEGER, np + 5, 0, dup, ierr)
  call check('user error handler calls', 1, errh_calls)
  call check('user error handler code', MPI_ERR_RANK, errh_code)
  if (errh_comm /= dup) call fail('user error handler comm', dup%MPI_VAL, errh_comm%MPI_VAL)
  call MPI_Errhandler_free(errh)

  ! ---- character arguments ----
  call MPI_Get_processor_name(pname, len)
  if (len <= 0 .or. len_trim(pname) /= len) call fail('Get_processor_name length', len_trim(pname), len)
  call MPI_Comm_set_name(dup, 'f08 dup')
  call MPI_Comm_get_name(dup, cname, len)
  call check('Comm_get_name length', 7, len)
  if (cname /= 'f08 dup') call fail('Comm_get_name text', 0, 1)

  ! ---- attributes ----
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, aval, lflag)
  if (.not. lflag .or. aval < 32767) call fail('MPI_TAG_UB attribute', 32767, int(min(aval, 99999_8)))
  extra = 5
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv, extra)
  aval = 123456789012_8
  call MPI_Comm_set_attr(dup, kv, aval)
  call MPI_Comm_dup(dup, dup2)
  aval = 0
  call MPI_Comm_get_attr(dup2, kv, aval, lflag)
  if (.not. lflag .or. aval /= 123456789012_8) call fail('attribute copied by MPI_COMM_DUP_FN', 1, 0)
  call MPI_Comm_compare(dup2, dup, flag)
  call check('Comm_compare of dups', MPI_CONGRUENT, flag)
  call MPI_Comm_free(dup2)
  if (dup2 /= MPI_COMM_NULL) call fail('Comm_free sets MPI_COMM_NULL', 0, dup2%MPI_VAL)
  call MPI_Comm_free_keyval(kv)
  extra = 7
  call MPI_Comm_create_keyval(my_copy, my_delete, kv, extra)
  aval = 21
  call MPI_Comm_set_attr(dup, kv, aval)
  call MPI_Comm_dup(dup, dup2)
  call MPI_Comm_get_attr(dup2, kv, aval, lflag)
  if (.not. lflag .or. aval /= 42) call fail('attribute through a Fortran copy callback', 42, int(aval))
  call MPI_Comm_free(dup2)
  call check('Fortran delete callback calls', 1, deletes)
  if (deleted_sum /= 42) call fail('value seen by the delete callback', 42, int(deleted_sum))
  call MPI_Comm_delete_attr(dup, kv)
  call check('Fortran delete callback calls after Comm_delete_attr', 2, deletes)
  call MPI_Comm_free_keyval(kv)

  ! ---- generalized request with Fortran callbacks; MPI_Sizeof ----
  extra = 0
  call MPI_Grequest_start(gq, gf, gc, extra, reqs(1), ierr)
  call check('Grequest_start ierror', MPI_SUCCESS, ierr)
  call MPI_Grequest_complete(reqs(1))
  call MPI_Wait(reqs(1), st, ierr)
  call check('Grequest Wait ierror', MPI_SUCCESS, ierr)
  call check('Grequest status from the query callback', 77, st%MPI_SOURCE)
  call check('Grequest status tag', 88, st%MPI_TAG)
  call check('Grequest free callback calls', 1, greq_freed)
  call MPI_Sizeof(pair, k)
  call check('MPI_Sizeof(DOUBLE PRECISION array)', 8, k)
  call MPI_Sizeof(cname, k)
  call check('MPI_Sizeof(CHARACTER(LEN=MPI_MAX_OBJECT_NAME))', MPI_MAX_OBJECT_NAME, k)

  call MPI_Comm_free(dup)
  call MPI_Comm_free(sub)
  deallocate (a2a_s, a2a_r, counts, displs, gath)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print '(a,i0,a)', 'f08_basic: ', np, ' ranks ok'
  call MPI_Finalize()
end program f08_basic
