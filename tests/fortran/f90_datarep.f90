! `use mpi` MPI_Register_datarep with Fortran conversion procedures (the buffers by reference,
! as mpif.h and `use mpi` declare them), at any number of ranks (registered at 4): as
! f08_datarep.f90, with a representation that stores each integer negated (a write and a
! read procedure). Exits 0, or
! prints expected/got and aborts.
module f90_datarep_procs
  use mpi
  implicit none
  integer :: ncalls = 0, bad = 0
contains
  subroutine neg_conv(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*)
    integer :: datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: i
    if (extra_state /= 5 .or. datatype /= MPI_INTEGER) bad = bad + 1
    do i = 1, count
      filebuf(i) = -userbuf(position + i)
    end do
    ncalls = ncalls + 1
    ierror = MPI_SUCCESS
  end subroutine neg_conv

  subroutine neg_read(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*)
    integer :: datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: i
    if (extra_state /= 5 .or. datatype /= MPI_INTEGER) bad = bad + 1
    do i = 1, count
      userbuf(position + i) = -filebuf(i)
    end do
    ncalls = ncalls + 1
    ierror = MPI_SUCCESS
  end subroutine neg_read

  subroutine int_extent(datatype, extent, extra_state, ierror)
    integer :: datatype, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    extent = 4
    ierror = MPI_SUCCESS
  end subroutine int_extent
end module f90_datarep_procs

program f90_datarep
  use mpi
  use f90_datarep_procs
  implicit none
  integer, parameter :: N = 30
  integer :: me, np, i, ierr, cls
  integer :: vals(N), got(N)
  integer :: fh
  integer(kind=MPI_OFFSET_KIND) :: disp
  integer(kind=MPI_ADDRESS_KIND) :: extra
  character(len=64) :: fname
  integer(kind=8) :: tag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call system_clock(count=tag)
  call MPI_Bcast(tag, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  write (fname, '(a,i0,a,i0,a)') 'datarep-f90-', np, '-', tag, '.dat'
  extra = 5
  call MPI_Register_datarep('ivc_f90_neg', neg_read, neg_conv, int_extent, extra, ierr)
  if (ierr /= MPI_SUCCESS) call fail('register', MPI_SUCCESS, ierr)
  call MPI_Register_datarep('ivc_f90_neg', neg_read, neg_conv, int_extent, extra, ierr)
  call MPI_Error_class(ierr, cls, i)
  if (cls /= MPI_ERR_DUP_DATAREP) call fail('second registration', MPI_ERR_DUP_DATAREP, cls)
  do i = 1, N
    vals(i) = me * 100 + i
  end do
  disp = int(me, MPI_OFFSET_KIND) * N * 4
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
                     MPI_INFO_NULL, fh, ierr)
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'ivc_f90_neg', MPI_INFO_NULL, ierr)
  call MPI_File_write_all(fh, vals, N, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  got = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, got, N, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  do i = 1, N
    if (got(i) /= -vals(i)) call fail('raw file value (native view)', -vals(i), got(i))
  end do
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'ivc_f90_neg', MPI_INFO_NULL, ierr)
  got = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, got, N, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  do i = 1, N
    if (got(i) /= vals(i)) call fail('value read through the representation', vals(i), got(i))
  end do
  if (ncalls < 2) call fail('conversion calls', 2, ncalls)
  if (bad /= 0) call fail('calls with a wrong extra_state or datatype', 0, bad)
  call MPI_File_close(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (me == 0) call MPI_File_delete(trim(fname), MPI_INFO_NULL, ierr)
  if (me == 0) print '(a)', 'f90_datarep: ok'
  call MPI_Finalize(ierr)
contains
  subroutine fail(what, expected, got)
    character(len=*) :: what
    integer :: expected, got, e
    print '(a,i0,a,a,a,i0,a,i0)', 'rank ', me, ': ', what, ': expected ', expected, ', got ', got
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program f90_datarep
