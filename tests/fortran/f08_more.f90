! `use mpi_f08` at any number of ranks >= 2 (registered at 4): the generated glue's less
! common paths. Request indices from Waitany/Waitsome/Testsome are 1-based; LOGICAL arrays
! (Cart_create/Cart_get periods); a struct datatype of absolute addresses sent from
! MPI_BOTTOM; Alloc_mem into TYPE(C_PTR); Info strings (Info_get_string with buflen inout, counted without C's NUL);
! a window with Put, fence and the predefined attributes MPI_WIN_SIZE / MPI_WIN_DISP_UNIT;
! Status_f2f08 / Status_f082f; Bsend through an attached buffer and Buffer_detach into
! TYPE(C_PTR); large-count (_c) forms; a session; a nonblocking collective; PMPI_Wtime and
! PMPI_Wtick. Exits 0, or prints expected/got and aborts.
program f08_more
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer, c_associated, c_loc
  implicit none
  integer :: me, np, ierr, i, k, idx, outcount, left, right, ndims, dlen
  integer :: vals(4), got(4), indices(4), dims(2), coords(2), src, dst, nkeys
  logical :: periods(2), periods_out(2), flag
  type(MPI_Request) :: reqs(4)
  type(MPI_Status) :: stats(4), st, st2
  integer :: fst(MPI_STATUS_SIZE)
  type(MPI_Comm) :: cart
  type(MPI_Datatype) :: stype, rtype, types(2)
  integer :: blens(2)
  double precision :: t0, t1
  integer(kind=MPI_ADDRESS_KIND) :: disps(2), wsize, aval
  integer :: sint, rint
  double precision :: sdbl, rdbl
  type(c_ptr) :: mem, detached
  integer, pointer :: memarr(:)
  type(MPI_Info) :: info
  character(len=64) :: key, value
  integer, target :: winbuf(8)
  type(MPI_Win) :: win
  integer, allocatable, target :: bsbuf(:)
  integer :: bsize, total
  integer(kind=MPI_COUNT_KIND) :: bigcount
  type(MPI_Session) :: ses
  type(MPI_Group) :: grp
  type(MPI_Comm) :: scomm

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  if (np < 2) then
    print *, 'skip: needs at least 2 ranks'
    call MPI_Finalize()
    stop 77
  end if
  left = mod(me - 1 + np, np)
  right = mod(me + 1, np)

  ! ---- Waitany / Waitsome / Testsome: Fortran indices start at 1 ----
  do i = 1, 4
    vals(i) = me * 10 + i
  end do
  got = -1
  reqs = MPI_REQUEST_NULL
  call MPI_Irecv(got(3), 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(3))
  call MPI_Send(vals(3), 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD)
  call MPI_Waitany(4, reqs, idx, st)
  call check('Waitany index (1-based)', 3, idx)
  call check('Waitany status tag', 3, st%MPI_TAG)
  call check('Waitany data', left * 10 + 3, got(3))
  call MPI_Waitany(4, reqs, idx, st)
  call check('Waitany of null requests', MPI_UNDEFINED, idx)
  call MPI_Irecv(got(1), 1, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(2))
  call MPI_Send(vals(1), 1, MPI_INTEGER, right, 4, MPI_COMM_WORLD)
  call MPI_Waitsome(4, reqs, outcount, indices, stats)
  call check('Waitsome outcount', 1, outcount)
  call check('Waitsome index (1-based)', 2, indices(1))
  call check('Waitsome status tag', 4, stats(1)%MPI_TAG)
  call check('Waitsome data', left * 10 + 1, got(1))
  call MPI_Testsome(4, reqs, outcount, indices, stats)
  call check('Testsome with only null requests', MPI_UNDEFINED, outcount)

  ! ---- Cartesian topology: LOGICAL arrays ----
  dims = 0
  call MPI_Dims_create(np, 2, dims)
  call check('Dims_create product', np, dims(1) * dims(2))
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart)
  call MPI_Cartdim_get(cart, ndims)
  call check('Cartdim_get', 2, ndims)
  periods_out = [.false., .true.]
  call MPI_Cart_get(cart, 2, dims, periods_out, coords)
  if (.not. periods_out(1) .or. periods_out(2)) call fail('Cart_get periods', 1, 0)
  call MPI_Cart_rank(cart, coords, k)
  call check('Cart_rank of own coords', me, k)
  call MPI_Cart_shift(cart, 0, 1, src, dst)
  if (dims(1) > 1 .and. (src == MPI_PROC_NULL .or. dst == MPI_PROC_NULL)) &
    call fail('periodic Cart_shift gives a neighbour', 0, MPI_PROC_NULL)
  call MPI_Comm_free(cart)

  ! ---- structs of absolute addresses, sent from and received into MPI_BOTTOM ----
  sint = 1000 + me
  sdbl = 0.25d0 * me
  rint = -1
  rdbl = -1
  blens = 1
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Get_address(sint, disps(1))
  call MPI_Get_address(sdbl, disps(2))
  call MPI_Type_create_struct(2, blens, disps, types, stype)
  call MPI_Type_commit(stype)
  call MPI_Get_address(rint, disps(1))
  call MPI_Get_address(rdbl, disps(2))
  call MPI_Type_create_struct(2, blens, disps, types, rtype)
  call MPI_Type_commit(rtype)
  call MPI_Sendrecv(MPI_BOTTOM, 1, stype, right, 6, MPI_BOTTOM, 1, rtype, left, 6, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check('struct via MPI_BOTTOM: INTEGER part', 1000 + left, rint)
  if (rdbl /= 0.25d0 * left) call fail('struct via MPI_BOTTOM: DOUBLE PRECISION part', left, int(4 * rdbl))
  call MPI_Type_free(stype)
  call MPI_Type_free(rtype)

  ! ---- Alloc_mem into TYPE(C_PTR) ----
  call MPI_Alloc_mem(40_MPI_ADDRESS_KIND, MPI_INFO_NULL, mem, ierr)
  call check('Alloc_mem ierror', MPI_SUCCESS, ierr)
  if (.not. c_associated(mem)) call fail('Alloc_mem pointer', 1, 0)
  call c_f_pointer(mem, memarr, [10])
  memarr = me
  call check('Alloc_mem memory usable', me, memarr(10))
  call MPI_Free_mem(memarr)

  ! ---- Info strings ----
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'ivc_key', 'some value  ')
  call MPI_Info_get_nkeys(info, nkeys)
  call check('Info_get_nkeys', 1, nkeys)
  call MPI_Info_get_nthkey(info, 0, key)
  if (key /= 'ivc_key') call fail('Info_get_nthkey', 0, 1)
  dlen = len(value)
  call MPI_Info_get_string(info, 'ivc_key', dlen, value, flag)
  if (.not. flag .or. value /= 'some value') call fail('Info_get_string value', 1, 0)
  call check('Info_get_string buflen (the length: no NUL in Fortran)', 10, dlen)
  call MPI_Info_get_string(info, 'no such key', dlen, value, flag)
  if (flag) call fail('Info_get_string of a missing key: flag', 0, 1)
  call MPI_Info_free(info)
  if (info /= MPI_INFO_NULL) call fail('Info_free sets MPI_INFO_NULL', 0, info%MPI_VAL)

  ! ---- a window: Put with fences, predefined attributes ----
  winbuf = -1
  call MPI_Win_create(winbuf, 32_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, wsize, flag)
  if (.not. flag .or. wsize /= 32) call fail('MPI_WIN_SIZE attribute', 32, int(wsize))
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, aval, flag)
  if (.not. flag .or. aval /= 4) call fail('MPI_WIN_DISP_UNIT attribute', 4, int(aval))
  call MPI_Win_fence(0, win)
  call MPI_Put(vals, 4, MPI_INTEGER, right, 2_MPI_ADDRESS_KIND, 4, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  do i = 1, 4
    call check('Put into the right neighbour''s window', left * 10 + i, winbuf(i + 2))
  end do
  call check('window outside the Put', -1, winbuf(1))
  call MPI_Win_free(win)

  ! ---- statuses across bindings ----
  st%MPI_SOURCE = 5
  st%MPI_TAG = 6
  st%MPI_ERROR = MPI_ERR_TAG
  call MPI_Status_f082f(st, fst)
  call check('Status_f082f MPI_SOURCE', 5, fst(1))
  call check('Status_f082f MPI_TAG', 6, fst(2))
  call MPI_Status_f2f08(fst, st2)
  call check('Status_f2f08 MPI_ERROR', MPI_ERR_TAG, st2%MPI_ERROR)

  ! ---- Bsend through an attached buffer; Buffer_detach into TYPE(C_PTR) ----
  bsize = 4 * 16 + 4 * MPI_BSEND_OVERHEAD
  allocate (bsbuf(bsize / 4))
  call MPI_Buffer_attach(bsbuf, bsize)
  call MPI_Bsend(vals, 4, MPI_INTEGER, right, 8, MPI_COMM_WORLD)
  call MPI_Recv(got, 4, MPI_INTEGER, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check('Bsend data', left * 10 + 4, got(4))
  call MPI_Buffer_detach(detached, k)
  call check('Buffer_detach size', bsize, k)
  if (.not. c_associated(detached, c_loc(bsbuf))) call fail('Buffer_detach address', 1, 0)
  deallocate (bsbuf)
  call MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0, ierr)
  call check('Buffer_attach(MPI_BUFFER_AUTOMATIC)', MPI_SUCCESS, ierr)
  call MPI_Bsend(vals, 4, MPI_INTEGER, right, 13, MPI_COMM_WORLD)
  call MPI_Recv(got, 4, MPI_INTEGER, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check('Bsend with MPI_BUFFER_AUTOMATIC', left * 10 + 3, got(3))
  call MPI_Buffer_detach(detached, k)

  ! ---- large-count forms (INTEGER(KIND=MPI_COUNT_KIND) counts pick MPI_<Name>_f08c) ----
  got = -1
  call MPI_Sendrecv(vals, 4_MPI_COUNT_KIND, MPI_INTEGER, right, 12, got, 4_MPI_COUNT_KIND, &
                    MPI_INTEGER, left, 12, MPI_COMM_WORLD, st, ierr)
  call check('Sendrecv_c ierror', MPI_SUCCESS, ierr)
  call check('Sendrecv_c data', left * 10 + 4, got(4))
  call MPI_Get_count(st, MPI_INTEGER, bigcount)
  if (bigcount /= 4) call fail('Get_count_c', 4, int(bigcount))

  ! ---- a session (MPI_Session handles), its pset and a communicator from its group ----
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, ses, ierr)
  call check('Session_init ierror', MPI_SUCCESS, ierr)
  if (ses == MPI_SESSION_NULL) call fail('Session_init handle', 1, 0)
  dlen = len(value)
  call MPI_Session_get_nth_pset(ses, MPI_INFO_NULL, 0, dlen, value, ierr)
  if (value /= 'mpi://WORLD') call fail('first pset is mpi://WORLD', 0, 1)
  call MPI_Group_from_session_pset(ses, 'mpi://WORLD', grp, ierr)
  call MPI_Comm_create_from_group(grp, 'ivc.fortran.test', MPI_INFO_NULL, MPI_ERRORS_RETURN, &
                                  scomm, ierr)
  call check('Comm_create_from_group ierror', MPI_SUCCESS, ierr)
  call MPI_Comm_size(scomm, k)
  call check('size of the session''s communicator', np, k)
  call MPI_Comm_free(scomm)
  call MPI_Group_free(grp)
  call MPI_Session_finalize(ses, ierr)
  if (ses /= MPI_SESSION_NULL) call fail('Session_finalize sets MPI_SESSION_NULL', 0, ses%MPI_VAL)

  ! ---- a nonblocking collective ----
  call MPI_Iallreduce(me, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1))
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call check('Iallreduce', np * (np - 1) / 2, total)

  ! ---- the profiling names of the functions (f08/timer/wtimef90 did not compile) ----
  t0 = MPI_Wtime()
  t1 = PMPI_Wtime()
  if (.not. (t1 >= t0 .and. t0 > 0.0d0)) call fail('PMPI_Wtime() >= an earlier MPI_Wtime()', 1, 0)
  if (.not. (PMPI_Wtick() == MPI_Wtick() .and. PMPI_Wtick() > 0.0d0)) &
    call fail('PMPI_Wtick() == MPI_Wtick() > 0', 1, 0)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print '(a,i0,a)', 'f08_more: ', np, ' ranks ok'
  call MPI_Finalize()

contains
  subroutine fail(what, expected, got_)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got_
    write (0, '(a,i0,a,a,a,i0,a,i0)') 'rank ', me, ': ', what, ': expected ', expected, ', got ', got_
    flush (0)
    call MPI_Abort(MPI_COMM_WORLD, 1)
    stop 1
  end subroutine fail

  subroutine check(what, expected, got_)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got_
    if (expected /= got_) call fail(what, expected, got_)
  end subroutine check
end program f08_more
