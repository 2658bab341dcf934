#!/bin/bash
# Start-up stress (issue 15): runs a tiny job (tests/startup/tiny.c: MPI_Init, one
# Allreduce, one exchange with every peer, MPI_Finalize) many times through every way IVC
# starts, and counts the runs that fail. The race it hunts: a rank joining its slot in a
# region another rank was still formatting (pmi.net.storm_np8 died in MPI_Init with a NULL
# shared-memory channel). Paths:
#   ivcrun_vms    ivcrun -n 4 --vms 2                  (simulated VMs; skipped without them)
#   ivcrun_plain  ivcrun --no-ns -n 8
#   hydra1        mpiexec.hydra -n 4, one region the ranks create    (tests/pmi/hydra.sh)
#   hydra2        mpiexec.hydra, 4 ranks over 2 regions (2 simulated hosts)
#   hydra3        mpiexec.hydra, 8 ranks over 3 regions (storm_np8's layout)
#   hand          8 ranks started by hand, all at once, on one zero-filled region file
# The hydra paths are skipped without mpiexec.hydra (apt-get install mpich), or fail when
# IVCTEST_REQUIRE_HYDRA=1.
#
#   startup.sh [--iterations N] [--soak] [--paths p1,p2,...]
#     --iterations N   runs per path (default 17: about 100 runs in all, a few minutes)
#     --soak           500 runs per path
# Environment: IVCRUN (the ivcrun binary), TINY (the tiny program).
# Prints, per path, runs, failures and mean time, and the output of each path's first
# failure. Exit 0 when nothing failed, 1 otherwise, 77 when every path was skipped.
set -u
: "${IVCRUN:?IVCRUN must name the ivcrun binary}"
: "${TINY:?TINY must name the tiny start-up program}"
here=$(cd "$(dirname "$0")" && pwd)
HYDRA_SH=$here/../pmi/hydra.sh

iterations=17
paths=ivcrun_vms,ivcrun_plain,hydra1,hydra2,hydra3,hand
while (($#)); do
    case $1 in
    --iterations) iterations=$2; shift 2 ;;
    --soak) iterations=500; shift ;;
    --paths) paths=$2; shift 2 ;;
    *) echo "usage: $0 [--iterations N] [--soak] [--paths p1,p2,...]"; exit 2 ;;
    esac
done

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/ivc-startup.XXXXXX") || exit 1
hand_region=/dev/shm/ivc-startup-$$
hand_pids=()
# Kills the hand-started ranks still running (a pid that now names another program, reused
# after a rank ended, is left alone).
kill_hand() {
    local p
    for p in "${hand_pids[@]}"; do
        grep -qaF "$TINY" "/proc/$p/cmdline" 2>/dev/null && kill -9 "$p" 2>/dev/null
    done
}
cleanup() {
    kill_hand
    rm -rf "$SCRATCH" "$hand_region"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# One run of a path: leaves its combined output in $SCRATCH/run.out. Returns 0 (success),
# 77 (the path cannot run here) or another status (failure).
run_ivcrun_vms() { timeout -s KILL 60 "$IVCRUN" -n 4 --vms 2 "$TINY"; }
run_ivcrun_plain() { timeout -s KILL 60 "$IVCRUN" --no-ns -n 8 "$TINY"; }
run_hydra1() { timeout -s KILL 130 bash "$HYDRA_SH" 4 "$TINY"; }
run_hydra2() { timeout -s KILL 130 bash "$HYDRA_SH" --regions 2 4 "$TINY"; }
run_hydra3() { timeout -s KILL 130 bash "$HYDRA_SH" --regions 3 8 "$TINY"; }
run_hand() {
    local n=8 r rc=0 wd job=$((($$ % 100000) * 1000 + RANDOM % 1000))
    rm -f "$hand_region"
    # Less than `ivc-info --region-size 8` (256 MiB, most of it shared heap) but more than
    # the channels need (eight 7-peer receive blocks of about 8 MiB with 16 KiB eager records).
    truncate -s 96M "$hand_region" || return 1
    hand_pids=()
    for ((r = 0; r < n; r++)); do
        PMI_RANK=$r PMI_SIZE=$n IVC_JOB=$job IVC_REGION=$hand_region IVC_STARTUP_TIMEOUT=30 \
            "$TINY" >"$SCRATCH/hand.$r" 2>&1 &
        hand_pids+=($!)
    done
    # Nothing outlives 60 s: a hung rank is killed (and counted as a failure).
    (
        trap 'kill $s 2>/dev/null; exit 0' TERM
        sleep 60 &
        s=$!
        wait $s
        kill_hand
    ) >/dev/null 2>&1 &
    wd=$!
    for ((r = 0; r < n; r++)); do
        wait "${hand_pids[$r]}"
        local st=$?
        ((st == 0)) || { rc=1; echo "rank $r: status $st"; }
    done
    kill "$wd" 2>/dev/null
    wait "$wd" 2>/dev/null
    hand_pids=()
    for ((r = 0; r < n; r++)); do sed "s/^/[$r] /" "$SCRATCH/hand.$r"; done
    rm -f "$hand_region"
    return $rc
}

skipped_all=1 failed_any=0
summary=()
IFS=, read -ra list <<<"$paths"
for path in "${list[@]}"; do
    declare -F "run_$path" >/dev/null || { echo "unknown path $path"; exit 2; }
    fails=0 runs=0 total_ms=0 first="" skip=0
    if [[ $path = ivcrun_vms ]]; then
        out=$("$IVCRUN" -n 1 true 2>&1)
        case $out in *"cannot create namespaces"*) skip=1; first="no simulated VMs: $out" ;; esac
    fi
    for ((i = 0; i < iterations && !skip; i++)); do
        t0=$(now_ms)
        "run_$path" >"$SCRATCH/run.out" 2>&1
        rc=$?
        ms=$(($(now_ms) - t0))
        if ((rc == 77)); then
            skip=1 first=$(cat "$SCRATCH/run.out")
            break
        fi
        runs=$((runs + 1)) total_ms=$((total_ms + ms))
        if ((rc != 0)); then
            fails=$((fails + 1))
            if [[ -z $first ]]; then
                first="run $i: status $rc after $ms ms"$'\n'$(cat "$SCRATCH/run.out")
            fi
        fi
    done
    if ((skip)); then
        summary+=("$(printf '%-13s skipped: %s' "$path" "$(head -1 <<<"$first")")")
        continue
    fi
    skipped_all=0
    summary+=("$(printf '%-13s %4d runs %4d failed  mean %5d ms' "$path" "$runs" "$fails" \
        $((runs ? total_ms / runs : 0)))")
    if ((fails)); then
        failed_any=1
        echo "=== $path: first failure ($fails of $runs runs failed) ==="
        echo "$first" | head -60
    fi
done
printf '%s\n' "${summary[@]}"
if ((failed_any)); then
    echo "FAIL: start-up failures (see above)"
    exit 1
fi
((skipped_all)) && { echo "SKIP: every path was skipped"; exit 77; }
echo PASS
