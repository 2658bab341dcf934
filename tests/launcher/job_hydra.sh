#!/bin/sh
# A job script written for MPICH's Hydra (mpiexec.hydra), as a user would have it; the
# test compat_hydra.sh runs it unchanged with IVC's mpiexec first in PATH and checks what
# each flag did. Needs PROG (an MPI program), WORK (a directory) and HOSTFILE.
set -e
cd "$WORK"
export KEEP_ME=kept DROP_ME=dropped

# Hosts from a machine file, 2 ranks per node, environment, binding, files per rank.
mpiexec -f "$HOSTFILE" -n 4 -ppn 2 -genv GREETING "hello world" -genvlist KEEP_ME,PATH \
    -bind-to core -report-bindings -wdir "$WORK/run" \
    -outfile-pattern "$WORK/out.%r" -errfile-pattern="$WORK/err.%r" \
    "$PROG" spmd GREETING KEEP_ME DROP_ME 2>"$WORK/spmd.err"

# MPMD with one environment per program, ranks prefixed, hosts on the command line.
mpiexec -prepend-rank -hosts nodeA,nodeB,nodeC -genv SHARED yes \
    -n 2 -env APPVAR a "$PROG" first APPVAR SHARED : \
    -n 3 -env APPVAR b "$PROG" second APPVAR SHARED >"$WORK/mpmd.out"

# No environment but what is named; --np and --env=style spellings.
mpiexec --np=2 -genvnone -genv ONLY one -l "$PROG" bare ONLY KEEP_ME PATH >"$WORK/none.out"
