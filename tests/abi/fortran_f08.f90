! use mpi_f08 through MPICH's own Fortran library (libmpichfort.so.12) over IVC's MPICH ABI:
! point-to-point with MPI_ANY_SOURCE and the status fields, MPI_Get_count, a nonblocking
! exchange, MPI_PROC_NULL, allreduce, bcast, MPI_IN_PLACE, a vector datatype, comm split.
program fortran_f08
  use mpi_f08
  implicit none
  integer :: rank, size, s, v, c, peer, i, a(10), b(10), hr
  integer :: nv(2), got(2)
  type(MPI_Status) :: st
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: half
  type(MPI_Datatype) :: vec
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Get_library_version(lib, c)
  call check(lib(1:3) == 'IVC', 'library is IVC')
  peer = 1 - rank
  call MPI_Allreduce(rank + 1, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(s == 3, 'allreduce')
  if (rank == 0) then
    call MPI_Send([41, 42, 43], 3, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
  else
    call MPI_Recv(a, 10, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_INTEGER, c)
    call check(c == 3 .and. a(3) == 43, 'recv data and count')
    call check(st%MPI_SOURCE == 0 .and. st%MPI_TAG == 3, 'status source and tag')
  end if
  call MPI_Recv(v, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, st)
  call check(st%MPI_SOURCE == MPI_PROC_NULL, 'MPI_PROC_NULL source')
  nv = [rank * 10, rank * 10 + 1]
  call MPI_Irecv(got, 2, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(nv, 2, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(got(1) == peer * 10 .and. got(2) == peer * 10 + 1, 'isend/irecv')
  call check(reqs(1) == MPI_REQUEST_NULL, 'request freed')
  v = 0
  if (rank == 1) v = 77
  call MPI_Bcast(v, 1, MPI_INTEGER, 1, MPI_COMM_WORLD)
  call check(v == 77, 'bcast')
  s = rank
  call MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(s == 1, 'allreduce in place')
  call MPI_Type_vector(5, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  a = [(rank * 100 + i, i = 1, 10)]
  b = -1
  call MPI_Sendrecv(a, 1, vec, peer, 6, b, 1, vec, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(b(1) == peer * 100 + 1 .and. b(9) == peer * 100 + 9 .and. b(2) == -1, 'vector')
  call MPI_Type_free(vec)
  call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, half)
  call MPI_Comm_rank(half, hr)
  call check(hr == 1 - rank, 'split order')
  call MPI_Comm_free(half)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'fortran_f08 ok'
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'FAIL rank ', rank, ': ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end program
