#!/bin/bash
# cost.sh [REPS]: the cost of the ABI layers. Builds pingpong.c with IVC's mpicc (native),
# with mpicc.mpich (abi: run on lib/abi/mpich) and with IVC's mpicc -mpi-abi (std: the MPI-5
# standard ABI, run on lib/abi/std), then runs them alternately REPS times (default 5): 2
# ranks in 2 simulated VMs, and one process timing MPI_Sendrecv on MPI_COMM_SELF (-s).
# Prints, per size, the best median of the runs for each build and the ratios to native. Not part of the test suite (timings): run it by hand, from the
# repository, after building into ./build (or BUILD_DIR).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=${BUILD_DIR:-$here/../../../build}
reps=${1:-5}
out=$B/abi-cost
mkdir -p "$out"
"$B/bin/mpicc" -O2 -o "$out/pp.native" "$here/pingpong.c"
mpicc.mpich -O2 -o "$out/pp.abi" "$here/pingpong.c"
"$B/bin/mpicc" -mpi-abi -O2 -o "$out/pp.std" "$here/pingpong.c"
: >"$out/runs.txt"
for r in $(seq "$reps"); do
    for v in native abi std; do
        "$B/bin/ivcrun" -n 2 --vms 2 "$out/pp.$v" | sed "s/^/$v pp /" >>"$out/runs.txt"
        "$B/bin/ivcrun" -n 1 "$out/pp.$v" -s | sed "s/^/$v self /" >>"$out/runs.txt"
    done
done
echo "# $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $reps runs each (us, one way):"
echo "# median: the best of the runs' median batch; min: the fastest batch of all runs"
echo "# abi: the MPICH ABI (mpicc.mpich), std: the MPI-5 standard ABI (mpicc -mpi-abi)"
printf "%-5s %-8s %9s %9s %9s %8s %8s %10s %9s %9s %8s %8s\n" mode size native abi std abi/nat \
    std/nat native-min abi-min std-min abi/nat std/nat
awk '{ k = $2 " " $3
       if (!((k, $1) in med) || $4 < med[k, $1]) med[k, $1] = $4
       if (!((k, $1) in lo) || $5 < lo[k, $1]) lo[k, $1] = $5 }
     END { split("pp self", m, " "); split("0 1 8 65536 1048576", s, " ")
           for (i = 1; i <= 2; i++) for (j = 1; j <= 5; j++) { k = m[i] " " s[j]
               printf "%-5s %-8s %9.3f %9.3f %9.3f %8.3f %8.3f %10.3f %9.3f %9.3f %8.3f %8.3f\n",
                      m[i], s[j], med[k, "native"], med[k, "abi"], med[k, "std"],
                      med[k, "abi"] / med[k, "native"], med[k, "std"] / med[k, "native"],
                      lo[k, "native"], lo[k, "abi"], lo[k, "std"],
                      lo[k, "abi"] / lo[k, "native"], lo[k, "std"] / lo[k, "native"] } }' "$out/runs.txt"
