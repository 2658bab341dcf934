# A program built against IVC, run with MPICH's library directories first on
# LD_LIBRARY_PATH (where libmpi.so.12 and libmpifort.so.12 are MPICH's, as Debian's
# libmpich-dev links them): it must load IVC's libraries, and with IVC's libraries gone it
# must fail with the loader's error naming IVC's library, never load MPICH's. Before IVC had
# sonames of its own (libmpi.so.12, libmpifort.so.12, MPICH's names with another ABI) the
# loader took MPICH's here.
. "$(dirname "$0")/lib.sh"
mpich=$(ldconfig -p | sed -n 's/.*libmpich\.so\.12 .*=> \(.*\)/\1/p' | head -n 1)
[ -n "$mpich" ] || skip "MPICH's libmpich.so.12 is not installed (Debian: apt-get install mpich)"
mpichfort=$(ldconfig -p | sed -n 's/.*libmpichfort\.so\.12 .*=> \(.*\)/\1/p' | head -n 1)
install_prefix
m=$SCRATCH/mpich-first
mkdir -p "$m" || fail "mkdir $m"
ln -s "$mpich" "$m/libmpi.so.12"
[ -n "$mpichfort" ] && ln -s "$mpichfort" "$m/libmpifort.so.12"
wrong="$m:$(dirname "$mpich")"

cd "$SCRATCH" || fail "cd $SCRATCH"
mpicc -O2 -o hello_c "$PROJ/hello.c" || fail "mpicc failed"
progs=hello_c
if [ -x "$P/bin/mpifort" ]; then
    mpifort -O2 -o hello_f "$PROJ/hello.f90" || fail "mpifort failed"
    progs="$progs hello_f"
fi
for prog in $progs; do
    needed=$(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case "$needed" in *libmpi.so.12*|*libmpifort.so.12*|*mpich*)
        fail "$prog records MPICH's sonames: $needed" ;; esac
    resolved=$(LD_LIBRARY_PATH=$wrong ldd "$prog") || fail "ldd $prog failed"
    case "$resolved" in *mpich*) fail "$prog with LD_LIBRARY_PATH=$wrong loads MPICH: $resolved" ;; esac
    echo "$resolved" | grep -q "libivcmpi.so.1 => $P/lib/libivcmpi.so.1" ||
        fail "$prog with LD_LIBRARY_PATH=$wrong: libivcmpi.so.1 not from $P/lib: $resolved"
done

out=$(LD_LIBRARY_PATH=$wrong "$P/bin/ivcrun" -n 2 --vms 2 ./hello_c 2>&1) ||
    fail "ivcrun hello_c with LD_LIBRARY_PATH=$wrong: $out"
case "$out" in *"hello c ok 2 IVC "*) ;; *) fail "hello_c with MPICH first: expected 'hello c ok 2 IVC ...', got: $out" ;; esac
case "$out" in *MPICH*) fail "hello_c ran on MPICH: $out" ;; esac
if [ -x hello_f ]; then
    out=$(LD_LIBRARY_PATH=$wrong "$P/bin/ivcrun" -n 2 --vms 2 ./hello_f 2>&1) ||
        fail "ivcrun hello_f with LD_LIBRARY_PATH=$wrong: $out"
    case "$out" in *"hello fortran ok 2"*) ;; *) fail "hello_f with MPICH first: got: $out" ;; esac
fi

# IVC's libraries gone: the loader names the missing one; nothing of MPICH's is loaded.
mv "$P/lib" "$P/lib.away" || fail "mv $P/lib"
out=$(LD_LIBRARY_PATH=$wrong LD_DEBUG=files ./hello_c 2>&1)
rc=$?
mv "$P/lib.away" "$P/lib" || fail "mv $P/lib.away"
[ $rc -eq 127 ] || fail "hello_c without IVC's libraries: expected exit 127, got $rc: $out"
case "$out" in *"libivcmpi.so.1: cannot open shared object file"*) ;;
*) fail "hello_c without IVC's libraries: expected the loader to name libivcmpi.so.1, got: $out" ;; esac
case "$out" in *"file=libmpi"*|*"file=libmpich"*|*"calling init"*mpich*)
    fail "hello_c without IVC's libraries touched MPICH's: $out" ;; esac
echo PASS
