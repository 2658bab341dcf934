# Sourced by the build-system tests. The environment (tests.cmake) gives BUILD_DIR and
# SOURCE_DIR. Each test installs the build into a prefix of its own under the build tree
# (ranks in simulated VMs see a private /tmp, the build tree they share) and puts that
# prefix's bin/ first on PATH, as a user would; MPICH, when installed, stays on PATH behind
# it, which is the point: nothing may pick MPICH's wrappers, libraries or pkg-config files.
# A skip (exit 77) becomes a failure when IVCTEST_REQUIRE_BUILDSYS=1.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
PROJ=$SOURCE_DIR/tests/buildsys/proj
SCRATCH=$(mktemp -d "$BUILD_DIR/buildsys.XXXXXX") || exit 1
chmod 755 "$SCRATCH"
trap 'rm -rf "$SCRATCH"' EXIT

fail() {
    echo "FAIL: $*"
    exit 1
}

skip() {
    if [ "${IVCTEST_REQUIRE_BUILDSYS:-0}" = 1 ]; then
        fail "$* (IVCTEST_REQUIRE_BUILDSYS=1: must not skip)"
    fi
    echo "SKIP: $*"
    exit 77
}

# install_prefix: installs the build into $SCRATCH/prefix, sets P, puts $P/bin first on PATH
# and sets EXTRA to the flags a program needs on top of the library (a sanitized build's
# -fsanitize=...: build systems must then link the sanitizer runtimes themselves).
install_prefix() {
    P=$SCRATCH/prefix
    cmake --install "$BUILD_DIR" --prefix "$P" >"$SCRATCH/install.log" 2>&1 ||
        fail "cmake --install failed: $(tail -n 5 "$SCRATCH/install.log")"
    export PATH="$P/bin:$PATH"
    EXTRA=$(sed -n 's/^extra="\(.*\)"$/\1/p' "$P/bin/mpicc")
}

# need_fortran: skips when the build has no Fortran bindings.
need_fortran() {
    [ -x "$P/bin/mpifort" ] || skip "the build has no Fortran bindings (no gfortran)"
}

# expect_ivc_only PROGRAM [fortran]: PROGRAM records IVC's soname (a Fortran program:
# libivcmpifort's, which brings libivcmpi; linkers with --as-needed drop a direct libivcmpi)
# and nothing of another MPI's (readelf), and the loader resolves IVC's libraries to $P/lib
# (ldd).
expect_ivc_only() {
    local prog=$1 needed resolved want=libivcmpi.so.1 lib path
    [ "${2:-}" = fortran ] && want=libivcmpifort.so.1
    needed=$(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case " $needed " in *" $want "*) ;;
    *) fail "$prog: expected NEEDED $want, got: $needed" ;; esac
    case "$needed" in *mpich*|*libmpi.so*|*libmpifort.so*|*libmpi_*|*ompi*)
        fail "$prog: records another MPI's library: $needed" ;; esac
    resolved=$(ldd "$prog") || fail "ldd $prog failed"
    case "$resolved" in *mpich*|*"not found"*) fail "$prog: ldd shows: $resolved" ;; esac
    for lib in libivcmpi.so.1 $want; do
        path=$(echo "$resolved" | sed -n "s/^[[:space:]]*$lib => \([^ ]*\) .*/\1/p")
        [ -n "$path" ] && [ "$(realpath "$path")" = "$(realpath "$P/lib/$lib")" ] ||
            fail "$prog: $lib does not resolve to $P/lib: $resolved"
    done
}

# run_expect WHAT PROGRAM: runs PROGRAM on 2 ranks in 2 simulated VMs with the prefix's
# ivcrun and expects "WHAT ok 2" from rank 0.
run_expect() {
    local what=$1 prog=$2 out
    out=$("$P/bin/ivcrun" -n 2 --vms 2 "$prog" 2>&1) || fail "ivcrun $prog: $out"
    case "$out" in *"$what ok"*) ;; *) fail "$prog: expected '$what ok', got: $out" ;; esac
}
