! use mpi through MPICH's own Fortran library over IVC's MPICH ABI: the INTEGER status
! array (MPI_STATUS_SIZE, MPI_SOURCE/MPI_TAG indices of MPICH's mpif.h), reductions,
! MPI_ANY_SOURCE, a nonblocking exchange with MPI_Waitall, and MPI-IO (MPICH's Fortran
! library turns the INTEGER file handle into the C one with MPI_File_f2c of IVC's layer):
! each rank writes its block of a file in the working directory, reads the other's back.
program fortran_usempi
  use mpi
  implicit none
  integer :: ierr, rank, size, s, v(4), c, peer, reqs(2), sts(MPI_STATUS_SIZE, 2)
  integer :: st(MPI_STATUS_SIZE), fh, w(8), i, amode
  integer(kind=MPI_OFFSET_KIND) :: off, fsize
  double precision :: d, dsum
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  peer = 1 - rank
  d = rank + 0.5d0
  call MPI_Allreduce(d, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (dsum /= 2.0d0) call failu('allreduce double', rank)
  if (rank == 0) then
    call MPI_Send([7, 8], 2, MPI_INTEGER, 1, 9, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(v, 4, MPI_INTEGER, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, c, ierr)
    if (c /= 2 .or. v(2) /= 8 .or. st(MPI_SOURCE) /= 0 .or. st(MPI_TAG) /= 9) &
      call failu('recv status', rank)
  end if
  call MPI_Irecv(v, 1, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(rank + 100, 1, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, sts, ierr)
  if (v(1) /= peer + 100 .or. sts(MPI_SOURCE, 1) /= peer .or. ierr /= MPI_SUCCESS) &
    call failu('waitall', rank)
  call MPI_Reduce(rank, s, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. s /= 1) call failu('reduce', rank)
  amode = ior(MPI_MODE_CREATE, ior(MPI_MODE_RDWR, MPI_MODE_DELETE_ON_CLOSE))
  call MPI_File_open(MPI_COMM_WORLD, 'abi_fortran_usempi.dat', amode, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS .or. fh == MPI_FILE_NULL) call failu('file open', rank)
  w = [(rank * 100 + i, i = 1, 8)]
  off = rank * 32
  call MPI_File_write_at_all(fh, off, w, 8, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_INTEGER, c, ierr)
  if (c /= 8) call failu('file write count', rank)
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  off = peer * 32
  w = 0
  call MPI_File_read_at(fh, off, w, 8, MPI_INTEGER, st, ierr)
  if (ierr /= MPI_SUCCESS .or. w(1) /= peer * 100 + 1 .or. w(8) /= peer * 100 + 8) &
    call failu('file read', rank)
  call MPI_File_get_size(fh, fsize, ierr)
  if (fsize /= 64) call failu('file size', rank)
  call MPI_File_close(fh, ierr)
  if (ierr /= MPI_SUCCESS .or. fh /= MPI_FILE_NULL) call failu('file close', rank)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'fortran_usempi ok'
  call MPI_Finalize(ierr)
end program fortran_usempi

subroutine failu(what, rank)
  use mpi
  implicit none
  character(len=*), intent(in) :: what
  integer, intent(in) :: rank
  integer :: ierr
  print '(a,i0,2a)', 'FAIL rank ', rank, ': ', what
  call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
end subroutine
