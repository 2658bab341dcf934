# ivcrun reads the region's membership table and abort word to judge how a rank ended.
. "$(dirname "$0")/lib.sh"
: "${MEMBER:?MEMBER must name the launcher_member helper}"

for mode in --no-ns ""; do
    [ -z "$mode" ] && need_vms
    # Joined (in MPI_Init or running) and exited 0: MPI_Finalize was never called.
    run -n 3 $mode "$MEMBER" 1 join
    expect_rc 1
    expect_err "ivcrun: rank 1 ("
    expect_err ") exited without calling MPI_Finalize; stopping the other ranks"
    expect_within 5000

    run -n 3 $mode "$MEMBER" all finalize
    expect_rc 0
    expect_eq "stderr ($mode)" "" "$ERR"

    # MPI_Abort: the abort word names rank and code; the rank exits with the code.
    run -n 3 $mode "$MEMBER" 2 abort 5
    expect_rc 5
    expect_err "ivcrun: rank 2 called MPI_Abort with code 5; stopping the other ranks"
    expect_within 5000

    # The same when its section and its end reach ivcrun at once: ivcrun is stopped while
    # the rank hands over its section, aborts and exits.
    rm -f "$SCRATCH/hold" "$SCRATCH/hold.waiting" "$SCRATCH/hold.done"
    LAST="MEMBER_HOLD=... ivcrun -n 3 $mode $MEMBER 2 abort 5 (ivcrun stopped meanwhile)"
    MEMBER_HOLD=$SCRATCH/hold "$IVCRUN" -n 3 $mode "$MEMBER" 2 abort 5 \
        >"$SCRATCH/out" 2>"$SCRATCH/err" &
    pid=$!
    await_file "$SCRATCH/hold.waiting" || fail "rank 2 never waited for $SCRATCH/hold"
    kill -STOP "$pid"
    touch "$SCRATCH/hold"
    await_file "$SCRATCH/hold.done" || { kill -CONT "$pid"; fail "rank 2 never aborted"; }
    sleep 0.3 # its exit, and its init's report of it
    kill -CONT "$pid"
    wait "$pid"
    RC=$? MS=0 ERR=$(cat "$SCRATCH/err")
    expect_rc 5
    expect_err "ivcrun: rank 2 called MPI_Abort with code 5; stopping the other ranks"

    # The aborting rank need not exit: ivcrun sees the abort word and stops everyone.
    run -n 3 $mode "$MEMBER" 0 abort-wait 7
    expect_rc 7
    expect_err "ivcrun: rank 0 called MPI_Abort with code 7"
    expect_within 5000

    # Code 0 still fails the job.
    run -n 2 $mode "$MEMBER" 1 abort 0
    expect_rc 1
    expect_err "rank 1 called MPI_Abort with code 0"
done
echo PASS
