#!/bin/bash
# ivcrun's choice of library by the program's DT_NEEDED (tools/ivcrun/abi.h): a program
# linked against Open MPI's libmpi.so.40 is refused in one line naming the library (not a
# loader error, not N singletons); one linked against the standard ABI's libmpi_abi.so.0
# gets lib/abi/std first on its LD_LIBRARY_PATH (ivcrun -v says so); a program that links
# no MPI gets lib/abi/mpich first on its LD_LIBRARY_PATH (for mpi4py and other dlopen
# users); IVCRUN_ABI=native turns that off. The stand-in libraries are built here: only
# their names matter.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
. "$SOURCE_DIR/tests/abi/sanitize.sh"
fail() {
    echo "FAIL: $*"
    exit 1
}
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
d=$(mktemp -d "$BUILD_DIR/abi-launcher.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT
echo 'int MPI_Init(int *c, char ***v) { return 0; }' >"$d/lib.c"
echo 'int MPI_Init(int *, char ***); int main(int c, char **v) { return MPI_Init(&c, &v); }' >"$d/main.c"
ivcrun=$BUILD_DIR/bin/ivcrun
for lib in libmpi.so.40; do
    mkdir -p "$d/$lib.dir"
    cc -shared -fPIC -Wl,-soname,$lib -o "$d/$lib.dir/$lib" "$d/lib.c" &&
        cc -o "$d/prog.$lib" "$d/main.c" "$d/$lib.dir/$lib" -Wl,-rpath,"$d/$lib.dir" ||
        fail "cannot build the stand-in for $lib"
    out=$("$ivcrun" -n 2 "$d/prog.$lib" 2>&1)
    rc=$?
    [ $rc -ne 0 ] || fail "ivcrun ran a program that needs $lib: $out"
    [ "$(echo "$out" | grep -c .)" -eq 1 ] || fail "expected one line for $lib, got: $out"
    case "$out" in *"$lib"*"IVC does not serve"* | *"$lib"*"does not serve yet"*) ;;
    *) fail "the message for $lib does not name it: $out" ;; esac
    echo "$lib: $out"
done
# The standard ABI: the stand-in program prints its LD_LIBRARY_PATH (it calls MPI_Init only
# with arguments, so that it needs the library without starting MPI).
lib=libmpi_abi.so.0
mkdir -p "$d/$lib.dir"
echo '#include <stdio.h>
#include <stdlib.h>
int MPI_Init(int *, char ***);
int main(int c, char **v) { if (c > 5) MPI_Init(&c, &v); printf("LDP=%s\n", getenv("LD_LIBRARY_PATH")); return 0; }' >"$d/std.c"
cc -shared -fPIC -Wl,-soname,$lib -o "$d/$lib.dir/$lib" "$d/lib.c" &&
    cc -o "$d/prog.$lib" "$d/std.c" "$d/$lib.dir/$lib" -Wl,-rpath,"$d/$lib.dir" ||
    fail "cannot build the stand-in for $lib"
want=$(realpath "$BUILD_DIR/lib/abi/std")
# (A sanitized build's libmpi_abi.so.0 needs its runtimes loaded first: abi_run.)
out=$("${abi_run[@]}" "$ivcrun" -v -n 1 --no-ns "$d/prog.$lib" 2>&1) || fail "$lib: $out"
case "$out" in *"LDP=$want"*) ;; *) fail "expected $want first on LD_LIBRARY_PATH for $lib, got: $out" ;; esac
case "$out" in *"built for the MPI-5 standard ABI ($lib)"*) ;;
*) fail "ivcrun -v did not say it chose the standard ABI: $out" ;; esac
echo "$lib: lib/abi/std first"
want=$(realpath "$BUILD_DIR/lib/abi/mpich")
out=$("$ivcrun" -n 1 --no-ns /bin/sh -c 'echo "LDP=$LD_LIBRARY_PATH"' 2>&1) || fail "sh: $out"
case "$out" in *"LDP=$want"*) ;; *) fail "expected $want first on LD_LIBRARY_PATH, got: $out" ;; esac
out=$(IVCRUN_ABI=native LD_LIBRARY_PATH=/nowhere "$ivcrun" -n 1 --no-ns /bin/sh -c 'echo "LDP=$LD_LIBRARY_PATH"' 2>&1)
case "$out" in *"LDP=/nowhere"*) ;; *) fail "IVCRUN_ABI=native: got $out" ;; esac
# IVC's own programs keep their library: LD_LIBRARY_PATH untouched.
native=$BUILD_DIR/tests/abi-native-hello
echo '#include <mpi.h>
int main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }' >"$d/native.c"
"$BUILD_DIR/bin/mpicc" -o "$native" "$d/native.c" || fail "IVC's mpicc"
out=$("$ivcrun" -v -n 1 "$native" 2>&1) || fail "native: $out"
case "$out" in *"MPICH"*) fail "ivcrun chose the MPICH ABI for IVC's own program: $out" ;; esac
echo PASS
