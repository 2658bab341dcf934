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
. "$SOURCE_DIR/tests/abi/mpi4py_runs.sh"
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
mpi4py_suite_runs "mpi4py $ver, PyPI wheel, MPICH ABI" 1200 "$vpy" "$tests"
