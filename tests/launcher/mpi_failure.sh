# An MPI rank that leaves early, crashes or aborts while its peer blocks in MPI_Recv: the
# launcher names it and the cause, stops the job within seconds and exits non-zero.
. "$(dirname "$0")/lib.sh"
: "${MPI_FAILURE:?MPI_FAILURE must name the test program}"
need_vms

run -n 3 --vms 3 "$MPI_FAILURE" exit
expect_rc 1
expect_err "ivcrun: rank 1 (vm1) exited without calling MPI_Finalize"
expect_within 5000

# Under AddressSanitizer the crash must stay a signal, not become ASan's exit status 1.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
run -n 2 --vms 2 "$MPI_FAILURE" crash
expect_rc 139
expect_err "ivcrun: rank 1 (vm1) killed by signal 11 (Segmentation fault)"
expect_within 5000

run -n 3 --vms 2 "$MPI_FAILURE" abort
expect_rc 5
expect_err "ivcrun: rank 1 called MPI_Abort with code 5"
expect_within 5000

run -n 2 --no-ns "$MPI_FAILURE" fail
expect_rc 3
expect_err "exited with status 3"
expect_within 5000

# The same program with well-behaved ranks finishes cleanly.
run -n 2 --vms 2 "$MPI_FAILURE" none
expect_rc 0
echo PASS
