#!/bin/sh
# The SPH fluid as N processes in N simulated VMs matches N threads (and 1 thread) bit for
# bit: the hashes of the final positions are equal.
#   sph.sh IVCRUN IVC_SPH N [WAIT]
ivcrun=$1 sph=$2 n=$3 wait=${4:-spin}
args="-p 4096 -s 100"
t1=$("$sph" --threads 1 $args) || { echo "FAIL: threads 1"; exit 1; }
tn=$("$sph" --threads "$n" $args) || { echo "FAIL: threads $n"; exit 1; }
vm=$("$ivcrun" -n "$n" --vms "$n" "$sph" -w "$wait" $args) || { echo "FAIL: $n VMs"; exit 1; }
echo "$t1"; echo "$tn"; echo "$vm"
h() { echo "$1" | sed -n 's/.* hash \([0-9a-f]*\)$/\1/p'; }
[ -n "$(h "$t1")" ] || { echo "FAIL: no hash in '$t1'"; exit 1; }
[ "$(h "$t1")" = "$(h "$tn")" ] || { echo "FAIL: $n threads differ from 1: expected $(h "$t1"), got $(h "$tn")"; exit 1; }
[ "$(h "$t1")" = "$(h "$vm")" ] || { echo "FAIL: $n VMs differ from threads: expected $(h "$t1"), got $(h "$vm")"; exit 1; }
echo "sph: $n VMs and $n threads bit-identical"
