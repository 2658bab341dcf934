#!/bin/bash
# The demo in real VMs: two QEMU guests (KVM when it works, software emulation otherwise)
# attached to one IVC region, one rank of examples/vm_demo in each.
#   examples/qemu_demo.sh [PREFIX]     (PREFIX: an IVC install, default ./install)
# Steps, as a user would take them by hand:
#   1. ivc-host creates and formats the job's region and prints the QEMU arguments;
#   2. ivc-vm-image builds a guest (Debian's kernel, busybox, the program, libmpi);
#   3. ivc-vm boots each guest with -device ivshmem-plain on the region; inside, the
#      rank starts with only PMI_RANK, PMI_SIZE and IVC_JOB set and finds the region
#      as the ivshmem device's BAR2;
#   4. ivc-host sees every rank finalize and removes the region.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(cd "${1:-install}" && pwd)
work=$(mktemp -d /tmp/ivc-qemu-demo.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
job=$((RANDOM + 1))

"$prefix/bin/mpicc" -O2 -o "$work/vm_demo" examples/vm_demo.c
echo "== ivc-host -n 2 -j $job"
"$prefix/bin/ivc-host" -n 2 -j "$job" > "$work/host.log" &
host=$!
until grep -q "ivc-host: ready" "$work/host.log"; do sleep 0.1; done
sed '/ivc-host: ready/d' "$work/host.log"
echo "== ivc-vm-image -o $work/image vm_demo"
"$prefix/bin/ivc-vm-image" -o "$work/image" "$work/vm_demo"
echo "== booting 2 guests"
for r in 0 1; do
    "$prefix/bin/ivc-vm" --image "$work/image" --log "$work/guest$r.log" \
        --region "/dev/shm/ivc-$job" -- ivc.host=guest$r ivc.ranks=$r ivc.size=2 ivc.job=$job ivc.prog=vm_demo &
done
wait %2 %3
for r in 0 1; do
    echo "== guest $r console"
    grep -v "reboot: Power down" "$work/guest$r.log"
done
wait "$host" && echo "== $(tail -n 1 "$work/host.log")"
