# The installed Fortran and C++ support as a user meets it: cmake --install puts mpifort
# (mpif90, mpif77), mpicxx (mpic++), mpif.h, mpi.mod, mpi_f08.mod and libivcmpifort under the
# prefix; the prefix's mpifort builds a `use mpi_f08` program (and an mpif.h one) that run
# with the prefix's ivcrun on 2 ranks and link the installed libraries, not the build tree's.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
scratch=$(mktemp -d "$BUILD_DIR/fortran-install-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

P=$scratch/prefix
cmake --install "$BUILD_DIR" --prefix "$P" >/dev/null || fail "cmake --install failed"
for f in bin/mpifort bin/mpif90 bin/mpif77 bin/mpicxx bin/mpic++ include/mpif.h \
         include/mpi.mod include/mpi_f08.mod lib/libivcmpifort.so.1 lib/libivcmpi.so.1 \
         lib/libmpifort.so lib/libmpi.so bin/ivcrun; do
    [ -e "$P/$f" ] || fail "expected $P/$f after install"
done

cat > "$scratch/hello08.f90" <<'F'
program hello08
  use mpi_f08
  implicit none
  integer :: rank, size, total
  type(MPI_Status) :: st
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    call MPI_Recv(total, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, st)
    if (st%MPI_SOURCE /= 1 .or. total /= 42) error stop 'bad message'
    print '(a,i0)', 'hello08 ok ', size
  else if (rank == 1) then
    call MPI_Send(42, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD)
  end if
  call MPI_Finalize()
end program hello08
F
cat > "$scratch/hello77.f" <<'F'
      PROGRAM HELLO77
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, TOTAL
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_ALLREDUCE(RANK + 1, TOTAL, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (TOTAL .NE. 3) STOP 1
      IF (RANK .EQ. 0) PRINT *, 'hello77 ok'
      CALL MPI_FINALIZE(IERR)
      END
F
cd "$scratch" || fail "cd $scratch"
"$P/bin/mpifort" -o hello08 hello08.f90 || fail "mpifort (use mpi_f08) failed"
"$P/bin/mpif77" -o hello77 hello77.f || fail "mpif77 (mpif.h) failed"
ldd hello08 | grep -q "libivcmpifort.so.1 => $P/lib/libivcmpifort.so.1" ||
    fail "hello08 does not link $P/lib/libivcmpifort.so.1: $(ldd hello08)"
ldd hello08 | grep -q "libivcmpi.so.1 => $P/lib/libivcmpi.so.1" ||
    fail "hello08 does not link $P/lib/libivcmpi.so.1: $(ldd hello08)"
out=$("$P/bin/ivcrun" -n 2 --vms 2 ./hello08 2>&1) || fail "ivcrun hello08: $out"
case "$out" in *"hello08 ok 2"*) ;; *) fail "unexpected hello08 output: $out" ;; esac
out=$("$P/bin/ivcrun" -n 2 --vms 2 ./hello77 2>&1) || fail "ivcrun hello77: $out"
case "$out" in *"hello77 ok"*) ;; *) fail "unexpected hello77 output: $out" ;; esac

show=$("$P/bin/mpifort" -show -c x.f90)
case "$show" in *"-I$P/include"*"-c x.f90"*) ;; *) fail "mpifort -show -c: got '$show'" ;; esac
link=$("$P/bin/mpifort" -link-info)
case "$link" in *"-L$P/lib"*"-livcmpifort -livcmpi"*) ;; *) fail "mpifort -link-info: got '$link'" ;; esac
"$P/bin/mpicxx" -o cxx "$SOURCE_DIR/tests/fortran/cxx_basic.cpp" || fail "mpicxx failed"
echo PASS
