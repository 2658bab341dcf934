! `use mpi` at any number of ranks (registered at 4): what MPICH's Fortran tests found wrong
! (f77/f90/f08 infotest2f, infogetstrf, greqf, allctypesf), each checked on its own:
!  - MPI_Info_set strips leading and trailing blanks of key and value (MPI-4.1 section 10.1),
!    so Info_get, Info_get_nthkey and Info_get_valuelen see the trimmed strings;
!  - MPI_Info_get of an absent key: flag false and the value argument left as it was;
!  - MPI_Info_get_string: an absent key leaves value and buflen alone; buflen 0 leaves value
!    alone and returns the length (without C's NUL); buflen 2 gives two characters and
!    blanks after them;
!  - the free procedure of a generalized request gets the program's EXTRA_STATE variable:
!    what it writes there is seen after MPI_Wait;
!  - MPI_Type_get_name(MPI_C_COMPLEX) is 'MPI_C_COMPLEX';
!  - PMPI_WTIME, PMPI_WTICK, PMPI_AINT_ADD and PMPI_AINT_DIFF are in the module with their
!    types (f90/timer/wtimef90 did not compile under implicit none).
! Every check runs; exits 0, or prints expected/got for each failed one and aborts.
module f90_conform_greq
  implicit none
contains
  subroutine query_fn(extra, status, ierr)
    use mpi
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    call MPI_Status_set_elements(status, MPI_BYTE, 0, ierr)
    call MPI_Status_set_cancelled(status, .false., ierr)
    extra = extra + 10
    ierr = MPI_SUCCESS
  end subroutine query_fn

  subroutine free_fn(extra, ierr)
    use mpi
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    extra = extra - 1
    ierr = MPI_SUCCESS
  end subroutine free_fn

  subroutine cancel_fn(extra, complete, ierr)
    use mpi
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    ierr = MPI_SUCCESS
  end subroutine cancel_fn
end module f90_conform_greq

program f90_conform
  use mpi
  use f90_conform_greq
  implicit none
  integer :: me, ierr, info, nkeys, vlen, bufl, req, rlen
  logical :: flag
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=MPI_MAX_INFO_VAL) :: val
  character(len=MPI_MAX_OBJECT_NAME) :: tname
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: st(MPI_STATUS_SIZE)
  integer :: nfail = 0
  double precision :: t0, t1

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)

  ! ---- Info: blanks stripped, absent keys leave the value alone ----
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, '  color  ', '  deep blue  ', ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  call check('Info_get_nkeys', 1, nkeys)
  call MPI_Info_get_nthkey(info, 0, key, ierr)
  call check_str('Info_get_nthkey: key without blanks', 'color', key)
  call MPI_Info_get_valuelen(info, 'color', vlen, flag, ierr)
  call check_true('Info_get_valuelen of the trimmed key: flag', flag)
  call check('Info_get_valuelen: value without blanks', 9, vlen)
  val = 'canary'
  call MPI_Info_get(info, 'color', MPI_MAX_INFO_VAL, val, flag, ierr)
  call check_true('Info_get: flag', flag)
  call check_str('Info_get: value without blanks', 'deep blue', val)
  val = 'canary'
  call MPI_Info_get(info, 'shape', MPI_MAX_INFO_VAL, val, flag, ierr)
  call check_true('Info_get of an absent key: flag false', .not. flag)
  call check_str('Info_get of an absent key leaves the value', 'canary', val)

  ! ---- Info_get_string ----
  val = 'canary'
  bufl = 10
  call MPI_Info_get_string(info, 'shape', bufl, val, flag, ierr)
  call check_true('Info_get_string of an absent key: flag false', .not. flag)
  call check_str('Info_get_string of an absent key leaves the value', 'canary', val)
  call check('Info_get_string of an absent key leaves buflen', 10, bufl)
  bufl = 0
  call MPI_Info_get_string(info, 'color', bufl, val, flag, ierr)
  call check_true('Info_get_string with buflen 0: flag', flag)
  call check_str('Info_get_string with buflen 0 leaves the value', 'canary', val)
  call check('Info_get_string with buflen 0: length without NUL', 9, bufl)
  bufl = 2
  call MPI_Info_get_string(info, 'color', bufl, val, flag, ierr)
  call check_str('Info_get_string with buflen 2: two characters, blanks after', 'de', val)
  call check('Info_get_string with buflen 2: full length', 9, bufl)
  call MPI_Info_free(info, ierr)

  ! ---- generalized request: the free procedure writes the program's variable ----
  extra = 5
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, st, ierr)
  call check('EXTRA_STATE after query (+10) and free (-1)', 14, int(extra))

  ! ---- the name of MPI_C_COMPLEX ----
  tname = ''
  call MPI_Type_get_name(MPI_C_COMPLEX, tname, rlen, ierr)
  call check_str('Type_get_name(MPI_C_COMPLEX)', 'MPI_C_COMPLEX', tname)

  ! ---- the profiling names of the functions, typed by the module (implicit none) ----
  t0 = MPI_WTIME()
  t1 = PMPI_WTIME()
  call check_true('PMPI_WTIME() >= an earlier MPI_WTIME()', t1 >= t0 .and. t0 > 0.0d0)
  call check_true('PMPI_WTICK() == MPI_WTICK() > 0', &
                  PMPI_WTICK() == MPI_WTICK() .and. PMPI_WTICK() > 0.0d0)
  call check('PMPI_AINT_DIFF(PMPI_AINT_ADD(100, 28), 100)', 28, &
             int(PMPI_AINT_DIFF(PMPI_AINT_ADD(100_MPI_ADDRESS_KIND, 28_MPI_ADDRESS_KIND), &
                                100_MPI_ADDRESS_KIND)))

  if (nfail > 0) then
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    stop 1
  end if
  call MPI_Finalize(ierr)

contains
  subroutine fail(what, expected, got)
    character(len=*), intent(in) :: what, expected, got
    write (0, '(a,i0,a,a,a,a,a,a,a)') 'rank ', me, ': ', what, ': expected "', expected, &
      '", got "', got, '"'
    flush (0)
    nfail = nfail + 1
  end subroutine fail

  subroutine check(what, expected, got)
    character(len=*), intent(in) :: what
    integer, intent(in) :: expected, got
    character(len=24) :: e, g
    write (e, '(i0)') expected
    write (g, '(i0)') got
    if (expected /= got) call fail(what, trim(e), trim(g))
  end subroutine check

  subroutine check_str(what, expected, got)
    character(len=*), intent(in) :: what, expected, got
    if (expected /= got) call fail(what, expected, trim(got))
  end subroutine check_str

  subroutine check_true(what, cond)
    character(len=*), intent(in) :: what
    logical, intent(in) :: cond
    if (.not. cond) call fail(what, 'true', 'false')
  end subroutine check_true
end program f90_conform
