! `use mpi_f08` MPI_Register_datarep with Fortran conversion procedures, at any number of
! ranks (registered at 2): a representation "ivc_f08_plus" stores each integer plus 1000
! in the file (write procedure) and takes it off again (read procedure), its extent procedure
! gives the type's size, and both get the registration's EXTRA_STATE (77). Each rank writes
! its block through the representation; read back raw ("native") the file holds the values
! plus 1000, read back through the representation the values themselves. A second
! representation with MPI_CONVERSION_FN_NULL both ways stores the values unchanged; a name
! registered twice is MPI_ERR_DUP_DATAREP. Exits 0, or prints expected/got and aborts.
module f08_datarep_procs
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: nread = 0, nwrite = 0, nextent = 0, bad_extra = 0
contains
  subroutine plus_write(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    integer :: i
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    do i = 1, count
      f(i) = u(position + i) + 1000
    end do
    if (extra_state /= 77 .or. datatype /= MPI_INTEGER) bad_extra = bad_extra + 1
    nwrite = nwrite + 1
    ierror = MPI_SUCCESS
  end subroutine plus_write

  subroutine plus_read(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    integer :: i
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    do i = 1, count
      u(position + i) = f(i) - 1000
    end do
    if (extra_state /= 77 .or. datatype /= MPI_INTEGER) bad_extra = bad_extra + 1
    nread = nread + 1
    ierror = MPI_SUCCESS
  end subroutine plus_read

  subroutine size_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror, sz
    call MPI_Type_size(datatype, sz)
    extent = sz
    nextent = nextent + 1
    ierror = MPI_SUCCESS
  end subroutine size_extent
end module f08_datarep_procs

program f08_datarep
  use mpi_f08
  use f08_datarep_procs
  implicit none
  integer, parameter :: N = 50
  integer :: me, np, i, ierr, cls
  integer :: vals(N), got(N)
  type(MPI_File) :: fh
  integer(kind=MPI_OFFSET_KIND) :: disp
  integer(kind=MPI_ADDRESS_KIND) :: extra
  character(len=64) :: fname
  integer(kind=8) :: tag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call system_clock(count=tag)
  call MPI_Bcast(tag, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD)
  write (fname, '(a,i0,a,i0,a)') 'datarep-f08-', np, '-', tag, '.dat'
  extra = 77
  call MPI_Register_datarep('ivc_f08_plus', plus_read, plus_write, size_extent, extra, ierr)
  if (ierr /= MPI_SUCCESS) call fail('register', MPI_SUCCESS, ierr)
  call MPI_Register_datarep('ivc_f08_null   ', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            size_extent, extra, ierr)
  if (ierr /= MPI_SUCCESS) call fail('register with MPI_CONVERSION_FN_NULL', MPI_SUCCESS, ierr)
  call MPI_Register_datarep('ivc_f08_plus', plus_read, plus_write, size_extent, extra, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_DUP_DATAREP) call fail('second registration', MPI_ERR_DUP_DATAREP, cls)

  do i = 1, N
    vals(i) = me * 100 + i
  end do
  disp = int(me, MPI_OFFSET_KIND) * N * 4
  ! Through the converting representation, then raw and converted back.
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
                     MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'ivc_f08_plus', MPI_INFO_NULL)
  call MPI_File_write_all(fh, vals, N, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  got = -1
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, got, N, MPI_INTEGER, MPI_STATUS_IGNORE)
  do i = 1, N
    if (got(i) /= vals(i) + 1000) call fail('raw file value (native view)', vals(i) + 1000, got(i))
  end do
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'ivc_f08_plus', MPI_INFO_NULL)
  got = -1
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, got, N, MPI_INTEGER, MPI_STATUS_IGNORE)
  do i = 1, N
    if (got(i) /= vals(i)) call fail('value read through the representation', vals(i), got(i))
  end do
  if (nwrite == 0) call fail('write conversion calls', 1, 0)
  if (nread == 0) call fail('read conversion calls', 1, 0)
  if (nextent == 0) call fail('extent calls', 1, 0)
  if (bad_extra /= 0) call fail('calls with a wrong extra_state or datatype', 0, bad_extra)
  ! MPI_CONVERSION_FN_NULL: the file holds the values as they are.
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'ivc_f08_null', MPI_INFO_NULL)
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, vals, N, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  got = -1
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, got, N, MPI_INTEGER, MPI_STATUS_IGNORE)
  do i = 1, N
    if (got(i) /= vals(i)) call fail('value written with MPI_CONVERSION_FN_NULL', vals(i), got(i))
  end do
  call MPI_File_close(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) call MPI_File_delete(trim(fname), MPI_INFO_NULL)
  if (me == 0) print '(a)', 'f08_datarep: ok'
  call MPI_Finalize()
contains
  subroutine fail(what, expected, got)
    character(len=*) :: what
    integer :: expected, got
    print '(a,i0,a,a,a,i0,a,i0)', 'rank ', me, ': ', what, ': expected ', expected, ', got ', got
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_datarep
