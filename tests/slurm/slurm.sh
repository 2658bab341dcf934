#!/bin/bash
# Runs IVC jobs under Slurm (srun --mpi=pmi2) on a throw-away cluster of this machine: a
# munged with its own key and socket, a slurmctld and one or two slurmd (simulated nodes
# n1, n2 on their own ports), all in a temporary directory and, as root, in pid and mount
# namespaces of their own (so that nothing outlives the test and /dev/shm is private).
#   slurm.sh [--nodes K] N PROG [ARGS...]   srun --mpi=pmi2 -N K -n N PROG ARGS must
#                                           succeed. With K=2 a TaskProlog gives each node
#                                           its own region (IVC_REGION), so that ranks on
#                                           different nodes use the network channel (UCX
#                                           over TCP), which IVC_DEBUG=1 must confirm
#   slurm.sh --mpi-default ...              the same with MpiDefault=pmi2 in slurm.conf
#                                           and a plain srun (no --mpi option)
#   slurm.sh --fail [--nodes K] N PROG ...  the step must fail (srun non-zero) within 30 s;
#                                           every other rank must report rank 1 failed
#                                           (slurm_job kill|exit) and nothing else
# Also checks that the ranks leave no region file in /dev/shm.
# Exit 0 pass, 1 fail, 77 skip when Slurm or munge is missing or the daemons cannot start
# (a failure when IVCTEST_REQUIRE_SLURM=1, as CI sets it). IVCTEST_SLURM_KEEP=1 keeps the
# temporary directory (configuration and logs) for a look after a failure.
set -u
orig_args=("$@")
nodes=1 expect_fail=0 mpi_default=none mpi_arg=(--mpi=pmi2)
while [[ $# -gt 0 ]]; do
    case $1 in
    --mpi-default) mpi_default=pmi2 mpi_arg=(); shift ;;
    --nodes) nodes=$2; shift 2 ;;
    --fail) expect_fail=1; shift ;;
    *) break ;;
    esac
done
n=$1
shift

skip() {
    echo "SKIP: $*"
    if [[ ${IVCTEST_REQUIRE_SLURM:-0} = 1 ]]; then
        echo "FAIL: IVCTEST_REQUIRE_SLURM=1 but: $*"
        exit 1
    fi
    exit 77
}

for tool in srun sinfo slurmctld slurmd slurmstepd munged; do
    command -v "$tool" >/dev/null ||
        PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null ||
        skip "$tool not found (apt-get install slurmctld slurmd slurm-client munge; see scripts/setup.sh)"
done
PATH=$PATH:/usr/sbin
[[ $(id -u) = 0 ]] || skip "the test cluster runs its daemons as root (SlurmUser=root)"

# Own pid namespace (the daemons and every slurmstepd die with this script) and mount
# namespace with a private /dev/shm (leftover check sees this test's files only).
# unshare ignores SIGTERM while it waits; killing it sends SIGTERM to the namespace's init
# (--kill-child), this script's inner run, whose trap then stops the daemons.
if [[ -z ${T_SLURM_INNER:-} ]] && unshare -pfm --mount-proc true 2>/dev/null; then
    unshare -pfm --mount-proc --kill-child=TERM bash -c \
        'mount -t tmpfs tmpfs /dev/shm && T_SLURM_INNER=1 exec "$0" "$@"' "$0" "${orig_args[@]}" &
    inner=$!
    trap 'kill -KILL $inner; exit 1' INT TERM
    wait $inner
    exit $?
fi

T=$(mktemp -d /tmp/ivc-slurm.XXXXXX)
chmod 700 "$T"
pids=()
srun_pid=
cleanup() {
    local p
    # Outside a pid namespace the steps would outlive slurmd: cancel them first.
    [[ -n $srun_pid ]] && kill -TERM "$srun_pid" 2>/dev/null
    if [[ -z ${T_SLURM_INNER:-} && -S $T/munge/sock ]]; then
        timeout 10 scancel --full --user=root 2>/dev/null
        for _ in $(seq 100); do [[ -z $(squeue -h 2>/dev/null) ]] && break; sleep 0.1; done
    fi
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null
    done
    if [[ ${IVCTEST_SLURM_KEEP:-0} = 1 ]]; then
        echo "kept $T"
    else
        rm -rf "$T"
    fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Ports: slurmctld's and one per slurmd, a free block picked at random so that parallel
# runs rarely collide.
used=$(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://')
for _ in $(seq 20); do
    base=$((20000 + RANDOM % 20000))
    grep -qxE "$(seq -s '|' "$base" $((base + nodes)))" <<<"$used" || break
done
host=$(hostname -s)

# munge: its own key, socket, pid, log and seed files.
mkdir -p "$T/munge" "$T/ctld" "$T/spool" "$T/log"
chmod 755 "$T/munge" # munged wants its socket's directory searchable by all
head -c 1024 /dev/urandom >"$T/munge/key"
chmod 400 "$T/munge/key"
munged -F --force --socket="$T/munge/sock" --key-file="$T/munge/key" \
    --pid-file="$T/munge/pid" --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" \
    >"$T/log/munged.out" 2>&1 &
pids+=($!)

export SLURM_CONF=$T/slurm.conf
nodelist=n1
((nodes > 1)) && nodelist=n1,n2
# A task prolog prints "export NAME=value" lines into each task's environment: with two
# simulated nodes on one machine, one region per node, like separate hosts.
cat >"$T/task-prolog.sh" <<EOF
#!/bin/sh
echo "export IVC_REGION=/dev/shm/ivc-slurm-\$SLURM_JOB_ID.\$SLURM_STEP_ID-\$SLURMD_NODENAME"
EOF
chmod 755 "$T/task-prolog.sh"
prolog=
((nodes > 1)) && prolog="TaskProlog=$T/task-prolog.sh"
cat >"$SLURM_CONF" <<EOF
ClusterName=ivctest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge/sock
CredType=cred/munge
SlurmctldPort=$base
SlurmdPort=$((base + 1))
StateSaveLocation=$T/ctld
SlurmdSpoolDir=$T/spool/%n
SlurmctldPidFile=$T/ctld.pid
SlurmdPidFile=$T/spool/slurmd-%n.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=$mpi_default
MailProg=/bin/true
KillWait=5
InactiveLimit=0
MessageTimeout=10
$prolog
$(for ((k = 1; k <= nodes; k++)); do
    echo "NodeName=n$k NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base + k)) CPUs=4 State=UNKNOWN"
done)
PartitionName=ivc Nodes=$nodelist Default=YES MaxTime=10 State=UP
EOF

for _ in $(seq 50); do [[ -S $T/munge/sock ]] && break; sleep 0.1; done
[[ -S $T/munge/sock ]] || { cat "$T/log/munged.out" "$T/log/munged.log" 2>/dev/null; skip "munged did not start"; }

slurmctld -D -i >"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
for node in ${nodelist//,/ }; do
    mkdir -p "$T/spool/$node"
    slurmd -D -N "$node" >"$T/log/slurmd-$node.out" 2>&1 &
    pids+=($!)
done

# Wait until every node is idle.
idle=0
for _ in $(seq 60); do
    idle=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
    ((idle >= nodes)) && break
    sleep 0.5
done
if ((idle < nodes)); then
    tail -n 5 "$T"/log/*.out "$T"/log/*.log 2>/dev/null
    sinfo -N -l 2>&1
    skip "the Slurm daemons did not bring $nodes node(s) to idle within 30 s"
fi

out=$T/job.out
t0=$(date +%s%N)
# A failed rank must not make the step wait: IVC itself ends the survivors; the timeout
# only keeps a broken run from hanging the test. In the background, so that a signal to
# this script runs its traps at once.
IVC_DEBUG=1 UCX_TLS=${UCX_TLS:-tcp,self} timeout 120 \
    srun "${mpi_arg[@]}" -N "$nodes" -n "$n" --ntasks-per-node=$(((n + nodes - 1) / nodes)) -t 2 \
    "$@" >"$out" 2>&1 &
srun_pid=$!
wait $srun_pid
rc=$?
srun_pid=
ms=$((($(date +%s%N) - t0) / 1000000))
sed 's/^/  | /' "$out"

if ((expect_fail)); then
    [[ $rc -ne 0 && $rc -ne 124 ]] || { echo "FAIL: expected srun to fail, got status $rc"; exit 1; }
    ((ms < 30000)) || { echo "FAIL: the failed step took $ms ms to end (expected < 30000)"; exit 1; }
    # Every survivor gets the error and names rank 1 (IVC's warning), then finalizes.
    for ((r = 0; r < n; r++)); do
        ((r == 1)) && continue
        grep -q "slurm_job: survivor $r: MPI_Allreduce" "$out" ||
            { echo "FAIL: expected 'slurm_job: survivor $r: MPI_Allreduce -> ...', got none"; exit 1; }
        grep -qE "^ivc\[$r\]: .*rank 1 (ended|lost)" "$out" ||
            { echo "FAIL: expected rank $r to report 'rank 1 ended/lost ...', got none"; exit 1; }
    done
    # Nobody else is blamed, except that across nodes a survivor that finalized early (its
    # finalize barrier given up) can look lost to one still learning of the failure: the
    # network channel cannot tell a peer that left from one that died.
    other=$(grep -E "rank ([02-9]|[1-9][0-9]+) (ended|lost)" "$out" |
        grep -v "lost its network connection" | head -1)
    ((nodes > 1)) || other=$(grep -E "rank ([02-9]|[1-9][0-9]+) (ended|lost)" "$out" | head -1)
    [[ -z $other ]] || { echo "FAIL: expected only rank 1 reported failed, got: $other"; exit 1; }
else
    [[ $rc -eq 0 ]] || { echo "FAIL: srun ${mpi_arg[*]} -N $nodes -n $n $*: status $rc"; exit 1; }
    grep -q "slurm_job: PASS $n ranks on $nodes nodes" "$out" ||
        { echo "FAIL: expected 'slurm_job: PASS $n ranks on $nodes nodes', got none"; exit 1; }
    if ((nodes > 1)); then
        # Each rank's peers on the other node go over the network channel.
        per=$((n / nodes))
        got=$(grep -c "network channel: $per peers on other hosts" "$out")
        [[ $got -eq $n ]] ||
            { echo "FAIL: expected $n ranks to report '$per peers on other hosts', got $got"; exit 1; }
    fi
fi
if [[ -n ${T_SLURM_INNER:-} ]]; then
    left=$(ls /dev/shm | grep '^ivc-')
    [[ -z $left ]] || { echo "FAIL: region files left in /dev/shm: $left"; exit 1; }
fi
echo "PASS (srun status $rc, $ms ms)"
