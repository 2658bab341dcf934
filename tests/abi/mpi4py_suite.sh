#!/bin/bash
# mpi4py's own test suite (from the source release of the installed wheel's version) run
# with the PyPI binary wheel over IVC's MPICH ABI at 1, 2 and 3 ranks, one simulated VM per
# rank, as the source build against IVC's own headers (tests/external/mpi4py.sh);
# IVC_ABI_SUITE_RANKS="2" runs one count only.
# The wheel was compiled against MPICH, so it calls every MPICH function, MPI-IO included
# (its test_io and test_file modules run here: files in TMPDIR, under the build tree, which
# every simulated VM shares; the VMs get a virtual network, ivcrun --net, for testJoin's
# TCP connection, as in tests/external/mpi4py.sh). Excluded, and why:
#   testMissingNumPy    uses MPIX_C_FLOAT16, a type IVC does not have
#   testSymbolCoverage  as in tests/external/mpi4py.sh
# Any other failure or error fails the test.
set -u
. "$SOURCE_DIR/tests/abi/mpi4py_lib.sh"
ver=$("$vpy" -c 'import mpi4py; print(mpi4py.__version__)')
if [ ! -d "src/mpi4py-$ver/test" ]; then
    "$vpy" -m pip download -q --no-deps --no-binary :all: "mpi4py==$ver" -d . >/dev/null 2>&1 ||
        skip "cannot download mpi4py $ver's source release from PyPI"
    mkdir -p src && tar xzf "mpi4py-$ver.tar.gz" -C src || fail "cannot unpack mpi4py-$ver.tar.gz"
fi
tests=$work/src/mpi4py-$ver/test
# test_spawn's testNoArgs writes a script to Python's temporary directory and spawns it: each
# simulated VM has a /tmp of its own, so point it at a directory every VM sees.
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp
status=0
for n in ${IVC_ABI_SUITE_RANKS:-1 2 3}; do
    echo "== mpi4py $ver test suite (PyPI wheel, MPICH ABI), $n rank(s)"
    timeout 1200 "${abi_run[@]}" "$BUILD_DIR/bin/ivcrun" -n $n --vms $n --net "$vpy" \
        "$tests/main.py" -x testSymbolCoverage -x testMissingNumPy \
        >"suite.$n.log" 2>&1
    rc=$?
    grep -E "^Ran |^OK|^FAILED" "suite.$n.log" | sort | uniq -c
    grep -E "^(ERROR|FAIL):" "suite.$n.log" | sort -u | head -20
    [ $rc -eq 0 ] || { echo "FAIL: $n rank(s): exit $rc ($work/suite.$n.log)"; status=1; }
done
[ $status -eq 0 ] && echo PASS
exit $status
