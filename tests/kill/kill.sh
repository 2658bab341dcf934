#!/bin/bash
# Kill tests without a launcher (issue 15). Each case starts 3-4 ranks by hand (PMI_RANK,
# PMI_SIZE, IVC_JOB, IVC_REGION; no PMI_FD) on a fresh zero-filled 64 MiB region file, the
# way ranks in real VMs start; the ranks run tests/kill/kill_rank.c, which puts them in
# position (see its header); then this script kills the victim with SIGKILL and checks
# every survivor:
#   return  (MPI_ERRORS_RETURN)    the call returns MPI_ERR_PROC_FAILED within 10 s of the
#           kill (a recovered lock and MPI_Finalize may return MPI_SUCCESS), later calls
#           involving the victim fail too, the survivors still talk among themselves, and
#           MPI_Finalize completes: exit 0 within 20 s of the kill
#   fatal   (MPI_ERRORS_ARE_FATAL) exits non-zero within 10 s of the kill, with a message
#           that names the failed rank ("rank V")
# A survivor still running past its bound is a failure; then every rank of the case is
# killed. Nothing outlives the script (each rank also ends itself after BOUND s).
#
#   kill.sh GROUP                   p2p   recv, anysrc, probe, wait_irecv, send_full
#                                   rndv  64 MiB rendezvous, victim sends / receives
#                                   coll  allreduce, barrier, win_lock, win_shared,
#                                         finalize
#                                   stop  SIGSTOP shorter than IVC_LIVENESS_TIMEOUT (not a
#                                         failure: the job completes) and longer (declared
#                                         failed; the survivors go on; then SIGKILL)
#                                   all   every group
#   kill.sh case MODE HANDLER N VICTIM    one case, e.g. kill.sh case recv return 3 1
# Environment: KILL_RANK (the kill_rank program); KILL_LIVENESS_MS (IVC_LIVENESS_TIMEOUT
# of the stop cases, ms, default 4000). Exit 0 pass, 1 fail (every case runs; failures are
# listed at the end).
set -u
: "${KILL_RANK:?KILL_RANK must name the kill_rank program}"
LIVENESS_MS=${KILL_LIVENESS_MS:-4000}
BOUND=60            # a rank ends itself after this many seconds
REPORT_MS=10000     # survivors report within this long after the kill (or the SIGSTOP)
FINISH_MS=20000     # return mode: survivors have finalized and exited by then
STOP_SHORT_S=1.5    # the short SIGSTOP, well below IVC_LIVENESS_TIMEOUT

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/ivc-kill.XXXXXX") || exit 1
regions=()
failures=()
case_idx=0

# signal_rank SIG R: signals rank R of the current case if it still runs: only when its
# exit was not recorded and its pid still names kill_rank, never a process that reused it.
signal_rank() {
    local p
    [[ -e $D/pid.$2 && ! -e $D/exit.$2 ]] || return 0
    p=$(cat "$D/pid.$2")
    grep -qa kill_rank "/proc/$p/cmdline" 2>/dev/null && kill "-$1" "$p" 2>/dev/null
    return 0
}

kill_case_ranks() {
    local f
    for f in "$D"/pid.*; do
        [[ -e $f ]] && signal_rank KILL "${f##*.}"
    done
}
cleanup() {
    [[ -n ${D:-} ]] && kill_case_ranks
    wait 2>/dev/null
    rm -rf "$SCRATCH" "${regions[@]}"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Prints every rank's output of the current case.
dump() {
    local r
    for ((r = 0; r < N; r++)); do
        echo "  --- rank $r$( ((r == VICTIM)) && echo ' (victim)') stdout:"
        tail -n 15 "$D/out.$r" 2>/dev/null | sed 's/^/    /'
        echo "  --- rank $r stderr:"
        tail -n 15 "$D/err.$r" 2>/dev/null | sed 's/^/    /'
    done
}

# Records a failure of the current case; end_case prints the ranks' output once.
case_fail() {
    echo "FAIL: $CASE: $*"
    failures+=("$CASE: $*")
    CASE_OK=0
}

# start_case MODE HANDLER N VICTIM [VAR=value...]: starts the ranks in the background.
start_case() {
    MODE=$1 HANDLER=$2 N=$3 VICTIM=$4
    shift 4
    case_idx=$((case_idx + 1))
    CASE="$MODE.$HANDLER (n=$N, victim $VICTIM)"
    CASE_OK=1
    D=$SCRATCH/$case_idx
    mkdir -p "$D"
    REGION=/dev/shm/ivc-kill-$$-$case_idx
    regions+=("$REGION")
    truncate -s 64M "$REGION" || { case_fail "cannot create $REGION"; return 1; }
    local job=$((($$ % 100000) * 100 + case_idx)) r
    for ((r = 0; r < N; r++)); do
        (
            env PMI_RANK=$r PMI_SIZE=$N IVC_JOB=$job IVC_REGION=$REGION "$@" \
                "$KILL_RANK" "$D" "$MODE" "$HANDLER" "$VICTIM" "$BOUND" \
                >"$D/out.$r" 2>"$D/err.$r" &
            p=$!
            echo "$p" >"$D/pid.$r"
            wait "$p" 2>/dev/null
            echo "$? $(now_ms)" >"$D/exit.$r.tmp"
            mv "$D/exit.$r.tmp" "$D/exit.$r"
        ) &
    done
    return 0
}

# await_ready: every rank wrote its ready file (at most 30 s). Returns 1 after case_fail.
await_ready() {
    local deadline=$(($(now_ms) + 30000)) r missing
    while :; do
        missing=0
        for ((r = 0; r < N; r++)); do
            if [[ ! -e $D/ready.$r ]]; then
                missing=1
                if [[ -e $D/exit.$r ]]; then
                    case_fail "rank $r ended (status $(cut -d' ' -f1 "$D/exit.$r"))" \
                        "before it was in position"
                    return 1
                fi
            fi
        done
        ((missing)) || return 0
        if (($(now_ms) > deadline)); then
            case_fail "not every rank got in position within 30 s" \
                "(ready files: $(cd "$D" && echo ready.*))"
            return 1
        fi
        sleep 0.05
    done
}

# await_exit DEADLINE_MS RANKS...: waits until those ranks have exited or the deadline.
await_exit() {
    local deadline=$1 r left
    shift
    while :; do
        left=0
        for r in "$@"; do [[ -e $D/exit.$r ]] || left=1; done
        ((left)) || return 0
        (($(now_ms) > deadline)) && return 1
        sleep 0.05
    done
}

end_case() {
    kill_case_ranks
    wait
    rm -f "$REGION"
    if ((CASE_OK)); then
        echo "ok:   $CASE: $SUMMARY"
    else
        [[ -n $SUMMARY ]] && echo "  (others:$SUMMARY)"
        dump
    fi
}

survivors() {
    local r
    for ((r = 0; r < N; r++)); do ((r == VICTIM)) || echo "$r"; done
}

# Checks one survivor of a killed victim (kill at T_KILL). Appends to SUMMARY.
check_survivor() {
    local r=$1 out err st t line at call cls nfail=${#failures[@]}
    out=$(cat "$D/out.$r" 2>/dev/null)
    err=$(cat "$D/err.$r" 2>/dev/null)
    if [[ ! -e $D/exit.$r ]]; then
        case_fail "survivor $r still running $(( $(now_ms) - T_KILL )) ms after the $EVENT"
        return
    fi
    read -r st t <"$D/exit.$r"
    local exit_ms=$((t - T_KILL))
    case $out in *"kill: FAIL"* | *"kill: HUNG"*)
        case_fail "survivor $r: $(grep -m1 -E 'kill: (FAIL|HUNG)' <<<"$out")"
        return ;;
    esac
    if [[ $HANDLER = fatal ]]; then
        if ((exit_ms > REPORT_MS)); then
            case_fail "survivor $r: expected to exit within $REPORT_MS ms of the $EVENT," \
                "got $exit_ms ms"
        elif [[ $MODE = finalize && $st = 0 && $out = *"finalized"* ]]; then
            SUMMARY+=" $r:finalized, exit 0 after ${exit_ms}ms;" # MPI_Finalize may complete
        elif ((st == 0)); then
            case_fail "survivor $r: expected a non-zero exit under MPI_ERRORS_ARE_FATAL, got 0"
        elif ! grep -qE "rank $VICTIM([^0-9]|\$)" <<<"$out"$'\n'"$err"; then
            case_fail "survivor $r: expected a message naming rank $VICTIM, got:" \
                "$(head -c 400 <<<"$err")"
        else
            SUMMARY+=" $r:exit $st after ${exit_ms}ms;"
        fi
        return
    fi
    line=$(grep -m1 "^kill: survivor $r: main " <<<"$out")
    if [[ -z $line ]]; then
        case_fail "survivor $r: expected a report of its blocked call, got none (status $st)"
        return
    fi
    call=${line#*main }
    call=${call%% -> *}
    cls=${line#* -> }
    cls=${cls%% at=*}
    at=${line#* at=}
    at=${at%% *}
    local report_ms=$((at - T_KILL))
    if ((report_ms > REPORT_MS)); then
        case_fail "survivor $r: $call reported $cls $report_ms ms after the $EVENT," \
            "expected within $REPORT_MS ms"
    elif ((st != 0)); then
        case_fail "survivor $r: expected exit 0 after MPI_Finalize, got status $st"
    elif ((exit_ms > FINISH_MS)); then
        case_fail "survivor $r: exited $exit_ms ms after the $EVENT," \
            "expected within $FINISH_MS ms"
    elif ! grep -q "^kill: survivor $r: finalized" <<<"$out"; then
        case_fail "survivor $r: expected 'finalized' in its output"
    fi
    ((${#failures[@]} == nfail)) || return
    SUMMARY+=" $r:$cls after ${report_ms}ms, exit 0 after ${exit_ms}ms;"
}

# kill_case MODE HANDLER N VICTIM: the victim is killed once every rank is in position.
kill_case() {
    SUMMARY=""
    start_case "$@" || { end_case; return; }
    if await_ready; then
        case $MODE in
        rndv_*) sleep "0.$(printf '%03d' $((RANDOM % 300)))" ;; # somewhere mid-transfer
        *) sleep 0.2 ;;
        esac
        signal_rank KILL "$VICTIM"
        T_KILL=$(now_ms) EVENT=kill
        local bound=$FINISH_MS
        [[ $HANDLER = fatal ]] && bound=$REPORT_MS
        await_exit $((T_KILL + bound)) $(survivors)
        for r in $(survivors); do
            check_survivor "$r"
        done
    fi
    end_case
}

# stop_case short|long: SIGSTOP of the victim in the loop mode (MPI_ERRORS_RETURN).
stop_case() {
    local kind=$1 r st line
    SUMMARY=""
    start_case loop return 3 1 IVC_LIVENESS_TIMEOUT="$LIVENESS_MS" || { end_case; return; }
    CASE="sigstop.$kind (n=3, victim 1, IVC_LIVENESS_TIMEOUT=$LIVENESS_MS)"
    if await_ready; then
        if [[ $kind = short ]]; then
            signal_rank STOP "$VICTIM"
            sleep "$STOP_SHORT_S"
            signal_rank CONT "$VICTIM"
            sleep 1
            touch "$D/stop"
            if ! await_exit $(($(now_ms) + 20000)) $(seq 0 $((N - 1))); then
                case_fail "the job did not complete within 20 s of the SIGCONT"
            fi
            for ((r = 0; r < N; r++)); do
                [[ -e $D/exit.$r ]] || continue
                read -r st _ <"$D/exit.$r"
                line=$(grep -m1 "completed" "$D/out.$r")
                if ((st != 0)) || [[ -z $line ]]; then
                    case_fail "rank $r after a ${STOP_SHORT_S} s SIGSTOP: expected to complete" \
                        "and exit 0, got status $st"
                fi
            done
            SUMMARY="stopped ${STOP_SHORT_S} s, the job completed"
            SUMMARY+=" ($(grep -ho 'completed [0-9]* rounds' "$D/out.0"))"
        else
            signal_rank STOP "$VICTIM"
            T_KILL=$(now_ms) EVENT=SIGSTOP # survivors report within the timeout + REPORT_MS
            local save=$REPORT_MS
            REPORT_MS=$((LIVENESS_MS + save))
            FINISH_MS=$((LIVENESS_MS + 20000))
            await_exit $((T_KILL + FINISH_MS)) $(survivors)
            for r in $(survivors); do
                check_survivor "$r"
            done
            REPORT_MS=$save
            FINISH_MS=20000
            signal_rank KILL "$VICTIM"
        fi
    fi
    end_case
}

group() {
    case $1 in
    p2p)
        for h in return fatal; do
            kill_case recv "$h" 3 1
            kill_case anysrc "$h" 3 0
            kill_case probe "$h" 3 1
            kill_case wait_irecv "$h" 4 3
            kill_case send_full "$h" 3 2
        done ;;
    rndv)
        for h in return fatal; do
            kill_case rndv_from "$h" 3 1
            kill_case rndv_to "$h" 3 1
        done ;;
    coll)
        for h in return fatal; do
            kill_case allreduce "$h" 4 2
            kill_case barrier "$h" 4 0
            kill_case win_lock "$h" 3 2
            kill_case win_shared "$h" 3 2
            kill_case finalize "$h" 3 1
        done ;;
    stop)
        stop_case short
        stop_case long ;;
    all)
        group p2p; group rndv; group coll; group stop ;;
    *)
        echo "usage: $0 p2p|rndv|coll|stop|all | case MODE HANDLER N VICTIM"
        exit 2 ;;
    esac
}

if [[ ${1:-} = case ]]; then
    shift
    kill_case "$@"
else
    group "${1:-}"
fi
if ((${#failures[@]})); then
    echo "${#failures[@]} case(s) failed:"
    printf '  %s\n' "${failures[@]}"
    exit 1
fi
echo PASS
