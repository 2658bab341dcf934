# mpi4py (the latest 4.x source release from PyPI) built against IVC with IVC's mpicc and
# its own test suite run under ivcrun with 1, 2 and 3 ranks, one simulated VM per rank.
# Its MPI-IO modules (test_file, test_io) and its dynamic-process modules (test_spawn,
# test_dynproc, and the pools of mpi4py.futures and mpi4py.util.pool, which spawn their
# workers) run like the rest, and so does testSymbolCoverage (every symbol of the standard);
# then `python -m mpi4py.futures` runs a pool of spawned workers. Nothing is excluded: the
# VMs get a virtual network (ivcrun --net: eth0 on a bridge, every VM's host name in every
# VM's /etc/hosts), because test_dynproc's testJoin connects rank 1 over TCP to the address
# of rank 0's socket.gethostname() before it calls MPI_Comm_join, as between real VMs.
# mpi4py's build runs its exhaustive configure (MPI4PY_BUILD_CONFIGURE=1), which probes
# every MPI function and constant and leaves out what the MPI lacks; the wheel is rebuilt
# whenever libmpi's exported symbols or mpi.h change.
# Exit 77 (skip) when PyPI cannot be reached, unless IVCTEST_REQUIRE_EXTERNAL=1.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
. "$SOURCE_DIR/tests/external/lib.sh"
work=$BUILD_DIR/external/mpi4py
mkdir -p "$work" && cd "$work" || exit 1
py=${IVCTEST_PYTHON:-python3}
command -v "$py" >/dev/null || ext_skip "no $py"
if [ ! -x venv/bin/python ]; then
    "$py" -m venv venv >/dev/null 2>&1 || {
        ext_need_pkgs python3-venv && "$py" -m venv venv >/dev/null 2>&1
    } || ext_skip "cannot create a Python virtual environment"
fi
vpy=$work/venv/bin/python
if ! ls mpi4py-4.*.tar.gz >/dev/null 2>&1; then
    "$vpy" -m pip download -q --no-deps --no-binary :all: "mpi4py>=4,<5" -d . >/dev/null 2>&1 ||
        ext_skip "cannot download mpi4py from PyPI"
fi
sdist=$(ls mpi4py-4.*.tar.gz | sort -V | tail -1)
# Rebuilt when libmpi's symbols or the constants of mpi.h change (configure read both).
stamp=$( (nm -D --defined-only "$BUILD_DIR/lib/libivcmpi.so.1" | sort; cat "$BUILD_DIR"/include/mpi*.h) |
    md5sum | cut -c1-12)
if [ "$(cat wheel.stamp 2>/dev/null)" != "$sdist $stamp" ]; then
    rm -rf wheel src && mkdir src && tar xzf "$sdist" -C src || fail "cannot unpack $sdist"
    MPICC=$BUILD_DIR/bin/mpicc MPI4PY_BUILD_CONFIGURE=1 \
        "$vpy" -m pip wheel -v --no-deps -w wheel src/mpi4py-* >build.log 2>&1 ||
        { tail -40 build.log; fail "mpi4py does not build against IVC (build.log)"; }
    "$vpy" -m pip install -q --force-reinstall --no-deps wheel/mpi4py-*.whl >/dev/null ||
        fail "cannot install the mpi4py wheel"
    echo "$sdist $stamp" >wheel.stamp
fi
tests=$(ls -d src/mpi4py-*/test)
missing=$(sed -n "s/^ *\*\*\*\* failed check for '\(.*\)'$/\1/p" build.log | sort -u)
echo "mpi4py's configure found $(echo "$missing" | grep -c .) names missing:" $missing
# The I/O tests make their files in Python's temporary directory: each simulated VM has a
# /tmp of its own, so point it at a directory every VM sees (MPI_File_open would report
# MPI_ERR_NOT_SAME there otherwise).
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp
status=0
for n in 1 2 3; do
    echo "== mpi4py test suite, $n rank(s)"
    timeout 1200 "$BUILD_DIR/bin/ivcrun" -n $n --vms $n --net "$vpy" "$tests/main.py" \
        >"suite.$n.log" 2>&1
    rc=$?
    tail -4 "suite.$n.log"
    [ $rc -eq 0 ] || { echo "FAIL: $n rank(s): exit $rc (suite.$n.log)"; status=1; }
done
# mpi4py.futures: one rank whose pool of 3 workers is spawned (MPI_Comm_spawn), results checked.
cat >"$work/tmp/pool.py" <<'EOF'
from mpi4py.futures import MPIPoolExecutor
if __name__ == "__main__":
    with MPIPoolExecutor(max_workers=3) as ex:
        r = list(ex.map(pow, range(10), [2] * 10))
    assert r == [i * i for i in range(10)], r
    print("futures pool ok")
EOF
echo "== mpi4py.futures pool of spawned workers"
out=$(timeout 300 "$BUILD_DIR/bin/ivcrun" -n 1 "$vpy" -m mpi4py.futures "$work/tmp/pool.py" 2>&1)
rc=$?
echo "$out" | tail -3
if [ $rc -ne 0 ] || ! echo "$out" | grep -q "futures pool ok"; then
    echo "FAIL: mpi4py.futures pool: exit $rc"
    status=1
fi
[ $status -eq 0 ] && echo PASS
exit $status
