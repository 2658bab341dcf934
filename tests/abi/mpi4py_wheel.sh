#!/bin/bash
# The PyPI mpi4py binary wheel (pip install --only-binary=:all:, no compiler involved;
# its MPICH flavour needs libmpi.so.12) run over IVC's MPICH ABI under ivcrun, with no
# variable set: ivcrun puts lib/abi/mpich first on the ranks' LD_LIBRARY_PATH, where
# mpi4py's own library search finds it. Checks mpi4py_smoke.py at 1, 2 and 3 ranks and
# mpi4py's ring benchmark (python3 -m mpi4py.bench ringtest) at 4.
# Exit 77 (skip) when PyPI cannot be reached or venv is missing, unless IVCTEST_REQUIRE_ABI=1.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
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
if [ ! -x venv/bin/python ]; then
    "$py" -m venv venv >/dev/null 2>&1 || skip "cannot create a Python virtual environment"
fi
vpy=$work/venv/bin/python
if ! "$vpy" -c "import mpi4py" 2>/dev/null; then
    "$vpy" -m pip install -q --only-binary=:all: "mpi4py>=4" >pip.log 2>&1 ||
        skip "cannot install the mpi4py wheel from PyPI: $(tail -1 pip.log)"
fi
so=$(ls "$work"/venv/lib/python3*/site-packages/mpi4py/MPI.mpich*.so 2>/dev/null | head -1)
[ -n "$so" ] || fail "the wheel has no MPICH flavour (MPI.mpich*.so)"
readelf -d "$so" | grep -q 'NEEDED.*\[libmpi.so.12\]' || fail "$so does not need libmpi.so.12"
echo "wheel: $("$vpy" -c 'import mpi4py; print(mpi4py.__version__)'), $(basename "$so")"
for n in 1 2 3; do
    out=$(timeout 300 "$BUILD_DIR/bin/ivcrun" -n $n --vms $n "$vpy" "$SOURCE_DIR/tests/abi/mpi4py_smoke.py" 2>&1)
    rc=$?
    echo "$out" | tail -3
    [ $rc -eq 0 ] || fail "$n rank(s): exit $rc"
    case "$out" in *"mpi4py smoke ok $n"*) ;; *) fail "$n rank(s): no 'mpi4py smoke ok $n'" ;; esac
done
out=$(timeout 300 "$BUILD_DIR/bin/ivcrun" -n 4 --vms 4 "$vpy" -m mpi4py.bench ringtest 2>&1)
rc=$?
echo "$out" | tail -3
[ $rc -eq 0 ] || fail "ringtest: exit $rc"
case "$out" in *"time for "*" processes"*) ;; *) fail "ringtest printed no time" ;; esac
echo PASS
