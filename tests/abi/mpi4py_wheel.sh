#!/bin/bash
# The PyPI mpi4py binary wheel (pip install --only-binary=:all:, no compiler involved;
# its MPICH flavour needs libmpi.so.12) run over IVC's MPICH ABI under ivcrun, with no
# variable set: ivcrun puts lib/abi/mpich first on the ranks' LD_LIBRARY_PATH, where
# mpi4py's own library search finds it. Checks mpi4py_smoke.py at 1, 2 and 3 ranks and
# mpi4py's ring benchmark (python3 -m mpi4py.bench ringtest) at 4.
# Exit 77 (skip) when PyPI cannot be reached or venv is missing, unless IVCTEST_REQUIRE_ABI=1.
set -u
. "$SOURCE_DIR/tests/abi/mpi4py_lib.sh"
echo "wheel: $("$vpy" -c 'import mpi4py; print(mpi4py.__version__)'), $(basename "$so")"
for n in 1 2 3; do
    out=$(timeout 300 "${abi_run[@]}" "$BUILD_DIR/bin/ivcrun" -n $n --vms $n "$vpy" "$SOURCE_DIR/tests/abi/mpi4py_smoke.py" 2>&1)
    rc=$?
    echo "$out" | tail -3
    [ $rc -eq 0 ] || fail "$n rank(s): exit $rc"
    case "$out" in *"mpi4py smoke ok $n"*) ;; *) fail "$n rank(s): no 'mpi4py smoke ok $n'" ;; esac
done
out=$(timeout 300 "${abi_run[@]}" "$BUILD_DIR/bin/ivcrun" -n 4 --vms 4 "$vpy" -m mpi4py.bench ringtest 2>&1)
rc=$?
echo "$out" | tail -3
[ $rc -eq 0 ] || fail "ringtest: exit $rc"
case "$out" in *"time for "*" processes"*) ;; *) fail "ringtest printed no time" ;; esac
echo PASS
