# SIGTERM/SIGINT to ivcrun: forwarded to the ranks, region removed, exit 128+signal. SIGKILL
# to ivcrun: the VMs die with it.
. "$(dirname "$0")/lib.sh"

# start ARGS...: runs ivcrun in the background until its ranks have all printed a line.
start() {
    LAST="ivcrun $*"
    "$IVCRUN" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" &
    PID=$!
    for _ in $(seq 100); do
        [ "$(wc -l <"$SCRATCH/out")" -ge 2 ] && return 0
        sleep 0.05
    done
    fail "ranks did not start"
}

# finish: waits for ivcrun; sets RC, MS, OUT, ERR.
finish() {
    local t0
    t0=$(now_ms)
    wait "$PID" 2>/dev/null
    RC=$?
    MS=$(($(now_ms) - t0))
    OUT=$(cat "$SCRATCH/out")
    ERR=$(cat "$SCRATCH/err")
}

tag="6$$.25" # a sleep argument that names this test's ranks
for mode in "" --no-ns; do
    for sig in TERM INT; do
        start -n 2 $mode sh -c "echo \$IVC_REGION; exec sleep $tag"
        kill -s $sig "$PID"
        finish
        num=$(kill -l $sig)
        expect_rc $((128 + num))
        expect_err "ivcrun: received signal $num"
        expect_within 5000
        region=$(head -n 1 "$SCRATCH/out")
        [ -e "$region" ] && fail "$region left behind after SIG$sig ($mode)"
        pgrep -f "sleep $tag" >/dev/null && fail "ranks survived SIG$sig ($mode)"
    done
done

# The signal reaches the ranks themselves (through the VM inits), not only a SIGKILL later.
for mode in "" --no-ns; do
    start -n 2 $mode bash -c 'trap "echo got TERM \$PMI_RANK; exit 0" TERM; echo up; sleep 30 & wait'
    kill -TERM "$PID"
    finish
    expect_rc 143
    expect_eq "ranks' view of the forwarded SIGTERM ($mode)" "got TERM 0
got TERM 1" "$(grep got "$SCRATCH/out" | sort)"
done

# A rank that shrugs SIGTERM off still goes, a second later.
start -n 2 sh -c "trap '' TERM; echo; exec sleep $tag"
kill -TERM "$PID"
finish
expect_rc 143
[ "$MS" -ge 900 ] || fail "duration: expected about 1 s of grace before SIGKILL, got $MS ms"
expect_within 5000
pgrep -f "sleep $tag" >/dev/null && fail "a rank ignoring SIGTERM survived"

# ivcrun killed outright: PR_SET_PDEATHSIG takes the VMs (and plain ranks) down with it.
for mode in "" --no-ns; do
    start -n 2 $mode sh -c "echo \$IVC_REGION; exec sleep $tag"
    kill -KILL "$PID"
    finish
    rm -f "$(head -n 1 "$SCRATCH/out")"
    for _ in $(seq 40); do
        pgrep -f "sleep $tag" >/dev/null || break
        sleep 0.05
    done
    pgrep -f "sleep $tag" >/dev/null && fail "ranks outlived a killed ivcrun ($mode)"
done
echo PASS
