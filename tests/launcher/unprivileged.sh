# Without root, ivcrun builds its VMs in a user namespace, or runs plain processes after
# saying so once; either way the job runs.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" = 0 ]; then
    command -v setpriv >/dev/null || skip "running as root and setpriv is missing"
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    bin=$IVCRUN
    if ! as_nobody test -x "$bin"; then
        # The build tree is closed to nobody: run a copy.
        cp "$IVCRUN" "$SCRATCH/ivcrun" 2>/dev/null && bin=$SCRATCH/ivcrun
        as_nobody test -x "$bin" || {
            bin=$(mktemp -d /tmp/ivcrun-unpriv.XXXXXX)/ivcrun
            chmod 755 "$(dirname "$bin")"
            cp "$IVCRUN" "$bin"
            trap 'rm -rf "$SCRATCH" "$(dirname "$bin")"' EXIT
        }
    fi
    uid=65534
else
    as_nobody() { "$@"; }
    bin=$IVCRUN
    uid=$(id -u)
fi

LAST="(uid $uid) ivcrun -n 2 --vms 2"
as_nobody "$bin" -n 2 --vms 2 sh -c 'echo "$PMI_RANK $(hostname) $(id -u) $IVC_REGION"' \
    >"$SCRATCH/out" 2>"$SCRATCH/err"
RC=$?
MS=0
OUT=$(cat "$SCRATCH/out")
ERR=$(cat "$SCRATCH/err")
expect_rc 0
region=$(echo "$OUT" | head -n 1 | awk '{print $4}')
[ -e "$region" ] && fail "$region left behind"
case "$ERR" in
"")
    # Simulated VMs in a user namespace; ranks keep their uid.
    expect_eq "ranks (user namespace)" "0 vm0 $uid $region
1 vm1 $uid $region" "$(echo "$OUT" | sort)"
    echo "ran in user namespaces"
    ;;
*"cannot create namespaces"*)
    expect_eq "fallback message" \
        "ivcrun: cannot create namespaces (" "$(echo "$ERR" | cut -c1-34)"
    expect_eq "fallback message lines" 1 "$(echo "$ERR" | wc -l)"
    expect_err "); running 2 ranks as plain processes"
    host=$(hostname)
    expect_eq "ranks (plain)" "0 $host $uid $region
1 $host $uid $region" "$(echo "$OUT" | sort)"
    echo "ran as plain processes"
    ;;
*)
    fail "unexpected stderr: '$ERR'"
    ;;
esac

# Force the fallback: as nobody inside a user namespace whose own limit allows no further
# user namespaces, both ways to namespaces fail.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v nsenter >/dev/null; then
    unshare -U sleep 30 &
    holder=$!
    for _ in $(seq 100); do
        [ "$(readlink /proc/$holder/ns/user)" != "$(readlink /proc/self/ns/user)" ] && break
        sleep 0.02
    done
    echo "0 0 65536" >/proc/$holder/uid_map && echo "0 0 65536" >/proc/$holder/gid_map ||
        fail "cannot map ids of the helper user namespace"
    LAST="(nobody, no namespaces left) ivcrun -n 2"
    nsenter -t $holder -U sh -c 'echo 0 >/proc/sys/user/max_user_namespaces &&
        exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"' sh \
        "$bin" -n 2 sh -c 'echo "$PMI_RANK $(hostname)"' >"$SCRATCH/out" 2>"$SCRATCH/err"
    RC=$?
    kill $holder
    OUT=$(cat "$SCRATCH/out")
    ERR=$(cat "$SCRATCH/err")
    expect_rc 0
    expect_eq "fallback message" "ivcrun: cannot create namespaces (" "$(echo "$ERR" | cut -c1-34)"
    expect_err "); running 2 ranks as plain processes"
    expect_eq "fallback message lines" 1 "$(echo "$ERR" | wc -l)"
    host=$(hostname)
    expect_eq "ranks (forced fallback)" "0 $host
1 $host" "$(echo "$OUT" | sort)"
else
    echo "note: not root; the forced fallback is not checked"
fi
echo PASS
