# ivcrun -v: one line on the job and its VMs from ivcrun, and from each MPI rank at start-up
# where it runs and which channel reaches each peer:
#   ivc: rank R on vmK (host H, region FILE): shm A-B, net C-D
. "$(dirname "$0")/lib.sh"
: "${COMPAT_RANK:?COMPAT_RANK must name the launcher_compat_rank program}"
need_vms

# Without -v, nothing of it.
run -n 2 "$COMPAT_RANK" quiet
expect_rc 0
case "$ERR" in *"ivc: rank"*) fail "a map line without -v: $ERR" ;; esac

run -v -n 4 --vms 2 "$COMPAT_RANK" map
expect_rc 0
job=$(printf '%s\n' "$ERR" | sed -n 's/^ivcrun: job \([0-9]*\): 4 ranks in 2 simulated VMs on 1 simulated host, .*/\1/p')
[ -n "$job" ] || fail "no job line in: $ERR"
region=/dev/shm/ivc-$job
for want in "ivcrun: vm0 (host 0): ranks 0-1" "ivcrun: vm1 (host 0): ranks 2-3" \
    "ivc: rank 0 on vm0 (host 0, region $region): shm 1-3" \
    "ivc: rank 1 on vm0 (host 0, region $region): shm 0,2-3" \
    "ivc: rank 2 on vm1 (host 0, region $region): shm 0-1,3" \
    "ivc: rank 3 on vm1 (host 0, region $region): shm 0-2"; do
    printf '%s\n' "$ERR" | grep -qxF "$want" || fail "-v: expected a line '$want' in: $ERR"
done

# Two simulated hosts: the peers on the other host go over the network channel.
if [ "$(id -u)" = 0 ]; then
    run -v -n 4 --hosts 2 "$COMPAT_RANK" map
    expect_rc 0
    for want in "ivc: rank 0 on vm0 (host 0, region /dev/shm/ivc-[0-9]*-h0): shm 1, net 2-3" \
        "ivc: rank 3 on vm1 (host 1, region /dev/shm/ivc-[0-9]*-h1): shm 2, net 0-1"; do
        printf '%s\n' "$ERR" | grep -qx "$want" || fail "-v --hosts 2: expected '$want' in: $ERR"
    done
else
    echo "note: not root: the network channel's line not checked"
fi
echo PASS
