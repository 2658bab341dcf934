# A Hydra-style job script (job_hydra.sh) runs unchanged under IVC's mpiexec, and each flag
# has its effect: host file and -ppn placement (seen as the ranks' VM host names), -genv,
# -genvlist, -genvnone and per-program -env (values the ranks see), -bind-to core (the
# CPUs the kernel lets each rank use, and -report-bindings saying the same), -wdir,
# -outfile-pattern/-errfile-pattern (files per rank), MPMD rank ranges in one world, and
# -prepend-rank.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/compat_lib.sh"
need_vms

WORK=$SCRATCH/work
mkdir -p "$WORK/run"
printf '# nodes\nnodeA:4\nnodeB:4   # more\n\nnodeC:4\n' >"$WORK/hosts"
LAST="job_hydra.sh"
WORK=$WORK PROG=$COMPAT_RANK HOSTFILE=$WORK/hosts sh "$(dirname "$0")/job_hydra.sh" \
    >"$SCRATCH/out" 2>"$SCRATCH/err"
RC=$?
MS=0
expect_rc 0

# 1. Host file with -ppn 2: ranks 0-1 on the first host, 2-3 on the second; files per rank.
for r in 0 1 2 3; do
    [ -s "$WORK/out.$r" ] || fail "no output file out.$r (-outfile-pattern)"
    expect_eq "err.$r (-errfile-pattern)" "err from rank $r" "$(cat "$WORK/err.$r")"
    expect_field "$WORK/out.$r" $r size 4
    expect_field "$WORK/out.$r" $r sum ok
    expect_field "$WORK/out.$r" $r host "vm$((r / 2))"
    expect_field "$WORK/out.$r" $r cwd "$WORK/run"
    expect_field "$WORK/out.$r" $r GREETING "hello"  # the value goes on: "hello world"
    line=$(rank_line "$WORK/out.$r" $r)
    case "$line" in *"GREETING=hello world KEEP_ME"*) ;; *) fail "-genv with a space: $line" ;; esac
    expect_field "$WORK/out.$r" $r KEEP_ME kept
    expect_field "$WORK/out.$r" $r DROP_ME "<unset>"
    want=$(expected_cpus core $r)
    expect_field "$WORK/out.$r" $r cpus "$want"
    grep -qx "ivcrun: rank $r bound to CPU(s) $want" "$WORK/spmd.err" ||
        fail "-report-bindings: no 'rank $r bound to CPU(s) $want' in: $(cat "$WORK/spmd.err")"
done

# 2. MPMD: ranks 0-1 run the first program, 2-4 the second, in one world of 5; -hosts with
# one slot each places them round robin; -prepend-rank tags the lines.
f=$WORK/mpmd.out
expect_eq "MPMD line count" 5 "$(wc -l <"$f")"
for r in 0 1 2 3 4; do
    grep -q "^\[$r\] rank=$r " "$f" || fail "-prepend-rank: no '[$r] rank=$r' line in: $(cat "$f")"
    if [ $r -lt 2 ]; then app=first v=a; else app=second v=b; fi
    expect_field "$f" $r app $app
    expect_field "$f" $r APPVAR $v
    expect_field "$f" $r SHARED yes
    expect_field "$f" $r size 5
    expect_field "$f" $r sum ok
    expect_field "$f" $r host "vm$((r % 3))"
done

# 3. -genvnone: only what -genv names.
f=$WORK/none.out
for r in 0 1; do
    expect_field "$f" $r ONLY one
    expect_field "$f" $r KEEP_ME "<unset>"
    expect_field "$f" $r PATH "<unset>"
done
echo PASS
