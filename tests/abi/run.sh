#!/bin/bash
# run.sh NAME NP [std]: with std, compiles tests/abi/NAME.c with IVC's own `mpicc -mpi-abi`
# (the MPI-5 standard ABI: mpi_abi.h, libmpi_abi.so.0), or NAME.f90 with `mpifort -mpi-abi`
# (the standard's Fortran library libmpifort_abi.so.0 over libmpi_abi.so.0), checks that the
# binary needs one of them and that ivcrun chooses lib/abi/std for it. Otherwise: compiles tests/abi/NAME.c with Debian's mpicc.mpich (MPICH's mpi.h and
# libmpich.so.12, nothing of IVC's), or NAME.f90 with mpif90.mpich (MPICH's Fortran modules
# and libmpichfort.so.12, which then runs over IVC's C library), checks that the binary needs
# MPICH's library, and runs
# it under IVC's ivcrun with NP ranks, one simulated VM each: ivcrun must choose IVC's
# MPICH-ABI library by itself, and the program checks its data (exit 0 with "NAME ok").
# Exit 77 (skip) without mpicc.mpich, unless IVCTEST_REQUIRE_ABI=1.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
name=$1 np=$2 abi=${3:-mpich}
. "$SOURCE_DIR/tests/abi/sanitize.sh"
fail() {
    echo "FAIL: $*"
    exit 1
}
src=$SOURCE_DIR/tests/abi/$name.c cc=mpicc.mpich
[ -f "$src" ] || src=$SOURCE_DIR/tests/abi/$name.f90 cc=mpif90.mpich
if [ "$abi" = std ]; then
    cc="$BUILD_DIR/bin/mpicc -mpi-abi"
    if [ "${src%.f90}" != "$src" ]; then
        cc="$BUILD_DIR/bin/mpifort -mpi-abi"
        if [ ! -e "$BUILD_DIR/lib/abi/std/libmpifort_abi.so.0" ]; then
            [ "${IVCTEST_REQUIRE_ABI:-0}" = 1 ] && fail "no libmpifort_abi.so.0 (built without gfortran), IVCTEST_REQUIRE_ABI=1"
            echo "SKIP: IVC was built without a Fortran compiler (no libmpifort_abi.so.0)"
            exit 77
        fi
    fi
elif ! command -v $cc >/dev/null || { [ $cc = mpif90.mpich ] && ! command -v gfortran >/dev/null; }; then
    [ "${IVCTEST_REQUIRE_ABI:-0}" = 1 ] && fail "no $cc (libmpich-dev, gfortran), IVCTEST_REQUIRE_ABI=1"
    echo "SKIP: no $cc (Debian's libmpich-dev, gfortran)"
    exit 77
fi
dir=$BUILD_DIR/tests/abi
mkdir -p "$dir" || exit 1
exe=$dir/$name
[ "$abi" = std ] && exe=$dir/$name.std
if [ ! -x "$exe" ] || [ "$src" -nt "$exe" ] || [ "$SOURCE_DIR/tests/abi/abi_test.h" -nt "$exe" ]; then
    (cd "$dir" && $cc -O1 -g -Wall -o "$exe.tmp.$$" "$src") && mv "$exe.tmp.$$" "$exe" ||
        fail "$cc $(basename "$src")"
fi
needed=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
if [ "$abi" = std ]; then
    case " $needed " in *" libmpi_abi.so.0 "* | *" libmpifort_abi.so.0 "*) ;;
    *) fail "$exe does not need libmpi_abi.so.0 or libmpifort_abi.so.0: $needed" ;; esac
    chose="built for the MPI-5 standard ABI"
else
    case " $needed " in *" libmpich.so.12 "* | *" libmpi.so.12 "* | *" libmpichfort.so.12 "*) ;;
    *) fail "$exe does not need MPICH's library: $needed" ;; esac
    chose="built for MPICH's ABI"
fi
out=$("${abi_run[@]}" "$BUILD_DIR/bin/ivcrun" -v -n "$np" --vms "$np" "$exe" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "$name exited with $rc"
case "$out" in *"$chose"*) ;; *) fail "ivcrun -v did not say it chose the $abi ABI" ;; esac
case "$out" in *"$name ok"*) ;; *) fail "expected '$name ok'" ;; esac
echo PASS
