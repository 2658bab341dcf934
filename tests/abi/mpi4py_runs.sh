# Sourced by mpi4py_suite.sh (the PyPI wheel, MPICH ABI) and mpi4py_std.sh (built for the
# standard ABI): mpi4py_suite_runs WHAT LIMIT VPY TESTS runs mpi4py's own suite (TESTS: its
# test/ directory) with python VPY under ivcrun at each rank count of IVC_ABI_SUITE_RANKS
# (default 1 2 3), one simulated VM per rank with a virtual network (ivcrun --net, for
# testJoin's TCP connection), each run within LIMIT seconds and logged to suite.N.log in the
# working directory; prints the counts and the failures, then PASS; returns 1 if any run
# failed. Excluded in both (the callers say why): testSymbolCoverage, testMissingNumPy.
# Needs abi_run (sanitize.sh) and TMPDIR set to a directory every VM sees.
mpi4py_suite_runs() {
    local what=$1 limit=$2 vpy=$3 tests=$4 n rc status=0
    for n in ${IVC_ABI_SUITE_RANKS:-1 2 3}; do
        echo "== mpi4py test suite ($what), $n rank(s)"
        timeout "$limit" "${abi_run[@]}" "$BUILD_DIR/bin/ivcrun" -n "$n" --vms "$n" --net \
            "$vpy" "$tests/main.py" -x testSymbolCoverage -x testMissingNumPy \
            >"suite.$n.log" 2>&1
        rc=$?
        grep -E "^Ran |^OK|^FAILED" "suite.$n.log" | sort | uniq -c
        grep -E "^(ERROR|FAIL):" "suite.$n.log" | sort -u | head -20
        [ $rc -eq 0 ] || { echo "FAIL: $n rank(s): exit $rc ($PWD/suite.$n.log)"; status=1; }
    done
    [ $status -eq 0 ] && echo PASS
    return $status
}
