# Command-line errors exit 2 with a message; --help and --version exit 0.
. "$(dirname "$0")/lib.sh"

run true
expect_rc 2; expect_err "missing -n"
run -n 2 --vms 3 true
expect_rc 2; expect_err "--vms 3 is more than the 2 ranks"
run -n 2 --bogus true
expect_rc 2; expect_err "unknown option '--bogus'"
run -n 0 true
expect_rc 2; expect_err "-n needs"
run -n 2
expect_rc 2; expect_err "missing the program"
run -n 2 --region-size 12Q true
expect_rc 2; expect_err "--region-size"
run -n 2 --timeout soon true
expect_rc 2; expect_err "--timeout"
run --help
expect_rc 0
case "$OUT" in "usage: ivcrun"*) ;; *) fail "--help: expected usage on stdout, got '$OUT'" ;; esac
run --version
expect_rc 0
case "$OUT" in "ivcrun (IVC) "*) ;; *) fail "--version: got '$OUT'" ;; esac

# Accepted spellings.
run -np 2 --no-ns true
expect_rc 0
run -n 2 --vms=1 --timeout=10 --region-size=4M --no-ns -- true
expect_rc 0

# A program that cannot run: 127 like a shell, before any rank starts.
run -n 2 no-such-program-ivc
expect_rc 127; expect_err "no-such-program-ivc: command not found"
echo PASS
