# An MPI program started on a region that is not what the library expects stops in
# MPI_Init with an error that says what differs, and exits non-zero.
set -u
: "${PROG:?}"
f=$(mktemp /dev/shm/ivc-neg-mpi-region.XXXXXX)
trap 'rm -f "$f" "$f.err"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# header(magic, version, size_field): a formatted-looking header (state READY, 2 ranks,
# job 5) in a file of 2 MiB.
header() {
    python3 - "$f" "$1" "$2" "$3" <<'PY'
import struct, sys
path, magic, version, size = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3]), int(sys.argv[4])
with open(path, "r+b") as fh:
    fh.truncate(0)
    fh.truncate(2 << 20)
    # magic, layout version, format, state=READY, world=2, size, job=5, members, heap, heap end
    fmt = 6 | (64 << 8) | (48 << 16) | (1 << 24)
    fh.write(struct.pack("<QIIIIQQQQQ", magic, version, fmt, 2, 2, size, 5, 4096, 8192, 2 << 20))
    # layout version 3: the doorbell table (line 7 of the header), after the 2 member slots
    fh.seek(7 * 64)
    fh.write(struct.pack("<Q", 4096 + 2 * 64))
    # layout version 4: the migration table (line 8), after the 2 doorbell slots
    fh.seek(8 * 64)
    fh.write(struct.pack("<Q", 4096 + 4 * 64))
PY
}

expect() { # what, text expected in stderr
    PMI_RANK=0 PMI_SIZE=2 IVC_JOB=${JOB:-5} IVC_REGION=$f IVC_STARTUP_TIMEOUT=5 timeout 30 "$PROG" \
        >/dev/null 2>"$f.err"
    rc=$?
    [ $rc -ne 0 ] || fail "$1: MPI_Init accepted the region"
    [ $rc -ne 124 ] || fail "$1: MPI_Init hung"
    grep -qF "$2" "$f.err" || fail "$1: expected '$2' in: $(cat "$f.err")"
    echo "  $1: $(head -1 "$f.err")"
}

MAGIC=0x314e474552435649
# The library's layout version, from the layout header beside this script's sources.
V=$(sed -n 's/^#define IVC_LAYOUT_VERSION \([0-9]*\)u.*/\1/p' \
    "$(dirname "$0")/../../src/region/region_layout.h")
[ -n "$V" ] || fail "cannot read IVC_LAYOUT_VERSION from src/region/region_layout.h"
header 0x0123456789abcdef $V $((2 << 20))
expect "bad magic" "is not an IVC region: magic 0x0123456789abcdef"
header $MAGIC 9 $((2 << 20))
expect "bad version" "has layout version 9; this library speaks version $V"
header $MAGIC $V $((4 << 20))
expect "bad size" "header says 4194304 bytes but 2097152 are mapped"
header $MAGIC $V $((2 << 20))
JOB=6 expect "other job" "belongs to job 5"
echo PASS
