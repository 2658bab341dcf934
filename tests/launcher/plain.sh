# --no-ns: plain processes on the host, with the same environment contract.
. "$(dirname "$0")/lib.sh"

run -n 3 --vms 3 --no-ns sh -c 'echo "$PMI_RANK $PMI_SIZE $IVC_VM $(hostname) $IVC_JOB"; test -e "$IVC_REGION"'
expect_rc 0
[ -z "$ERR" ] || fail "--no-ns: expected no message, got '$ERR'"
job=$(echo "$OUT" | head -n 1 | awk '{print $5}')
[ "$job" -gt 0 ] 2>/dev/null || fail "IVC_JOB: expected a nonzero number, got '$job'"
host=$(hostname)
expect_eq "ranks" "0 3 0 $host $job
1 3 1 $host $job
2 3 2 $host $job" "$(echo "$OUT" | sort)"

# The host's /tmp is shared: a rank's file there is visible to the test.
marker=/tmp/ivcrun-plain-$$
run -n 1 --no-ns sh -c "echo x > $marker"
expect_rc 0
[ -e "$marker" ] || fail "--no-ns: $marker written by a rank is not on the host"
rm -f "$marker"

# Failures name the rank by pid.
run -n 2 --no-ns sh -c '[ "$PMI_RANK" = 1 ] && exit 3; exec sleep 60'
expect_rc 3
expect_err "ivcrun: rank 1 (pid "
expect_err ") exited with status 3; stopping the other ranks"
expect_within 5000

# A stop reaches what a rank started (its process group), not only the rank.
tag="5$$.25" # a sleep argument that names this test's processes
rm -f "$READY_FILE"
run -n 2 --no-ns sh -c 'if [ "$PMI_RANK" = 1 ]; then '"$AWAIT_READY"'; exit 3; fi
    sleep '"$tag"' & '"$SAY_READY"'; wait; echo survived'
expect_rc 3
expect_within 5000
case "$OUT" in *survived*) fail "a stopped rank went on running" ;; esac
sleep 0.2 # SIGTERM was sent; let the rank's child act on it
pgrep -f "sleep $tag" >/dev/null && fail "a stopped rank's child survived the stop"
echo PASS
