# Sourced by the launcher tests. The environment (tests.cmake) gives IVCRUN, MEMBER and
# LAUNCHER_SCRATCH, a directory outside /tmp: ranks in a simulated VM see a private /tmp, so
# files the test and its ranks share live under the scratch directory.
set -u

: "${IVCRUN:?IVCRUN must name the ivcrun binary}"
SCRATCH=$(mktemp -d "${LAUNCHER_SCRATCH:-${TMPDIR:-/tmp}}/launcher.XXXXXX") || exit 1
chmod 755 "$SCRATCH"
trap 'rm -rf "$SCRATCH"' EXIT

fail() {
    echo "FAIL: $*"
    if [ -n "${LAST:-}" ]; then
        echo "--- last command: $LAST (status $RC, ${MS} ms)"
        echo "--- its stdout:"; cat "$SCRATCH/out"
        echo "--- its stderr:"; cat "$SCRATCH/err"
    fi
    exit 1
}

skip() {
    echo "SKIP: $*"
    exit 77
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run ARGS...: runs ivcrun ARGS; sets RC, MS (duration), OUT and ERR (its output).
run() {
    LAST="ivcrun $*"
    local t0
    t0=$(now_ms)
    "$IVCRUN" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
    RC=$?
    MS=$(($(now_ms) - t0))
    OUT=$(cat "$SCRATCH/out")
    ERR=$(cat "$SCRATCH/err")
}

expect_eq() { # WHAT EXPECTED GOT
    [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

expect_rc() {
    [ "$RC" = "$1" ] || fail "exit status: expected $1, got $RC"
}

expect_err() { # TEXT: ivcrun's stderr contains TEXT
    case "$ERR" in *"$1"*) ;; *) fail "stderr: expected to contain '$1', got '$ERR'" ;; esac
}

expect_within() { # MS: the last run took at most MS milliseconds
    [ "$MS" -le "$1" ] || fail "duration: expected at most $1 ms, got $MS ms"
}

# Rank-side shell snippets: a rank says it is ready (READY_FILE, in the scratch directory,
# which every VM sees), another waits for that (at most 5 s) before it acts.
export READY_FILE=$SCRATCH/ready
SAY_READY='touch "$READY_FILE"'
AWAIT_READY='i=0; while [ ! -e "$READY_FILE" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done'

# await_file PATH: waits (at most 10 s) for PATH to exist; fails if it never does.
await_file() {
    local i=0
    while [ ! -e "$1" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
    [ -e "$1" ]
}

# Skips unless ivcrun can create simulated VMs here.
need_vms() {
    run -n 1 true
    case "$ERR" in
    *"cannot create namespaces"*) skip "no simulated VMs on this machine: $ERR" ;;
    esac
    expect_rc 0
}
