# ivc-info from an install prefix: the library's version (from the renamed library beside
# it), the configuration, and every tunable with its value and source; --api still finds the
# libraries by their sonames.
. "$(dirname "$0")/lib.sh"
install_prefix
v=$(mpicc --showme:version | sed 's/.*IVC \([0-9.]*\).*/\1/')
unset IVC_EAGER_LIMIT
out=$("$P/bin/ivc-info" 2>&1) || fail "ivc-info exited $?: $out"
echo "$out" | head -n 1 | grep -qx "IVC $v (ivc-info)" || fail "ivc-info: first line: $(echo "$out" | head -n 1)"
case "$out" in *"library:          $P/lib/libivcmpi.so.1.0.0"*"IVC $v (MPI "*"; MPI 4.1"*) ;;
*) fail "ivc-info: no library line naming $P/lib/libivcmpi.so.1.0.0 and IVC $v: $out" ;; esac
if [ -x "$P/bin/mpifort" ]; then want="Fortran:          yes"; else want="Fortran:          no"; fi
case "$out" in *"$want"*) ;; *) fail "ivc-info: expected '$want' in: $out" ;; esac
case "$out" in *"network channel:  yes (UCX)"*|*"network channel:  no (built without UCX)"*) ;;
*) fail "ivc-info: no network channel line: $out" ;; esac
case "$out" in *"C++:              yes"*) ;; *) fail "ivc-info: no C++ line: $out" ;; esac
row=$(echo "$out" | grep "^IVC_EAGER_LIMIT=")
case "$row" in *"[default]"*"(default: "*) ;; *) fail "ivc-info: IVC_EAGER_LIMIT unset: got row '$row'" ;; esac
out=$(IVC_EAGER_LIMIT=512 "$P/bin/ivc-info" 2>&1) || fail "IVC_EAGER_LIMIT=512 ivc-info exited $?: $out"
row=$(echo "$out" | grep "^IVC_EAGER_LIMIT=")
case "$row" in "IVC_EAGER_LIMIT=512 "*"[environment]"*) ;; *) fail "ivc-info: IVC_EAGER_LIMIT=512: got row '$row'" ;; esac
n=$(echo "$out" | grep -c "^IVC_[A-Z0-9_]*=.*\[\(default\|environment\)\] # ")
[ "$n" -ge 10 ] || fail "ivc-info: expected every tunable row with a source, got $n rows: $out"
# Unset, the eager limit shrinks to what a small ring holds (two 2 KiB records: 1936 bytes
# of payload); set, it does not, and the ring is refused.
out=$(IVC_RING_SIZE=4K "$P/bin/ivc-info" 2>&1) || fail "IVC_RING_SIZE=4K ivc-info exited $?: $out"
row=$(echo "$out" | grep "^IVC_EAGER_LIMIT=")
case "$row" in "IVC_EAGER_LIMIT=1936 "*"[default]"*) ;; *) fail "ivc-info: IVC_RING_SIZE=4K: got row '$row'" ;; esac
out=$(IVC_RING_SIZE=4K IVC_EAGER_LIMIT=4K "$P/bin/ivc-info" 2>&1) && fail "IVC_RING_SIZE=4K IVC_EAGER_LIMIT=4K: ivc-info exited 0"
case "$out" in *"IVC_RING_SIZE=4096 is too small for IVC_EAGER_LIMIT=4096"*) ;; *) fail "IVC_RING_SIZE=4K IVC_EAGER_LIMIT=4K: no error naming both: $out" ;; esac
out=$(IVC_EAGER_LIMIT=lots "$P/bin/ivc-info" 2>&1) && fail "IVC_EAGER_LIMIT=lots: ivc-info exited 0"
case "$out" in *"IVC_EAGER_LIMIT=lots"*) ;; *) fail "IVC_EAGER_LIMIT=lots: no error naming it: $out" ;; esac
out=$("$P/bin/ivc-info" --api 2>&1) || fail "ivc-info --api exited $?: $out"
case "$out" in *total*) ;; *) fail "ivc-info --api: no total: $out" ;; esac
case "$out" in *"no libivcmpifort"*) [ -x "$P/bin/mpifort" ] && fail "ivc-info --api missed libivcmpifort: $out" ;; esac
echo PASS
