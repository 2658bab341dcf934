#!/bin/sh
# A job script written for Open MPI's mpirun, as a user would have it; the test
# compat_ompi.sh runs it unchanged with IVC's mpirun first in PATH and checks what each
# flag did. Needs PROG (an MPI program), WORK (a directory) and HOSTFILE.
set -e
cd "$WORK"
export KEEP_ME=kept

# Host file with slots, one rank per node per round, exported variables, binding to
# hardware threads, tagged output, a working directory, an MCA parameter that means nothing
# here.
mpirun --allow-run-as-root --oversubscribe -np 4 --hostfile "$HOSTFILE" --map-by ppr:1:node \
    -x GREETING="hi there" -x KEEP_ME --bind-to hwthread --report-bindings --tag-output \
    --wdir "$WORK/run" --mca btl ^openib \
    "$PROG" ompi GREETING KEEP_ME >"$WORK/tagged.out" 2>"$WORK/tagged.err"

# MPMD with -H host:slots (filled slot by slot) and the short spellings.
mpirun -np 3 -H hostA:2,hostB:2 -x MODE=mpmd "$PROG" left MODE : \
    -np 1 "$PROG" right MODE >"$WORK/mpmd.out"

# -npernode and --map-by node without a host list: ranks per simulated VM.
mpirun -c 4 -npernode 2 --bind-to none "$PROG" pernode >"$WORK/pernode.out"
mpirun -n 4 --vms 2 --map-by node "$PROG" bynode >"$WORK/bynode.out"
