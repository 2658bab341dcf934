! `use mpi` with a C helper (f_attrlang.c), any number of ranks (registered at 4): attributes
! crossing languages as MPI-4.1 section 19.3.7 says (MPICH's f90/f08 attr/fandcattr and
! attrlang crashed with SIGSEGV before the fix, C dereferencing the Fortran value):
!  - set from Fortran (MPI_Comm_set_attr, 5555): C's get returns a pointer to an MPI_Aint
!    holding 5555; Fortran's get returns 5555;
!  - MPI_Comm_dup with C's MPI_COMM_DUP_FN copies it: C sees 5555 on the duplicate, also
!    after the original is freed;
!  - set from Fortran by MPI_ATTR_PUT (INTEGER 77): C's get returns a pointer to an MPI_Fint
!    holding 77; MPI_ATTR_GET gives 77;
!  - set from C (a pointer): Fortran's get returns the pointer as an integer;
!  - a Fortran keyval whose copy procedure adds 2: the duplicate of a Fortran value holds the
!    value + 2 (the procedure gets values, not C's pointers).
! Every check runs; exits 0, or prints each failure and aborts.
module f90_attrlang_cb
  implicit none
contains
  subroutine copy_plus2(oldcomm, keyval, extra, valin, valout, flag, ierr)
    use mpi
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    valout = valin + 2
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy_plus2
end module f90_attrlang_cb

program f90_attrlang
  use mpi
  use f90_attrlang_cb
  implicit none
  integer :: ierr, ckey, ckey2, fkey, dup, dup2, bad, nfail, ival
  integer(kind=MPI_ADDRESS_KIND) :: val, got, addr, extra
  logical :: flag

  nfail = 0
  call MPI_Init(ierr)

  ! Set from Fortran, read from C and from Fortran.
  call c_attr_keyval(ckey)
  val = 5555
  call MPI_Comm_set_attr(MPI_COMM_WORLD, ckey, val, ierr)
  call c_attr_check_aint(MPI_COMM_WORLD, ckey, val, bad)
  nfail = nfail + bad
  got = -1
  call MPI_Comm_get_attr(MPI_COMM_WORLD, ckey, got, flag, ierr)
  call check(flag .and. got == 5555, 'Fortran get of a Fortran attribute: 5555')

  ! Copied by C's MPI_COMM_DUP_FN, seen from C on the duplicate after the original is gone.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_dup(dup, dup2, ierr)
  call MPI_Comm_free(dup, ierr)
  call c_attr_check_aint(dup2, ckey, val, bad)
  nfail = nfail + bad
  call MPI_Comm_free(dup2, ierr)

  ! MPI_ATTR_PUT: an INTEGER.
  call c_attr_keyval(ckey2)
  call MPI_Attr_put(MPI_COMM_WORLD, ckey2, 77, ierr)
  call c_attr_check_fint(MPI_COMM_WORLD, ckey2, 77, bad)
  nfail = nfail + bad
  ival = -1
  call MPI_Attr_get(MPI_COMM_WORLD, ckey2, ival, flag, ierr)
  call check(flag .and. ival == 77, 'MPI_Attr_get of an MPI_Attr_put attribute: 77')

  ! Set from C: Fortran sees the pointer as an integer.
  call c_attr_set(MPI_COMM_WORLD, ckey, addr)
  got = -1
  call MPI_Comm_get_attr(MPI_COMM_WORLD, ckey, got, flag, ierr)
  call check(flag .and. got == addr, 'Fortran get of a C attribute: the pointer')

  ! A Fortran copy procedure gets and gives values.
  extra = 0
  call MPI_Comm_create_keyval(copy_plus2, MPI_COMM_NULL_DELETE_FN, fkey, extra, ierr)
  val = 100
  call MPI_Comm_set_attr(MPI_COMM_WORLD, fkey, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  got = -1
  call MPI_Comm_get_attr(dup, fkey, got, flag, ierr)
  call check(flag .and. got == 102, 'Fortran copy procedure: value + 2 on the duplicate')
  val = 102
  call c_attr_check_aint(dup, fkey, val, bad)
  nfail = nfail + bad
  call MPI_Comm_free(dup, ierr)

  call MPI_Comm_delete_attr(MPI_COMM_WORLD, ckey, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, ckey2, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, fkey, ierr)
  call MPI_Comm_free_keyval(ckey, ierr)
  call MPI_Comm_free_keyval(ckey2, ierr)
  call MPI_Comm_free_keyval(fkey, ierr)
  if (nfail > 0) then
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    stop 1
  end if
  call MPI_Finalize(ierr)

contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      write (0, '(a,a)') 'failed: ', what
      flush (0)
      nfail = nfail + 1
    end if
  end subroutine check
end program f90_attrlang
