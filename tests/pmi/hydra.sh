#!/bin/bash
# Runs an IVC program under MPICH's process manager: mpiexec.hydra -n N PROG ARGS...
# (PMI-1 over PMI_FD; the ranks create the region themselves and remove it at the end).
#   hydra.sh N PROG [ARGS...]            the job must succeed
#   hydra.sh --abort N PROG [ARGS...]    the job must fail (non-zero status) within 10 s
#                                        (e.g. tests/launcher/mpi_failure abort or crash)
# Exit 0 pass, 1 fail, 77 skip without mpiexec.hydra (a failure when IVC_REQUIRE_HYDRA=1,
# as CI sets it).
set -u
expect_abort=0
[[ $1 = --abort ]] && { expect_abort=1; shift; }
n=$1
shift
hydra=$(command -v mpiexec.hydra)
if [[ -z $hydra ]]; then
    echo "mpiexec.hydra not found (apt-get install mpich)"
    [[ ${IVC_REQUIRE_HYDRA:-0} = 1 ]] && exit 1
    exit 77
fi
before=$(ls /dev/shm | grep -c '^ivc-pmi-')
t0=$(date +%s%N)
timeout 120 "$hydra" -n "$n" "$@"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
after=$(ls /dev/shm | grep -c '^ivc-pmi-')
if ((expect_abort)); then
    [[ $rc -ne 0 && $rc -ne 124 ]] || { echo "FAIL: expected the aborted job to fail, got status $rc"; exit 1; }
    ((ms < 10000)) || { echo "FAIL: the aborted job took $ms ms to end"; exit 1; }
else
    [[ $rc -eq 0 ]] || { echo "FAIL: mpiexec.hydra -n $n $*: status $rc"; exit 1; }
fi
[[ $after -le $before ]] || { echo "FAIL: a region file was left in /dev/shm ($before -> $after)"; exit 1; }
echo "PASS (status $rc, $ms ms)"
