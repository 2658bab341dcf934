# pkg-config with PKG_CONFIG_PATH=<prefix>/lib/pkgconfig: mpi, mpi-c, mpi-cxx (Debian's
# names), mpi-fort and ivc (libivc) give IVC's flags, relocatable (the prefix is wherever the files
# are), and the flags build programs that link IVC's libraries only. No mpich.pc: IVC does
# not have MPICH's ABI.
. "$(dirname "$0")/lib.sh"
command -v pkg-config >/dev/null || skip "pkg-config is not installed"
install_prefix
export PKG_CONFIG_PATH=$P/lib/pkgconfig
[ -e "$P/lib/pkgconfig/mpich.pc" ] && fail "$P/lib/pkgconfig/mpich.pc must not exist"
v=$(mpicc --showme:version | sed 's/.*IVC \([0-9.]*\).*/\1/')
cd "$SCRATCH" || fail "cd $SCRATCH"
pcs="mpi mpi-c mpi-cxx ivc"
[ -x "$P/bin/mpifort" ] && pcs="$pcs mpi-fort"
for pc in $pcs; do
    got=$(pkg-config --modversion $pc) || fail "pkg-config --modversion $pc failed"
    [ "$got" = "$v" ] || fail "pkg-config --modversion $pc: expected $v, got $got"
    flags=$(pkg-config --cflags --libs $pc) || fail "pkg-config --cflags --libs $pc failed"
    # The paths pkg-config prints are relative to the .pc file: they must lead to $P.
    inc=$(echo "$flags" | sed -n 's/^-I\([^ ]*\) .*/\1/p')
    lib=$(echo "$flags" | sed -n 's/.* -L\([^ ]*\) .*/\1/p')
    [ -n "$inc" ] && [ "$(realpath "$inc")" = "$P/include" ] ||
        fail "pkg-config $pc: -I does not lead to $P/include: $flags"
    [ -n "$lib" ] && [ "$(realpath "$lib")" = "$P/lib" ] ||
        fail "pkg-config $pc: -L does not lead to $P/lib: $flags"
    case "$pc" in
    mpi-fort) want="-livcmpifort -livcmpi" ;;
    ivc) want="-livc" ;;
    *) want="-livcmpi" ;;
    esac
    case "$flags" in *" $want"*) ;; *) fail "pkg-config $pc: expected $want in: $flags" ;; esac
    case "$flags" in *"-Wl,-rpath,$lib"*) ;; *) fail "pkg-config $pc: no rpath to $lib in: $flags" ;; esac
done

cc -O2 -o hello_pc "$PROJ/hello.c" $(pkg-config --cflags --libs mpi) || fail "cc with pkg-config mpi failed"
expect_ivc_only hello_pc
run_expect "hello c" ./hello_pc
c++ -O2 -o hello_pcxx "$PROJ/hello.cpp" $(pkg-config --cflags --libs mpi-cxx) ||
    fail "c++ with pkg-config mpi-cxx failed"
expect_ivc_only hello_pcxx
run_expect "hello cxx" ./hello_pcxx
need_fortran
gfortran -O2 -o hello_pf "$PROJ/hello77.f" $(pkg-config --cflags --libs mpi-fort) ||
    fail "gfortran with pkg-config mpi-fort failed"
expect_ivc_only hello_pf fortran
run_expect "hello f77" ./hello_pf
echo PASS
