# An installation under /tmp serves programs in simulated VMs, whose /tmp is private: ivcrun
# keeps every directory the program's loader searches visible (DT_RUNPATH/DT_RPATH read
# from the ELF file, $ORIGIN expanded, LD_LIBRARY_PATH as the ranks will have it), not only
# the program's own /tmp tree.
. "$(dirname "$0")/lib.sh"
: "${LAUNCHER_BUILD_DIR:?LAUNCHER_BUILD_DIR must name the build directory}"
: "${CMAKE:=cmake}"
need_vms

prefix=$(mktemp -d /tmp/ivc-inst.XXXXXX) || fail "mktemp under /tmp"
apps=$(mktemp -d /tmp/ivc-apps.XXXXXX) || fail "mktemp under /tmp"
moved=$(mktemp -u /tmp/ivc-moved.XXXXXX)
trap 'rm -rf "$SCRATCH" "$prefix" "$apps" "$moved"' EXIT
"$CMAKE" --install "$LAUNCHER_BUILD_DIR" --prefix "$prefix" >"$SCRATCH/install.log" 2>&1 ||
    fail "cmake --install: $(tail -5 "$SCRATCH/install.log")"
cat >"$apps/hello.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, sum = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("hello %d of %d sum %d\n", rank, size, sum);
    MPI_Finalize();
    return 0;
}
PROG
mkdir -p "$apps/bin"
"$prefix/bin/mpicc" -o "$apps/bin/hello" "$apps/hello.c" >"$SCRATCH/cc.log" 2>&1 ||
    fail "mpicc: $(cat "$SCRATCH/cc.log")"
want="hello 0 of 2 sum 1
hello 1 of 2 sum 1"

# 1. The absolute DT_RUNPATH mpicc writes: the library lies in another /tmp tree.
cd / || fail "cd /"
run -n 2 --vms 2 "$apps/bin/hello"
expect_rc 0
expect_eq "program in /tmp, libraries in another /tmp tree (RUNPATH)" "$want" "$(echo "$OUT" | sort)"

# 2. $ORIGIN: only a relative run path finds the libraries, whose prefix has moved.
"$prefix/bin/mpicc" -o "$apps/bin/hello-origin" "$apps/hello.c" \
    -Wl,-rpath,"\$ORIGIN/../../$(basename "$moved")/lib" >"$SCRATCH/cc.log" 2>&1 ||
    fail "mpicc: $(cat "$SCRATCH/cc.log")"
mv "$prefix" "$moved" || fail "mv $prefix $moved"
run -n 2 --vms 2 "$apps/bin/hello-origin"
expect_rc 0
expect_eq "libraries found through \$ORIGIN" "$want" "$(echo "$OUT" | sort)"

# 3. LD_LIBRARY_PATH given to the ranks with -genv; the program's own run path is gone.
run -n 2 --vms 2 -genv LD_LIBRARY_PATH "$moved/lib" "$apps/bin/hello"
expect_rc 0
expect_eq "libraries found through -genv LD_LIBRARY_PATH" "$want" "$(echo "$OUT" | sort)"
echo PASS
