# MPICH's own test suite (test/mpi of Debian's mpich source package) built against IVC
# with the build tree's mpicc/mpifort (the build tree is laid out as an install prefix:
# bin, include, lib), no shims, and run test by test in simulated VMs (ivcrun, one VM per
# rank) with the suite's own rank counts (capped at 8, as runtests -maxnp=8 does) and time
# limits (timeLimit=, else runtests' default of 180 s).
#
# Directories: attr coll comm datatype errhan group info init io pt2pt rma topo threads part
# errors ft spawn f77 f90 f08 (with their io subdirectories: the suite is configured with
# ROMIO's tests, which need only the standard's MPI-IO). spawn: the dynamic-process tests
# (spawn, ports, names, join, disconnect); the suite stays configured with --disable-spawn,
# which keeps the spawn variants of the other directories out of their lists, and the
# spawn directory is made by name with f08 and ft (before any test runs: two entries of one
# program, made at once as they start, would race). Left out: basic (MPICH
# 4.0.2 ships no testlist for it and its top list comments it out), cxx (the C++ bindings
# were removed from the standard), mpi_t and impls (MPICH internals). The io tests' files go to their working directory, one per test (they name
# their files alike), which ivcrun shares with every simulated VM.
# Every entry runs, also those MPICH marks strict=false (here: the persistent collectives,
# standard since MPI-4.0; the ft directory's ULFM calls, which IVC provides in mpi-ext.h;
# aborting a sub-communicator) and xfail= (runtests runs those too under
# --enable-strictmpi); IVC's own list of expected failures decides.
#
# A test passes as runtests decides: exit status 0 and "No Errors" in its output (other
# lines allowed: "Test Passed", FORTRAN STOP); resultTest=TestStatus and TestErrFatal
# need a non-zero exit, TestStatusNoErrors a non-zero exit and "No Errors".
# Two tests run at a time; an unexpected failure is re-run once alone (a loaded machine) and
# the output says so. tests/external/mpich-xfail.txt names every expected failure with its
# reason ("id | reason", then optionally "| limit=S": a shorter time limit for a known hang,
# or "| flaky": a race that fails some runs, whose pass is then no surprise); an unexpected
# failure or an unexpected pass fails the run.
#
# Knobs: IVCTEST_MPICH_JOBS (tests at a time, default 2), IVCTEST_MPICH_DIRS (a subset of
# the directories), IVCTEST_MPICH_ONLY (an extended regex over test ids, e.g.
# 'part/multipart'), IVCTEST_MPICH_TIMEOUT_SCALE (multiplies every time limit).
# Exit 77 (skip) when the source package cannot be had, unless IVCTEST_REQUIRE_EXTERNAL=1.
set -u
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
. "$SOURCE_DIR/tests/external/lib.sh"
work=$BUILD_DIR/external/mpich
mkdir -p "$work" && cd "$work" || exit 1
xfail_list=$SOURCE_DIR/tests/external/mpich-xfail.txt
prefix=$BUILD_DIR
jobs=${IVCTEST_MPICH_JOBS:-2}
scale=${IVCTEST_MPICH_TIMEOUT_SCALE:-1}
dirs=${IVCTEST_MPICH_DIRS:-attr coll comm datatype errhan group info init io pt2pt rma topo threads part errors ft spawn f77 f90 f08}
only=${IVCTEST_MPICH_ONLY:-}
start=$(date +%s)

for t in make perl; do command -v $t >/dev/null || ext_need_pkgs $t || ext_skip "no $t"; done
ext_debian_source mpich || ext_skip "cannot download Debian's mpich source package"
tarball=$(ls mpich_*.orig.tar.* | sort -V | tail -1)
version=$(echo "$tarball" | sed 's/^mpich_\(.*\)\.orig\.tar\..*$/\1/')
suite=$work/mpich-$version/test/mpi

# Configured and built again whenever what a test program compiles against changes: the
# headers, the Fortran modules and the libraries' exported symbols (the programs link
# libivcmpi dynamically, so a change inside the library needs no rebuild: the symbols' names
# and kinds count, not their addresses).
stamp=$( (cat "$tarball" "$prefix"/include/mpi*.h "$prefix"/include/*.mod 2>/dev/null | md5sum
    for l in "$prefix"/lib/libivcmpi.so.1 "$prefix"/lib/libivcmpifort.so.1; do
        [ -e "$l" ] && nm -D --defined-only "$l" | awk '{print $2, $3}' | sort
    done) | md5sum | cut -c1-12)
if [ "$(cat build.stamp 2>/dev/null)" != "$stamp" ]; then
    echo "== building MPICH $version test/mpi against $prefix (build.log)"
    rm -rf "mpich-$version" && tar xf "$tarball" "mpich-$version/test/mpi" || fail "cannot unpack $tarball"
    fortran=all
    [ -x "$prefix/bin/mpifort" ] && command -v gfortran >/dev/null || fortran=no
    (cd "$suite" && ./configure --with-mpi="$prefix" --enable-strictmpi --enable-threads=multiple \
        --enable-fortran=$fortran --disable-cxx --enable-romio --disable-spawn --enable-ft-tests \
        --enable-checkerrors --disable-dtpools --disable-perftest) >build.log 2>&1 ||
        { tail -30 build.log; fail "MPICH's test suite does not configure against IVC (build.log)"; }
    # configure enables f08 only inside MPICH's own tree (FROM_MPICH=yes, which changes much
    # else): switch its conditional on in config.status and regenerate the Makefiles.
    if [ $fortran = all ]; then
        (cd "$suite" && sed -i 's/^S\["HAS_F08_FALSE"\]=""/S["HAS_F08_FALSE"]="#"/;
            s/^S\["HAS_F08_TRUE"\]="#"/S["HAS_F08_TRUE"]=""/;
            s/^S\["f08dir"\]="#"/S["f08dir"]="f08"/' config.status && ./config.status) >>build.log 2>&1 ||
            fail "cannot switch the f08 tests on (build.log)"
    fi
    # make -k: a program that does not build is a failure of that test, not of the run.
    # f08, ft and spawn are made by name (the top-level list leaves them out); the f08 helper
    # library first, which f08's programs would otherwise each make at once.
    make -C "$suite" -k -j"$jobs" >>build.log 2>&1
    [ $fortran = all ] && make -C "$suite/util" libmtest_f08.la >>build.log 2>&1
    for d in f08 ft spawn; do
        [ -f "$suite/$d/Makefile" ] && make -C "$suite/$d" -k -j"$jobs" >>build.log 2>&1
    done
    echo "$stamp" >build.stamp
fi

# Lists every entry of DIR's testlist, recursing into subdirectories, as
# "path np key=value...", the path relative to test/mpi.
list_tests() {
    local dir=$1 line prog rest
    [ -f "$suite/$dir/testlist" ] || return 0
    while IFS= read -r line; do
        line=${line%%#*}
        read -r prog rest <<<"$line"
        case $prog in "" | !*) continue ;; esac
        if [ -d "$suite/$dir/$prog" ]; then
            list_tests "$dir/$prog"
        else
            echo "$dir/$prog $rest"
        fi
    done <"$suite/$dir/testlist"
}

# run_one ID LOG: runs the test ID ("path np key=value...") and writes PASS, FAIL <why>
# or SKIP <why> as the first line of LOG, the program's output after it.
run_one() {
    local id=$1 log=$2 path np opts opt key val limit result="" args=() envs=() xargs=()
    read -r path np opts <<<"$id"
    np=${np:-2}
    [ "$np" -gt 8 ] && np=8
    limit=180
    for opt in $opts; do
        key=${opt%%=*} val=${opt#*=}
        case $key in
        timeLimit) limit=$val ;;
        arg) args+=("$val") ;;
        env) envs+=("$val") ;;
        mpiexecarg) xargs+=("$val") ;;
        resultTest) result=$val ;;
        esac
    done
    [ -n "${xlimit[$id]:-}" ] && limit=${xlimit[$id]}
    limit=$((limit * scale))
    local dir=$suite/${path%/*} prog=${path##*/}
    # As runtests: a program the directory's default target left out (MPICH's own MPIX
    # tests under --enable-strictmpi, e.g. rma/aint) is made by name.
    [ -x "$dir/$prog" ] || make -C "$dir" "$prog" >/dev/null 2>&1
    if [ ! -x "$dir/$prog" ]; then
        echo "FAIL does not build" >"$log"
        return
    fi
    # The io tests name their files alike (iotest.txt, testfile ...) in their working
    # directory: each runs in a directory of its own, so that two at a time do not share one.
    local wd=$dir exe=./$prog
    case "/$path" in */io/*)
        wd=$work/iodirs/$(echo "$id" | tr -c 'A-Za-z0-9_.=-' '_') exe=$dir/$prog
        rm -rf "$wd" && mkdir -p "$wd" ;;
    esac
    # spawn/join connects its ranks over TCP by host name before MPI_Comm_join, as between
    # real VMs: the VMs get their virtual network (ivcrun --net).
    [ "$path" = spawn/join ] && xargs+=(--net)
    local out rc t0=$SECONDS
    out=$(cd "$wd" && env "${envs[@]}" timeout -k 10 $((limit + 30)) "$prefix/bin/ivcrun" -n "$np" \
        --timeout "$limit" "${xargs[@]}" "$exe" "${args[@]}" 2>&1)
    rc=$?
    local noerr=0 other=0
    grep -qE '^\s*No [Ee]rrors\s*$' <<<"$out" && noerr=1
    # Lines other than the verdict; ivcrun's own report of a failed rank is not the test's.
    grep -vE '^\s*(No [Ee]rrors|Test Passed)\s*$|FORTRAN STOP|^\s*$|^ivcrun' <<<"$out" | grep -q . && other=1
    local why=""
    case ${result:-default} in
    default)
        if [ $rc -eq 124 ]; then why="timed out after $limit s"
        elif [ $rc -ne 0 ]; then why="exit status $rc"
        elif [ $noerr = 0 ]; then why="no 'No Errors'"
        elif [ $other = 1 ]; then why="unexpected output"
        fi ;;
    TestStatus | TestErrFatal)
        # As runtests: any non-zero exit passes, a time-out too (init/timeout is about
        # mpiexec's own time limit).
        [ $rc -eq 0 ] && why="exit status 0 where an error exit was required" ;;
    TestStatusNoErrors)
        if [ $rc -eq 124 ]; then why="timed out after $limit s"
        elif [ $rc -eq 0 ]; then why="exit status 0 where an error exit was required"
        elif [ $noerr = 0 ]; then why="no 'No Errors'"
        fi ;;
    esac
    { if [ -z "$why" ]; then echo PASS; else echo "FAIL $why"; fi
      echo "$ prog np=$np time limit=$limit s, exit $rc, $((SECONDS - t0)) s"
      printf '%s\n' "$out"; } >"$log"
}

# The expected failures: "path np [key=value...] | reason [| limit=S | flaky]", one per line.
declare -A xfail xlimit xflaky
while IFS= read -r line; do
    case $line in "#"* | "") continue ;; esac
    key=$(echo "${line%%|*}" | sed 's/  */ /g; s/^ //; s/ $//')
    rest=${line#*|}
    case $rest in *"| flaky"*) xflaky[$key]=1 rest=${rest%| flaky*} ;; esac
    case $rest in *"| limit="*) xlimit[$key]=${rest##*| limit=} rest=${rest%| limit=*} ;; esac
    xfail[$key]=$rest
done <"$xfail_list"


logdir=$work/logs
rm -rf "$logdir" && mkdir -p "$logdir"
logname() { echo "$logdir/$(echo "$1" | tr -c 'A-Za-z0-9_.=-' '_').log"; }

: >ids
for d in $dirs; do
    list_tests "$d" | sed 's/  */ /g; s/ $//' | { if [ -n "$only" ]; then grep -E "$only"; else cat; fi; } >>ids
done
[ -s ids ] || fail "no tests listed (IVCTEST_MPICH_DIRS='$dirs', IVCTEST_MPICH_ONLY='$only')"
n=$(wc -l <ids)
echo "== running $n tests, $jobs at a time"
running=0
while IFS= read -r id; do
    run_one "$id" "$(logname "$id")" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done <ids
wait

# Unexpected failures are re-run once alone: two tests of up to 8 ranks share 2 cores.
rerun_note=$work/reruns
: >"$rerun_note"
while IFS= read -r id; do
    log=$(logname "$id")
    first=$(head -1 "$log")
    case $first in FAIL*) ;; *) continue ;; esac
    [ -n "${xfail[$id]+yes}" ] && continue
    run_one "$id" "$log.again"
    again=$(head -1 "$log.again")
    echo "re-run alone: $id: ${first#FAIL } -> ${again}" >>"$rerun_note"
    mv "$log" "$log.first" && mv "$log.again" "$log"
done <ids
sed 's/^/  /' "$rerun_note"

status=0
declare -A pass fails skips
total_pass=0 total_fail=0 total_skip=0
while IFS= read -r id; do
    d=${id%%/*}
    log=$(logname "$id")
    first=$(head -1 "$log")
    expected=${xfail[$id]+yes}
    case $first in
    PASS)
        pass[$d]=$((${pass[$d]:-0} + 1)); total_pass=$((total_pass + 1))
        if [ -n "$expected" ] && [ -n "${xflaky[$id]:-}" ]; then
            echo "passed this time (listed as flaky): $id"
        elif [ -n "$expected" ]; then
            echo "UNEXPECTED PASS: $id (listed in mpich-xfail.txt:${xfail[$id]})"
            status=1
        fi ;;
    SKIP*)
        skips[$d]=$((${skips[$d]:-0} + 1)); total_skip=$((total_skip + 1)) ;;
    *)
        fails[$d]=$((${fails[$d]:-0} + 1)); total_fail=$((total_fail + 1))
        if [ -z "$expected" ]; then
            echo "UNEXPECTED FAILURE: $id: ${first#FAIL } ($log):"
            sed -n '2,21p' "$log" | sed 's/^/    /'
            status=1
        fi ;;
    esac
done <ids
for d in $dirs; do
    echo "$d: ${pass[$d]:-0} passed, ${fails[$d]:-0} failed, ${skips[$d]:-0} skipped"
done
echo "time: $(($(date +%s) - start)) s (build included), $jobs tests at a time"
echo "mpich: $total_pass passed, $total_fail failed"
[ $status -eq 0 ] && echo PASS
exit $status
