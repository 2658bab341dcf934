#!/bin/sh
# libivc's blocking calls sleep on doorbells (tests/ivc/sleep.c under ivcrun, 2 simulated VMs).
#   sleep.sh IVCRUN PROG cpu     rank 0 blocked 3 s in ivc_accept, ivc_read_wait and the
#                                blocking barrier: right data, each under 1% of a core
#   sleep.sh IVCRUN PROG storm   ping-pong and barriers with random pauses, every wait
#                                sleeping at once, a 10-minute sleep timeout: data checked,
#                                both endpoints slept, no sleep ended by its timeout
# Exit 0 pass, 1 fail.
ivcrun=$1 prog=$2 mode=$3
T=$(mktemp -d "${TMPDIR:-/tmp}/ivc-sleep.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fail() {
    echo "FAIL: $*"
    tail -n 20 "$T/out" "$T/err"
    exit 1
}
case "$mode" in
cpu)
    IVC_DEBUG=1 IVC_LIB_WAIT_TIMEOUT=600000 timeout 120 "$ivcrun" -n 2 --vms 2 "$prog" cpu 3 \
        >"$T/out" 2>"$T/err" || fail "exited $?"
    grep -q "endpoint 0 sleeps on a doorbell" "$T/err" || fail "rank 0's endpoint has no doorbell"
    for call in ivc_accept ivc_read_wait ivc_barrier_wait; do
        cpu=$(sed -n "s/^$call: waited .* s, cpu \([0-9.]*\)%$/\1/p" "$T/out")
        [ -n "$cpu" ] || fail "no result line for $call"
        # Asleep on the doorbell: about 0.04% on the 2-vCPU machine; the backoff of
        # nanosleeps up to IVC_LIB_SLEEP_MAX (500 us) that it replaces: 4-5%; spinning or
        # yielding: most of a core. 1% tells them apart with room for a loaded machine.
        awk -v c="$cpu" 'BEGIN { exit !(c < 1) }' || fail "$call used ${cpu}% of a core"
    done
    cat "$T/out"
    ;;
storm)
    IVC_DEBUG=1 IVC_LIB_SPIN=0 IVC_LIB_YIELDS=0 IVC_LIB_WAIT_TIMEOUT=600000 \
        timeout 280 "$ivcrun" -n 2 --vms 2 "$prog" storm 3000 >"$T/out" 2>"$T/err" ||
        fail "exited $?"
    grep -q "^ivc sleep storm: 3000 rounds, data checked" "$T/out" || fail "no result line"
    stats=$(grep "doorbell sleeps" "$T/err")
    [ "$(echo "$stats" | grep -c .)" -eq 2 ] || fail "expected doorbell statistics of 2 endpoints"
    echo "$stats" | grep -v " 0 ended by the timeout" | grep -q . &&
        fail "a sleep ended by its timeout: a lost wake-up"
    total=$(echo "$stats" | sed 's/.*: \([0-9]*\) doorbell sleeps.*/\1/' | awk '{s += $1} END {print s + 0}')
    [ "$total" -ge 1000 ] || fail "expected at least 1000 sleeps, got $total"
    echo "$stats"
    echo "storm: $total sleeps, no lost wake-up"
    ;;
*) echo "usage: sleep.sh IVCRUN PROG cpu|storm" >&2; exit 2 ;;
esac
exit 0
