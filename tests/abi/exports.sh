#!/bin/bash
# Every function Debian's MPICH 4.0.2 libmpich.so.12 exports (src/abi/mpich/mpich_exports.txt,
# read from it with nm -D) is exported by IVC's lib/abi/mpich/libmpich.so.12 under its MPI_
# and PMPI_ names, and so are the variables MPICH's mpi.h declares: a binary built against
# MPICH finds every symbol it can reference. Nothing of IVC's own names leaks (IVCN_*,
# ivc_*). When Debian's library is installed, its export list is compared too.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
fail() {
    echo "FAIL: $*"
    exit 1
}
lib=$BUILD_DIR/lib/abi/mpich/libmpich.so.12
[ -f "$lib" ] || fail "no $lib"
ours=$(nm -D --defined-only "$lib" | awk '{ print $3 }' | sed 's/@.*//' | sort -u)
want=$(grep -v '^#' "$SOURCE_DIR/src/abi/mpich/mpich_exports.txt" | sed 'p; s/^/P/' | sort -u)
vars="MPI_F_STATUS_IGNORE MPI_F_STATUSES_IGNORE MPI_F08_STATUS_IGNORE MPI_F08_STATUSES_IGNORE
      MPI_UNWEIGHTED MPI_WEIGHTS_EMPTY MPI_T_PVAR_ALL_HANDLES MPIR_F08_MPI_IN_PLACE
      MPIR_F08_MPI_BOTTOM MPIR_F08_MPI_STATUS_IGNORE_OBJ MPIR_F08_MPI_STATUSES_IGNORE_OBJ
      MPIR_Dup_fn"
missing=$(comm -23 <(printf '%s\n' $want $vars | sort -u) <(echo "$ours"))
[ -z "$missing" ] || fail "not exported: $(echo $missing)"
leaked=$(echo "$ours" | grep -E '^(IVCN_|ivc_)' | head -5)
[ -z "$leaked" ] || fail "IVC's own names exported: $leaked"
echo "$(printf '%s\n' $want | wc -l) MPICH function names and $(echo $vars | wc -w) variables exported"
deb=$(ls /usr/lib/x86_64-linux-gnu/libmpich.so.12 2>/dev/null)
if [ -n "$deb" ]; then
    theirs=$(nm -D --defined-only "$deb" | awk '{ print $3 }' | sed 's/@.*//' |
        grep -E '^P?MPIX?_|^MPIR_(Dup_fn|F08_|C_MPI_)' | sort -u)
    missing=$(comm -23 <(echo "$theirs") <(echo "$ours"))
    [ -z "$missing" ] || fail "exported by Debian's libmpich.so.12, not by IVC's: $(echo $missing)"
    echo "every MPI_/PMPI_/MPIX_ symbol of $deb is exported"
fi
echo PASS
