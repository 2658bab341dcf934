#!/bin/sh
# Installs what building and testing IVC needs on a fresh Debian/Ubuntu machine: a C
# compiler, CMake, Ninja, UCX (the network channel between hosts), the tools the tests use
# (iproute2, util-linux, MPICH's mpiexec.hydra as a PMI-1 process manager, and its headers and
# mpicc.mpich and NetPIPE's NPmpich2 for the MPICH-ABI tests), gfortran (the
# Fortran bindings; without it the C library still builds), BLAS and Python's venv and
# headers (the HPC Challenge and mpi4py, built against IVC by the tests), and for the
# real-VM tests QEMU, a static busybox and Debian's kernel package (downloaded into
# ~/.cache/ivc-vm, not installed), clang with libFuzzer for the fuzz targets
# (tests/fuzz), Meson (tests/buildsys) and Slurm with munge (tests/slurm; the tests start
# their own daemons). With --bench it adds MPICH's headers, Open MPI, matplotlib and valgrind for the
# benchmark harness and bench/instr.sh (Open MPI's packages take over the system's default mpicc and mpirun:
# they are handed back to MPICH, which the tests and the harness name explicitly anyway).
set -eu
pkgs="gcc g++ gfortran libc6-dev cmake ninja-build pkg-config libucx-dev iproute2 util-linux procps qemu-system-x86 busybox-static mpich libmpich-dev netpipe-mpich2 libblas-dev python3-venv python3-dev clang-14 libfuzzer-14-dev libclang-rt-14-dev meson slurmctld slurmd slurm-client munge"
case "${1:-}" in
--bench) pkgs="$pkgs libmpich-dev python3 python3-matplotlib openmpi-bin libopenmpi-dev valgrind" ;;
esac
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: missing packages:$missing; run as root (or: sudo apt-get install$missing)" >&2
        exit 1
    fi
    echo "setup: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
    case "$missing" in
    *openmpi*)
        update-alternatives --set mpi /usr/bin/mpicc.mpich >/dev/null 2>&1 || true
        update-alternatives --set mpirun /usr/bin/mpirun.mpich >/dev/null 2>&1 || true
        ;;
    esac
fi
# The guests' kernel, once.
"$(dirname "$0")/../tools/vm/ivc-vm-image" --fetch-kernel
