#!/bin/bash
# cost.sh [REPS]: the cost of the MPICH-ABI layer. Builds pingpong.c with IVC's mpicc
# (native) and with mpicc.mpich (run on lib/abi/mpich), then runs them alternately REPS
# times (default 5): 2 ranks in 2 simulated VMs, and one process timing MPI_Sendrecv on
# MPI_COMM_SELF (-s). Prints, per size, the best median of the runs for each build and the
# ratio abi/native. Not part of the test suite (timings): run it by hand, from the
# repository, after building into ./build (or BUILD_DIR).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=${BUILD_DIR:-$here/../../../build}
reps=${1:-5}
out=$B/abi-cost
mkdir -p "$out"
"$B/bin/mpicc" -O2 -o "$out/pp.native" "$here/pingpong.c"
mpicc.mpich -O2 -o "$out/pp.abi" "$here/pingpong.c"
: >"$out/runs.txt"
for r in $(seq "$reps"); do
    for v in native abi; do
        "$B/bin/ivcrun" -n 2 --vms 2 "$out/pp.$v" | sed "s/^/$v pp /" >>"$out/runs.txt"
        "$B/bin/ivcrun" -n 1 "$out/pp.$v" -s | sed "s/^/$v self /" >>"$out/runs.txt"
    done
done
echo "# $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $reps runs each (us, one way):"
echo "# median: the best of the runs' median batch; min: the fastest batch of all runs"
printf "%-5s %-9s %11s %11s %8s %11s %11s %8s\n" mode size native abi abi/nat native-min abi-min abi/nat
awk '{ k = $2 " " $3
       if (!((k, $1) in med) || $4 < med[k, $1]) med[k, $1] = $4
       if (!((k, $1) in lo) || $5 < lo[k, $1]) lo[k, $1] = $5 }
     END { split("pp self", m, " "); split("0 1 8 1048576", s, " ")
           for (i = 1; i <= 2; i++) for (j = 1; j <= 4; j++) { k = m[i] " " s[j]
               printf "%-5s %-9s %11.3f %11.3f %8.3f %11.3f %11.3f %8.3f\n", m[i], s[j],
                      med[k, "native"], med[k, "abi"], med[k, "abi"] / med[k, "native"],
                      lo[k, "native"], lo[k, "abi"], lo[k, "abi"] / lo[k, "native"] } }' "$out/runs.txt"
