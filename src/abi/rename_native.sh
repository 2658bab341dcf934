#!/bin/sh
# rename_native.sh NM OBJCOPY IN.o OUT.o: renames every MPI_, PMPI_, MPIX_ and PMPIX_ symbol
# of IN.o (defined or referenced) to IVCN_<name>, so that IVC's own functions can live in
# the MPICH-ABI library beside wrappers that carry MPICH's names (src/abi/CMakeLists.txt).
set -eu
nm="$1" objcopy="$2" in="$3" out="$4"
"$nm" -g "$in" | awk '{ s = $NF } s ~ /^P?MPIX?_/ { print s " IVCN_" s }' | sort -u > "$out.syms"
"$objcopy" --redefine-syms="$out.syms" "$in" "$out"
