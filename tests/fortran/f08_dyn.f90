! Dynamic processes through `use mpi_f08`: MPI_Comm_spawn of 2 children with
! MPI_ARGV_NULL and an errcodes array; the children reply over MPI_Comm_get_parent; then
! MPI_Open_port / MPI_Comm_accept / MPI_Comm_connect between the parents' rank 0 and the
! children's rank 0 (port name sent over the intercommunicator), data checked both ways.
program f08_dyn
  use mpi_f08
  implicit none
  type(MPI_Comm) :: parent, inter, pc
  integer :: rank, v, codes(2), i, n
  character(len=4096) :: self
  character(len=MPI_MAX_PORT_NAME) :: port
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_get_parent(parent)
  if (parent /= MPI_COMM_NULL) then
    v = 100 + rank
    call MPI_Send(v, 1, MPI_INTEGER, 0, 1, parent)
    if (rank == 0) then
      call MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHARACTER, 0, 2, parent, MPI_STATUS_IGNORE)
      call MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, pc)
      v = 555
      call MPI_Send(v, 1, MPI_INTEGER, 0, 3, pc)
      call MPI_Recv(v, 1, MPI_INTEGER, 0, 3, pc, MPI_STATUS_IGNORE)
      if (v /= 777) stop 31
      call MPI_Comm_disconnect(pc)
    end if
    call MPI_Comm_disconnect(parent)
    call MPI_Finalize()
    stop
  end if
  call get_command_argument(0, self)
  if (self(1:1) /= '/') stop 30
  codes = -1
  call MPI_Comm_spawn(self, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, codes)
  if (any(codes /= MPI_SUCCESS)) stop 32
  call MPI_Comm_remote_size(inter, n)
  if (n /= 2) stop 33
  if (rank == 0) then
    do i = 0, 1
      call MPI_Recv(v, 1, MPI_INTEGER, i, 1, inter, MPI_STATUS_IGNORE)
      if (v /= 100 + i) stop 34
    end do
    call MPI_Open_port(MPI_INFO_NULL, port)
    call MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHARACTER, 0, 2, inter)
    call MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, pc)
    call MPI_Recv(v, 1, MPI_INTEGER, 0, 3, pc, MPI_STATUS_IGNORE)
    if (v /= 555) stop 35
    v = 777
    call MPI_Send(v, 1, MPI_INTEGER, 0, 3, pc)
    call MPI_Comm_disconnect(pc)
    call MPI_Close_port(port)
    print '(a)', 'f08_dyn: ok'
  end if
  call MPI_Comm_disconnect(inter)
  call MPI_Finalize()
end program
