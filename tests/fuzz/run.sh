#!/bin/bash
# Builds the fuzz targets with clang's libFuzzer (with ASan and UBSan) apart from the main
# build, and runs each for a bounded time. Exits 0 when no target found a crash, 1 when one
# did (its input is left in OUT/crash-* and named), 77 when clang or libFuzzer is missing
# (1 instead when IVCTEST_REQUIRE_FUZZ=1: CI wants the fuzzing to happen).
#
#   run.sh SRC_DIR OUT_DIR [SECONDS_PER_TARGET]    (default 25; FUZZ_SECONDS overrides)
# Debian: apt-get install clang-14 libfuzzer-14-dev (scripts/setup.sh does).
set -u
src=${1:?source directory}
out=${2:?output directory}
secs=${FUZZ_SECONDS:-${3:-25}}
targets="fuzz_region fuzz_geometry fuzz_ring"

skip() {
    if [ "${IVCTEST_REQUIRE_FUZZ:-0}" = 1 ]; then
        echo "FAIL: $* (IVCTEST_REQUIRE_FUZZ=1)"
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}

cc=""
for c in ${CLANG:-} clang-14 clang; do
    if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
done
[ -n "$cc" ] || skip "no clang found (Debian: apt-get install clang-14 libfuzzer-14-dev)"
mkdir -p "$out/obj" "$out/corpus"
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' \
    >"$out/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$out/probe.c" -o "$out/probe" 2>"$out/probe.log" ||
    skip "$cc cannot link libFuzzer programs (Debian: apt-get install libfuzzer-14-dev): $(head -3 "$out/probe.log")"

flags=(-std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined
       -fno-sanitize-recover=undefined "-I$src/src" "-I$src/tests/fuzz")
# The layers whose code reads the region, built once for every target, two at a time.
objs=()
: >"$out/build.log"
failed=0
for f in "$src"/src/base/*.c "$src"/src/region/*.c "$src"/src/shm/*.c; do
    o="$out/obj/$(basename "$(dirname "$f")")_$(basename "${f%.c}").o"
    objs+=("$o")
    "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$f" -o "$o" >>"$out/build.log" 2>&1 &
    if [ "$(jobs -rp | wc -l)" -ge 2 ]; then wait -n || failed=1; fi
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
if [ $failed -ne 0 ]; then
    echo "FAIL: building the library sources with $cc:"
    grep -A6 "error" "$out/build.log" | head -40
    exit 1
fi
for t in $targets; do
    if ! "$cc" "${flags[@]}" -fsanitize=fuzzer "$src/tests/fuzz/$t.c" "${objs[@]}" -lm -o "$out/$t" \
        >"$out/$t.build.log" 2>&1; then
        echo "FAIL: building $t:"
        head -40 "$out/$t.build.log"
        exit 1
    fi
done

status=0
export FUZZ_TAG=$$
trap 'rm -f /dev/shm/ivc-fuzz-*-"$FUZZ_TAG"-*' EXIT
for t in $targets; do
    mkdir -p "$out/corpus/$t"
    # One process per target, its corpus kept in the build tree between runs; a crash, an
    # input running over 10 s (a hang) or 2 GB of memory ends it with a non-zero status.
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
        "$out/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -close_fd_mask=2         -artifact_prefix="$out/$t-" "$out/corpus/$t" >"$out/$t.log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$t.log" | grep -o '[0-9]*$')
    if [ $rc -ne 0 ]; then
        echo "FAIL: $t exited with $rc after ${runs:-?} inputs; input: $(ls "$out/$t-"* 2>/dev/null | head -1)"
        grep -A30 "ERROR:\|runtime error\|==ERROR\|deadly signal\|timeout" "$out/$t.log" | head -50
        status=1
    else
        echo "$t: ${runs:-?} inputs in ${secs}s, no crash ($(grep -c . <<<"$(ls "$out/corpus/$t")") in corpus)"
    fi
done
exit $status
