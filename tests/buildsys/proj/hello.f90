! The Fortran twin of hello.c (use mpi_f08): rank 0 prints "hello fortran ok <size>".
program hello
  use mpi_f08
  implicit none
  integer :: rank, size, total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (total /= size * (size + 1) / 2) then
    print '(a,i0,a,i0)', 'allreduce gave ', total, ', expected ', size * (size + 1) / 2
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  if (rank == 0) print '(a,i0)', 'hello fortran ok ', size
  call MPI_Finalize()
end program hello
