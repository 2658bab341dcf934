# Sourced by the Hydra/Open MPI compatibility tests, after lib.sh. COMPAT_RANK names the
# MPI program that prints one "rank=R ... NAME=value" line per rank (compat_rank.c).
: "${COMPAT_RANK:?COMPAT_RANK must name the launcher_compat_rank program}"

# The build's bin directory first in PATH: job scripts call mpiexec and mpirun by name.
BIN=$(dirname "$IVCRUN")
[ -x "$BIN/mpiexec" ] && [ -x "$BIN/mpirun" ] || fail "no mpiexec/mpirun next to $IVCRUN"
export PATH="$BIN:$PATH"

# rank_line FILE R: the line rank R printed.
rank_line() { grep -m1 "rank=$2 " "$1"; }

# field LINE NAME: the value of NAME=... in LINE (values have no spaces, except the last).
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# expect_field FILE R NAME VALUE: rank R printed NAME=VALUE.
expect_field() {
    local line
    line=$(rank_line "$1" "$2") || fail "$1: no line of rank $2 in: $(cat "$1")"
    expect_eq "$1: rank $2's $3" "$4" "$(field "$line" "$3")"
}

# expected_cpus KIND R: the CPUs rank R must be bound to with -bind-to KIND (core,
# hwthread, socket): the R-th unit, round robin, of the CPUs this test may use, grouped as
# the kernel's topology says (bind.h).
expected_cpus() {
    local allowed
    allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
    printf '%s\n' "$allowed" | tr ',' '\n' | awk -F- '{ e = NF > 1 ? $2 : $1; for (c = $1; c <= e; c++) print c }' |
        while read -r c; do
            t=/sys/devices/system/cpu/cpu$c/topology
            pkg=$(cat "$t/physical_package_id" 2>/dev/null || echo "x$c")
            core=$(cat "$t/core_id" 2>/dev/null || echo "x$c")
            case "$1" in
            core) echo "$pkg:$core $c" ;; socket) echo "$pkg $c" ;; *) echo "$c $c" ;;
            esac
        done | awk -v r="$2" '
            !($1 in idx) { idx[$1] = n++; }
            { cpus[idx[$1]] = cpus[idx[$1]] (cpus[idx[$1]] == "" ? "" : " ") $2 }
            END {
                k = split(cpus[r % n], c, " "); out = ""
                for (i = 1; i <= k; i++) {
                    j = i; while (j < k && c[j + 1] == c[j] + 1) j++
                    out = out (out == "" ? "" : ",") (j > i ? c[i] "-" c[j] : c[i]); i = j
                }
                print out
            }'
}
