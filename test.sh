#!/bin/sh
# The test suite on a fresh machine: installs the build tools, then builds and runs every
# test twice, once plain and once under AddressSanitizer + UndefinedBehaviorSanitizer (the
# real-VM tests, label vm, the outside suites built against IVC, label external, and the
# fuzz targets, label fuzz (built with their own sanitizers), only
# in the plain pass: guests boot under software emulation, and mpi4py's interpreter is
# not built with the sanitizers).
#   ./test.sh            both builds
#   ./test.sh --quick    the plain build only
set -eu
cd "$(dirname "$0")"
scripts/setup.sh
run_suite() { # build-dir, ctest args, extra cmake args...
    dir=$1
    sel=$2
    shift 2
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
    cmake --build "$dir"
    ctest --test-dir "$dir" --output-on-failure --timeout 300 $sel
}
echo "== test suite"
run_suite build ""
if [ "${1:-}" != "--quick" ]; then
    echo "== test suite under ASan/UBSan"
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        run_suite build-asan "-LE ^(vm|external|fuzz)$" -DIVC_SANITIZE=ON
fi
echo "== all tests passed"
