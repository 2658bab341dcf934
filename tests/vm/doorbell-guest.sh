#!/bin/sh
# Runs inside a guest with an ivshmem-doorbell device (msi=off): shows the devices and the
# region ivc-host gave it, checks its peer id, rings the host client once it can receive,
# and waits for the client's doorbell in return. Arguments: expected peer id, host client's peer id.
set -e
ivc-info --ivshmem
ivc-info -r ivshmem
id=$(ivc-info --ivshmem | sed -n 's/.*peer id \([0-9-]*\).*/\1/p' | head -n 1)
[ "$id" = "$1" ] || { echo "doorbell-guest: peer id: expected $1, got $id"; exit 1; }
ivc-info --wait-doorbell 120 --ring "$2:0"
echo "doorbell-guest: ok"
