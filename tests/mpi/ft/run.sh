#!/bin/bash
# Runs a fault-tolerance test under ivcrun and judges it by its survivors:
#   run.sh SURVIVORS STATUS ivcrun-args...
# passes when ivcrun exits with STATUS (137 for a victim killed by SIGKILL, 0 when nobody
# dies, nz: any non-zero status) and exactly SURVIVORS lines "ft-ok rank R" were printed,
# and, when FT_EXPECT_TEXT is set, the output matches that (grep -E) pattern. Exit 77
# (skip) is passed on.
want=$1
status=$2
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" = 77 ] || grep -q "^SKIP" "$out"; then
    exit 77
fi
got=$(grep -c "^ft-ok rank" "$out")
if [ "$status" = nz ] && [ "$rc" != 0 ]; then
    status=$rc
fi
if [ -n "$FT_EXPECT_TEXT" ] && ! grep -Eq "$FT_EXPECT_TEXT" "$out"; then
    echo "FAIL: expected output matching '$FT_EXPECT_TEXT'"
    exit 1
fi
if [ "$rc" != "$status" ] || [ "$got" != "$want" ]; then
    echo "FAIL: expected ivcrun status $status and $want survivors reporting ft-ok," \
         "got status $rc and $got"
    exit 1
fi
echo "PASS: status $rc, $got survivors ok"
exit 0
