! `use mpi_f08` MPI-IO at any number of ranks (registered at 4): open with MPI_MODE_CREATE,
! a vector filetype view (each rank every size-th block of 5 integers), write_all and
! read_at_all of another rank's data, write_shared and get_position_shared, an iwrite_at
! completed by MPI_Wait, get_size, MPI_DISPLACEMENT_CURRENT and MPI_FILE_NULL as constants,
! a Fortran file error handler (MPI_ERR_ACCESS for a read of a write-only file). Exits 0,
! or prints expected/got and aborts.
module f08_io_handler
  use mpi_f08
  implicit none
  integer :: calls = 0, last_code = 0
contains
  subroutine on_error(fh, code)
    type(MPI_File) :: fh
    integer :: code
    calls = calls + 1
    last_code = code
  end subroutine on_error
end module f08_io_handler

program f08_io
  use mpi_f08
  use f08_io_handler
  implicit none
  integer, parameter :: B = 5, NB = 40
  integer :: me, np, i, k, other, n, cls
  integer :: buf(B * NB), got(B * NB)
  type(MPI_File) :: fh
  type(MPI_Datatype) :: vec, ft
  type(MPI_Status) :: st
  type(MPI_Request) :: req
  type(MPI_Errhandler) :: eh
  integer(kind=MPI_OFFSET_KIND) :: disp, pos, fsize
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext
  character(len=64) :: fname
  integer(kind=8) :: tag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  if (MPI_DISPLACEMENT_CURRENT >= 0) call fail('MPI_DISPLACEMENT_CURRENT < 0', -1, 0)
  ! a name of this job's own (the vms and hosts runs may run at once): rank 0's clock
  call system_clock(count=tag)
  call MPI_Bcast(tag, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD)
  write (fname, '(a,i0,a,i0,a)') 'io-f08-', np, '-', tag, '.dat'
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
                     MPI_INFO_NULL, fh)
  if (fh == MPI_FILE_NULL) call fail('open', 1, 0)
  call MPI_Type_vector(1, B, B * np, MPI_INTEGER, vec)
  lb = 0
  ext = 4 * B * np
  call MPI_Type_create_resized(vec, lb, ext, ft)
  call MPI_Type_commit(ft)
  disp = 4 * B * me
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ft, 'native', MPI_INFO_NULL)
  do k = 0, NB - 1
    do i = 1, B
      buf(k * B + i) = me * 100000 + k * 10 + i
    end do
  end do
  call MPI_File_write_all(fh, buf, B * NB, MPI_INTEGER, st)
  call MPI_Get_count(st, MPI_INTEGER, n)
  if (n /= B * NB) call fail('count of write_all', B * NB, n)
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  other = mod(me + 1, np)
  disp = 4 * B * other
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ft, 'native', MPI_INFO_NULL)
  got = -1
  call MPI_File_read_at_all(fh, 0_MPI_OFFSET_KIND, got, B * NB, MPI_INTEGER, st)
  do k = 0, NB - 1
    do i = 1, B
      if (got(k * B + i) /= other * 100000 + k * 10 + i) &
        call fail('read_at_all', other * 100000 + k * 10 + i, got(k * B + i))
    end do
  end do
  call MPI_File_get_size(fh, fsize)
  if (fsize /= 4 * B * NB * np) call fail('get_size', 4 * B * NB * np, int(fsize))
  ! back to bytes; the shared pointer goes to 0 with the view
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_BYTE, MPI_BYTE, 'native', MPI_INFO_NULL)
  call MPI_File_write_shared(fh, buf, 4, MPI_BYTE, st)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_get_position_shared(fh, pos)
  if (pos /= 4 * np) call fail('get_position_shared', 4 * np, int(pos))
  call MPI_File_iwrite_at(fh, int(4 * me, MPI_OFFSET_KIND), buf, 4, MPI_BYTE, req)
  call MPI_Wait(req, st)
  call MPI_Get_count(st, MPI_BYTE, n)
  if (n /= 4) call fail('count of iwrite_at', 4, n)
  call MPI_File_close(fh)
  if (.not. (fh == MPI_FILE_NULL)) call fail('close gives MPI_FILE_NULL', 1, 0)
  ! A file error handler written in Fortran.
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_WRONLY, MPI_INFO_NULL, fh)
  call MPI_File_create_errhandler(on_error, eh)
  call MPI_File_set_errhandler(fh, eh)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, got, 1, MPI_INTEGER, st)
  if (calls /= 1) call fail('calls of the Fortran file error handler', 1, calls)
  call MPI_Error_class(last_code, cls)
  if (cls /= MPI_ERR_ACCESS) call fail('class the handler got', MPI_ERR_ACCESS, cls)
  call MPI_File_close(fh)
  call MPI_Errhandler_free(eh)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) call MPI_File_delete(trim(fname), MPI_INFO_NULL)
  call MPI_Type_free(ft)
  call MPI_Type_free(vec)
  call MPI_Finalize()
contains
  subroutine fail(what, expected, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got
    print '(a,i0,a,a,a,i0,a,i0)', 'rank ', me, ': ', what, ': expected ', expected, ', got ', got
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_io
