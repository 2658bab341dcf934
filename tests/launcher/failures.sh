# A failing rank stops the job within seconds; ivcrun names the rank and the cause and
# exits with the rank's status.
. "$(dirname "$0")/lib.sh"
need_vms

run -n 3 sh -c 'if [ "$PMI_RANK" = 1 ]; then exit 3; fi; exec sleep 60'
expect_rc 3
expect_err "ivcrun: rank 1 (vm1) exited with status 3; stopping the other ranks"
expect_within 5000

run -n 3 --vms 2 sh -c 'if [ "$PMI_RANK" = 2 ]; then kill -SEGV $$; fi; exec sleep 60'
expect_rc 139
expect_err "ivcrun: rank 2 (vm1) killed by signal 11 (Segmentation fault)"
expect_within 5000

run -n 2 sh -c 'if [ "$PMI_RANK" = 0 ]; then kill -KILL $$; fi; exec sleep 60'
expect_rc 137
expect_err "ivcrun: rank 0 (vm0) killed by signal 9 (Killed)"
expect_within 5000

# A rank that ignores SIGTERM gets SIGKILL about a second later.
rm -f "$READY_FILE"
run -n 2 sh -c 'if [ "$PMI_RANK" = 0 ]; then '"$AWAIT_READY"'; exit 4; fi
    trap "" TERM; '"$SAY_READY"'; exec sleep 60'
expect_rc 4
expect_err "rank 0 (vm0) exited with status 4"
[ "$MS" -ge 900 ] || fail "duration: expected about 1 s of grace before SIGKILL, got $MS ms"
expect_within 5000

# What a rank started goes with its VM, though only the rank got SIGTERM.
tag="5$$.75" # a sleep argument that names this test's processes
rm -f "$READY_FILE"
run -n 2 sh -c 'if [ "$PMI_RANK" = 0 ]; then '"$AWAIT_READY"'; exit 5; fi
    sleep '"$tag"' & '"$SAY_READY"'; wait; echo survived'
expect_rc 5
expect_within 5000
case "$OUT" in *survived*) fail "a stopped rank went on running" ;; esac
pgrep -f "sleep $tag" >/dev/null && fail "a stopped rank's child outlived its VM"

# Several failures: the first is reported, once.
run -n 2 sh -c 'if [ "$PMI_RANK" = 0 ]; then exit 6; fi; sleep 0.5; exit 7'
expect_rc 6
expect_eq "failure messages" 1 "$(echo "$ERR" | grep -c '^ivcrun: rank')"

# Every rank exiting 0 without MPI is success.
run -n 3 --vms 2 hostname
expect_rc 0
echo PASS
