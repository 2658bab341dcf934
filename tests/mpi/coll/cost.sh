#!/bin/bash
# The cost model of the shared-memory collectives (issue 27): at P ranks (16 in CI,
# oversubscribed: counts do not depend on timing), each collective of each size runs once
# (coll_cost, its result checked) with IVC_REPORT_COLL=1, and every rank's counts must stay
# within 2x the per-rank lower bound of any algorithm:
#   read       bytes it read out of other ranks' areas (copies and reduction operands)
#   published  bytes it copied into its own area for the others
# Lower bounds per rank, n bytes per rank (the message; a block of reduce_scatter,
# allgather, alltoall):
#   bcast           read n (not the root), published n (the root), 0 otherwise
#   reduce          read (P-1)n/P: every element of the others' contributions is read by
#                   some rank, and spread evenly that is a (P-1)/P share each; published
#                   (P-1)n/P: what the others need of its contribution
#   allreduce       read 2(P-1)n/P: its share of the reduction, then the others' results;
#                   published n: (P-1)n/P of contribution and its n/P of result
#   reduce_scatter  read (P-1)n, published (P-1)n: the others' blocks of its input
#   allgather       read (P-1)n, published n
#   alltoall        read (P-1)n, published (P-1)n
# And `first`: the first collective on MPI_COMM_WORLD and on a duplicate, a split and a
# created communicator of it needs no set-up of its own (coll setups 0 on every rank).
# Reduce is counted as a host with a core per rank runs it (IVC_COLL_REDUCE_SPLIT=yes; its
# auto keeps the unpartitioned one when ranks outnumber cores, as here in CI).
#
#   cost.sh IVCRUN COLL_COST [P]
set -u
ivcrun=${1:?ivcrun} prog=${2:?coll_cost} p=${3:-16}
fail=0 checked=0
run() { # KIND BYTES [ROOT]: runs it; its report on stdout
    local out
    if ! out=$(IVC_REPORT_COLL=1 IVC_COLL_REDUCE_SPLIT=yes "$ivcrun" -n "$p" --vms "$p" --timeout 300 "$prog" "$@" 2>&1); then
        echo "FAIL: $*: the job failed"
        echo "$out" | tail -20
        return 1
    fi
    echo "$out"
}
for spec in "bcast 65536 3" "bcast 4194304 5" "reduce 65536 3" "reduce 4194304 7" \
            "allreduce 65536" "allreduce 4194304" "reduce_scatter 65536" \
            "reduce_scatter 1048576" "allgather 65536" "allgather 1048576" "alltoall 65536" \
            "alltoall 1048576"; do
    set -- $spec
    kind=$1 n=$2 root=${3:-0}
    family=$kind
    [[ $kind = allgather ]] && family=gather
    out=$(run "$@") || { fail=1; continue; }
    report=$(echo "$out" | grep " coll $family: ")
    if [[ $(echo "$report" | grep -c .) -ne $p ]]; then
        echo "FAIL: $spec: $(echo "$report" | grep -c .) of $p ranks counted a $family (the shared-memory path was not taken)"
        echo "$out" | tail -5
        fail=1
        continue
    fi
    verdict=$(echo "$report" | awk -v kind="$kind" -v n="$n" -v p="$p" -v root="$root" '
    {
        r = $3 + 0
        for (i = 1; i <= NF; i++) { if ($i == "published") pub = $(i + 1); if ($i == "read") rd = $(i + 1) }
        share = (p - 1) * n / p
        if (kind == "bcast")               { rb = (r == root) ? 0 : n; pb = (r == root) ? n : 0 }
        else if (kind == "reduce")         { rb = share; pb = share }
        else if (kind == "allreduce")      { rb = 2 * share; pb = n }
        else if (kind == "reduce_scatter") { rb = (p - 1) * n; pb = (p - 1) * n }
        else if (kind == "allgather")      { rb = (p - 1) * n; pb = n }
        else                               { rb = (p - 1) * n; pb = (p - 1) * n }
        ok = rd <= 2 * rb + 4096 && pub <= 2 * pb + 4096
        if (!ok && bad++ < 3) printf "rank %d read %d (bound %d) published %d (bound %d); ", r, rd, rb, pub, pb
        if (rb) mr = (rd / rb > mr) ? rd / rb : mr
        if (pb) mp = (pub / pb > mp) ? pub / pb : mp
    }
    END { printf "%s: worst read %.2fx, worst published %.2fx of the bounds", bad ? "OVER" : "ok", mr, mp }')
    checked=$((checked + 1))
    echo "$spec: $verdict"
    [[ $verdict = *OVER:* ]] && fail=1
done
out=$(run first 4096) || fail=1
setups=$(echo "$out" | grep -c " coll setups 0$")
if [[ $setups -ne $p ]]; then
    echo "FAIL: first collectives: $setups of $p ranks needed no set-up:"
    echo "$out" | grep " coll setups" | head -5
    fail=1
else
    echo "first collectives on world, dup, split, create: no set-up on any of the $p ranks"
fi
# A Bcast between two ranks up to 256 bytes is one point-to-point message (coll_shm.c,
# COLL_PAIR_BCAST): no rank counts a shared-memory broadcast; above it, or with
# IVC_COLL_ROOTED_P2P=off, both do.
pair() { # ENV BYTES WANT: the ranks of a 2-rank Bcast that counted it must be WANT
    local out got
    out=$(env "$1" IVC_REPORT_COLL=1 "$ivcrun" -n 2 --vms 2 --timeout 120 "$prog" bcast "$2" 1 2>&1) ||
        { echo "FAIL: 2-rank bcast $2 ($1): the job failed"; echo "$out" | tail -5; return 1; }
    got=$(echo "$out" | grep -c " coll bcast: calls 1 ")
    if [[ $got -ne $3 ]]; then
        echo "FAIL: 2-rank bcast of $2 bytes ($1): $got ranks took the shared-memory path, expected $3"
        return 1
    fi
    echo "2-rank bcast of $2 bytes ($1): $got ranks took the shared-memory path"
}
pair IVC_COLL_ROOTED_P2P=auto 8 0 || fail=1
pair IVC_COLL_ROOTED_P2P=auto 256 0 || fail=1
pair IVC_COLL_ROOTED_P2P=auto 512 2 || fail=1
pair IVC_COLL_ROOTED_P2P=off 256 2 || fail=1
# Ranks bound to a core each (-bind-to core) see one CPU apiece, but the host is not
# oversubscribed while they have distinct cores: a 2-rank Reduce of 64 bytes stays in
# shared memory (with one CPU it would go point-to-point, IVC_COLL_ROOTED_P2P=auto); 4
# ranks on fewer cores go point-to-point.
bound() { # RANKS: how many ranks of a bound Reduce took the shared-memory path (-1: job failed)
    local out
    out=$(IVC_REPORT_COLL=1 "$ivcrun" -n "$1" --vms "$1" -bind-to core --timeout 120 "$prog" reduce 64 1 2>&1) ||
        { echo -1; return; }
    echo "$out" | grep -c " coll reduce: calls 1 "
}
cores=$(nproc)
for n in 2 4; do
    want=0
    [[ $cores -ge $n ]] && want=$n
    got=$(bound $n)
    if [[ $got -ne $want ]]; then
        echo "FAIL: $n ranks bound to $cores cores: $got took the shared-memory Reduce, expected $want"
        fail=1
    else
        echo "$n ranks bound to cores ($cores CPUs): $got took the shared-memory Reduce"
    fi
done
[[ $fail = 0 ]] && echo "PASS: $checked collectives within 2x of their lower bounds at $p ranks"
exit $fail
