#!/bin/bash
# End-to-end tests in real QEMU guests (software emulation when KVM is unavailable).
#   vm_test.sh image               build the guest image the other scenarios boot
#   vm_test.sh two                 2 guests, one rank each; the region is a zero-filled file
#                                  QEMU creates, which the first rank formats
#   vm_test.sh three               3 guests, 4 ranks (two in the first guest: same-VM and
#                                  cross-VM pairs); region prepared by ivc-host, which must
#                                  see the job end and remove it
#   vm_test.sh sections            3 ranks in 2 guests with write-exclusive sections (ivc-vm
#                                  --sections): a third guest scribbles every section
#                                  through read-write BAR mappings while the job runs: every
#                                  store dropped, data checked, read-only stores fault
#   vm_test.sh mixed               2 guests (ranks 0, 1) + 2 simulated VMs on the host
#                                  (ivcrun --join, ranks 2, 3) sharing one region file
#   vm_test.sh doorbell            ivc-host serves doorbells; a guest with ivshmem-doorbell
#                                  gets its peer id and exchanges doorbells with a host client
#   vm_test.sh doorwake            ivc-host serves doorbells to 2 guests (ivshmem-doorbell, a
#                                  virtual IOMMU, the device bound to vfio-pci); ranks with
#                                  IVC_WAIT=block sleep on the MSI-X eventfd through long gaps
#                                  and are woken by every message: data checked, the rank that
#                                  waits uses little CPU, no sleep ends by its timeout
#   vm_test.sh doorwake4           4 ranks in 2 guests with one ivshmem-doorbell device per rank
#                                  (same-guest and cross-guest pairs) run vm_job with
#                                  IVC_WAIT=block on vfio doorbells
#   vm_test.sh doorwake-novfio     the same guests without an IOMMU, so vfio-pci cannot take
#                                  the device: the ranks say why and yield, and the job ends
#   vm_test.sh errors              ranks in a guest with a too small device, a selector naming
#                                  no device, and in a guest without any: the messages
#   vm_test.sh libivc              libivc between 2 guests: the echo example (server in one,
#                                  client in the other), then the SPH fluid as 2 processes in
#                                  2 guests, whose result must equal 2 threads' on the host
#   vm_test.sh move                issue 12 part 3: QEMUs stand for two hosts, each with its
#                                  region file; a guest whose 2 ranks (ivcrun --join in the
#                                  guest: its PMI connects their network channel over the
#                                  guest's loopback) stream checked messages (vm_move) is
#                                  live-migrated to host 1 and back mid-run: ivc-host move,
#                                  device_del, migrate, device_add (ivc-vm-migrate); the ranks
#                                  switch shm -> network -> shm at each move
# Environment: IVC_BIN (ivc-vm, ivc-host, ...), IVC_TESTS (vm_job), IVC_VM_IMAGE (image dir).
# Exit 0 pass, 1 fail, 77 skip (no QEMU or static busybox; a failure when
# IVCTEST_REQUIRE_VM=1, as CI sets it).
set -u
scenario=${1:?scenario}
bin=${IVC_BIN:?}
image=${IVC_VM_IMAGE:?}
work=$(mktemp -d /tmp/ivc-vmtest.XXXXXX)
job=$((RANDOM * 32768 + RANDOM + 1))
region=/dev/shm/ivc-vmtest-$job
pids=() daemons=() # guests; daemons to stop on the way out (a failed job leaves them waiting)
cleanup() {
    for p in "${pids[@]}" "${daemons[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$work" "$region" "$region".sec*
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*"
    for f in "$work"/*.log; do
        [[ -e $f ]] && { echo "---- $(basename "$f")"; tail -n 40 "$f"; }
    done
    exit 1
}
need() {
    command -v qemu-system-x86_64 >/dev/null && [[ -x /bin/busybox ]] && return 0
    echo "qemu-system-x86_64 or /bin/busybox (busybox-static) missing: run scripts/setup.sh"
    [[ ${IVCTEST_REQUIRE_VM:-0} = 1 ]] && exit 1
    exit 77
}
# guest NAME [ivc-vm options] -- [kernel args]: boots a guest in the background.
guest() {
    local name=$1
    shift
    "$bin/ivc-vm" --image "$image" --log "$work/$name.log" --timeout 400 "$@" \
        >"$work/$name.qemu" 2>&1 &
    pids+=($!)
}
wait_all() {
    local p rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    pids=()
    return $rc
}
# await FILE TEXT: waits up to 5 s for a line containing TEXT (a daemon's start-up line).
await() { for _ in $(seq 50); do grep -qF -- "$2" "$1" && return; sleep 0.1; done; }
# expect FILE TEXT: the log holds a line containing TEXT.
expect() { grep -qF -- "$2" "$1" || fail "$(basename "$1") lacks \"$2\""; }
# ranks_ok LOG RANK...: each rank's data check passed and it exited 0 in that guest.
ranks_ok() {
    local log=$1 r
    shift
    for r in "$@"; do
        expect "$log" "[$r] vm_job: rank $r ok"
        expect "$log" "ivc-guest: rank $r exit 0"
    done
}
mib() { echo "$(($1 >> 20))M"; }
# start_host ARGS...: the region's host daemon (`ivc-host ARGS -j JOB -r REGION`) in the
# background, logging to host.log; sets $host and waits for its ready line.
start_host() {
    "$bin/ivc-host" "$@" -j "$job" -r "$region" >"$work/host.log" 2>&1 &
    host=$!
    daemons+=($host)
    await "$work/host.log" "ivc-host: ready"
    expect "$work/host.log" "ivc-host: ready"
}

need
case $scenario in
image)
    "$bin/ivc-vm-image" -o "$image" "${IVC_TESTS:?}/vm_job" "$IVC_TESTS/vm_wake" "$bin/ivc-info" \
        "$IVC_TESTS/vm_move" "$IVC_TESTS/vm_scribble" "$bin/ivcrun" \
        "$(dirname "$0")/doorbell-guest.sh" "$(dirname "$0")/errors-guest.sh" \
        "$IVC_TESTS/../examples/ivc_echo" "$IVC_TESTS/../apps/ivc_sph" || exit 1
    ;;
two)
    size=$("$bin/ivc-info" --region-size 2) || exit 1
    args="ivc.size=2 ivc.job=$job ivc.prog=vm_job"
    guest g0 --region "$region" --region-size "$(mib "$size")" -- ivc.ranks=0 $args
    guest g1 --region "$region" --region-size "$(mib "$size")" -- ivc.ranks=1 $args
    wait_all || fail "a guest did not power off cleanly"
    ranks_ok "$work/g0.log" 0
    ranks_ok "$work/g1.log" 1
    expect "$work/g0.log" "vm_job: 2 ranks agree"
    ;;
sections)
    # Write-exclusive sections in guests: each rank's section is a host file that only its
    # own guest may write (ivc-vm --sections); a third guest, which has them all read-only,
    # scribbles over every one of them as a hostile kernel would, for as long as the job runs.
    size=$("$bin/ivc-info" --region-size 3) || exit 1
    args="ivc.size=3 ivc.job=$job ivc.prog=vm_job"
    sect=(--region "$region" --region-size "$(mib "$size")" --sections 3)
    guest g0 "${sect[@]}" --own 0,1 -- ivc.ranks=0,1 $args
    guest g1 "${sect[@]}" --own 2 -- ivc.ranks=2 $args
    guest g2 "${sect[@]}" -- ivc.cmd=vm_scribble,3,30
    wait_all || fail "a guest did not power off cleanly"
    ranks_ok "$work/g0.log" 0 1
    ranks_ok "$work/g1.log" 2
    expect "$work/g0.log" "vm_job: 3 ranks agree"
    expect "$work/g2.log" "read-only stores fault"
    expect "$work/g2.log" "vm_scribble: ok:"
    "$bin/ivc-info" -r "$region" >"$work/info.log" 2>&1
    expect "$work/info.log" "write-exclusive sections: 3 of"
    for k in 0 1 2; do
        # Its owner wrote it (the job used sections), the scribbler never did.
        [[ -n $(tr -d '\0' <"$region.sec$k" | head -c 1) ]] || fail "rank $k's section is empty"
        ! grep -qa SCRIBBLE "$region.sec$k" || fail "the scribbler's pattern is in rank $k's section"
    done
    grep -h "vm_scribble: ok\|ranks agree" "$work/g0.log" "$work/g2.log"
    ;;
three)
    start_host -n 4
    args="ivc.size=4 ivc.job=$job ivc.prog=vm_job"
    guest g0 --region "$region" -- ivc.ranks=0,1 $args
    guest g1 --region "$region" -- ivc.ranks=2 $args
    guest g2 --region "$region" -- ivc.ranks=3 $args
    wait_all || fail "a guest did not power off cleanly"
    ranks_ok "$work/g0.log" 0 1
    ranks_ok "$work/g1.log" 2
    ranks_ok "$work/g2.log" 3
    expect "$work/g0.log" "vm_job: 4 ranks agree"
    for _ in $(seq 50); do kill -0 "$host" 2>/dev/null || break; sleep 0.1; done
    wait "$host" || fail "ivc-host did not exit 0 after the job"
    expect "$work/host.log" "every rank finalized"
    [[ ! -e $region ]] || fail "ivc-host left $region behind"
    ;;
mixed)
    size=$("$bin/ivc-info" --region-size 4) || exit 1
    truncate -s "$size" "$region" || exit 1
    args="ivc.size=4 ivc.job=$job ivc.prog=vm_job"
    guest g0 --region "$region" -- ivc.ranks=0 $args
    guest g1 --region "$region" -- ivc.ranks=1 $args
    "$bin/ivcrun" -n 2 --vms 2 --join "$region" --job "$job" --world 4 --first-rank 2 -l \
        --timeout 400 "$IVC_TESTS/vm_job" >"$work/host.log" 2>&1 || fail "host ranks failed"
    wait_all || fail "a guest did not power off cleanly"
    ranks_ok "$work/g0.log" 0
    ranks_ok "$work/g1.log" 1
    expect "$work/host.log" "[2] vm_job: rank 2 ok"
    expect "$work/host.log" "[3] vm_job: rank 3 ok"
    expect "$work/g0.log" "vm_job: 4 ranks agree"
    ;;
doorbell)
    sock=$work/doorbell.sock
    start_host -n 2 -S "$sock"
    # The client connects first (peer id 0); the guest's QEMU becomes peer 1.
    "$bin/ivc-host" client -S "$sock" --wait 300 --ring 1 >"$work/client.log" 2>&1 &
    client=$!
    daemons+=($client)
    await "$work/client.log" "peer id 0"
    # The plain machine (no virtual IOMMU, device left unbound): ivc-info reaches the registers
    # through sysfs, as an administrator would without vfio.
    guest g0 --doorbell "$sock" --viommu off -- ivc.cmd=doorbell-guest.sh,1,0
    wait_all || fail "the guest did not power off cleanly"
    wait "$client" || fail "the host client did not get the guest's doorbell"
    expect "$work/client.log" "region of job $job, 2 ranks"
    expect "$work/client.log" "doorbell received on vector 0"
    expect "$work/g0.log" "peer id 1"
    expect "$work/g0.log" "job $job, 2 ranks"
    expect "$work/g0.log" "doorbell received"
    expect "$work/g0.log" "doorbell-guest: ok"
    kill "$host"
    wait "$host"
    expect "$work/host.log" "peer 1 disconnected"
    [[ ! -e $region && ! -e $sock ]] || fail "ivc-host left its region or socket behind"
    ;;
doorwake|doorwake-novfio)
    sock=$work/doorbell.sock
    start_host -n 2 -S "$sock"
    # A sleep that a ring should have ended would last a minute: none may end by the timeout.
    env=ivc.env=IVC_WAIT=block,IVC_WAIT_TIMEOUT=60000,IVC_DEBUG=1
    args="ivc.size=2 ivc.job=$job $env"
    if [[ $scenario = doorwake ]]; then
        prog=ivc.prog=vm_wake,-n,10,-g,300,-c,25 viommu=on
    else
        prog=ivc.prog=vm_wake,-n,3,-g,300 viommu=off
    fi
    guest g0 --doorbell "$sock" --viommu $viommu -- ivc.ranks=0 $args $prog
    guest g1 --doorbell "$sock" --viommu $viommu -- ivc.ranks=1 $args $prog
    wait_all || fail "a guest did not power off cleanly"
    for r in 0 1; do
        expect "$work/g$r.log" "[$r] vm_wake: rank $r ok"
        expect "$work/g$r.log" "ivc-guest: rank $r exit 0"
    done
    if [[ $scenario = doorwake ]]; then
        for r in 0 1; do
            expect "$work/g$r.log" "ivc-guest: ivshmem 0000:"
            expect "$work/g$r.log" ": vfio-pci, group"
            expect "$work/g$r.log" "through vfio (vIOMMU IOMMU group"
            expect "$work/g$r.log" "doorbells on: 2 co-located ranks"
            grep -qE "doorbells: [1-9][0-9]* sleeps, 0 ended by the timeout" "$work/g$r.log" ||
                fail "g$r.log: rank $r did not sleep, or a sleep ended by its timeout"
        done
    else
        for r in 0 1; do
            expect "$work/g$r.log" "cannot bind to vfio-pci (no IOMMU group?): ranks yield"
            expect "$work/g$r.log" "IVC_WAIT=block would sleep, but the ivshmem device"
            expect "$work/g$r.log" "is not bound to vfio-pci (driver: none)"
        done
    fi
    grep -h "vm_wake: r\|doorbells: " "$work"/g?.log
    # The job is over: ivc-host sees every rank finalize and leaves by itself.
    for _ in $(seq 50); do kill -0 "$host" 2>/dev/null || break; sleep 0.1; done
    wait "$host" || fail "ivc-host did not exit 0 after the job"
    expect "$work/host.log" "every rank finalized"
    ;;
doorwake4)
    sock=$work/doorbell.sock
    start_host -n 4 -S "$sock"
    args="ivc.size=4 ivc.job=$job ivc.prog=vm_job ivc.rank-doorbells=1"
    args+=" ivc.env=IVC_WAIT=block,IVC_WAIT_TIMEOUT=60000,IVC_DEBUG=1"
    guest g0 --doorbell "$sock" --doorbell-devices 2 -- ivc.ranks=0,1 $args
    guest g1 --doorbell "$sock" --doorbell-devices 2 -- ivc.ranks=2,3 $args
    wait_all || fail "a guest did not power off cleanly"
    ranks_ok "$work/g0.log" 0 1
    ranks_ok "$work/g1.log" 2 3
    expect "$work/g0.log" "vm_job: 4 ranks agree"
    for r in 0 1 2 3; do
        g=$work/g$((r / 2)).log
        expect "$g" "[$r] ivc[$r]: doorbell: ivshmem 0000:00:0$((r % 2 + 1)).0 through vfio"
        expect "$g" "[$r] ivc[$r]: doorbells on: 4 co-located ranks"
    done
    grep -q "doorbells: [1-9][0-9]* sleeps" "$work"/g?.log || fail "no rank slept"
    ! grep -E "doorbells: [0-9]+ sleeps, [1-9][0-9]* ended by the timeout" "$work"/g?.log ||
        fail "a sleep ended by its timeout: a ring was lost"
    grep -h "doorbells: " "$work"/g?.log
    # The job is over: ivc-host sees every rank finalize and leaves by itself.
    for _ in $(seq 50); do kill -0 "$host" 2>/dev/null || break; sleep 0.1; done
    wait "$host" || fail "ivc-host did not exit 0 after the job"
    expect "$work/host.log" "every rank finalized"
    ;;
errors)
    guest g0 --region "$region" --region-size 1M -- ivc.cmd=errors-guest.sh
    guest g1 -- ivc.ranks=0 ivc.size=2 ivc.job=3 ivc.prog=vm_job
    wait_all || fail "a guest did not power off cleanly"
    expect "$work/g0.log" "errors-guest: done"
    expect "$work/g0.log" "its memory (BAR2) is 1048576 bytes; 65536 ranks need more than"
    expect "$work/g0.log" "IVC_REGION=ivshmem:3: no such ivshmem device; this VM has 1: 0000:00:"
    expect "$work/g1.log" "this machine has no ivshmem device"
    expect "$work/g1.log" "ivc-guest: rank 0 exit 1"
    ;;
libivc)
    size=$("$bin/ivc-info" --region-size 2) || exit 1
    args="ivc.size=2 ivc.job=$job"
    guest g0 --region "$region" --region-size "$(mib "$size")" -- ivc.ranks=0 $args ivc.prog=ivc_echo
    guest g1 --region "$region" --region-size "$(mib "$size")" -- ivc.ranks=1 $args ivc.prog=ivc_echo
    wait_all || fail "a guest did not power off cleanly (echo)"
    expect "$work/g0.log" "echo server: served 1 clients"
    expect "$work/g1.log" "every byte echoed"
    expect "$work/g0.log" "ivc-guest: rank 0 exit 0"
    expect "$work/g1.log" "ivc-guest: rank 1 exit 0"
    mv "$work/g0.log" "$work/echo-g0.log" && mv "$work/g1.log" "$work/echo-g1.log"
    rm -f "$region"
    job=$((job + 1))
    args="ivc.size=2 ivc.job=$job ivc.prog=ivc_sph,-p,4096,-s,100,-w,yield"
    guest g0 --region "$region" --region-size "$(mib "$size")" -- ivc.ranks=0 $args
    guest g1 --region "$region" --region-size "$(mib "$size")" -- ivc.ranks=1 $args
    wait_all || fail "a guest did not power off cleanly (sph)"
    expect "$work/g0.log" "ivc-guest: rank 0 exit 0"
    expect "$work/g1.log" "ivc-guest: rank 1 exit 0"
    want=$("$IVC_TESTS/../apps/ivc_sph" --threads 2 -p 4096 -s 100 | sed -n 's/.* hash //p')
    got=$(sed -n 's/.*sph vms 2 .* hash \([0-9a-f]*\).*/\1/p' "$work/g0.log" | head -1)
    [[ -n $want && $want == "$got" ]] || fail "SPH in 2 guests: hash $got, 2 threads on the host: $want"
    grep -h "echo client\|sph vms" "$work"/*.log
    ;;
move)
    # Three QEMUs: h0 and h2 stand for host 0 (region A), h1 for host 1 (region B). The
    # guest starts in h0, is migrated to h1 (its ranks leave A, join B) and back to h2
    # (they leave B, join A again: a region visited before, whose slots hold the first
    # order). Both ranks share the guest, so the network channel they fall back on while
    # the guest has no device is the guest's own loopback (ivcrun --no-ns in the guest is
    # their process manager); what this shows is the device leaving and another arriving
    # under a live migration, with the ranks' traffic checked across all four switches.
    regionb=$region-b
    trap 'cleanup; rm -f "$regionb"' EXIT
    for f in "$region" "$regionb"; do
        "$bin/ivc-host" -n 2 -j "$job" -r "$f" -s 64M --no-wait --keep >/dev/null ||
            fail "ivc-host cannot make $f"
    done
    port=$((20000 + job % 20000))
    bar=/sys/bus/pci/devices/0000:00:10.0/resource2 # ivc-vm --qmp puts the device there
    secs=${IVC_VM_MOVE_SECS:-60}
    kargs=(ivc.env=IVC_MIGRATE=1,IVC_HOST_REGIONS=ivshmem:ivshmem,IVC_DEBUG=1 ivc.timeout=300
           "ivc.cmd=ivcrun,--no-ns,-l,-n,2,--join,$bar,--job,$job,--world,2,--first-rank,0,vm_move,$secs")
    guest h0 --region "$region" --qmp "$work/h0.qmp" --mem 512 -- "${kargs[@]}"
    guest h1 --qmp "$work/h1.qmp" --incoming "$port" --mem 512 -- "${kargs[@]}"
    guest h2 --qmp "$work/h2.qmp" --incoming "$((port + 1))" --mem 512 -- "${kargs[@]}"
    # upto FILE PATTERN: waits (4 min at most) for a line matching PATTERN or the guest's end.
    upto() {
        for _ in $(seq 240); do
            grep -q "$2\|ivc-guest: done" "$1" 2>/dev/null && break
            sleep 1
        done
        grep -q "$2" "$1" || fail "$(basename "$1") lacks \"$2\" (the run ended first?)"
    }
    # migrate FROM TO REGION-LEFT REGION-JOINED K
    migrate() {
        "$bin/ivc-vm-migrate" --src-qmp "$work/$1.qmp" --dst-qmp "$work/$2.qmp" \
            --port "$6" --src-region "$3" --dst-region "$4" --ranks 0,1 --to "$5" \
            --ivc-host "$bin/ivc-host" >"$work/migrate-$1.log" 2>&1 ||
            fail "ivc-vm-migrate $1 -> $2 failed: $(cat "$work/migrate-$1.log")"
        cat "$work/migrate-$1.log"
    }
    upto "$work/h0.log" "vm_move: [0-9]* s"
    migrate h0 h1 "$region" "$regionb" 1 "$port"
    # Traffic on host 1 after the ranks switched back to shared memory there.
    upto "$work/h1.log" "\[0\].*migration: move 1 to .* done"
    upto "$work/h1.log" "vm_move: [0-9]* s"
    migrate h1 h2 "$regionb" "$region" 0 "$((port + 1))"
    wait_all || fail "a QEMU did not end cleanly"
    for r in 0 1; do
        grep -q "\[$r\].*migration: move 1 to .* done in" "$work/h1.log" ||
            fail "rank $r did not finish its move into host 1's device"
        grep -q "\[$r\].*migration: move 2 to .* done in" "$work/h2.log" ||
            fail "rank $r did not finish its move back into host 0's device"
        expect "$work/h2.log" "[$r] vm_move: rank $r ok"
    done
    expect "$work/h2.log" "ivc-guest: cmd exit 0"
    grep -h "vm_move: [0-9]* s\|vm_move: rank\|migration: move" "$work"/h[012].log
    ;;
*)
    echo "unknown scenario $scenario"
    exit 2
    ;;
esac
echo "PASS: $scenario"
