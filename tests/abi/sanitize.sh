# Sourced by the abi tests that run programs built elsewhere (mpicc.mpich, NetPIPE, Python):
# in a sanitized build (IVC_SANITIZE=ON, test.sh's second pass) lib/abi/mpich needs the
# ASan/UBSan runtimes, which must be the first libraries of a process, and those programs do
# not bring them. abi_run is then "env LD_PRELOAD=<runtimes> ASAN_OPTIONS=...:detect_leaks=0",
# to put before ivcrun; else empty. Leaks are not reported: the programs were not built for
# it, and the layer keeps its attribute-callback records for the whole run by design.
abi_run=()
if readelf -d "$BUILD_DIR/lib/abi/mpich/libmpich.so.12" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    abi_pre=""
    for abi_rt in libasan.so libubsan.so; do
        abi_p=$(${CC:-cc} -print-file-name=$abi_rt 2>/dev/null)
        [ -f "$abi_p" ] && abi_pre="$abi_pre${abi_pre:+ }$abi_p"
    done
    abi_run=(env "LD_PRELOAD=$abi_pre${LD_PRELOAD:+ $LD_PRELOAD}"
        "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
fi
