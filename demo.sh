#!/bin/sh
# The demo on a fresh machine: installs the build tools, builds IVC, installs it into
# ./install, compiles an ordinary MPI program with install/bin/mpicc and runs it as 4 ranks
# in 2 simulated VMs on this host (Linux namespaces sharing only the region file).
set -eu
cd "$(dirname "$0")"
scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
cmake --install build --prefix install >/dev/null
install/bin/mpicc -O2 -o build/vm_demo examples/vm_demo.c
echo "== install/bin/ivcrun -n 4 --vms 2 build/vm_demo"
install/bin/ivcrun -n 4 --vms 2 build/vm_demo
