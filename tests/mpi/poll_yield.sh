#!/bin/bash
# poll_yield.c under ivcrun (2 ranks, 2 simulated VMs), twice:
#   default waiting (IVC_WAIT=auto): rank 0, polling 300 ms at a time with MPI_Test,
#     MPI_Iprobe and MPI_Testany for what rank 1 provides late, must have yielded the core
#     (the library's count at MPI_Finalize, IVC_DEBUG=1, above 100: each of its three loops
#     polls ~300 ms past the 100 us after which every empty poll yields);
#   IVC_WAIT=spin: no rank may have yielded.
# Environment: IVCRUN, POLL_YIELD (the program). Exit 0 pass, 1 fail.
set -u
: "${IVCRUN:?}" "${POLL_YIELD:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/ivc-poll-yield.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fail() {
    echo "FAIL: $*"
    for f in "$T"/*.out "$T"/*.err; do
        [ -e "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
    done
    exit 1
}

# run NAME ENV...: runs the program; its yield counts (one line per rank) into $T/NAME.counts.
run() {
    local name=$1
    shift
    env IVC_DEBUG=1 "$@" timeout 120 "$IVCRUN" -n 2 --vms 2 "$POLL_YIELD" \
        >"$T/$name.out" 2>"$T/$name.err" || fail "$name: exited with $?"
    grep -q "^poll_yield: MPI_Test [0-9]* calls" "$T/$name.out" || fail "$name: no result line"
    grep -o "polling calls that found nothing yielded the core [0-9]* times" "$T/$name.err" |
        awk '{print $9}' >"$T/$name.counts"
    [ "$(wc -l <"$T/$name.counts")" -eq 2 ] || fail "$name: expected 2 yield counts (one per rank)"
    echo "$name: $(cat "$T/$name.out"); yields per rank: $(tr '\n' ' ' <"$T/$name.counts")"
}

run auto
max=$(sort -n "$T/auto.counts" | tail -1)
[ "$max" -gt 100 ] || fail "auto: the polling rank yielded $max times (expected more than 100)"
run spin IVC_WAIT=spin
[ "$(sort -n "$T/spin.counts" | tail -1)" -eq 0 ] || fail "spin: a rank yielded"
echo PASS
