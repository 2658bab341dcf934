! The standard ABI's Fortran library (libmpifort_abi, `mpifort -mpi-abi`) only: built with
! IVC's mpifort -mpi-abi, 2 ranks (run.sh fortran_std 2 std). What its glue does that IVC's
! own Fortran library does not: Fortran handles are the standard's integers (MPI_COMM_WORLD
! 257, MPI_INTEGER 0x219, MPI_SUM 0x21), the status is 8 INTEGERs; Fortran callbacks are
! called by the C ABI library directly (user op on a derived type seeing the program's
! datatype handle, communicator error handler seeing the communicator and the ABI's class),
! a file error handler through the library's trampoline (sees the program's file handle),
! keyval copy/delete procedures through MPI_Comm_dup/MPI_Comm_free, predefined attributes,
! MPI_ABI_GET_VERSION, and the optional datatypes answered at run time (MPI_LOGICAL1:
! MPI_UNDEFINED... or an error, never a wrong size).
module fstd_cb
  implicit none
  integer, save :: op_type = -1, op_calls = 0
  integer, save :: eh_comm = -1, eh_class = -1, feh_file = -1, feh_calls = 0
  integer, save :: copies = 0, deletes = 0
contains
  subroutine pair_sum(invec, inoutvec, len, dtype)
    use mpi
    integer :: len, dtype
    integer :: invec(2, len), inoutvec(2, len)
    integer :: i, ierr
    op_type = dtype
    op_calls = op_calls + 1
    do i = 1, len
      inoutvec(1, i) = inoutvec(1, i) + invec(1, i)
      inoutvec(2, i) = max(inoutvec(2, i), invec(2, i))
    end do
  end subroutine pair_sum

  subroutine comm_eh(comm, code)
    use mpi
    integer :: comm, code, ierr
    eh_comm = comm
    call MPI_Error_class(code, eh_class, ierr)
  end subroutine comm_eh

  subroutine file_eh(fh, code)
    use mpi
    integer :: fh, code
    feh_file = fh
    feh_calls = feh_calls + 1
  end subroutine file_eh

  subroutine kv_copy(oldcomm, keyval, extra, valin, valout, flag, ierr)
    use mpi
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    copies = copies + 1
    valout = valin + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine kv_copy

  subroutine kv_delete(comm, keyval, val, extra, ierr)
    use mpi
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    ierr = MPI_SUCCESS
  end subroutine kv_delete
end module fstd_cb

program fortran_std
  use mpi
  use fstd_cb
  implicit none
  integer :: ierr, rank, nranks, major, minor, pairt, op, eh, feh, fh, st(MPI_STATUS_SIZE)
  integer :: v(2, 3), r(2, 3), i, kv, dup, sz, rc
  integer(kind=MPI_ADDRESS_KIND) :: aval, extra
  logical :: flag
  character(len=64) :: fname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)

  ! the standard's numbers, in the program's constants and in what the library returns
  if (MPI_COMM_WORLD /= 257 .or. MPI_COMM_SELF /= 258 .or. MPI_COMM_NULL /= 256) &
    call fail('comm handles are not the standard ABI values', rank)
  if (MPI_INTEGER /= 537 .or. MPI_SUM /= 33 .or. MPI_STATUS_SIZE /= 8) &
    call fail('MPI_INTEGER, MPI_SUM or MPI_STATUS_SIZE', rank)
  if (MPI_ABI_VERSION /= 1 .or. MPI_ABI_SUBVERSION /= 0) call fail('MPI_ABI_VERSION', rank)
  call MPI_Abi_get_version(major, minor, ierr)
  if (ierr /= MPI_SUCCESS .or. major /= 1 .or. minor /= 0) call fail('MPI_Abi_get_version', rank)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  if (dup == MPI_COMM_WORLD .or. dup < 1024) call fail('user handle in the reserved range', rank)

  ! point-to-point with the 8-INTEGER status
  if (rank == 0) then
    call MPI_Send([11, 12, 13], 3, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Recv(v, 6, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, i, ierr)
    if (i /= 3 .or. st(MPI_SOURCE) /= 0 .or. st(MPI_TAG) /= 5 .or. v(1, 2) /= 13) &
      call fail('recv and status', rank)
  end if

  ! a user operation written in Fortran, on a derived datatype
  call MPI_Type_contiguous(2, MPI_INTEGER, pairt, ierr)
  call MPI_Type_commit(pairt, ierr)
  call MPI_Op_create(pair_sum, .true., op, ierr)
  do i = 1, 3
    v(1, i) = rank + i
    v(2, i) = rank * 10 + i
  end do
  call MPI_Allreduce(v, r, 3, pairt, op, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) call fail('allreduce with a Fortran op', rank)
  do i = 1, 3
    if (r(1, i) /= nranks * (nranks - 1) / 2 + nranks * i .or. r(2, i) /= (nranks - 1) * 10 + i) &
      call fail('Fortran op result', rank)
  end do
  if (op_calls > 0 .and. op_type /= pairt) call fail('the op saw another datatype handle', rank)
  call MPI_Op_free(op, ierr)
  call MPI_Type_free(pairt, ierr)
  if (pairt /= MPI_DATATYPE_NULL .or. op /= MPI_OP_NULL) call fail('free gives null', rank)

  ! a communicator error handler written in Fortran
  call MPI_Comm_create_errhandler(comm_eh, eh, ierr)
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Send(v, 1, MPI_INTEGER, nranks + 5, 0, dup, rc)
  if (rc == MPI_SUCCESS .or. eh_comm /= dup .or. eh_class /= MPI_ERR_RANK) &
    call fail('Fortran comm error handler', rank)
  call MPI_Errhandler_free(eh, ierr)

  ! keyval procedures written in Fortran, through dup and free
  extra = 1000
  call MPI_Comm_create_keyval(kv_copy, kv_delete, kv, extra, ierr)
  aval = 42
  call MPI_Comm_set_attr(dup, kv, aval, ierr)
  call MPI_Comm_get_attr(dup, kv, aval, flag, ierr)
  if (.not. flag .or. aval /= 42) call fail('attribute set and got back', rank)
  call MPI_Comm_free(dup, ierr)
  if (deletes /= 1) call fail('delete procedure on free', rank)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, kv, aval, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, kv, aval, flag, ierr)
  if (.not. flag .or. aval /= 1042 .or. copies /= 1) call fail('copy procedure on dup', rank)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, kv, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free_keyval(kv, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, aval, flag, ierr)
  if (.not. flag .or. aval < 32767) call fail('MPI_TAG_UB', rank)

  ! a file error handler written in Fortran: the library's trampoline
  call MPI_File_create_errhandler(file_eh, feh, ierr)
  call MPI_File_set_errhandler(MPI_FILE_NULL, feh, ierr)
  call MPI_File_open(MPI_COMM_SELF, '/nonexistent-dir/x', MPI_MODE_RDONLY, MPI_INFO_NULL, fh, rc)
  if (rc == MPI_SUCCESS .or. feh_calls /= 1 .or. feh_file /= MPI_FILE_NULL) &
    call fail('Fortran file error handler on MPI_FILE_NULL', rank)
  write (fname, '(a,i0,a)') 'abi_fortran_std.', rank, '.dat'
  call MPI_File_open(MPI_COMM_SELF, trim(fname), &
                     ior(MPI_MODE_CREATE, ior(MPI_MODE_RDWR, MPI_MODE_DELETE_ON_CLOSE)), &
                     MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call fail('file open', rank)
  call MPI_File_set_errhandler(fh, feh, ierr)
  call MPI_File_read_at(fh, -5_MPI_OFFSET_KIND, v, 1, MPI_INTEGER, st, rc)
  if (rc == MPI_SUCCESS .or. feh_calls /= 2 .or. feh_file /= fh) &
    call fail('Fortran file error handler on an open file', rank)
  call MPI_File_close(fh, ierr)
  call MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(feh, ierr)

  ! optional datatypes: sizes answered at run time
  call MPI_Type_size(MPI_INTEGER8, sz, ierr)
  if (ierr /= MPI_SUCCESS .or. sz /= 8) call fail('MPI_INTEGER8', rank)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'fortran_std ok'
  call MPI_Finalize(ierr)
contains
  subroutine fail(what, rank)
    character(len=*) :: what
    integer :: rank, ierr
    print '(a,i0,a,a)', 'rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail
end program fortran_std
