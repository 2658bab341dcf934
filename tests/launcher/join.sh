# ivcrun --join: part of a larger job on an existing region (e.g. shared with QEMU guests).
. "$(dirname "$0")/lib.sh"
: "${MEMBER:?MEMBER must name the launcher_member helper}"
region=/dev/shm/ivc-launcher-join-$$
trap 'rm -rf "$SCRATCH" "$region"' EXIT

# Usage errors.
run -n 2 --join "$region" --world 4 true
expect_rc 2
expect_err "--join needs --job and --world"
run -n 2 --job 3 true
expect_rc 2
expect_err "--job, --world and --first-rank go with --join"
run -n 3 --join "$region" --job 9 --world 4 --first-rank 2 true
expect_rc 2
expect_err "ranks 2..4 do not fit a job of 4 ranks"
run -n 1 --join "$SCRATCH/none" --job 9 --world 4 true
expect_rc 1
expect_err "--join $SCRATCH/none: No such file or directory"

# A zero-filled file: the first launch formats it. Global ranks and size reach the ranks.
truncate -s 16M "$region" || fail "cannot create $region"
for mode in --no-ns ""; do
    [ -z "$mode" ] && need_vms
    run -n 2 $mode --join "$region" --job 9 --world 4 --first-rank 2 -l \
        sh -c 'echo "rank $PMI_RANK of $PMI_SIZE job $IVC_JOB region $IVC_REGION"'
    expect_rc 0
    case "$OUT" in *"[2] rank 2 of 4 job 9 region $region"*) ;; *) fail "rank 2: got '$OUT'" ;; esac
    case "$OUT" in *"[3] rank 3 of 4 job 9 region $region"*) ;; *) fail "rank 3: got '$OUT'" ;; esac
    [ -e "$region" ] || fail "ivcrun ($mode) removed a region it joined"
done

# Outside /dev/shm, simulated VMs cannot see the file.
cp "$region" "$SCRATCH/region"
run -n 1 --join "$SCRATCH/region" --job 9 --world 4 true
expect_rc 1
expect_err "simulated VMs can share only a region directly in /dev/shm"

# The region is now job 9's: another job id is refused, naming both.
run -n 1 --no-ns --join "$region" --job 10 --world 4 true
expect_rc 1
expect_err "belongs to job 9"

# Two launches make one job; a failure in one is reported with its global rank.
"$IVCRUN" -n 2 --join "$region" --job 9 --world 4 "$MEMBER" all finalize \
    >"$SCRATCH/first.out" 2>&1 &
run -n 2 --join "$region" --job 9 --world 4 --first-rank 2 "$MEMBER" 3 join
wait $! || fail "the first launch failed: $(cat "$SCRATCH/first.out")"
expect_rc 1
expect_err "ivcrun: rank 3 ("
expect_err "exited without calling MPI_Finalize"
echo PASS
