#!/bin/bash
# IVC inside QEMU guests against the same guests over their virtual network.
#
#   bench/vm/run.sh [--build DIR] [-m MAX] [-i SCALE]
#
# Boots two pairs of guests (software emulation unless KVM works), each guest with the
# job's region as an ivshmem-plain device and a virtio-net NIC joined to its partner by a
# QEMU socket netdev on host loopback. Pair 1 runs bench/lat (IVC, one rank per guest),
# then bench/vm/tcp's ping-pong over virtio-net; pair 2 bench/bw, then tcp's stream.
# Prints both and their ratio per size. Under emulation absolute times mean nothing; the
# ratio says how much the ivshmem path saves over the guests' network path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build max=256K scale=0.05
while (($#)); do
    case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    -m) max=$2; shift 2 ;;
    -i) scale=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [-m MAX] [-i SCALE]" >&2; exit 2 ;;
    esac
done
bin=$build/bin
work=$(mktemp -d /tmp/ivc-vmbench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work" /dev/shm/ivc-vmbench-$$-*' EXIT
for p in lat bw; do "$bin/mpicc" -O2 -o "$work/$p" "$root/bench/$p.c"; done
cc -O2 -o "$work/tcp" "$here/tcp.c"
"$bin/ivc-vm-image" -o "$work/img" "$work/lat" "$work/bw" "$work/tcp" >/dev/null
size=$("$bin/ivc-info" --region-size 2)

pair() { # kind port
    local kind=$1 port=$2 region=/dev/shm/ivc-vmbench-$$-$1 job=$((RANDOM + 1))
    local common="ivc.size=2 ivc.job=$job ivc.prog=$kind,-m,$max,-i,$scale"
    "$bin/ivc-vm" --image "$work/img" --log "$work/$kind-0.log" --region "$region" \
        --region-size "$((size >> 20))M" --net "listen=127.0.0.1:$port" --timeout 1200 -- \
        ivc.ranks=0 $common ivc.ip=10.77.0.1/24 ivc.cmd=tcp,server,5000,$kind,-m,$max,-i,$scale &
    sleep 1 # the listening side of the socket netdev first
    "$bin/ivc-vm" --image "$work/img" --log "$work/$kind-1.log" --region "$region" \
        --region-size "$((size >> 20))M" --net "connect=127.0.0.1:$port" --timeout 1200 -- \
        ivc.ranks=1 $common ivc.ip=10.77.0.2/24 \
        ivc.cmd=tcp,client,10.77.0.1,5000,$kind,-m,$max,-i,$scale
    wait
    grep -q "ivc-guest: done 0" "$work/$kind-0.log" && grep -q "ivc-guest: done 0" "$work/$kind-1.log" ||
        { echo "vm bench: $kind failed:"; cat "$work/$kind-0.log" "$work/$kind-1.log"; exit 1; }
}
pair lat $((20000 + $$ % 10000))
pair bw $((30000 + $$ % 10000))

# Rows "size value" of IVC (rank 0's output) and TCP (the client's), joined by size.
rows() { sed -n "$2" "$1" | awk '$1 ~ /^[0-9]+$/ {print $1, $2}'; }
report() { # kind unit better
    local kind=$1
    rows "$work/$kind-0.log" 's/^\[0\] //p' | sort -k1,1 >"$work/$kind.ivc"
    rows "$work/$kind-1.log" '/^# tcp/,/ivc-guest: cmd/p' | sort -k1,1 >"$work/$kind.tcp"
    echo "# $kind in guests: IVC over ivshmem vs TCP over virtio-net ($2; ratio = $3)"
    printf '%-10s %14s %14s %8s\n' size ivc tcp ratio
    join "$work/$kind.ivc" "$work/$kind.tcp" | sort -n | awk -v k="$kind" '{
        r = (k == "lat") ? $3 / $2 : $2 / $3
        printf "%-10s %14.2f %14.2f %7.1fx\n", $1, $2, $3, r }'
}
report lat "one-way latency, us" "TCP / IVC"
report bw "bandwidth, MB/s" "IVC / TCP"
