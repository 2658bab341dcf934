! `use mpi_f08` with array sections as choice buffers (MPI_SUBARRAYS_SUPPORTED = .TRUE.), at
! any number of ranks >= 2 (registered at 4; ranks 0 and 1 do the point-to-point parts):
! a non-contiguous 2-D section through Isend/Irecv, checked after Wait (the receiver's
! untouched elements too); blocking Send/Recv of strided and reversed sections; a count
! that stops inside the section; persistent requests on sections, modified between starts
! (the library uses the caller's memory, not a copy made at the call); Allreduce on
! strided sections (same layout: one datatype; in place), Reduce from a strided section to
! a contiguous buffer (a copy), Allgather/Iallgather into a strided receive buffer (blocks
! per process); a COMPLEX section as MPI_REAL items; contiguous buffers unchanged; and the
! refusal: Iallreduce with a contiguous send and a strided receive buffer has no datatype
! that serves both, MPI_ERR_BUFFER under MPI_ERRORS_RETURN. Exits 0, or prints
! expected/got and aborts.
program f08_subarray
  use mpi_f08
  implicit none
  integer :: me, np, i, j, k, ierr, cls
  integer, asynchronous :: a(9, 9), b(9, 9), v(20), w(20), big(8, 3)
  integer :: expect(9, 9), c6(6), g(40)
  integer, asynchronous :: gs(80)
  integer :: red(10), red2(20), redc(10)
  complex, asynchronous :: z(8)
  real :: zr(8)
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Status) :: st

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  if (np < 2) then
    print *, 'SKIP: needs 2 ranks'
    call MPI_Finalize()
    stop 77
  end if
  if (.not. MPI_SUBARRAYS_SUPPORTED .or. .not. MPI_ASYNC_PROTECTS_NONBLOCKING) &
    call fail('MPI_SUBARRAYS_SUPPORTED and MPI_ASYNC_PROTECTS_NONBLOCKING', 1, 0)

  ! ---- Isend/Irecv of a(1:7:3, 2:6:2): 9 elements, two strides ----
  do j = 1, 9
    do i = 1, 9
      a(i, j) = 100 * i + j
    end do
  end do
  if (me == 0) then
    call MPI_Isend(a(1:7:3, 2:6:2), 9, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
  else if (me == 1) then
    b = -1
    call MPI_Irecv(b(1:7:3, 2:6:2), 9, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, req)
    call MPI_Wait(req, st)
    expect = -1
    expect(1:7:3, 2:6:2) = a(1:7:3, 2:6:2)
    call check2('Irecv into b(1:7:3,2:6:2)', b, expect)
    call MPI_Get_count(st, MPI_INTEGER, k)
    call check('Get_count of the section receive', k, 9)
  end if

  ! ---- blocking Send of column sections and of a reversed section ----
  if (me == 0) then
    call MPI_Send(a(:, 2:6:2), 27, MPI_INTEGER, 1, 2, MPI_COMM_WORLD)
    v = [(i, i = 1, 20)]
    call MPI_Send(v(20:1:-2), 10, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
  else if (me == 1) then
    b = -1
    call MPI_Recv(b(:, 1:9:4), 27, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    expect = -1
    expect(:, 1:9:4) = a(:, 2:6:2)
    call check2('Send of a(:,2:6:2) into b(:,1:9:4)', b, expect)
    w = 0
    call MPI_Recv(w(1:20:2), 10, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    do i = 1, 10
      call check('Recv of v(20:1:-2) into w(1:20:2)', w(2 * i - 1), 22 - 2 * i)
      call check('w(2:20:2) untouched', w(2 * i), 0)
    end do
  end if

  ! ---- a count that stops inside the section: 6 of big(1:8:2, 1:3)'s 12 elements ----
  do j = 1, 3
    do i = 1, 8
      big(i, j) = 10 * i + j
    end do
  end do
  if (me == 0) then
    call MPI_Send(big(1:8:2, 1:3), 6, MPI_INTEGER, 1, 4, MPI_COMM_WORLD)
  else if (me == 1) then
    c6 = 0
    call MPI_Recv(c6, 6, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check('prefix item 1', c6(1), big(1, 1))
    call check('prefix item 4', c6(4), big(7, 1))
    call check('prefix item 5', c6(5), big(1, 2))
    call check('prefix item 6', c6(6), big(3, 2))
  end if

  ! ---- persistent requests on sections, the data changed between two starts ----
  if (me == 0) then
    call MPI_Send_init(v(2:20:2), 10, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, req)
    do k = 1, 2
      v = [(i + 1000 * k, i = 1, 20)]
      call MPI_Start(req)
      call MPI_Wait(req, MPI_STATUS_IGNORE)
    end do
    call MPI_Request_free(req)
  else if (me == 1) then
    call MPI_Recv_init(w(1:10), 10, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, req)
    do k = 1, 2
      w = 0
      call MPI_Start(req)
      call MPI_Wait(req, MPI_STATUS_IGNORE)
      call check('persistent send of v(2:20:2), start k: item 1', w(1), 2 + 1000 * k)
      call check('persistent send of v(2:20:2), start k: item 10', w(10), 20 + 1000 * k)
    end do
    call MPI_Request_free(req)
  end if

  ! ---- Allreduce on strided sections (one datatype for both), and in place ----
  red2 = [(me * 100 + i, i = 1, 20)]
  w = -7
  call MPI_Allreduce(red2(1:20:2), w(2:20:2), 10, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  do i = 1, 10
    call check('Allreduce into w(2:20:2)', w(2 * i), np * (2 * i - 1) + 100 * (np * (np - 1) / 2))
    call check('Allreduce: w(1:19:2) untouched', w(2 * i - 1), -7)
  end do
  red2 = [(me + i, i = 1, 20)]
  call MPI_Allreduce(MPI_IN_PLACE, red2(20:1:-2), 10, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  do i = 1, 10
    call check('Allreduce in place on red2(20:1:-2)', red2(2 * i), np - 1 + 2 * i)
    call check('... red2(1:19:2) untouched', red2(2 * i - 1), me + 2 * i - 1)
  end do

  ! ---- Reduce from a strided section to a contiguous buffer (layouts differ: a copy) ----
  red2 = [(i, i = 1, 20)]
  redc = 0
  call MPI_Reduce(red2(1:20:2), redc, 10, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (me == 0) then
    do i = 1, 10
      call check('Reduce of red2(1:20:2)', redc(i), np * (2 * i - 1))
    end do
  end if

  ! ---- Allgather and Iallgather into a strided receive buffer (one block per process) ----
  red = [(me * 10 + i, i = 1, 10)]
  gs = -1
  call MPI_Allgather(red(1:2), 2, MPI_INTEGER, gs(1:4 * np:2), 2, MPI_INTEGER, MPI_COMM_WORLD)
  do i = 0, np - 1
    call check('Allgather into gs(1::2)', gs(4 * i + 3), i * 10 + 2)
    call check('Allgather: gs(2::2) untouched', gs(4 * i + 2), -1)
  end do
  gs = -1
  call MPI_Iallgather(red(1:3), 3, MPI_INTEGER, gs(2:6 * np:2), 3, MPI_INTEGER, &
                      MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  do i = 0, np - 1
    call check('Iallgather into gs(2::2)', gs(6 * i + 6), i * 10 + 3)
    call check('Iallgather: gs(1::2) untouched', gs(6 * i + 5), -1)
  end do

  ! ---- a COMPLEX section sent as MPI_REAL items (two per element) ----
  z = [(cmplx(i, -i), i = 1, 8)]
  if (me == 0) then
    call MPI_Send(z(1:8:3), 6, MPI_REAL, 1, 6, MPI_COMM_WORLD)
  else if (me == 1) then
    zr = 0
    call MPI_Recv(zr, 6, MPI_REAL, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check('z(4) as reals: re', nint(zr(3)), 4)
    call check('z(4) as reals: im', nint(zr(4)), -4)
    call check('z(7) as reals: im', nint(zr(6)), -7)
  end if

  ! ---- contiguous buffers: whole arrays and contiguous sections, as before ----
  g = 0
  if (me == 0) then
    call MPI_Send(a, 81, MPI_INTEGER, 1, 7, MPI_COMM_WORLD)
    call MPI_Send(a(:, 3:4), 18, MPI_INTEGER, 1, 8, MPI_COMM_WORLD)
  else if (me == 1) then
    call MPI_Recv(b, 81, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check2('whole array', b, a)
    call MPI_Recv(g(3:20), 18, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check('contiguous section a(:,3:4) item 1', g(3), a(1, 3))
    call check('contiguous section a(:,3:4) item 18', g(20), a(9, 4))
    call check('g(2) untouched', g(2), 0)
  end if

  ! ---- the refusal: no datatype serves a contiguous and a strided buffer at once ----
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  red = 1
  call MPI_Iallreduce(red, w(1:20:2), 10, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Error_class(ierr, cls)
  call check('Iallreduce(contiguous, strided): error class', cls, MPI_ERR_BUFFER)
  ! the blocking form copies instead
  w = 0
  call MPI_Allreduce(red, w(1:20:2), 10, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('Allreduce(contiguous, strided): ierror', ierr, MPI_SUCCESS)
  call check('Allreduce(contiguous, strided): w(19)', w(19), np)
  call check('Allreduce(contiguous, strided): w(20)', w(20), 0)
  ! two nonblocking sections of one layout work
  if (me <= 1) then
    v = [(i + 50 * me, i = 1, 20)]
    w = 0
    call MPI_Irecv(w(20:2:-2), 10, MPI_INTEGER, 1 - me, 9, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(v(1:19:2), 10, MPI_INTEGER, 1 - me, 9, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    call check('exchange: w(20)', w(20), 1 + 50 * (1 - me))
    call check('exchange: w(2)', w(2), 19 + 50 * (1 - me))
    call check('exchange: w(1)', w(1), 0)
  end if

  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print *, 'f08_subarray: OK'
  call MPI_Finalize()

contains

  subroutine check(what, got, want)
    character(len=*), intent(in) :: what
    integer, intent(in) :: got, want
    if (got /= want) call fail(what, want, got)
  end subroutine check

  subroutine check2(what, got, want)
    character(len=*), intent(in) :: what
    integer, intent(in) :: got(:, :), want(:, :)
    integer :: ii, jj
    do jj = 1, size(got, 2)
      do ii = 1, size(got, 1)
        if (got(ii, jj) /= want(ii, jj)) then
          print *, what, ': element', ii, jj
          call fail(what, want(ii, jj), got(ii, jj))
        end if
      end do
    end do
  end subroutine check2

  subroutine fail(what, want, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: want, got
    print *, 'rank', me, ': ', what, ': expected', want, ' got', got
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_subarray
