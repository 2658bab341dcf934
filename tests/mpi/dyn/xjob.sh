#!/bin/bash
# Two ivcrun jobs on one host connect through a port found by name:
#   xjob.sh IVCRUN DYN_PORTS
# The server job (2 ranks, simulated VMs) publishes a name and accepts; the client job (3
# ranks) looks it up and connects; every rank of each exchanges checked data with every
# rank of the other (tests/mpi/dyn/ports.c). Both must exit 0.
# First a server job publishes the same name and is killed (kill -9 of its ivcrun) before
# it unpublishes: the name it leaves behind must not keep the next job from publishing it.
ivcrun=$1
prog=$2
name="ivc-xjob-$$-$RANDOM"
export IVC_NAME_DIR
IVC_NAME_DIR=$(mktemp -d)
trap 'rm -rf "$IVC_NAME_DIR"' EXIT
"$ivcrun" -n 1 --timeout 90 "$prog" server "$name" &
stale=$!
for _ in $(seq 200); do
    ls "$IVC_NAME_DIR"/name-* >/dev/null 2>&1 && break
    sleep 0.05
done
if ! ls "$IVC_NAME_DIR"/name-* >/dev/null 2>&1; then
    echo "FAIL: the first server job never published $name"
    exit 1
fi
kill -9 "$stale"
wait "$stale" 2>/dev/null
"$ivcrun" -n 2 --timeout 90 "$prog" server "$name" &
server=$!
"$ivcrun" -n 3 --vms 2 --timeout 90 "$prog" client "$name"
crc=$?
wait "$server"
src=$?
if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
    echo "FAIL: expected both jobs to exit 0, got server $src, client $crc"
    exit 1
fi
echo "PASS: two jobs connected and exchanged data"
