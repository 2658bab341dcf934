# An Open MPI-style job script (job_ompi.sh) runs unchanged under IVC's mpirun, and each
# flag has its effect: --hostfile with slots= and --map-by ppr:1:node (placement seen as
# the ranks' VM host names), -x NAME=VALUE and -x NAME, --bind-to hwthread (the CPU the
# kernel lets each rank use, and --report-bindings saying the same), --tag-output's
# "[1,rank]<stdout>:" prefix, --wdir, MPMD with -H host:slots, -npernode and --map-by node;
# --mca, --oversubscribe and --allow-run-as-root are accepted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/compat_lib.sh"
need_vms

WORK=$SCRATCH/work
mkdir -p "$WORK/run"
printf 'nodeA slots=2 max_slots=8\nnodeB slots=2\n' >"$WORK/hosts"
LAST="job_ompi.sh"
WORK=$WORK PROG=$COMPAT_RANK HOSTFILE=$WORK/hosts sh "$(dirname "$0")/job_ompi.sh" \
    >"$SCRATCH/out" 2>"$SCRATCH/err"
RC=$?
MS=0
expect_rc 0

# 1. ppr:1:node over two hosts: ranks alternate; tagged lines; bindings real and reported.
tagged=$WORK/tagged.out
untagged=$SCRATCH/untagged
grep -c '^\[1,[0-3]\]<stdout>:rank=[0-3] ' "$tagged" | grep -qx 4 ||
    fail "--tag-output: expected 4 lines '[1,R]<stdout>:rank=R', got: $(cat "$tagged")"
sed 's/^\[1,[0-9]*\]<stdout>://' "$tagged" >"$untagged"
for r in 0 1 2 3; do
    grep -q "^\[1,$r\]<stdout>:rank=$r " "$tagged" || fail "rank $r's line is not tagged [1,$r]"
    grep -qx "\[1,$r\]<stderr>:err from rank $r" "$WORK/tagged.err" ||
        fail "--tag-output on stderr: no '[1,$r]<stderr>:err from rank $r' in $(cat "$WORK/tagged.err")"
    expect_field "$untagged" $r host "vm$((r % 2))"
    expect_field "$untagged" $r cwd "$WORK/run"
    expect_field "$untagged" $r KEEP_ME kept
    expect_field "$untagged" $r sum ok
    line=$(rank_line "$untagged" $r)
    case "$line" in *"GREETING=hi there KEEP_ME"*) ;; *) fail "-x with a space: $line" ;; esac
    want=$(expected_cpus hwthread $r)
    expect_field "$untagged" $r cpus "$want"
    grep -q "ivcrun: rank $r bound to CPU(s) $want\$" "$WORK/tagged.err" ||
        fail "--report-bindings: no 'rank $r bound to CPU(s) $want' in: $(cat "$WORK/tagged.err")"
done
grep -q "ignoring --mca btl ^openib" "$WORK/tagged.err" ||
    fail "--mca: expected a note, got: $(cat "$WORK/tagged.err")"

# 2. MPMD: ranks 0-2 "left", 3 "right", one world; hostA's 2 slots first, then hostB.
f=$WORK/mpmd.out
for r in 0 1 2 3; do
    if [ $r -lt 3 ]; then app=left; else app=right; fi
    expect_field "$f" $r app $app
    expect_field "$f" $r size 4
    expect_field "$f" $r sum ok
    expect_field "$f" $r MODE mpmd
done
expect_field "$f" 0 host vm0
expect_field "$f" 1 host vm0
expect_field "$f" 2 host vm1
expect_field "$f" 3 host vm1

# 3. -npernode 2 alone: 2 ranks per VM; --map-by node over 2 VMs: round robin.
for r in 0 1 2 3; do
    expect_field "$WORK/pernode.out" $r host "vm$((r / 2))"
    expect_field "$WORK/bynode.out" $r host "vm$((r % 2))"
done
echo PASS
