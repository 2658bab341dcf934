! Dynamic processes through `use mpi`: MPI_Comm_spawn_multiple with a 2-D argv array
! (column-major: ARGVS(i, j) is argument j of command i, ended by a blank) and
! MPI_ERRCODES_IGNORE; the children check MPI_Comm_get_parent, their arguments and APPNUM,
! send 10*appnum + rank to the parents' root, which checks every value; MPI_Comm_disconnect.
program f90_dyn
  use mpi
  implicit none
  integer :: ierr, rank, parent, inter, i, v, n, appnum
  integer(kind=MPI_ADDRESS_KIND) :: av
  logical :: flag
  character(len=4096) :: self
  character(len=8) :: cmds(2), arg
  character(len=8) :: argvs(2, 2)
  integer :: maxp(2), infos(2), st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_get_parent(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
    call get_command_argument(1, arg)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, av, flag, ierr)
    appnum = int(av)
    if (.not. flag) stop 11
    if (appnum == 0 .and. arg /= 'one') stop 12
    if (appnum == 1 .and. arg /= 'two') stop 13
    v = 10 * appnum + rank
    call MPI_Send(v, 1, MPI_INTEGER, 0, 4, parent, ierr)
    call MPI_Comm_disconnect(parent, ierr)
    call MPI_Finalize(ierr)
    stop
  end if
  call get_command_argument(0, self)
  if (self(1:1) /= '/') stop 20 ! ivcrun gets the program's absolute path (CTest gives it)
  cmds = (/ 'x', 'x' /)
  argvs = ' '
  argvs(1, 1) = 'one'
  argvs(2, 1) = 'two'
  maxp = (/ 1, 2 /)
  infos = (/ MPI_INFO_NULL, MPI_INFO_NULL /)
  call spawn(self)
  call MPI_Finalize(ierr)
contains
  subroutine spawn(path)
    character(len=*), intent(in) :: path
    character(len=len(path)) :: c2(2)
    c2(1) = path
    c2(2) = path
    call MPI_Comm_spawn_multiple(2, c2, argvs, maxp, infos, 0, MPI_COMM_WORLD, inter, &
                                 MPI_ERRCODES_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS) stop 21
    call MPI_Comm_remote_size(inter, n, ierr)
    if (n /= 3) stop 22
    if (rank == 0) then
      do i = 0, 2
        call MPI_Recv(v, 1, MPI_INTEGER, i, 4, inter, st, ierr)
        if (i == 0 .and. v /= 0) stop 23
        if (i > 0 .and. v /= 10 + i) stop 24
      end do
      print '(a)', 'f90_dyn: ok'
    end if
    call MPI_Comm_disconnect(inter, ierr)
    if (inter /= MPI_COMM_NULL) stop 25
  end subroutine
end program
