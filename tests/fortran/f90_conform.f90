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
!    types (f90/timer/wtimef90 did not compile under implicit none);
!  - MPI_TYPE_HINDEXED, MPI_TYPE_EXTENT, MPI_TYPE_LB, MPI_TYPE_UB, MPI_TYPE_HVECTOR,
!    MPI_ADDRESS and MPI_TYPE_STRUCT (removed in MPI-3.0, default INTEGER addresses) exist
!    and give MPI-1's results (f77/datatype/hindex1f, f90/datatype/get_elem_u did not link).
!  - the MPI-4 error classes MPI_ERR_SESSION, MPI_ERR_VALUE_TOO_LARGE, MPI_ERR_ERRHANDLER and
!    MPI_ERR_PROC_ABORTED are in the module (MPI_ERR_VALUE_TOO_LARGE used above).
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
  integer :: i, blens(3), idispl(3), types(2), t1type, iext, ilb, iub, isz, ia1, ia2, ierr2

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

  ! ---- routines MPI-3.0 removed, with MPI-1's default INTEGER addresses ----
  do i = 1, 3
    blens(i) = i
    idispl(i) = 16 * (i - 1)
  end do
  call MPI_TYPE_HINDEXED(3, blens, idispl, MPI_INTEGER, t1type, ierr)
  call check('MPI_TYPE_HINDEXED ierror', MPI_SUCCESS, ierr)
  call MPI_TYPE_EXTENT(t1type, iext, ierr)
  call check('MPI_TYPE_EXTENT of hindexed (0:1, 16:2, 32:3 integers)', 32 + 3 * 4, iext)
  call MPI_TYPE_LB(t1type, ilb, ierr)
  call check('MPI_TYPE_LB', 0, ilb)
  call MPI_TYPE_UB(t1type, iub, ierr)
  call check('MPI_TYPE_UB', 44, iub)
  call MPI_Type_size(t1type, isz, ierr)
  call check('size of the hindexed type', 6 * 4, isz)
  call MPI_Type_free(t1type, ierr)
  call MPI_TYPE_HVECTOR(2, 1, 12, MPI_INTEGER, t1type, ierr)
  call MPI_TYPE_EXTENT(t1type, iext, ierr)
  call check('MPI_TYPE_EXTENT of hvector (2 blocks, stride 12 bytes)', 16, iext)
  call MPI_Type_free(t1type, ierr)
  ! An address above 2**31 (any stack address on x86-64) does not fit MPI-1's INTEGER.
  ia1 = -1
  call MPI_ADDRESS(blens(1), ia1, ierr)
  call MPI_ADDRESS(blens(3), ia2, ierr2)
  if (ierr == MPI_SUCCESS .and. ierr2 == MPI_SUCCESS) then
    call check('MPI_ADDRESS difference of blens(3) and blens(1)', 8, ia2 - ia1)
  else
    call check('MPI_ADDRESS of an address beyond INTEGER', MPI_ERR_VALUE_TOO_LARGE, ierr)
    call check('MPI_ADDRESS: output left alone on error', -1, ia1)
  end if
  idispl(1) = 0
  idispl(2) = 8
  types(1) = MPI_INTEGER
  types(2) = MPI_DOUBLE_PRECISION
  blens(1) = 1
  blens(2) = 1
  call MPI_TYPE_STRUCT(2, blens, idispl, types, t1type, ierr)
  call MPI_TYPE_EXTENT(t1type, iext, ierr)
  call check('MPI_TYPE_EXTENT of struct (integer at 0, double at 8)', 16, iext)
  call MPI_Type_free(t1type, ierr)

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
