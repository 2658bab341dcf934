# Sourced by mpi4py_wheel.sh and mpi4py_suite.sh: a venv under the build tree (ranks in
# simulated VMs see a private /tmp, the build tree they share) with the PyPI mpi4py binary
# wheel installed (pip install --only-binary=:all:, no compiler involved). Sets vpy, the
# venv's python, and so, the wheel's MPICH-flavour extension.
# A skip (exit 77: no python3 venv, PyPI unreachable) fails when IVCTEST_REQUIRE_ABI=1.
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
. "$SOURCE_DIR/tests/abi/sanitize.sh"
fail() {
    echo "FAIL: $*"
    exit 1
}
skip() {
    [ "${IVCTEST_REQUIRE_ABI:-0}" = 1 ] && fail "$* (IVCTEST_REQUIRE_ABI=1: must not skip)"
    echo "SKIP: $*"
    exit 77
}
work=$BUILD_DIR/abi/mpi4py-wheel
mkdir -p "$work" && cd "$work" || exit 1
py=${IVCTEST_PYTHON:-python3}
command -v "$py" >/dev/null || skip "no $py"
# One setup at a time: the wheel and suite tests may run in parallel.
exec 9>"$work/.lock"
flock 9
if [ ! -x venv/bin/python ]; then
    "$py" -m venv venv >/dev/null 2>&1 || skip "cannot create a Python virtual environment"
fi
vpy=$work/venv/bin/python
if ! "$vpy" -c "import mpi4py" 2>/dev/null; then
    "$vpy" -m pip install -q --only-binary=:all: "mpi4py>=4" >pip.log 2>&1 ||
        skip "cannot install the mpi4py wheel from PyPI: $(tail -1 pip.log)"
fi
flock -u 9
so=$(ls "$work"/venv/lib/python3*/site-packages/mpi4py/MPI.mpich*.so 2>/dev/null | head -1)
[ -n "$so" ] || fail "the wheel has no MPICH flavour (MPI.mpich*.so)"
readelf -d "$so" | grep -q 'NEEDED.*\[libmpi.so.12\]' || fail "$so does not need libmpi.so.12"
