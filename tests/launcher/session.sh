# Each rank in a session of its own, as Hydra starts them (issue 27): with the scheduler's
# autogroups every session gets its own share of the CPUs, so on a loaded host a job of N
# ranks gets N shares, not one. Checked in simulated VMs (one or several ranks per VM) and
# with plain processes, stdin not a terminal: every rank leads its session, and every
# rank's autogroup differs from the others' and from the caller's.
. "$(dirname "$0")/lib.sh"

[ -r /proc/self/autogroup ] || skip "this kernel has no scheduler autogroups (/proc/self/autogroup)"
mine=$(cut -d' ' -f1 /proc/self/autogroup)
# A rank prints: its rank, whether it leads its session (session id == pid), its autogroup.
probe='read -r _ _ _ _ _ sid _ </proc/self/stat; echo "$PMI_RANK $([ "$sid" = $$ ] && echo leader || echo member) $(cut -d" " -f1 /proc/self/autogroup)"'
for mode in "--vms 4" "--vms 1" "--no-ns"; do
    run -n 4 $mode sh -c "exec sh -c '$probe'" </dev/null
    expect_rc 0
    [ "$(echo "$OUT" | wc -l)" = 4 ] || fail "$mode: expected 4 lines, got '$OUT'"
    echo "$OUT" | grep -qv " leader " && fail "$mode: every rank should lead its session: $OUT"
    groups=$(echo "$OUT" | awk '{print $3}' | sort -u | wc -l)
    [ "$groups" = 4 ] || fail "$mode: expected 4 different autogroups, got $groups: $OUT"
    echo "$OUT" | grep -q " $mine\$" && fail "$mode: a rank shares the caller's autogroup $mine: $OUT"
done
echo PASS
