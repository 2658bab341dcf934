# The installed layout, as a user meets it: cmake --install puts mpicc, ivcrun, mpirun,
# mpi.h, libivcmpi.so.1 (with the libmpi.so link for -lmpi) and pkg-config files under the
# prefix; mpicc compiles an ordinary MPI program that then runs across two simulated VMs;
# pkg-config gives working flags (mpi for MPI, ivc for libivc: ivc.h and libivc.so.1).
# tests/buildsys checks the wrappers and pkg-config in depth.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
scratch=$(mktemp -d "$BUILD_DIR/install-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

P=$scratch/prefix
cmake --install "$BUILD_DIR" --prefix "$P" >/dev/null || fail "cmake --install failed"
for f in bin/mpicc bin/mpicxx bin/mpic++ bin/mpiCC bin/ivcrun bin/mpirun bin/mpiexec \
         bin/ivc-info include/mpi.h lib/libivcmpi.so.1 lib/libmpi.so lib/pkgconfig/ivc.pc \
         lib/pkgconfig/mpi.pc include/ivc.h lib/libivc.so.1; do
    [ -e "$P/$f" ] || fail "expected $P/$f after install"
done
[ -x "$P/bin/mpicc" ] || fail "mpicc is not executable"

"$P/bin/mpicc" -O2 -o "$scratch/demo" "$SOURCE_DIR/examples/vm_demo.c" || fail "mpicc failed"
# The program must find the installed library, not the build tree's.
ldd "$scratch/demo" | grep -q "libivcmpi.so.1 => $P/lib/libivcmpi.so.1" ||
    fail "demo does not link $P/lib/libivcmpi.so.1: $(ldd "$scratch/demo")"
out=$("$P/bin/mpirun" -n 2 --vms 2 "$scratch/demo" 2>&1) || fail "mpirun failed: $out"
case "$out" in *"rank 0 runs on vm0"*"rank 1 runs on vm1"*"all data checked, ok"*) ;;
*) fail "unexpected demo output: $out" ;; esac

# The MPI-5 standard ABI: mpicc -mpi-abi builds against the installed mpi_abi.h and
# libmpi_abi.so.0, and ivcrun runs the program on that library; ivc-info lists the ABIs.
for f in include/abi/mpi_abi.h include/abi/mpi_abi_proto.h include/abi/mpi.h \
         lib/abi/std/libmpi_abi.so.0 lib/abi/std/libmpi_abi.so lib/abi/mpich/libmpi.so.12; do
    [ -e "$P/$f" ] || fail "expected $P/$f after install"
done
"$P/bin/mpicc" -mpi-abi -O2 -o "$scratch/demo_abi" "$SOURCE_DIR/examples/vm_demo.c" ||
    fail "mpicc -mpi-abi failed"
ldd "$scratch/demo_abi" | grep -q "libmpi_abi.so.0 => $P/lib/abi/std/libmpi_abi.so.0" ||
    fail "demo_abi does not link $P/lib/abi/std/libmpi_abi.so.0: $(ldd "$scratch/demo_abi")"
out=$("$P/bin/mpirun" -n 2 --vms 2 "$scratch/demo_abi" 2>&1) || fail "mpirun (standard ABI) failed: $out"
case "$out" in *"all data checked, ok"*) ;; *) fail "unexpected demo_abi output: $out" ;; esac
info=$("$P/bin/ivc-info" | sed -n '/^ABIs:/,/^$/p')
case "$info" in *"MPICH"*"$P/lib/abi/mpich"*"standard ABI"*"$P/lib/abi/std"*) ;;
*) fail "ivc-info does not list the installed ABIs: $info" ;; esac
# Its Fortran library (built where gfortran is): mpifort -mpi-abi finds the installed
# modules and libmpifort_abi.so.0.
if [ -e "$P/bin/mpifort" ]; then
    for f in include/abi/mpif.h include/abi/mpi.mod include/abi/mpi_f08.mod \
             lib/abi/std/libmpifort_abi.so.0; do
        [ -e "$P/$f" ] || fail "expected $P/$f after install"
    done
    (cd "$scratch" && "$P/bin/mpifort" -mpi-abi -O1 -o "$scratch/f08_abi" \
        "$SOURCE_DIR/tests/abi/fortran_f08.f90") || fail "mpifort -mpi-abi failed"
    ldd "$scratch/f08_abi" | grep -q "libmpifort_abi.so.0 => $P/lib/abi/std/libmpifort_abi.so.0" ||
        fail "f08_abi does not link $P/lib/abi/std/libmpifort_abi.so.0: $(ldd "$scratch/f08_abi")"
    out=$("$P/bin/mpirun" -n 2 --vms 2 "$scratch/f08_abi" 2>&1) ||
        fail "mpirun (standard ABI, Fortran) failed: $out"
    case "$out" in *"fortran_f08 ok"*) ;; *) fail "unexpected f08_abi output: $out" ;; esac
    case "$info" in *"libmpifort_abi.so.0"*) ;; *) fail "ivc-info does not list libmpifort_abi: $info" ;; esac
fi

# -show prints the command instead of running it.
show=$("$P/bin/mpicc" -show -c x.c)
case "$show" in *"-I$P/include"*"-c x.c"*) ;; *) fail "mpicc -show -c: got '$show'" ;; esac

if command -v pkg-config >/dev/null; then
    flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs mpi) ||
        fail "pkg-config --cflags --libs mpi failed"
    cc -O2 -o "$scratch/demo2" "$SOURCE_DIR/examples/vm_demo.c" $flags ||
        fail "cc with pkg-config flags ($flags) failed"
    "$P/bin/ivcrun" -n 2 --no-ns "$scratch/demo2" >/dev/null || fail "pkg-config build does not run"
    # libivc: a program that is not MPI, built from pkg-config ivc, across two VMs.
    flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs ivc) ||
        fail "pkg-config --cflags --libs ivc failed"
    cc -O2 -o "$scratch/echo" "$SOURCE_DIR/examples/ivc_echo.c" $flags ||
        fail "cc ivc_echo.c with pkg-config ivc ($flags) failed"
    lib=$(ldd "$scratch/echo" | awk '$1 == "libivc.so.1" {print $3}')
    [ -n "$lib" ] && [ "$(realpath "$lib")" = "$(realpath "$P/lib/libivc.so.1")" ] ||
        fail "ivc_echo does not link $P/lib/libivc.so.1: $(ldd "$scratch/echo")"
    out=$("$P/bin/ivcrun" -n 2 --vms 2 "$scratch/echo" 2>&1) || fail "ivc_echo failed: $out"
    # The two ranks' lines come in either order.
    case "$out" in *"every byte echoed"*) ;; *) fail "no client line in ivc_echo's output: $out" ;; esac
    case "$out" in *"served 1 clients"*) ;; *) fail "no server line in ivc_echo's output: $out" ;; esac
fi
echo PASS
