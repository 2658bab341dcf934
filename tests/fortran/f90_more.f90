! `use mpi` at any number of ranks >= 2 (registered at 4): more of the generated glue, one
! check per family. Persistent requests and Startall; partitioned communication; matched
! probes (message handles); Pack/Unpack; Scan, Exscan, Reduce_scatter_block; groups
! (Group_incl, Group_range_incl with ranges(3,n), Group_translate_ranks); a distributed graph
! with MPI_UNWEIGHTED and a neighbourhood all-to-all; Alltoallw (datatype arrays sized from
! the communicator) and its neighbourhood form on a ring; an intercommunicator and its merge;
! Comm_idup; a window from Win_allocate with lock/Get, Accumulate and Fetch_and_op; a subarray
! datatype. Exits 0, or prints expected/got and aborts.
program f90_more
  use mpi
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
  implicit none
  integer :: me, np, ierr, i, k, left, right
  logical :: isinter
  integer :: sreqs(2), sval(4), rval(4), st(MPI_STATUS_SIZE), msg, count
  integer :: pbuf(64), pos, a, b
  integer :: wgrp, grp, grp2, ranks(4), ranks2(4), ranges(3, 1), gsize
  integer :: graph, srcs(1), dsts(1), indeg, outdeg, sb(2), rb(2)
  logical :: weighted
  integer :: types(64), scnt(64), rcnt(64), sdsp(64), rdsp(64), sall(64), rall(64)
  integer :: cart, dims(1), inter, merged, half, idup, req, win, sub, psreq, prreq
  logical :: periods(1), arrived
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp, nsdsp(2), nrdsp(2)
  integer :: remote(1), one(1), old(1), parts(4), gbuf(4), mat(4, 4), sizes(2), subs(2), starts(2)
  integer :: wincheck(1)
  type(c_ptr) :: basep
  integer, pointer :: wmem(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np < 2 .or. np > 64) then
    print *, 'skip: needs 2 to 64 ranks'
    call MPI_Finalize(ierr)
    stop 77
  end if
  left = mod(me - 1 + np, np)
  right = mod(me + 1, np)

  ! ---- persistent requests, Startall (twice) ----
  call MPI_Recv_init(rval, 4, MPI_INTEGER, left, 1, MPI_COMM_WORLD, sreqs(1), ierr)
  call MPI_Send_init(sval, 4, MPI_INTEGER, right, 1, MPI_COMM_WORLD, sreqs(2), ierr)
  do k = 1, 2
    sval = me * 100 + k
    call MPI_Startall(2, sreqs, ierr)
    call MPI_Waitall(2, sreqs, MPI_STATUSES_IGNORE, ierr)
    call check('persistent round data', left * 100 + k, rval(4))
    if (sreqs(1) == MPI_REQUEST_NULL) call fail('persistent request stays allocated', 1, 0)
  end do
  call MPI_Request_free(sreqs(1), ierr)
  call MPI_Request_free(sreqs(2), ierr)
  call check('Request_free sets MPI_REQUEST_NULL', MPI_REQUEST_NULL, sreqs(1))

  ! ---- partitioned communication: 4 partitions of one INTEGER ----
  parts = me * 10 + [1, 2, 3, 4]
  gbuf = -1
  call MPI_Precv_init(gbuf, 4, 1_MPI_COUNT_KIND, MPI_INTEGER, left, 2, MPI_COMM_WORLD, &
                      MPI_INFO_NULL, prreq, ierr)
  call MPI_Psend_init(parts, 4, 1_MPI_COUNT_KIND, MPI_INTEGER, right, 2, MPI_COMM_WORLD, &
                      MPI_INFO_NULL, psreq, ierr)
  call check('Psend_init ierror', MPI_SUCCESS, ierr)
  call MPI_Start(prreq, ierr)
  call MPI_Start(psreq, ierr)
  do i = 4, 1, -1
    call MPI_Pready(i - 1, psreq, ierr)
  end do
  arrived = .false.
  do while (.not. arrived)
    call MPI_Parrived(prreq, 3, arrived, ierr)
    call check('Parrived ierror', MPI_SUCCESS, ierr)
  end do
  call MPI_Wait(psreq, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(prreq, MPI_STATUS_IGNORE, ierr)
  call check('partitioned data', left * 10 + 4, gbuf(4))
  call MPI_Request_free(psreq, ierr)
  call MPI_Request_free(prreq, ierr)

  ! ---- matched probe: a message handle ----
  call MPI_Send(me + 7, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD, ierr)
  call MPI_Mprobe(left, 3, MPI_COMM_WORLD, msg, st, ierr)
  call MPI_Get_count(st, MPI_INTEGER, count, ierr)
  call check('Mprobe count', 1, count)
  if (msg == MPI_MESSAGE_NULL) call fail('Mprobe message handle', 1, 0)
  call MPI_Mrecv(k, 1, MPI_INTEGER, msg, st, ierr)
  call check('Mrecv data', left + 7, k)
  call check('Mrecv sets MPI_MESSAGE_NULL', MPI_MESSAGE_NULL, msg)

  ! ---- Pack / Unpack ----
  pos = 0
  call MPI_Pack(me, 1, MPI_INTEGER, pbuf, 256, pos, MPI_COMM_WORLD, ierr)
  call MPI_Pack(me * 2, 1, MPI_INTEGER, pbuf, 256, pos, MPI_COMM_WORLD, ierr)
  call check('Pack position', 8, pos)
  pos = 0
  call MPI_Unpack(pbuf, 256, pos, a, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Unpack(pbuf, 256, pos, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check('Unpack second', me * 2, b)

  ! ---- Scan, Exscan, Reduce_scatter_block ----
  call MPI_Scan(me + 1, k, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('Scan', (me + 1) * (me + 2) / 2, k)
  k = -5
  call MPI_Exscan(me + 1, k, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (me > 0) call check('Exscan', me * (me + 1) / 2, k)
  do i = 1, np
    sall(i) = i
  end do
  call MPI_Reduce_scatter_block(sall, k, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('Reduce_scatter_block', (me + 1) * np, k)

  ! ---- groups ----
  call MPI_Comm_group(MPI_COMM_WORLD, wgrp, ierr)
  ranks(1) = np - 1
  ranks(2) = 0
  call MPI_Group_incl(wgrp, 2, ranks, grp, ierr)
  call MPI_Group_size(grp, gsize, ierr)
  call check('Group_incl size', 2, gsize)
  call MPI_Group_translate_ranks(grp, 2, [0, 1], wgrp, ranks2, ierr)
  call check('Group_translate_ranks(0)', np - 1, ranks2(1))
  call check('Group_translate_ranks(1)', 0, ranks2(2))
  ranges(:, 1) = [0, np - 1, 2]      ! even ranks
  call MPI_Group_range_incl(wgrp, 1, ranges, grp2, ierr)
  call MPI_Group_size(grp2, gsize, ierr)
  call check('Group_range_incl size', (np + 1) / 2, gsize)
  call MPI_Group_free(grp, ierr)
  call MPI_Group_free(grp2, ierr)
  call MPI_Group_free(wgrp, ierr)
  call check('Group_free sets MPI_GROUP_NULL', MPI_GROUP_NULL, wgrp)

  ! ---- distributed graph ring, unweighted; neighbourhood all-to-all ----
  srcs(1) = left
  dsts(1) = right
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., graph, ierr)
  call check('Dist_graph_create_adjacent ierror', MPI_SUCCESS, ierr)
  call MPI_Dist_graph_neighbors_count(graph, indeg, outdeg, weighted, ierr)
  call check('indegree', 1, indeg)
  if (weighted) call fail('MPI_UNWEIGHTED graph reports weights', 0, 1)
  sb = me
  rb = -1
  call MPI_Neighbor_alltoall(sb, 1, MPI_INTEGER, rb, 1, MPI_INTEGER, graph, ierr)
  call check('Neighbor_alltoall', left, rb(1))
  call MPI_Comm_free(graph, ierr)

  ! ---- Alltoallw: per-process datatype arrays ----
  do i = 1, np
    types(i) = MPI_INTEGER
    scnt(i) = 1
    rcnt(i) = 1
    sdsp(i) = 4 * (i - 1)
    rdsp(i) = 4 * (i - 1)
    sall(i) = me * 1000 + i - 1
  end do
  rall = -1
  call MPI_Alltoallw(sall, scnt, sdsp, types, rall, rcnt, rdsp, types, MPI_COMM_WORLD, ierr)
  do i = 1, np
    call check('Alltoallw', (i - 1) * 1000 + me, rall(i))
  end do
  ! on a periodic 1-D Cartesian ring: 2 neighbours each way
  dims(1) = np
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  rall = -1
  nsdsp = [0, 4]
  nrdsp = [0, 4]
  call MPI_Neighbor_alltoallw(sall, scnt, nsdsp, types, rall, rcnt, nrdsp, types, cart, ierr)
  call check('Neighbor_alltoallw from the lower neighbour', left * 1000 + 1, rall(1))
  call check('Neighbor_alltoallw from the upper neighbour', right * 1000, rall(2))
  call MPI_Comm_free(cart, ierr)

  ! ---- an intercommunicator between the lower and upper half, then merged ----
  if (np >= 2) then
    half = merge(0, 1, me < np / 2)
    call MPI_Comm_split(MPI_COMM_WORLD, half, me, sub, ierr)
    call MPI_Intercomm_create(sub, 0, MPI_COMM_WORLD, merge(np / 2, 0, half == 0), 9, inter, ierr)
    call check('Intercomm_create ierror', MPI_SUCCESS, ierr)
    call MPI_Comm_test_inter(inter, isinter, ierr)
    if (.not. isinter) call fail('Comm_test_inter', 1, 0)
    call MPI_Comm_remote_size(inter, k, ierr)
    call check('remote size', merge(np - np / 2, np / 2, half == 0), k)
    call MPI_Intercomm_merge(inter, half == 1, merged, ierr)
    call MPI_Comm_size(merged, k, ierr)
    call check('Intercomm_merge size', np, k)
    call MPI_Comm_free(merged, ierr)
    call MPI_Comm_free(inter, ierr)
    call MPI_Comm_free(sub, ierr)
  end if

  ! ---- Comm_idup ----
  call MPI_Comm_idup(MPI_COMM_WORLD, idup, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Comm_compare(idup, MPI_COMM_WORLD, k, ierr)
  call check('Comm_idup congruent', MPI_CONGRUENT, k)
  call MPI_Comm_free(idup, ierr)

  ! ---- one-sided: Win_allocate, lock/Get, Accumulate, Fetch_and_op ----
  wsize = 16
  call MPI_Win_allocate(wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, basep, win, ierr)
  call check('Win_allocate ierror', MPI_SUCCESS, ierr)
  call c_f_pointer(basep, wmem, [4])
  wmem = me
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win, ierr)
  disp = 0
  call MPI_Get(remote, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(right, win, ierr)
  call check('Get from the right neighbour', right, remote(1))
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  one(1) = 1
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
  disp = 1
  call MPI_Accumulate(one, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  disp = 2
  call MPI_Fetch_and_op(one, old, MPI_INTEGER, 0, disp, MPI_SUM, win, ierr)
  call MPI_Win_unlock(0, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (me == 0) then
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
    wincheck(1) = wmem(2)
    call MPI_Win_unlock(0, win, ierr)
    call check('Accumulate of 1 from every rank', np, wincheck(1))
  end if
  call MPI_Win_free(win, ierr)
  call check('Win_free sets MPI_WIN_NULL', MPI_WIN_NULL, win)

  ! ---- subarray datatype: the 2x2 block at (2,2) of a 4x4 INTEGER matrix ----
  sizes = [4, 4]
  subs = [2, 2]
  starts = [1, 1]
  call MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, k, ierr)
  call MPI_Type_commit(k, ierr)
  do i = 1, 4
    mat(:, i) = [(10 * a + i, a = 1, 4)]
  end do
  call MPI_Sendrecv(mat, 1, k, right, 4, gbuf, 4, MPI_INTEGER, left, 4, MPI_COMM_WORLD, st, ierr)
  call check('subarray (2,2)', 22, gbuf(1))
  call check('subarray (3,3)', 33, gbuf(4))
  call MPI_Type_free(k, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (me == 0) print '(a,i0,a)', 'f90_more: ', np, ' ranks ok'
  call MPI_Finalize(ierr)

contains
  subroutine fail(what, expected, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got
    write (0, '(a,i0,a,a,a,i0,a,i0)') 'rank ', me, ': ', what, ': expected ', expected, ', got ', got
    flush (0)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    stop 1
  end subroutine fail

  subroutine check(what, expected, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got
    if (expected /= got) call fail(what, expected, got)
  end subroutine check
end program f90_more
