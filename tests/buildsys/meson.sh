# A user's Meson project (tests/buildsys/proj: dependency('mpi') for c, cpp and fortran)
# configured with nothing but IVC's bin/ first on PATH: Meson must take IVC's wrappers
# (it asks them --showme:version, --showme:compile and --showme:link), never MPICH's, and
# the programs must link IVC's libraries only and run under ivcrun.
. "$(dirname "$0")/lib.sh"
command -v meson >/dev/null || skip "meson is not installed (scripts/setup.sh installs it)"
install_prefix
need_fortran
unset MPICC MPICXX MPIFC MPIF90 MPIF77
# Meson looks for Open MPI's ompi-c pkg-config file before it asks mpicc: where Open MPI's
# development files are installed (bench/harness.py's peer) only IVC's directory may count,
# as the README tells users.
export PKG_CONFIG_LIBDIR=$P/lib/pkgconfig
b=$SCRATCH/build
# A sanitized IVC (-fsanitize=LIST): Meson's own option links the runtimes into the program
# (they must load first); Meson keeps only -l, -L and -W link flags from the wrapper.
san=
case "$EXTRA" in *-fsanitize=*)
    san=${EXTRA#*-fsanitize=}
    san="-Db_sanitize=${san%% *} -Db_lundef=false" ;;
esac
meson setup $san "$b" "$PROJ" >"$SCRATCH/meson.log" 2>&1 ||
    fail "meson setup failed: $(tail -n 30 "$SCRATCH/meson.log")"
grep -q "mpi versions: c [0-9]" "$SCRATCH/meson.log" ||
    fail "meson found no MPI version: $(grep -i mpi "$SCRATCH/meson.log")"
v=$(mpicc --showme:version | sed 's/.*IVC \([0-9.]*\).*/\1/')
grep -q "mpi versions: c $v, cpp $v, fortran $v" "$SCRATCH/meson.log" ||
    fail "meson did not find IVC $v for every language: $(grep "mpi versions" "$SCRATCH/meson.log")"
meson compile -C "$b" >"$SCRATCH/build.log" 2>&1 ||
    fail "meson compile failed: $(tail -n 30 "$SCRATCH/build.log")"
expect_ivc_only "$b/hello_c"
expect_ivc_only "$b/hello_cxx"
expect_ivc_only "$b/hello_f" fortran
expect_ivc_only "$b/hello_f77" fortran
run_expect "hello c" "$b/hello_c"
run_expect "hello cxx" "$b/hello_cxx"
run_expect "hello fortran" "$b/hello_f"
run_expect "hello f77" "$b/hello_f77"
echo PASS
