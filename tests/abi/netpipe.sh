#!/bin/bash
# A Debian package built for MPICH, run unchanged on IVC: NetPIPE's MPI driver NPmpich2
# (package netpipe-mpich2, NEEDED libmpich.so.12) under ivcrun with 2 ranks in 2 simulated
# VMs. First NetPIPE's integrity mode (-i: every message of every size, 1 B to 1 MiB with
# NetPIPE's perturbations, checked by the receiver), which must report "Integrity check
# passed" for every size and nothing else; then a short timed run to 64 KiB (200 round trips per size), whose every
# line must carry a throughput. Exit 77 (skip) without the package, unless
# IVCTEST_REQUIRE_ABI=1.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
fail() {
    echo "FAIL: $*"
    exit 1
}
np=$(command -v NPmpich2) || {
    [ "${IVCTEST_REQUIRE_ABI:-0}" = 1 ] && fail "no NPmpich2 (netpipe-mpich2), IVCTEST_REQUIRE_ABI=1"
    echo "SKIP: no NPmpich2 (Debian's netpipe-mpich2)"
    exit 77
}
. "$SOURCE_DIR/tests/abi/sanitize.sh"
readelf -d "$np" | grep -q 'NEEDED.*\[libmpich.so.12\]' || fail "$np does not need libmpich.so.12"
d=$(mktemp -d "$BUILD_DIR/abi-netpipe.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT
cd "$d" || exit 1
timeout 300 "${abi_run[@]}" "$BUILD_DIR/bin/ivcrun" -v -n 2 --vms 2 "$np" -i -u 1048576 -o np.out >int.log 2>&1 ||
    { tail -20 int.log; fail "NPmpich2 -i exited with $?"; }
grep -q "built for MPICH's ABI" int.log || fail "ivcrun did not choose the MPICH ABI"
sizes=$(grep -c -- '-->' int.log)
passed=$(grep -c -- '--> *Integrity check passed' int.log)
echo "integrity: $passed of $sizes sizes passed"
[ "$sizes" -ge 30 ] || { cat int.log; fail "expected at least 30 sizes up to 1 MiB, got $sizes"; }
[ "$passed" -eq "$sizes" ] || { grep -- '-->' int.log | grep -v passed; fail "integrity check failed"; }
grep -q -- '-->.*1048576\|^ *[0-9]*: *786433 bytes' int.log || fail "the sizes did not reach 1 MiB"
timeout 300 "${abi_run[@]}" "$BUILD_DIR/bin/ivcrun" -n 2 --vms 2 "$np" -n 200 -u 65536 -o np.out >perf.log 2>&1 ||
    { tail -20 perf.log; fail "NPmpich2 exited with $?"; }
lines=$(grep -c -- '-->' perf.log)
rates=$(grep -cE 'Mbps in +[0-9.]+ usec' perf.log)
echo "timed: $rates of $lines sizes up to 64 KiB with a throughput; last: $(grep 'Mbps in' perf.log | tail -1)"
[ "$lines" -ge 20 ] && [ "$rates" -eq "$lines" ] || { tail -20 perf.log; fail "timed run incomplete"; }
echo PASS
