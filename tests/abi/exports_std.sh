#!/bin/bash
# Every C function of the MPI-5.0 standard (the prototypes of the installed mpi_abi.h, which
# gen_std.py wrote from the API description) is exported by lib/abi/std/libmpi_abi.so.0
# under its MPI_ and PMPI_ names, so that a binary of the standard ABI finds every symbol it
# can reference; nothing of IVC's own names leaks (IVCN_*, ivc_*), and the library's soname
# is libmpi_abi.so.0.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
fail() {
    echo "FAIL: $*"
    exit 1
}
lib=$BUILD_DIR/lib/abi/std/libmpi_abi.so.0
[ -f "$lib" ] || fail "no $lib"
readelf -d "$lib" | grep -q 'SONAME.*\[libmpi_abi.so.0\]' || fail "$lib: soname is not libmpi_abi.so.0"
ours=$(nm -D --defined-only "$lib" | awk '{ print $3 }' | sed 's/@.*//' | sort -u)
want=$(sed -n 's/^[A-Za-z_][A-Za-z0-9_ ]*[ *]\(P\{0,1\}MPI_[A-Za-z0-9_]*\)(.*/\1/p' \
    "$BUILD_DIR/include/abi/mpi_abi_proto.h" | sort -u)
n=$(echo "$want" | grep -c .)
[ "$n" -gt 1000 ] || fail "only $n names read from mpi_abi_proto.h"
missing=$(comm -23 <(echo "$want") <(echo "$ours"))
[ -z "$missing" ] || fail "not exported: $(echo $missing | head -c 2000)"
leaked=$(echo "$ours" | grep -E '^(IVCN_|ivc_)' | head -5)
[ -z "$leaked" ] || fail "IVC's own names exported: $leaked"
for f in MPI_Abi_get_version MPI_Comm_toint MPI_Type_fromint MPI_Abi_get_fortran_booleans; do
    echo "$ours" | grep -qx "$f" || fail "$f not exported"
done
echo "$n MPI_/PMPI_ names of mpi_abi.h exported"
echo PASS
