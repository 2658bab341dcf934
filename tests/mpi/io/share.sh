#!/bin/sh
# ivcrun --share and IVC_SHARE: a directory under /tmp (each simulated VM has a /tmp of its
# own) holds the test's files. Without --share, io_basic's first open must fail there (the
# directory exists in no VM: "no such file"; a directory each VM has one of is io_errors'
# MPI_ERR_NOT_SAME); with --share DIR, and with IVC_SHARE=DIR, the
# same program must pass and leave no file behind.
# Usage: share.sh IVCRUN IO_BASIC
set -u
ivcrun=$1 prog=$2
dir=$(mktemp -d /tmp/ivc-io-share.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
out=$(IVCTEST_IO_DIR=$dir "$ivcrun" -n 2 --vms 2 "$prog" 2>&1) &&
    fail "io_basic passed in $dir without --share: $out"
case "$out" in *"MPI_File_open"*"no such file"*) ;;
    *) fail "without --share: expected open to fail with no such file, got: $out" ;; esac
out=$(IVCTEST_IO_DIR=$dir "$ivcrun" -n 2 --vms 2 --share "$dir" "$prog" 2>&1) ||
    fail "with --share $dir: $out"
out=$(IVC_SHARE=$dir IVCTEST_IO_DIR=$dir "$ivcrun" -n 4 --vms 4 "$prog" 2>&1) ||
    fail "with IVC_SHARE=$dir: $out"
left=$(ls -A "$dir")
[ -z "$left" ] || fail "files left in $dir: $left"
echo PASS
