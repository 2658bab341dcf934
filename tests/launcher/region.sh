# The region is created for the job and removed when the job ends, however it ends, unless
# --keep-region; its size comes from --region-size, IVC_REGION_SIZE or the tunables.
. "$(dirname "$0")/lib.sh"

for mode in "" --no-ns; do
    run -n 2 $mode sh -c 'echo "$IVC_REGION"'
    expect_rc 0
    region=$(echo "$OUT" | head -n 1)
    [ -n "$region" ] || fail "no IVC_REGION given to the ranks"
    [ -e "$region" ] && fail "$region left behind after success ($mode)"

    run -n 2 $mode sh -c 'echo "$IVC_REGION"; [ "$PMI_RANK" = 1 ] && exit 9; exec sleep 60'
    expect_rc 9
    region=$(echo "$OUT" | head -n 1)
    [ -e "$region" ] && fail "$region left behind after a failure ($mode)"

    run -n 2 $mode --keep-region sh -c 'echo "$IVC_REGION"'
    expect_rc 0
    region=$(echo "$OUT" | head -n 1)
    [ -e "$region" ] || fail "--keep-region: $region was removed ($mode)"
    expect_err "kept the region $region"
    rm -f "$region"
done

run -n 2 --region-size 3M sh -c 'stat -c %s "$IVC_REGION"'
expect_rc 0
expect_eq "--region-size 3M" "3145728
3145728" "$OUT"

LAST="IVC_REGION_SIZE=5M ivcrun"
OUT=$(IVC_REGION_SIZE=5M "$IVCRUN" -n 1 sh -c 'stat -c %s "$IVC_REGION"' 2>"$SCRATCH/err")
RC=$?
expect_rc 0
expect_eq "IVC_REGION_SIZE=5M" 5242880 "$OUT"

OUT=$(IVC_REGION_SIZE=lots "$IVCRUN" -n 1 true 2>&1)
RC=$?
expect_rc 1
case "$OUT" in *"IVC_REGION_SIZE=lots"*) ;; *) fail "bad IVC_REGION_SIZE: got '$OUT'" ;; esac

# The default fits the tunables: a power of two of at least 1 MiB.
run -n 4 sh -c 'stat -c %s "$IVC_REGION"'
expect_rc 0
size=$(echo "$OUT" | head -n 1)
[ "$size" -ge 1048576 ] && [ $((size & (size - 1))) = 0 ] ||
    fail "default size: expected a power of two >= 1 MiB, got $size"

# Too small for the job: refused before anything starts.
run -n 2 --region-size 4K true
expect_rc 1
echo PASS
