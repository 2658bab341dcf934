# ivcrun --hosts: one region per simulated host, a veth network between the VMs, ivcrun as
# the PMI-1 process manager, and a rank that dies on another host.
. "$(dirname "$0")/lib.sh"
: "${MPI_FAILURE:?MPI_FAILURE must name the launcher_mpi_failure program}"

run -n 2 --hosts 3 true
expect_rc 2
expect_err "--hosts 3 is more than the 2 ranks"
run -n 4 --hosts 2 --vms 3 true
expect_rc 2
expect_err "--vms 3 does not divide into 2 hosts"
run -n 4 --vms-per-host 2 true
expect_rc 2
expect_err "--vms-per-host goes with --hosts"
run -n 4 --hosts 2 --join /dev/shm/x --job 1 --world 4 true
expect_rc 2
expect_err "--hosts and --join do not go together"

need_vms
[ "$(id -u)" = 0 ] || skip "the simulated hosts' network needs root"

# Layout: contiguous blocks, a region per host, PMI_FD, eth0 on the job's bridge.
run -n 4 --hosts 2 --vms-per-host 2 -l sh -c \
    'echo "host-region ${IVC_REGION##*-} vm $IVC_VM pmi ${PMI_FD:+yes} $(ip -4 -o addr show eth0 | grep -o "10\.77\.[0-9.]*") job $IVC_JOB"'
expect_rc 0
for want in "[0] host-region h0 vm 0 pmi yes 10.77.0.1" "[1] host-region h0 vm 1 pmi yes 10.77.0.2" \
    "[2] host-region h1 vm 2 pmi yes 10.77.0.3" "[3] host-region h1 vm 3 pmi yes 10.77.0.4"; do
    case "$OUT" in *"$want"*) ;; *) fail "expected a line '$want' in: $OUT" ;; esac
done
# (The mpi.*.hosts tests send every kind of message over it.) Nothing of this job is left.
job=$(printf '%s\n' "$OUT" | sed -n 's/.* job \([0-9]*\)$/\1/p' | head -n 1)
[ -n "$job" ] || fail "no job id in: $OUT"
case " $(ip netns list | awk '{print $1}' | tr '\n' ' ') " in
*" ivc-$job "*) fail "the job's network namespace ivc-$job was left behind" ;;
esac
ls /dev/shm/ivc-"$job"-h* >/dev/null 2>&1 && fail "a host's region of job $job was left in /dev/shm"

# A rank that dies on the other host: named, the job stopped within seconds, no hang.
# Whichever ivcrun sees first is reported: the crash itself, or rank 0 failing its receive
# with MPI_ERR_PROC_FAILED (error class 58) because the network channel saw rank 1 go.
# Under AddressSanitizer the crash must stay a signal: UCX's handler re-raises it to the
# handler it found, which would be ASan's (exit status 1) without this.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
run -n 2 --hosts 2 "$MPI_FAILURE" crash
if [ "$RC" = 58 ]; then
    expect_err "network connection to rank 1 failed"
else
    expect_rc 139
    expect_err "rank 1 (vm1) killed by signal 11"
fi
expect_within 10000
# An abort is seen in the aborting rank's region and by ivcrun; rank 0, on the other host,
# may report the lost connection first (MPI_ERR_PROC_FAILED, class 58).
run -n 2 --hosts 2 "$MPI_FAILURE" abort
expect_err "MPI_Abort called with code 5"
if [ "$RC" = 58 ]; then
    expect_err "network connection to rank 1 failed"
else
    expect_rc 5
    expect_err "rank 1 called MPI_Abort with code 5"
fi
expect_within 10000
run -n 2 --hosts 2 "$MPI_FAILURE" none
expect_rc 0
echo PASS
