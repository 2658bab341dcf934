#!/bin/bash
# mpi4py built from source for the MPI-5 standard ABI (MPI4PY_BUILD_MPIABI=1, mpi4py's
# switch for it; compiled with IVC's `mpicc -mpi-abi`, so against mpi_abi.h, and linked to
# libmpi_abi.so.0), then run under ivcrun, which picks lib/abi/std for it: mpi4py_smoke.py
# at 2 ranks, mpi.Get_library_version() naming IVC and MPI.Get_abi_version() 1.0, and
# mpi4py's own test suite at 1, 2 and 3 ranks (IVC_ABI_SUITE_RANKS, as for the wheel in
# tests/abi/mpi4py_suite.sh), one simulated VM per rank, with the same exclusions as there.
# The source release is the one tests/abi/mpi4py_suite.sh unpacks (the PyPI
# wheel's version), downloaded here if it is missing. The VMs get a virtual network
# (ivcrun --net) for testJoin's TCP connection, as in tests/external/mpi4py.sh. Excluded, and
# why:
#   testMissingNumPy    uses MPIX_C_FLOAT16, a type IVC does not have
#   testSymbolCoverage  IVC's libmpi_abi also exports the MPI_Fint conversions the standard
#                       leaves out of the ABI (MPI-5.0 section 21.4), and mpi4py built for
#                       the ABI does not cover MPI_Status_c2f/MPI_Status_f2c
# Exit 77 (skip) when PyPI cannot be reached, unless IVCTEST_REQUIRE_ABI=1.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
. "$SOURCE_DIR/tests/abi/sanitize.sh"
. "$SOURCE_DIR/tests/abi/mpi4py_runs.sh"
fail() {
    echo "FAIL: $*"
    exit 1
}
skip() {
    [ "${IVCTEST_REQUIRE_ABI:-0}" = 1 ] && fail "$* (IVCTEST_REQUIRE_ABI=1: must not skip)"
    echo "SKIP: $*"
    exit 77
}
work=$BUILD_DIR/abi/mpi4py-std
mkdir -p "$work" && cd "$work" || exit 1
py=${IVCTEST_PYTHON:-python3}
command -v "$py" >/dev/null || skip "no $py"
exec 9>"$work/.lock"
flock 9
if [ ! -x venv/bin/python ]; then
    "$py" -m venv venv >/dev/null 2>&1 || skip "cannot create a Python virtual environment"
fi
vpy=$work/venv/bin/python
ver=${IVC_MPI4PY_VERSION:-4.1.2}
if [ ! -f "mpi4py-$ver.tar.gz" ]; then
    cached=$(ls "$BUILD_DIR"/abi/mpi4py-wheel/mpi4py-$ver.tar.gz "$BUILD_DIR"/external/mpi4py/mpi4py-$ver.tar.gz 2>/dev/null | head -1)
    if [ -n "$cached" ]; then
        cp "$cached" .
    else
        "$vpy" -m pip download -q --no-deps --no-binary :all: "mpi4py==$ver" -d . >/dev/null 2>&1 ||
            skip "cannot download mpi4py $ver's source release from PyPI"
    fi
fi
# The wrapper as mpi4py's build calls it (one command, no arguments).
cat >mpicc-abi <<EOS
#!/bin/sh
exec "$BUILD_DIR/bin/mpicc" -mpi-abi "\$@"
EOS
chmod +x mpicc-abi
# Rebuilt when the standard ABI's header or library exports change.
stamp=$( (nm -D --defined-only "$BUILD_DIR/lib/abi/std/libmpi_abi.so.0" | sort
    cat "$BUILD_DIR"/include/abi/mpi_abi*.h) | md5sum | cut -c1-12)
if [ "$(cat wheel.stamp 2>/dev/null)" != "$ver $stamp" ]; then
    rm -rf wheel src && mkdir src && tar xzf "mpi4py-$ver.tar.gz" -C src ||
        fail "cannot unpack mpi4py-$ver.tar.gz"
    # -O0: the generated MPI.c is large; optimizing it takes minutes of CI time and the
    # test is about the ABI, not mpi4py's speed.
    CFLAGS="-O0 -g0" MPI4PY_BUILD_MPIABI=1 MPICC=$work/mpicc-abi MPI4PY_BUILD_MPICC=$work/mpicc-abi \
        "$vpy" -m pip wheel -v --no-deps -w wheel "src/mpi4py-$ver" >build.log 2>&1 ||
        { tail -30 build.log; skip_or_fail=1; }
    if [ -n "${skip_or_fail:-}" ]; then
        grep -qi "could not find a version\|connection\|network" build.log &&
            skip "mpi4py's build requirements are not reachable (PyPI)"
        fail "mpi4py does not build for the standard ABI ($work/build.log)"
    fi
    "$vpy" -m pip install -q --force-reinstall --no-deps wheel/mpi4py-*.whl >/dev/null ||
        fail "cannot install the mpi4py wheel"
    echo "$ver $stamp" >wheel.stamp
fi
flock -u 9
so=$(ls "$work"/venv/lib/python3*/site-packages/mpi4py/MPI*.so | head -1)
needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case " $needed " in *" libmpi_abi.so.0 "*) ;; *) fail "$so does not need libmpi_abi.so.0: $needed" ;; esac
echo "mpi4py $ver built for the standard ABI: $(basename "$so") needs $needed"

run() { timeout 600 "${abi_run[@]}" "$BUILD_DIR/bin/ivcrun" "$@"; }
out=$(run -n 1 --no-ns "$vpy" -c 'from mpi4py import MPI
print("abi", MPI.Get_abi_version())
print("lib", MPI.Get_library_version().strip())' 2>&1) || fail "mpi4py import: $out"
echo "$out"
case "$out" in *"abi (1, 0)"*) ;; *) fail "MPI.Get_abi_version() is not (1, 0)" ;; esac
case "$out" in *"lib IVC"*) ;; *) fail "MPI.Get_library_version() does not name IVC" ;; esac
out=$(run -n 2 --vms 2 "$vpy" "$SOURCE_DIR/tests/abi/mpi4py_smoke.py" 2>&1)
rc=$?
echo "$out" | tail -2
[ $rc -eq 0 ] || fail "smoke, 2 ranks: exit $rc"
case "$out" in *"mpi4py smoke ok 2"*) ;; *) fail "no 'mpi4py smoke ok 2'" ;; esac

tests=$work/src/mpi4py-$ver/test
# test_spawn writes scripts to Python's temporary directory and test_io, test_file open files
# there: a simulated VM's /tmp is its own, so point it at a directory every VM sees.
mkdir -p "$work/tmp"
TMPDIR=$work/tmp mpi4py_suite_runs "mpi4py $ver, standard ABI" 600 "$vpy" "$tests"
