#!/bin/bash
# Instructions per message on the small-message path: bench/instr.c built against IVC,
# Debian's MPICH and Debian's Open MPI, 2 ranks, each rank under callgrind with collection
# only inside its send or receive loop. Prints one row per MPI and size: instructions per
# MPI_Send (rank 0) and per MPI_Recv (rank 1), then IVC's ratios, and keeps callgrind's
# files and the top functions of IVC's two paths in OUT.
#
#   bench/instr.sh [--ivc-prefix DIR] [--out DIR] [--sizes "0 8 64 1024"] [--rounds N]
#
# IVC runs in 2 simulated VMs (ivcrun -n 2 --vms 2), MPICH under its Hydra (mpiexec.mpich),
# Open MPI under mpirun.openmpi (ob1 + vader, as the harness's ompi-shm); an MPI that is
# not installed is skipped with its reason. Needs valgrind (apt-get install valgrind).
# Counts are exact for a given build and do not depend on load (the waits are outside the
# counted loops), so one run is enough; they differ between machines only with the code
# paths the libraries pick at run time (for example the memcpy variant).
set -u
here=$(cd "$(dirname "$0")" && pwd)
prefix=$here/../build out=${TMPDIR:-/tmp}/ivc-instr sizes="0 8 64 1024" rounds=20 burst=16
while (($#)); do
    case $1 in
    --ivc-prefix) prefix=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "instr.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || { echo "instr.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 2; }
mkdir -p "$out"
vg=(valgrind --tool=callgrind --collect-atstart=no)

# build NAME CC: compiles instr.c into OUT/instr.NAME; says why not.
build() {
    command -v "$2" >/dev/null || { echo "skipped $1: $2 not installed"; return 1; }
    "$2" -O2 -o "$out/instr.$1" "$here/instr.c" 2>"$out/build.$1.log" ||
        { echo "skipped $1: build failed ($out/build.$1.log)"; return 1; }
}
# launch NAME OUTVAR-RANK ARGS...: runs instr.NAME under each MPI's launcher.
launch() {
    local name=$1 rankvar=$2
    shift 2
    local cg=(--callgrind-out-file="$out/cg.$name.$size.%q{$rankvar}")
    case $name in
    ivc) "$prefix/bin/ivcrun" -n 2 --vms 2 --timeout 600 "${vg[@]}" "${cg[@]}" "$out/instr.ivc" "$@" ;;
    mpich) timeout 600 mpiexec.mpich -n 2 "${vg[@]}" "${cg[@]}" "$out/instr.mpich" "$@" ;;
    ompi) OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
        timeout 600 mpirun.openmpi --allow-run-as-root --oversubscribe -n 2 "${vg[@]}" "${cg[@]}" \
        "$out/instr.ompi" "$@" ;;
    esac
}
total() { # callgrind file -> its total instruction count (Ir)
    awk '/^(summary|totals):/ {print $2; exit}' "$1" 2>/dev/null
}

names=()
build ivc "$prefix/bin/mpicc" && names+=(ivc)
build mpich mpicc.mpich && names+=(mpich)
build ompi mpicc.openmpi && names+=(ompi)
declare -A rankvar=([ivc]=PMI_RANK [mpich]=PMI_RANK [ompi]=OMPI_COMM_WORLD_RANK)
declare -A send recv
n=$((rounds * burst))
for size in $sizes; do
    for name in "${names[@]}"; do
        if ! launch "$name" "${rankvar[$name]}" -s "$size" -b "$burst" -r "$rounds" \
            >"$out/run.$name.$size.log" 2>&1; then
            echo "$name, $size B: run failed ($out/run.$name.$size.log)"
            continue
        fi
        s=$(total "$out/cg.$name.$size.0") r=$(total "$out/cg.$name.$size.1")
        [[ -n $s && -n $r ]] || { echo "$name, $size B: no callgrind totals"; continue; }
        send[$name.$size]=$((s / n)) recv[$name.$size]=$((r / n))
    done
done
echo "# instructions per message ($rounds rounds of $burst, callgrind; send: MPI_Send on rank 0,"
echo "# receive: MPI_Recv on rank 1 with the message already there)"
printf '%-6s' size
for name in "${names[@]}"; do printf ' %12s %12s' "$name-send" "$name-recv"; done
printf ' %s\n' "IVC/peer (send, recv)"
for size in $sizes; do
    printf '%-6s' "$size"
    for name in "${names[@]}"; do
        printf ' %12s %12s' "${send[$name.$size]:--}" "${recv[$name.$size]:--}"
    done
    ratios=""
    for name in "${names[@]}"; do
        [[ $name = ivc ]] && continue
        a=${send[ivc.$size]:-} b=${send[$name.$size]:-} c=${recv[ivc.$size]:-} d=${recv[$name.$size]:-}
        [[ -n $a && -n $b && -n $c && -n $d && $b -gt 0 && $d -gt 0 ]] &&
            ratios+=" $name $(awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN {printf "%.2f %.2f", a/b, c/d}')"
    done
    printf '  %s\n' "${ratios# }"
done
# Where IVC's instructions go, at the first size.
first=${sizes%% *}
for rank in 0 1; do
    f=$out/cg.ivc.$first.$rank
    [[ -e $f ]] && callgrind_annotate --inclusive=no "$f" 2>/dev/null | sed -n '/^ *Ir/,$p' | head -14 \
        >"$out/top.ivc.$first.$rank.txt"
done
echo "# files: $out (cg.* callgrind data, top.ivc.* IVC's top functions at $first B)"
