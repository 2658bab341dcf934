#!/bin/bash
# Runs an IVC program under MPICH's process manager: mpiexec.hydra -n N PROG ARGS...
# (PMI-1 over PMI_FD; the ranks create the region themselves and remove it at the end).
#   hydra.sh [--regions K] N PROG [ARGS...]  the job must succeed; with --regions K the
#                                        ranks form K simulated hosts, blocks with a region
#                                        file each (the ranks create them): ranks in one
#                                        block use the shm channel, the others the network
#                                        channel (UCX over TCP: UCX_TLS=tcp,self)
#   hydra.sh --abort N PROG [ARGS...]    the job must fail (non-zero status) within 10 s
#                                        (e.g. tests/launcher/mpi_failure abort or crash)
# Exit 0 pass, 1 fail, 77 skip without mpiexec.hydra (a failure when IVCTEST_REQUIRE_HYDRA=1,
# as CI sets it).
set -u
orig_args=("$@")
expect_abort=0 regions=1
[[ $1 = --abort ]] && { expect_abort=1; shift; }
[[ $1 = --regions ]] && { regions=$2; shift 2; }
n=$1
shift
hydra=$(command -v mpiexec.hydra)
if [[ -z $hydra ]]; then
    echo "mpiexec.hydra not found (apt-get install mpich)"
    [[ ${IVCTEST_REQUIRE_HYDRA:-0} = 1 ]] && exit 1
    exit 77
fi
# The job runs in a mount namespace of its own with a private /dev/shm (when this user
# may make one), so that "no region file left behind" means this job's files only.
if [[ -z ${T_HYDRA_INNER:-} ]] && unshare -m true 2>/dev/null; then
    exec unshare -m bash -c 'mount -t tmpfs tmpfs /dev/shm && T_HYDRA_INNER=1 exec "$0" "$@"' \
        "$0" "${orig_args[@]}"
fi
t0=$(date +%s%N)
if ((regions == 1)); then
    timeout 120 "$hydra" -n "$n" "$@"
    rc=$?
else
    # MPMD: one block of ranks per region, each told its (not yet existing) region file.
    spec=()
    for ((k = 0; k < regions; k++)); do
        count=$((n / regions + (k < n % regions)))
        ((k > 0)) && spec+=(:)
        spec+=(-env IVC_REGION "/dev/shm/ivc-hydra-$$-$k" -n "$count" "$@")
    done
    UCX_TLS=${UCX_TLS:-tcp,self} timeout 120 "$hydra" "${spec[@]}"
    rc=$?
fi
ms=$((($(date +%s%N) - t0) / 1000000))
if ((expect_abort)); then
    [[ $rc -ne 0 && $rc -ne 124 ]] || { echo "FAIL: expected the aborted job to fail, got status $rc"; exit 1; }
    ((ms < 10000)) || { echo "FAIL: the aborted job took $ms ms to end"; exit 1; }
else
    [[ $rc -eq 0 ]] || { echo "FAIL: mpiexec.hydra -n $n $*: status $rc"; exit 1; }
fi
if [[ -n ${T_HYDRA_INNER:-} ]]; then
    left=$(ls /dev/shm | grep '^ivc-')
    [[ -z $left ]] || { echo "FAIL: region files left in /dev/shm: $left"; exit 1; }
fi
echo "PASS (status $rc, $ms ms)"
