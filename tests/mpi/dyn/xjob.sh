#!/bin/bash
# Two ivcrun jobs on one host connect through a port found by name:
#   xjob.sh IVCRUN DYN_PORTS
# The server job (2 ranks, simulated VMs) publishes a name and accepts; the client job (3
# ranks) looks it up and connects; every rank of each exchanges checked data with every
# rank of the other (tests/mpi/dyn/ports.c). Both must exit 0.
ivcrun=$1
prog=$2
name="ivc-xjob-$$-$RANDOM"
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
