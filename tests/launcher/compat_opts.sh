# Hydra/Open MPI spellings on the command line: --help lists them, mistakes exit 2 with a
# one-line reason, and the smaller flags do what they say (host lists without -n, shared
# and per-host output files, a relative program found in -wdir, --host-map hosts).
. "$(dirname "$0")/lib.sh"

run --help
expect_rc 0
for flag in -hostfile -ppn --map-by -genv -genvlist -genvnone "-x NAME" -bind-to \
    --report-bindings -wdir -outfile-pattern --tag-output -prepend-rank --oversubscribe \
    "MPMD" --host-map; do
    case "$OUT" in *"$flag"*) ;; *) fail "--help does not mention $flag" ;; esac
done
run -V
expect_rc 0
case "$OUT" in "ivcrun (IVC) "*) ;; *) fail "-V: got '$OUT'" ;; esac

bad() { # EXPECTED-STDERR ARGS...: exits 2 saying so
    local want=$1
    shift
    run "$@"
    expect_rc 2
    expect_err "$want"
}
printf 'nodeA:2\nnodeB bogus\n' >"$SCRATCH/badhosts"
bad "-bind-to numa: IVC binds to core, hwthread or socket" -n 2 -bind-to numa true
bad "-f $SCRATCH/none: No such file" -n 2 -f "$SCRATCH/none" true
bad "badhosts:2: cannot read 'bogus'" -n 2 -f "$SCRATCH/badhosts" true
bad "-wdir $SCRATCH/none: No such file" -n 2 -wdir "$SCRATCH/none" true
bad "a simulated VM sees only its own /dev/shm" -n 2 -wdir /dev/shm true
bad "--vms and a host list do not go together" -n 2 --vms 2 -host a,b true
bad "program 2 (true) of the MPMD job needs its own -n N" -n 2 true : true
bad "missing the program to run after ':'" -n 2 true :
bad "only %r (rank), %h (host name)" -n 2 -outfile-pattern "x.%g" true
bad "ppr:2:socket: IVC places ranks per host" -n 2 --map-by ppr:2:socket true
bad "-genv X needs a value" -n 2 -genv X
bad "-ppn 2 makes 2 VMs of the 4 ranks, but --vms says 3" -n 4 -ppn 2 --vms 3 true
bad "-host: 'a:0': slots after ':' must be a number >= 1" -n 2 -host a:0 true
bad "unknown option '--frobnicate'" -n 2 --frobnicate true

# Accepted without effect.
run -n 2 --oversubscribe --allow-run-as-root -nooversubscribe --use-hwthread-cpus --no-ns true
expect_rc 0
expect_eq "no-op flags: stderr" "" "$ERR"

# Without -n, a host list runs one rank per slot.
run -host a:2,b --no-ns sh -c 'echo $PMI_SIZE'
expect_rc 0
expect_eq "ranks from slots" "3
3
3" "$OUT"

# An output file shared by all ranks (no %r): every line arrives; %h names the VM.
run -n 3 --no-ns -outfile-pattern "$SCRATCH/all.out" sh -c 'echo "line $PMI_RANK"'
expect_rc 0
expect_eq "shared output file" "line 0
line 1
line 2" "$(sort "$SCRATCH/all.out")"

# A relative program path is looked up in -wdir first.
mkdir -p "$SCRATCH/wd/bin"
printf '#!/bin/sh\necho "wd $PMI_RANK $(pwd)"\n' >"$SCRATCH/wd/bin/prog"
chmod +x "$SCRATCH/wd/bin/prog"
cd / || fail "cd /"
run -n 2 --no-ns -wdir "$SCRATCH/wd" ./bin/prog
expect_rc 0
expect_eq "-wdir: relative program and working directory" "wd 0 $SCRATCH/wd
wd 1 $SCRATCH/wd" "$(echo "$OUT" | sort)"

need_vms
run -n 4 -host x,y -outfile-pattern "$SCRATCH/%h.out" sh -c 'echo "r$PMI_RANK $(hostname)"'
expect_rc 0
expect_eq "%h: vm0's file" "r0 vm0
r2 vm0" "$(sort "$SCRATCH/vm0.out")"
expect_eq "%h: vm1's file" "r1 vm1
r3 vm1" "$(sort "$SCRATCH/vm1.out")"

# --host-map hosts: each host name a simulated host with its own region (needs root for
# the hosts' network).
if [ "$(id -u)" = 0 ]; then
    run -n 4 -host x:2,y:2 --host-map hosts sh -c 'echo "$PMI_RANK ${IVC_REGION##*-} $(hostname)"'
    expect_rc 0
    expect_eq "--host-map hosts" "0 h0 vm0
1 h0 vm0
2 h1 vm1
3 h1 vm1" "$(echo "$OUT" | sort)"
else
    echo "note: not root: --host-map hosts not checked"
fi
echo PASS
