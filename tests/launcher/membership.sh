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
