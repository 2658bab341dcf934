# Simulated VMs: own hostname, pid, net, /dev/shm and /tmp; the region file is the only
# thing they share; ranks are placed in blocks.
. "$(dirname "$0")/lib.sh"
need_vms

run -n 2 --vms 2 sh -c 'echo "$PMI_RANK $IVC_VM $(hostname)"'
expect_rc 0
expect_eq "rank vm hostname" "0 0 vm0
1 1 vm1" "$(echo "$OUT" | sort)"

run -n 4 --vms 2 sh -c 'echo "$PMI_RANK $PMI_SIZE $IVC_VM $(hostname)"'
expect_rc 0
expect_eq "block placement" "0 4 0 vm0
1 4 0 vm0
2 4 1 vm1
3 4 1 vm1" "$(echo "$OUT" | sort)"

# /dev/shm holds only the region, of the size the job made; IVC_REGION names it.
run -n 2 --region-size 4M sh -c 'ls -A /dev/shm; basename "$IVC_REGION"; stat -c %s "$IVC_REGION"'
expect_rc 0
region=$(echo "$OUT" | sed -n 2p)
case "$region" in ivc-[0-9]*) ;; *) fail "IVC_REGION: expected /dev/shm/ivc-<job>, got '$region'" ;; esac
expect_eq "/dev/shm listing, region name, size (each VM)" "4194304
4194304
$region
$region
$region
$region" "$(echo "$OUT" | sort)"

# Loopback only, and up.
if command -v ip >/dev/null; then
    run -n 1 ip -o link
    expect_rc 0
    expect_eq "interfaces" "lo" "$(echo "$OUT" | awk -F': ' '{print $2}')"
    case "$OUT" in *"<LOOPBACK,UP"*) ;; *) fail "lo: expected UP, got '$OUT'" ;; esac
else
    echo "note: no ip command; interfaces not checked"
fi

# A VM resolves its own host name (an /etc/hosts of its own, as a machine's), not another
# VM's (without --net they have no network between them), and the host's file is unchanged.
hosts_before=$(md5sum </etc/hosts)
run -n 2 --vms 2 sh -c 'getent hosts "$(hostname)" | tr -s " \t" " "; getent hosts vm$((1 - IVC_VM)) || echo "no vm$((1 - IVC_VM))"'
expect_rc 0
expect_eq "names resolved in each VM" "127.0.1.1 vm0
127.0.1.1 vm1
no vm0
no vm1" "$(echo "$OUT" | sort)"
[ "$(md5sum </etc/hosts)" = "$hosts_before" ] || fail "the host's /etc/hosts changed"

# --net: the VMs are on a bridge and every VM resolves every VM's name to its address there;
# a TCP connection by name reaches the other VM (what MPI_Comm_join programs do).
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v python3 >/dev/null; then
    run -n 2 --vms 2 --net python3 -c '
import os, socket, sys, time
vm = int(os.environ["IVC_VM"])
say = lambda *a: os.write(1, (" ".join(map(str, a)) + "\n").encode())  # one write per line
say(vm, socket.gethostbyname("vm0"), socket.gethostbyname("vm1"))
if vm == 0:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((socket.gethostname(), 47123)); s.listen(1)
    c, peer = s.accept(); say(vm, "accepted from", peer[0], c.recv(16).decode())
else:
    for _ in range(100):
        try:
            c = socket.create_connection(("vm0", 47123)); break
        except OSError:
            time.sleep(0.1)
    c.sendall(b"hello")'
    expect_rc 0
    expect_eq "--net: names and a connection by name" "0 10.77.0.1 10.77.0.2
0 accepted from 10.77.0.2 hello
1 10.77.0.1 10.77.0.2" "$(echo "$OUT" | sort)"
else
    echo "note: not root, or no ip/python3: --net names not checked"
fi

# A pid namespace whose pid 1 is the VM's init; the rank's pid is small.
run -n 2 sh -c 'echo "$(cat /proc/1/comm) $$"'
expect_rc 0
expect_eq "pid 1 and rank pid" "ivcrun-init 2
ivcrun-init 2" "$OUT"

# /tmp: what vm0 writes there, vm1 and the host do not see. The ranks meet in $SCRATCH.
marker=/tmp/ivcrun-isolation-$$
rm -f "$marker"
run -n 2 sh -c '
if [ "$PMI_RANK" = 0 ]; then
    echo vm0 > '"$marker"' && touch '"$SCRATCH"'/written && echo "vm0 wrote"
else
    i=0; while [ ! -e '"$SCRATCH"'/written ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
    [ -e '"$SCRATCH"'/written ] || { echo "vm0 never wrote"; exit 1; }
    if [ -e '"$marker"' ]; then echo "vm1 sees it"; else echo "vm1 does not see it"; fi
fi'
expect_rc 0
expect_eq "vm1's view of vm0's /tmp file" "vm0 wrote
vm1 does not see it" "$(echo "$OUT" | sort)"
[ -e "$marker" ] && { rm -f "$marker"; fail "the host sees $marker written in vm0"; }

# Mounts made in a VM do not reach the host.
run -n 1 true
[ "$(grep -c " /dev/shm/ivc-" /proc/self/mounts)" = 0 ] ||
    fail "host mounts: expected no region bind mount, got $(grep " /dev/shm/ivc-" /proc/self/mounts)"
echo PASS
