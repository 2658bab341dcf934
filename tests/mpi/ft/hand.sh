#!/bin/bash
# Runs a fault-tolerance test with its ranks started by hand, no launcher (the way ranks in
# real VMs start): N processes with PMI_RANK/PMI_SIZE/IVC_JOB on a fresh zero-filled region
# file of their own; failures are seen by the ranks' own detector.
#   hand.sh SURVIVORS N prog args...
# passes when exactly SURVIVORS ranks print "ft-ok rank R". Exit 77 when a rank skips.
want=$1
n=$2
shift 2
job=$(( (($$ << 8) ^ RANDOM) & 0x7fffffff ))
region=/dev/shm/ivc-fthand-$job
out=$(mktemp -d)
trap 'rm -rf "$out" "$region"' EXIT
truncate -s "${FT_REGION_SIZE:-64M}" "$region" || exit 1
pids=()
for ((r = 0; r < n; r++)); do
    PMI_RANK=$r PMI_SIZE=$n IVC_JOB=$job IVC_REGION=$region timeout -s KILL 120 "$@" \
        >"$out/$r" 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do
    wait "$p"
done
cat "$out"/*
if grep -q "^SKIP" "$out"/*; then
    exit 77
fi
got=$(cat "$out"/* | grep -c "^ft-ok rank")
if [ "$got" != "$want" ]; then
    echo "FAIL: expected $want survivors reporting ft-ok, got $got"
    exit 1
fi
echo "PASS: $got survivors ok (no launcher)"
