# -l/--tag-output: every line of a rank's stdout and stderr is prefixed with "[rank] " on
# ivcrun's stdout and stderr respectively; a last partial line is flushed at the end.
. "$(dirname "$0")/lib.sh"

prog='echo "out $PMI_RANK a"; echo "err $PMI_RANK" >&2; echo "out $PMI_RANK b"; printf "tail $PMI_RANK"'
for mode in "" --no-ns; do
    run -n 3 -l $mode sh -c "$prog"
    expect_rc 0
    expect_eq "stdout ($mode)" "[0] out 0 a
[0] out 0 b
[0] tail 0
[1] out 1 a
[1] out 1 b
[1] tail 1
[2] out 2 a
[2] out 2 b
[2] tail 2" "$(echo "$OUT" | sort)"
    expect_eq "stderr ($mode)" "[0] err 0
[1] err 1
[2] err 2" "$(echo "$ERR" | sort)"
    # Per rank, lines keep their order.
    expect_eq "order of rank 1 ($mode)" "[1] out 1 a
[1] out 1 b
[1] tail 1" "$(echo "$OUT" | grep '^\[1\]')"
done

# Long lines and many lines arrive whole.
run -n 2 -l sh -c 'i=0; while [ $i -lt 200 ]; do echo "line $i $(printf %0300d 0)"; i=$((i+1)); done'
expect_rc 0
expect_eq "line count" 400 "$(echo "$OUT" | wc -l)"
bad=$(echo "$OUT" | grep -vc '^\[[01]\] line [0-9]* 0\{300\}$')
expect_eq "malformed lines" 0 "$bad"

# Without -l, output is not touched.
run -n 2 sh -c 'echo plain'
expect_rc 0
expect_eq "untagged" "plain
plain" "$OUT"
echo PASS
