# A user's CMake project (tests/buildsys/proj: C, C++, Fortran; find_package(MPI REQUIRED))
# configured with nothing but IVC's bin/ first on PATH: FindMPI must pick IVC's wrappers and
# mpiexec, never MPICH's (installed behind it on PATH on a Debian machine with mpich), and
# the programs must link IVC's libraries only and run under ivcrun.
. "$(dirname "$0")/lib.sh"
install_prefix
need_fortran
unset MPI_HOME MPICC MPICXX MPIFC
b=$SCRATCH/build
# A sanitized IVC: the program links the sanitizer runtimes itself (they must load first).
cmake -S "$PROJ" -B "$b" -G Ninja ${EXTRA:+"-DCMAKE_EXE_LINKER_FLAGS=$EXTRA"} \
    >"$SCRATCH/cmake.log" 2>&1 ||
    fail "cmake configure failed: $(tail -n 30 "$SCRATCH/cmake.log")"
cmake --build "$b" >"$SCRATCH/build.log" 2>&1 ||
    fail "cmake build failed: $(tail -n 30 "$SCRATCH/build.log")"
found=$(cat "$b/found.txt")
# found.txt KEY EXPECTED-PATTERN: FindMPI's result KEY matches the shell pattern.
expect_found() {
    local got
    got=$(echo "$found" | sed -n "s/^$1=//p")
    case "$got" in $2) ;; *) fail "FindMPI: expected $1 matching '$2', got '$got'
$found" ;; esac
}
expect_found MPI_C_COMPILER "$P/bin/mpicc"
expect_found MPI_CXX_COMPILER "$P/bin/mpic*"
expect_found MPI_Fortran_COMPILER "$P/bin/mpif*"
expect_found MPIEXEC_EXECUTABLE "$P/bin/*"
expect_found MPI_C_LIBRARIES "$P/lib/libivcmpi.so"
expect_found MPI_CXX_LIBRARIES "$P/lib/libivcmpi.so"
expect_found MPI_Fortran_LIBRARIES "$P/lib/libivcmpifort.so;$P/lib/libivcmpi.so"
expect_found MPI_C_INCLUDE_DIRS "$P/include"
expect_found MPI_C_VERSION "4.1"
expect_found MPI_CXX_VERSION "4.1"
expect_found MPI_Fortran_VERSION "4.1"
expect_found MPI_Fortran_HAVE_F08_MODULE "TRUE"
case "$found" in *mpich*) fail "FindMPI found something of MPICH: $found" ;; esac

expect_ivc_only "$b/hello_c"
expect_ivc_only "$b/hello_cxx"
expect_ivc_only "$b/hello_f" fortran
expect_ivc_only "$b/hello_f77" fortran
run_expect "hello c" "$b/hello_c"
run_expect "hello cxx" "$b/hello_cxx"
run_expect "hello fortran" "$b/hello_f"
run_expect "hello f77" "$b/hello_f77"
echo PASS
