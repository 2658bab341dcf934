# ivcrun --migrate: VMs move between simulated hosts while tests/migrate/storm.c runs.
#   options  command-line errors
#   storm    4 ranks in 4 VMs on 2 hosts; two VMs bounce between the hosts 24 times in all
#            while every rank streams mixed messages to every other (ANY_SOURCE receives,
#            synchronous sends, rendezvous up to 1 MiB, Allreduce each round)
#   rma      the storm of 4 ranks plus a passive-target epoch on every other rank's window
#            each round (exclusive and shared locks, accumulate, put, flush, get), 20 moves
#   big      2 ranks on 2 hosts; one VM joins its peer's host and leaves again, 6 times,
#            while 64 MiB messages are in flight both ways
#   hostmove 2 ranks on 2 hosts; the moves are ordered by `ivc-host move` (the host
#            administrator's tool, as for real guests) instead of ivcrun: rank 0 joins its
#            peer's host, then goes back
#   together 4 ranks in 4 VMs on 2 hosts; `ivc-host move` orders ranks 0 and 1 at once to
#            host 1 and back, 8 times: they arrive together (each may say HELLO to the
#            other), while the storm runs
#   die-drain, die-moved, die-hello
#            a VM that dies mid-switch: 4 ranks in 4 VMs on 2 hosts; VM 1 (rank 1) is
#            ordered to host 1 and kills itself at one point of its switch
#            (IVC_MOVE_TEST_DIE: FLUSHes sent / old slot MOVED / HELLOs sent) while every
#            other rank exchanges checked messages with it (tests/migrate/die.c). The
#            survivors must report rank 1, never hang: under MPI_ERRORS_RETURN each gets
#            MPI_ERR_PROC_FAILED and goes on with the others (--disable-auto-cleanup);
#            under MPI_ERRORS_ARE_FATAL the job ends naming rank 1, with and without
#            --disable-auto-cleanup. ivcrun's --timeout bounds a hang (exit status 124).
#   finalize a migration during MPI_Finalize: tests/migrate/fin.c holds rank 1's move up
#            (a synchronous send its old neighbour matches late) until the ranks of the
#            host it moves to are in MPI_Finalize, 3 runs; then the storm ends while VMs 1
#            and 3 are ordered back and forth around its end, so that orders land before,
#            during and after the ranks' MPI_Finalize. Status 0 and every message checked.
#   revisit  VMs come back to regions they left, 60 moves in regions that hold only a few
#            receive blocks (2 ranks in 8 MiB, then 4 ranks in 16 MiB): a rank that comes
#            back must take its block of the last visit again, or the region runs out
. "$(dirname "$0")/../launcher/lib.sh"
: "${STORM:?STORM must name the migrate_storm program}"

expect_out() { # TEXT: ivcrun's stdout contains TEXT
    case "$OUT" in *"$1"*) ;; *) fail "stdout: expected to contain '$1', got '$OUT'" ;; esac
}

# bouncing_storm ROUNDS SECONDS [MODE]: 4 ranks in 4 VMs on 2 hosts; VMs 1 and 3 each
# cross to the other host and back every second, ROUNDS times (4 moves a round), while
# storm.c runs SECONDS in MODE; every message checked, at least 20 moves seen.
bouncing_storm() {
    need_vms
    [ "$(id -u)" = 0 ] || skip "the simulated hosts' network needs root"
    local args="" t
    for t in $(seq 1 "$1"); do
        args="$args --migrate 1:1@$t.0 --migrate 3:0@$t.25 --migrate 1:0@$t.5 --migrate 3:1@$t.75"
    done
    # shellcheck disable=SC2086
    run -n 4 --hosts 2 --vms-per-host 2 --timeout 240 $args "$STORM" "$2" ${3:-}
    expect_rc 0
    expect_out ", 0 errors"
    local n
    n=$(moves_seen)
    [ "$n" -ge 20 ] || fail "expected at least 20 moves, saw $n"
    echo "$OUT"
    printf '%s\n' "$ERR" | grep "moved from host" | sed -n '1,4p;$p'
}

# die POINT: the VM that dies mid-switch, at POINT (see the head of this file).
die() {
    need_vms
    [ "$(id -u)" = 0 ] || skip "the simulated hosts' network needs root"
    : "${DIE:?DIE must name the migrate_die program}"
    export IVC_MOVE_TEST_DIE=$1
    local job="-n 4 --hosts 2 --vms-per-host 2 --timeout 60 --migrate 1:1@1" r i
    # Three times: which channel sees the death first (the survivor's own liveness check,
    # the launcher's record, the network) varies from run to run, and each must fail what
    # is pending on the other channel too.
    for i in 1 2 3; do
        # shellcheck disable=SC2086
        run $job --disable-auto-cleanup "$DIE" return
        [ "$RC" != 124 ] || fail "the survivors hung"
        expect_rc 137 # the dead rank's status, at the end
        # "; the other ranks go on" follows unless the survivors, which may hear of the
        # death first (through the network), already ended when ivcrun reaps rank 1.
        expect_err "ivcrun: rank 1 (vm1) killed by signal 9 (Killed)"
        case "$ERR" in *"killed by signal 9 (Killed); stopping"*) fail "ivcrun stopped the survivors" ;; esac
        case "$ERR" in *"vm1 moved from host"*) fail "ivcrun reported a move that never ended" ;; esac
        for r in 0 2 3; do
            expect_out "rank $r: rank 1 failed (a peer process failed"
        done
        expect_out "3 survivors went on"
        case "$ERR" in *"exited with status"*) fail "a survivor failed" ;; esac
        echo "(MPI_ERRORS_RETURN, run $i: $MS ms in all, the move ordered at 1 s)"
    done
    echo "$OUT"
    for cleanup in --disable-auto-cleanup ""; do
        # shellcheck disable=SC2086
        run $job $cleanup "$DIE" fatal
        [ "$RC" != 124 ] || fail "the survivors hung (MPI_ERRORS_ARE_FATAL${cleanup:+, $cleanup})"
        [ "$RC" != 0 ] || fail "MPI_ERRORS_ARE_FATAL: the job ended with status 0"
        case "$ERR" in
        *"ivcrun: rank 1 (vm1) killed by signal 9"*"stopping the other ranks"*) ;;
        *"rank 1 "*"MPI_ERRORS_ARE_FATAL: ending the job"*) ;;
        *) fail "MPI_ERRORS_ARE_FATAL: no message naming rank 1" ;;
        esac
        echo "(MPI_ERRORS_ARE_FATAL${cleanup:+, $cleanup}: status $RC after $MS ms)"
    done
}

# start_ordered IVCRUN-ARGS...: starts a job in the background whose moves are ordered by
# `ivc-host move` (the host administrator's tool, as for real guests) instead of ivcrun;
# sets REGION0 and REGION1, its hosts' regions. A --migrate long after the end puts the job
# in migration mode (and keeps the host regions' names). The storm must outlast every
# order on a loaded machine: a rank in MPI_Finalize takes none.
start_ordered() {
    need_vms
    [ "$(id -u)" = 0 ] || skip "the simulated hosts' network needs root"
    : "${HOST_TOOL:?HOST_TOOL must name the ivc-host program}"
    "$IVCRUN" -v --timeout 240 --migrate 1:1@1000 "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" &
    JOB_PID=$!
    REGION0=""
    for _ in $(seq 100); do
        REGION0=$(sed -n 's/.*, region \(\/dev\/shm\/ivc-[0-9]*-h0\).*/\1/p' "$SCRATCH/err" | head -n 1)
        [ -n "$REGION0" ] && break
        sleep 0.1
    done
    [ -n "$REGION0" ] || { kill "$JOB_PID"; fail "ivcrun -v printed no region: $(cat "$SCRATCH/err")"; }
    REGION1=${REGION0%-h0}-h1
}

# host_move REGION RANKS HOST: ivc-host move, retried while the ranks have not yet joined
# REGION (they may still be on their way there).
host_move() {
    for _ in $(seq 100); do
        "$HOST_TOOL" move --region "$1" --ranks "$2" --to "$3" --wait 60 >"$SCRATCH/move.out" 2>&1 &&
            return 0
        grep -q "is not running\|cannot attach" "$SCRATCH/move.out" || break
        sleep 0.1
    done
    kill "$JOB_PID"
    fail "ivc-host move --region $1 --ranks $2 --to $3: $(cat "$SCRATCH/move.out")"
}

end_ordered() {
    wait "$JOB_PID"
    RC=$? OUT=$(cat "$SCRATCH/out") ERR=$(cat "$SCRATCH/err") LAST="ivcrun (ordered by ivc-host move)"
    expect_rc 0
    expect_out ", 0 errors"
}

moves_seen() { printf '%s\n' "$ERR" | grep -c "moved from host"; }

case "${1:-}" in
options)
    run -n 2 --migrate 1:0@1 true
    expect_rc 2
    expect_err "--migrate needs --hosts 2 or more"
    run -n 2 --hosts 2 --migrate 1-0@1 true
    expect_rc 2
    expect_err "--migrate needs VM:HOST@SECONDS"
    run -n 2 --hosts 2 --migrate 5:0@1 true
    expect_rc 2
    expect_err "the job has VMs 0..1 and hosts 0..1"
    ;;
storm)
    bouncing_storm 6 9
    ;;
rma)
    bouncing_storm 5 7 RMA
    ;;
big)
    need_vms
    [ "$(id -u)" = 0 ] || skip "the simulated hosts' network needs root"
    args=""
    for t in 1 3 5 7 9 11; do
        args="$args --migrate 1:0@$t --migrate 1:1@$t.8"
    done
    # shellcheck disable=SC2086
    run -n 2 --hosts 2 --timeout 240 $args "$STORM" 13 BIG
    expect_rc 0
    expect_out ", 0 errors"
    n=$(moves_seen)
    [ "$n" -ge 10 ] || fail "expected at least 10 moves, saw $n"
    echo "$OUT"
    printf '%s\n' "$ERR" | grep "moved from host"
    ;;
hostmove)
    start_ordered -n 2 --hosts 2 "$STORM" 20
    host_move "$REGION0" 0 1
    grep -q "rank 0 left after" "$SCRATCH/move.out" || fail "no departure: $(cat "$SCRATCH/move.out")"
    cat "$SCRATCH/move.out"
    host_move "$REGION1" 0 0 # retried until rank 0 has joined host 1's region
    cat "$SCRATCH/move.out"
    end_ordered
    echo "$OUT"
    ;;
together)
    # Two ranks ordered at once arrive together: each may say HELLO to the other, and only
    # one of them may act as the resident that clears the pair's inboxes.
    export IVC_DEBUG=1
    start_ordered -n 4 --hosts 2 --vms-per-host 2 "$STORM" 14
    for _ in $(seq 8); do
        host_move "$REGION0" 0,1 1
        host_move "$REGION1" 0,1 0
    done
    end_ordered
    n=$(printf '%s\n' "$ERR" | grep -c "migration: move [0-9]* to .* done in")
    [ "$n" = 32 ] || fail "expected 32 moves done (2 ranks, 16 orders), saw $n"
    ties=$(printf '%s\n' "$ERR" | grep -c "which arrived with this rank")
    echo "$OUT ($n moves done; the two ranks said HELLO to each other $ties times)"
    ;;
finalize)
    need_vms
    [ "$(id -u)" = 0 ] || skip "the simulated hosts' network needs root"
    : "${FIN:?FIN must name the migrate_fin program}"
    for i in 1 2 3; do
        run -n 4 --hosts 2 --vms-per-host 2 --timeout 120 --migrate 1:1@1 "$FIN"
        expect_rc 0
        for r in 0 1 2 3; do
            expect_out "fin: rank $r entered MPI_Finalize"
        done
        n=$(printf '%s\n' "$OUT" | grep -c ": 0 errors$")
        [ "$n" = 4 ] || fail "expected 4 ranks with 0 errors, got $n"
        expect_err "ivcrun: vm1 moved from host 0 to host 1 at"
        printf '%s\n' "$ERR" | grep "moved from host"
    done
    echo "$OUT"
    args=""
    for t in 1.6 1.7 1.8 1.9 2.0 2.1 2.2 2.3 2.4 2.5 2.6; do
        args="$args --migrate 1:$(((${t#*.} + 1) % 2))@$t --migrate 3:$((${t#*.} % 2))@$t"
    done
    for i in 1 2; do
        # shellcheck disable=SC2086
        run -n 4 --hosts 2 --vms-per-host 2 --timeout 120 $args "$STORM" 2
        expect_rc 0
        expect_out ", 0 errors"
        echo "$OUT"
        printf '%s\n' "$ERR" | grep "ivcrun: vm"
    done
    ;;
revisit)
    need_vms
    [ "$(id -u)" = 0 ] || skip "the simulated hosts' network needs root"
    # 2 ranks: VM 1 joins host 0 and goes back, 30 times; a block is about 1.2 MiB.
    args=""
    for i in $(seq 0 29); do
        t=$((500 + i * 200))
        args="$args --migrate 1:0@$((t / 1000)).$(printf %03d $((t % 1000)))"
        t=$((t + 100))
        args="$args --migrate 1:1@$((t / 1000)).$(printf %03d $((t % 1000)))"
    done
    # shellcheck disable=SC2086
    run -n 2 --hosts 2 --timeout 240 --region-size 8M $args "$STORM" 14
    expect_rc 0
    expect_out ", 0 errors"
    n=$(moves_seen)
    [ "$n" -ge 50 ] || fail "expected at least 50 moves, saw $n"
    echo "$OUT ($n moves, 2 ranks, 8 MiB regions)"
    # 4 ranks, 2 per host: VMs 1 and 3 cross and come back, 15 times each (blocks of
    # about 3.5 MiB: a 16 MiB region holds four).
    args=""
    for i in $(seq 0 14); do
        t=$((500 + i * 400))
        for m in 1:1@0 3:0@100 1:0@200 3:1@300; do
            u=$((t + ${m#*@}))
            args="$args --migrate ${m%@*}@$((u / 1000)).$(printf %03d $((u % 1000)))"
        done
    done
    # shellcheck disable=SC2086
    run -n 4 --hosts 2 --vms-per-host 2 --timeout 240 --region-size 16M $args "$STORM" 16
    expect_rc 0
    expect_out ", 0 errors"
    n=$(moves_seen)
    [ "$n" -ge 50 ] || fail "expected at least 50 moves, saw $n"
    echo "$OUT ($n moves, 4 ranks, 16 MiB regions)"
    ;;
die-drain | die-moved | die-hello)
    die "${1#die-}"
    ;;
*)
    echo "usage: migrate.sh options|storm|rma|big|hostmove|die-drain|die-moved|die-hello|finalize|revisit" >&2
    exit 2
    ;;
esac
echo PASS
