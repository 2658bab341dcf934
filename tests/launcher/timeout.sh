# --timeout SEC: the job is stopped after SEC seconds, naming the ranks still running.
. "$(dirname "$0")/lib.sh"

run -n 2 --timeout 2 sleep 30
expect_rc 124
expect_err "ivcrun: timeout after 2 s; ranks still running: 0 ("
expect_err "), 1 ("
[ "$MS" -ge 1900 ] || fail "duration: expected about 2 s, got $MS ms"
expect_within 5000

# Only the ranks still running are named.
run -n 3 --timeout 1 sh -c '[ "$PMI_RANK" = 1 ] || exec sleep 30'
expect_rc 124
case "$ERR" in *"running: 0 ("*"), 2 ("*) ;; *) fail "expected ranks 0 and 2 named, got '$ERR'" ;; esac
case "$ERR" in *" 1 ("*) fail "rank 1 had ended but was named: '$ERR'" ;; esac

# A job that ends in time is not affected.
run -n 2 --timeout 5 true
expect_rc 0

# Hydra's MPIEXEC_TIMEOUT stands for --timeout (MPICH's test harness bounds jobs so);
# --timeout wins over it; a bad value is a usage error.
MPIEXEC_TIMEOUT=1 run -n 2 sleep 30
expect_rc 124
expect_err "ivcrun: timeout after 1 s"
MPIEXEC_TIMEOUT=30 run -n 2 --timeout 1 sleep 30
expect_rc 124
expect_err "ivcrun: timeout after 1 s"
MPIEXEC_TIMEOUT=soon run -n 2 true
expect_rc 2
expect_err "MPIEXEC_TIMEOUT"
echo PASS
