# The compiler wrappers' queries, as build systems and scripts ask them (MPICH's -show,
# -compile_info, -link_info, -v; Open MPI's --showme:*), the choice of compiler
# (-cc=, IVC_CC, MPICH_CC, OMPI_CC in that order), the flags' order, and programs built
# with each wrapper linking IVC's library only, even with another libmpi.so on -L.
. "$(dirname "$0")/lib.sh"
install_prefix
v=$(sed -n 's/^version="\(.*\)"$/\1/p' "$P/bin/mpicc")
[ -n "$v" ] || fail "no version in $P/bin/mpicc"

# expect WHAT EXPECTED COMMAND...: COMMAND prints exactly EXPECTED and exits 0.
expect() {
    local what=$1 want=$2 got
    shift 2
    got=$("$@" 2>&1) || fail "$what: '$*' exited $?: $got"
    [ "$got" = "$want" ] || fail "$what: '$*'
  expected: $want
  got:      $got"
}

inc="-I$P/include"
X=${EXTRA:+ $EXTRA}
link="-L$P/lib -Wl,-rpath,$P/lib -livcmpi$X"
# Outside CMake the default compilers are chosen; no stray choice from the environment.
unset IVC_CC IVC_CXX IVC_FC MPICH_CC MPICH_CXX MPICH_FC OMPI_CC OMPI_CXX OMPI_FC

# MPICH's queries.
expect "-show" "cc $inc $link" mpicc -show
expect "-show -c" "cc $inc -c x.c" mpicc -show -c x.c
expect "-show link, IVC's -L before the user's" \
    "cc $inc -L$P/lib -o x x.c -L/elsewhere -lfoo -Wl,-rpath,$P/lib -livcmpi$X" \
    mpicc -show -o x x.c -L/elsewhere -lfoo
for q in -compile_info -compile-info -show-compile-info -show-compile; do
    expect "$q" "cc $inc" mpicc $q
done
for q in -link_info -link-info -show-link-info -show-link; do
    expect "$q" "cc $inc $link" mpicc $q
done
out=$(mpicc -v 2>"$SCRATCH/v.err") || fail "mpicc -v exited $?"
[ "$(echo "$out" | head -n 1)" = "mpicc for IVC version $v" ] ||
    fail "mpicc -v: expected first line 'mpicc for IVC version $v', got: $out"
grep -q "version" "$SCRATCH/v.err" || fail "mpicc -v did not run the compiler's -v: $(cat "$SCRATCH/v.err")"

# Open MPI's queries (one dash or two).
for s in --showme -showme; do
    expect "$s" "cc $inc $link" mpicc $s
    expect "$s:compile" "$inc" mpicc $s:compile
    expect "$s:link" "$link" mpicc $s:link
done
expect "--showme:version" "mpicc: IVC $v (Language: C)" mpicc --showme:version
expect "--showme:incdirs" "$P/include" mpicc --showme:incdirs
expect "--showme:libdirs" "$P/lib" mpicc --showme:libdirs
expect "--showme:libs" "ivcmpi" mpicc --showme:libs
expect "--showme:command" "cc" mpicc --showme:command
expect "mpicxx --showme:version" "mpicxx: IVC $v (Language: C++)" mpicxx --showme:version
expect "mpic++ -link_info" "c++ $inc $link" mpic++ -link_info
if mpicc --showme:nonsense >/dev/null 2>&1; then fail "mpicc --showme:nonsense exited 0"; fi

# The compiler: -cc= beats IVC_CC beats MPICH_CC beats OMPI_CC.
expect "OMPI_CC" "ompi-cc $inc" env OMPI_CC=ompi-cc mpicc -compile_info
expect "MPICH_CC over OMPI_CC" "mpich-cc $inc" env OMPI_CC=ompi-cc MPICH_CC=mpich-cc mpicc -compile_info
expect "IVC_CC over MPICH_CC" "ivc-cc $inc" env MPICH_CC=mpich-cc IVC_CC=ivc-cc mpicc -compile_info
expect "-cc= over IVC_CC" "cl-cc $inc -c x.c" env IVC_CC=ivc-cc mpicc -cc=cl-cc -show -c x.c
expect "MPICH_CXX" "mpich-cxx $inc" env MPICH_CXX=mpich-cxx mpicxx -compile_info
expect "IVC_CXX over MPICH_CXX" "ivc-cxx $inc" env MPICH_CXX=mpich-cxx IVC_CXX=ivc-cxx mpicxx -compile_info

# What the wrapper runs: IVC's -L before the user's arguments (kept whole, spaces and all),
# the rpath and -livcmpi after them.
cat >"$SCRATCH/argv-cc" <<'SH'
#!/bin/sh
for a in "$@"; do printf '<%s>' "$a"; done
echo
SH
chmod +x "$SCRATCH/argv-cc"
xargv=$(for w in $EXTRA; do printf '<%s>' "$w"; done)
expect "exec" "<$inc><-L$P/lib><-o><my prog><my file.c><-Wl,-rpath,$P/lib><-livcmpi>$xargv" \
    env IVC_CC="$SCRATCH/argv-cc" mpicc -o "my prog" "my file.c"
expect "exec -c" "<$inc><-c><my file.c>" env IVC_CC="$SCRATCH/argv-cc" mpicc -c "my file.c"

# Real programs. Another libmpi.so on an -L the user gives first must not be linked.
mkdir -p "$SCRATCH/other" && cd "$SCRATCH" || fail "cd $SCRATCH"
echo 'int MPI_Init(int *c, char ***v) { return 1; }' >other.c
cc -shared -fPIC -o other/libmpi.so other.c || fail "cannot build a stand-in libmpi.so"
mpicc -O2 -L"$SCRATCH/other" -o hello_c "$PROJ/hello.c" || fail "mpicc failed"
expect_ivc_only hello_c
run_expect "hello c" ./hello_c
mpicxx -O2 -o hello_cxx "$PROJ/hello.cpp" || fail "mpicxx failed"
expect_ivc_only hello_cxx
run_expect "hello cxx" ./hello_cxx
# -lmpi, as Makefiles write it, with IVC's -L: lib/libmpi.so leads to IVC's soname.
cc -O2 -I"$P/include" -o hello_lmpi "$PROJ/hello.c" -L"$P/lib" -Wl,-rpath,"$P/lib" -lmpi $EXTRA ||
    fail "cc ... -L$P/lib -lmpi failed"
expect_ivc_only hello_lmpi
run_expect "hello c" ./hello_lmpi

need_fortran
fort="-L$P/lib -Wl,-rpath,$P/lib -livcmpifort -livcmpi$X"
expect "mpifort --showme:libs" "ivcmpifort ivcmpi" mpifort --showme:libs
expect "mpifort --showme:link" "$fort" mpifort --showme:link
expect "mpifort --showme:version" "mpifort: IVC $v (Language: Fortran)" mpifort --showme:version
case "$(mpifort --showme:compile)" in
"$inc -fallow-argument-mismatch"|"$inc") ;;
*) fail "mpifort --showme:compile: got '$(mpifort --showme:compile)'" ;; esac
# gfortran by another name (Debian's f95, which CMake finds first and passes in MPICH_FC)
# keeps gfortran's flags.
f95=$(command -v f95 || command -v gfortran)
expect "MPICH_FC=$f95" "$f95 $(mpifort --showme:compile)" env MPICH_FC="$f95" mpifort -compile_info
expect "IVC_FC over MPICH_FC" "ivc-fc $inc" env MPICH_FC=mpich-fc IVC_FC=ivc-fc mpifort -compile_info
out=$(mpif90 -v 2>/dev/null | head -n 1)
[ "$out" = "mpif90 for IVC version $v" ] || fail "mpif90 -v: got '$out'"
mpifort -O2 -o hello_f "$PROJ/hello.f90" || fail "mpifort failed"
expect_ivc_only hello_f fortran
run_expect "hello fortran" ./hello_f
mpif77 -O2 -o hello_f77 "$PROJ/hello77.f" || fail "mpif77 failed"
expect_ivc_only hello_f77 fortran
run_expect "hello f77" ./hello_f77
echo PASS
