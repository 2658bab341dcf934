#!/usr/bin/env python3
"""Side-by-side benchmark harness: IVC vs MPICH shared memory vs MPICH over TCP vs Open MPI.

Builds bench/{lat,bw,bibw,mr,coll,rma}.c with IVC's mpicc, mpicc.mpich and mpicc.openmpi, runs each
benchmark in up to three configurations, keeps the best value per size over --reps
repetitions and prints side-by-side tables, a target summary, results.csv and results.png.
The collective benchmarks (barrier ... alltoall: bench/coll.c -c NAME) run with 2 ranks like
the others; allreduce4 runs 4 ranks on the machine's cores (IVC: 4 simulated VMs) in the
ivc and mpich-shm configurations only. A benchmark whose source is absent is skipped with
a message.

  ivc        P/bin/ivcrun -n 2 --vms 2 ./prog      (2 ranks in 2 simulated VMs)
  mpich-shm  mpiexec.mpich -n 2 ./prog             (one OS, MPICH shared memory)
  ompi-shm   mpirun.openmpi -n 2 --mca pml ob1 --mca btl self,vader --bind-to none ./prog
             (one OS, Open MPI's shared-memory transport with its single-copy kernel path;
             skipped with a message when Open MPI is not installed: scripts/setup.sh --bench)
  mpich-tcp  mpiexec.mpich, one rank in each of two network namespaces joined by a veth
             pair, MPICH locality off, UCX restricted to TCP on the veth; the veth byte
             counters are checked after every run to prove the traffic crossed it.
  ivc-spin, ivc-yield, ivc-block   the ivc configuration with IVC_WAIT=spin / yield / block
             (waiting ranks spin; spin then yield; spin then sleep on their doorbells);
             run only by the benchmarks that name them (barrier2/4/8, wake, blockcpu)
  ivc-abi    the ivc configuration with the benchmark built by IVC's `mpicc -mpi-abi`: the
             MPI-5 standard ABI (mpi_abi.h, libmpi_abi.so.0), ivcrun choosing IVC's
             lib/abi/std for it: the cost of that ABI's conversion layer
  ivc-mpich  the ivc configuration with the mpich build (mpicc.mpich): ivcrun runs it on
             IVC's MPICH-ABI library (lib/abi/mpich)
             (ivc-abi and ivc-mpich: point-to-point and collective benchmarks, reported in
             a table of their own against ivc)
  ivc-net    IVC between two simulated hosts: the IVC build launched exactly as mpich-tcp
             (Hydra's PMI-1, same namespaces, same veth, UCX_TLS=tcp,self), each rank told
             a region of its own, so the pair is reached only through IVC's network channel
             (point-to-point benchmarks only; veth counters checked as for mpich-tcp).

The application rows (hpcc_hpl, hpcc_ptrans, hpcc_ra, hpcc_fft: bench/apps.py) come from one
HPCC run per configuration and repetition at 4 ranks, built from Debian's source with each
implementation's mpicc; mpich-tcp puts 2 of them in each namespace.

Python 3 standard library only; the plot uses matplotlib when importable, else the
harness re-runs itself under /usr/bin/python3 (Debian's python3-matplotlib) for it; it also
draws one plot per benchmark (plots/BENCH.png: the value against size, one line per
implementation) and writes report.md, the tables of ratios with the plots, for the README.
See bench/README.md.
"""

import argparse
import csv
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

import apps

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)

CONFIGS = ["ivc", "mpich-shm", "mpich-tcp", "ompi-shm"]
# The inter-host comparison, reported in tables of its own (IVC's network channel against
# MPICH over TCP on the same veth).
NET_CONFIGS = ["ivc-net"]
# IVC with another waiting policy (IVC_WAIT), for the benchmarks that list them.
WAIT_CONFIGS = ["ivc-spin", "ivc-yield", "ivc-block"]
# IVC serving binaries built for another ABI (src/abi), against IVC's own build.
ABI_CONFIGS = ["ivc-abi", "ivc-mpich"]
ALL_CONFIGS = CONFIGS + WAIT_CONFIGS + NET_CONFIGS + ABI_CONFIGS
P2P_BENCHES = ("lat", "bw", "bibw", "mr")
TCP_CONFIGS = ("mpich-tcp", "ivc-net")

# name -> source, metric description, unit, output column of the primary value, better
BENCHES = {
    "lat": dict(src="lat.c", title="one-way latency (ping-pong / 2)", unit="us", col=1,
                better="lower"),
    "bw": dict(src="bw.c", title="unidirectional bandwidth (window 64)", unit="MB/s", col=1,
               better="higher"),
    "bibw": dict(src="bibw.c", title="bidirectional bandwidth (window 64, both directions)",
                 unit="MB/s", col=1, better="higher"),
    "mr": dict(src="mr.c", title="message rate, 1 pair (window 64)", unit="msg/s", col=2,
               better="higher", extra=(1, "MB/s")),
}

# Collective latency (bench/coll.c -c NAME): one table per collective, one program.
COLLS = ["barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "reduce_scatter"]
for _c in COLLS:
    BENCHES[_c] = dict(src="coll.c", prog="coll", args=["-c", _c],
                       title="MPI_%s latency, 2 ranks (avg over ranks)"
                             % ("Reduce_scatter_block" if _c == "reduce_scatter" else _c.capitalize()),
                       unit="us", col=1, better="lower")
# Oversubscribed: 4 ranks on this machine's cores (2 here), 8-byte Allreduce. MPICH over TCP
# needs one namespace per rank and is not run for it.
BENCHES["allreduce4"] = dict(src="coll.c", prog="coll", args=["-c", "allreduce", "-m", "8:8"],
                             title="MPI_Allreduce latency, 4 ranks on %d cores "
                                   "(IVC: 4 simulated VMs)" % (os.cpu_count() or 0),
                             unit="us", col=1, better="lower", np=4,
                             configs=["ivc", "mpich-shm", "ompi-shm"])
BENCHES["allreduce16"] = dict(src="coll.c", prog="coll", args=["-c", "allreduce", "-m", "8:8"],
                              title="MPI_Allreduce latency, 16 ranks on %d cores "
                                    "(IVC: 16 simulated VMs)" % (os.cpu_count() or 0),
                              unit="us", col=1, better="lower", np=16,
                              configs=["ivc", "ivc-yield", "mpich-shm"])
# Waiting (issue 11): barrier rate with 2/4/8 ranks in each waiting policy (the table prints
# latency; the summary turns it into barriers per second), the wake-up latency of a rank
# asleep 10 ms (bench/wake.c; one row per percentile), the CPU time of a rank blocked in
# MPI_Recv for 5 s (% of a core).
for _n in (2, 4, 8):
    BENCHES["barrier%d" % _n] = dict(
        src="coll.c", prog="coll", args=["-c", "barrier"], np=_n, unit="us", col=1,
        better="lower", configs=["ivc", "ivc-spin", "ivc-block", "mpich-shm"],
        title="MPI_Barrier latency, %d ranks on %d cores (IVC: %d simulated VMs)"
              % (_n, os.cpu_count() or 0, _n))
BENCHES["wake"] = dict(src="wake.c", prog="wake", args=["-c", "0"], unit="us", col=1,
                       better="lower", configs=["ivc", "ivc-block", "ivc-yield", "mpich-shm"],
                       title="wake-up latency of a rank asleep 10 ms in MPI_Recv, by "
                             "percentile (row = percentile)")
BENCHES["blockcpu"] = dict(src="wake.c", prog="wake", args=["-n", "0", "-c", "5"], unit="%",
                           col=1, better="lower",
                           configs=["ivc", "ivc-block", "ivc-yield", "mpich-shm"],
                           title="CPU of a rank blocked 5 s in MPI_Recv (% of a core; row = "
                                 "seconds)")
WAIT_BENCHES = ["barrier2", "barrier4", "barrier8", "wake", "blockcpu", "allreduce16"]
# One-sided (bench/rma.c MODE), when present: put/get latency (lock + flush per operation)
# and bandwidth (flush per window).
RMAS = ["put_lat", "get_lat", "put_bw", "get_bw"]
for _r in RMAS:
    _bw = _r.endswith("_bw")
    BENCHES[_r] = dict(src="rma.c", prog="rma", args=[_r if _bw else _r[:3]],
                       title="MPI_%s %s, 2 ranks" % (_r[:3].capitalize(),
                                                     "bandwidth" if _bw else "latency"),
                       unit="MB/s" if _bw else "us", col=1,
                       better="higher" if _bw else "lower")
# Where the message buffers come from (bench/common.h -b): a cyclic pool larger than the
# last-level cache (each message uses the next buffer), and MPI_Alloc_mem memory (which IVC
# places in its shared heap). IVC and MPICH's shared memory only.
BUFMODES = {"pool": "cyclic buffer pool (2x LLC, >= 64 MiB)", "am": "MPI_Alloc_mem buffers"}
for _b in ("lat", "bw"):
    for _m, _what in BUFMODES.items():
        BENCHES["%s_%s" % (_b, _m)] = dict(
            src=BENCHES[_b]["src"], prog=_b,
            args=["-b", "pool" if _m == "pool" else "allocmem"],
            title="%s, %s" % (BENCHES[_b]["title"], _what), unit=BENCHES[_b]["unit"],
            col=1, better=BENCHES[_b]["better"], configs=["ivc", "mpich-shm"])
BUF_BENCHES = ["lat_pool", "lat_am", "bw_pool", "bw_am"]
# Collective MPI-IO (bench/io.c -c MODE): aggregate bandwidth of every rank writing or
# reading its block of one shared file, 4 ranks, contiguous blocks and 1 KiB pieces
# interleaved; the file in FILES_DIR (under --out), which ivcrun shares into every simulated
# VM when it lies under /tmp.
IOS = ["io_write", "io_read", "io_write_strided", "io_read_strided"]
for _m in IOS:
    BENCHES[_m] = dict(src="io.c", prog="io", args=["-c", _m[3:]], np=4, files=True,
                       title="collective MPI-IO %s, 4 ranks on %d cores, aggregate (row = "
                             "bytes per rank)" % (_m[3:].replace("_", ", "), os.cpu_count() or 0),
                       unit="MB/s", col=1, better="higher",
                       configs=["ivc", "mpich-shm", "ompi-shm"])
FILES_DIR = None  # set by main(): <out>/files
# Applications (bench/apps.py): one HPCC run at 4 ranks gives all four rows (row = ranks).
# mpich-tcp puts 2 ranks in each namespace, every pair on TCP (MPICH's locality off).
for _b, _k, _f, _u, _t in apps.METRICS:
    BENCHES[_b] = dict(src="apps.py", app=True, np=apps.NP, unit=_u, better="higher", col=1,
                       title="%s, %d ranks on %d cores (IVC: %d simulated VMs; row = ranks)"
                             % (_t, apps.NP, os.cpu_count() or 0, apps.NP),
                       configs=["ivc", "mpich-shm", "mpich-tcp", "ompi-shm"])
BENCH_ORDER = (["lat", "bw"] + BUF_BENCHES + ["bibw", "mr"] + COLLS + ["allreduce4"] + RMAS +
               WAIT_BENCHES + IOS + apps.BENCH_NAMES)
# Which rendezvous path IVC took per size (IVC_REPORT_PATH, printed by each rank at
# MPI_Finalize): bench -> {size: "read" | "write" | "pipe" | "eager" | mixes}.
PATHS = {}

# --quick: smaller size range per benchmark, and -i QUICK_ITER_SCALE.
QUICK_ARGS = {
    "lat": ["-m", "1M"],
    "bw": ["-m", "2M"],
    "bibw": ["-m", "2M"],
    "mr": ["-m", "4K"],
}
for _c in COLLS:
    QUICK_ARGS[_c] = ["-m", "8:64K"]
QUICK_ARGS["allreduce4"] = []
for _b in BUF_BENCHES:
    QUICK_ARGS[_b] = QUICK_ARGS[_b.split("_")[0]]
for _b in WAIT_BENCHES:
    QUICK_ARGS[_b] = []
for _r in RMAS:
    QUICK_ARGS[_r] = ["-m", "64K"]
for _m in IOS:
    QUICK_ARGS[_m] = ["-m", "1K:1M"]
for _b in apps.BENCH_NAMES:
    QUICK_ARGS[_b] = []
# Arguments of a full run where the program's own defaults are not wanted.
FULL_ARGS = {c: ["-m", "8:1M"] for c in COLLS}
QUICK_ITER_SCALE = 0.2

CFLAGS = ["-O2", "-Wall", "-Wno-stringop-overflow"]

# Environment variables a rank may use to learn its rank (for --pin cores).
RANK_ENV_VARS = ["PMI_RANK", "IVC_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "MPI_LOCALRANKID"]

# Last line every benchmark prints (rank 0, after the final barrier).
DONE_MARKER = "# Payload bytes:"

NET_SUBNET_A = "10.199.0.1/24"
NET_SUBNET_B = "10.199.0.2/24"

_current_proc = None  # the benchmark launcher currently running (its own session)
_netns = None         # the TcpNet in use, for teardown


class Fatal(Exception):
    pass


def log(msg=""):
    print(msg, flush=True)


def warn(msg):
    print("WARNING: " + msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------
# Process helpers
# --------------------------------------------------------------------------------------

def kill_group(p, grace=5.0):
    """Ends the process group of a launcher we started (start_new_session=True)."""
    if p is None or p.poll() is not None:
        return
    for sig, wait in ((signal.SIGINT, grace), (signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run_capture(argv, env=None, timeout=None, cwd=None, done_marker=None, grace=None,
                done_file=None):
    """Runs argv in its own session and collects its output.

    Returns (rc, stdout, stderr, seconds, how) where how is "exit", "timeout" or
    "hung-after-done": the program printed `done_marker` (its last line), or wrote the text
    done_file[1] into the file done_file[0], but did not exit within `grace` seconds, so its
    process group was ended.
    """
    global _current_proc
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         cwd=cwd, start_new_session=True, text=True, errors="replace")
    _current_proc = p
    out_lines, err_lines = [], []
    done_at = []

    def reader(stream, sink, watch):
        for line in stream:
            sink.append(line)
            if watch and done_marker and not done_at and line.startswith(done_marker):
                done_at.append(time.monotonic())
        stream.close()

    threads = [threading.Thread(target=reader, args=(p.stdout, out_lines, True), daemon=True),
               threading.Thread(target=reader, args=(p.stderr, err_lines, False), daemon=True)]
    for t in threads:
        t.start()
    how = "exit"
    try:
        while True:
            try:
                p.wait(timeout=0.1)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if done_file and not done_at:
                try:
                    with open(done_file[0], errors="replace") as f:
                        if done_file[1] in f.read():
                            done_at.append(now)
                except OSError:
                    pass
            if done_at and grace is not None and now - done_at[0] > grace:
                how = "hung-after-done"
                kill_group(p)
                break
            if timeout is not None and now - t0 > timeout:
                how = "timeout"
                kill_group(p)
                break
    finally:
        if p.poll() is None:
            kill_group(p)
        _current_proc = None
    for t in threads:
        t.join(timeout=5)
    return p.returncode, "".join(out_lines), "".join(err_lines), time.monotonic() - t0, how


def sh(argv, check=True):
    """Small admin command (ip ...); returns stdout."""
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise Fatal("command failed: %s\n%s" % (" ".join(argv), r.stderr.strip()))
    return r.stdout


# --------------------------------------------------------------------------------------
# mpich-tcp: two network namespaces joined by a veth pair
# --------------------------------------------------------------------------------------

class TcpNet:
    """nsA <-veth-> nsB, 10.199.0.1/24 and 10.199.0.2/24, nothing else connected."""

    NS_RE = re.compile(r"^ivcbench-(\d+)-[ab]$")

    def __init__(self):
        pid = os.getpid()
        self.ns = ["ivcbench-%d-a" % pid, "ivcbench-%d-b" % pid]
        self.dev = ["ivcb%da" % pid, "ivcb%db" % pid]  # <= 15 chars (pid <= 7 digits)
        self.addr = [NET_SUBNET_A, NET_SUBNET_B]
        self.created = []

    @classmethod
    def remove_stale(cls):
        """Removes namespaces left by an earlier harness run that died (its pid is gone)."""
        for line in sh(["ip", "netns", "list"], check=False).splitlines():
            name = line.split()[0] if line.split() else ""
            m = cls.NS_RE.match(name)
            if not m:
                continue
            pid = int(m.group(1))
            try:
                os.kill(pid, 0)
                continue  # that harness is still alive
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
            warn("removing stale namespace %s from an earlier harness run" % name)
            cls._kill_ns_pids(name)
            sh(["ip", "netns", "del", name], check=False)

    @staticmethod
    def _kill_ns_pids(name):
        for tok in sh(["ip", "netns", "pids", name], check=False).split():
            try:
                os.kill(int(tok), signal.SIGKILL)
            except (ValueError, ProcessLookupError, PermissionError):
                pass

    def setup(self):
        self.remove_stale()
        for ns in self.ns:
            sh(["ip", "netns", "add", ns])
            self.created.append(ns)
        sh(["ip", "link", "add", self.dev[0], "netns", self.ns[0], "type", "veth",
            "peer", "name", self.dev[1], "netns", self.ns[1]])
        for ns, dev, addr in zip(self.ns, self.dev, self.addr):
            # IPv4 only: no IPv6 link-local chatter on the veth.
            sh(["ip", "netns", "exec", ns, "sh", "-c",
                "echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6; "
                "echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6"], check=False)
            sh(["ip", "-n", ns, "addr", "add", addr, "dev", dev])
            sh(["ip", "-n", ns, "link", "set", "lo", "up"])
            sh(["ip", "-n", ns, "link", "set", dev, "up"])
        # The kernel reports carrier (IFF_RUNNING, operstate UP) asynchronously, up to ~1 s
        # after "link set up"; UCX ignores a device that is not running yet.
        deadline = time.monotonic() + 10.0
        while True:
            states = [json.loads(sh(["ip", "-n", ns, "-j", "link", "show", "dev", dev]))[0]
                      for ns, dev in zip(self.ns, self.dev)]
            if all(st.get("operstate") == "UP" and "LOWER_UP" in st.get("flags", [])
                   for st in states):
                break
            if time.monotonic() > deadline:
                raise Fatal("veth pair did not come up: %s" % [(st.get("ifname"),
                            st.get("operstate")) for st in states])
            time.sleep(0.05)
        # Sanity: the namespace sees only lo and its veth end.
        for ns, dev in zip(self.ns, self.dev):
            links = [l["ifname"] for l in json.loads(sh(["ip", "-n", ns, "-j", "link", "show"]))]
            if sorted(links) != sorted(["lo", dev]):
                raise Fatal("namespace %s has unexpected links %s" % (ns, links))

    def counters(self, side=0):
        """(tx_bytes, rx_bytes) of the veth end in namespace `side`."""
        info = json.loads(sh(["ip", "-n", self.ns[side], "-j", "-s", "link", "show", "dev",
                              self.dev[side]]))
        st = info[0]["stats64"]
        return st["tx"]["bytes"], st["rx"]["bytes"]

    def teardown(self):
        for ns in reversed(self.created):
            self._kill_ns_pids(ns)
            sh(["ip", "netns", "del", ns], check=False)  # also destroys the veth pair
        self.created = []


def tcp_unavailable_reason():
    if os.geteuid() != 0:
        return "network namespaces need root (run the harness as root, e.g. with sudo)"
    for tool in ("ip", "unshare"):
        if not shutil.which(tool):
            return "'%s' not found (apt-get install iproute2 util-linux)" % tool
    return None


# --------------------------------------------------------------------------------------
# Build and run
# --------------------------------------------------------------------------------------

def prog_of(b):
    return BENCHES[b].get("prog", b)


def build(cc, impl, benches, out_dir, cflags):
    bdir = os.path.join(out_dir, "build", impl)
    os.makedirs(bdir, exist_ok=True)
    logf = os.path.join(bdir, "build.log")
    progs = []
    for b in benches:
        if prog_of(b) not in [p for p, _ in progs]:
            progs.append((prog_of(b), BENCHES[b]["src"]))
    with open(logf, "w") as lf:
        for prog, srcname in progs:
            src = os.path.join(BENCH_DIR, srcname)
            exe = os.path.join(bdir, prog)
            argv = [cc] + cflags + ["-o", exe, src]
            lf.write("$ %s\n" % " ".join(shlex.quote(a) for a in argv))
            r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            lf.write(r.stdout)
            if r.returncode != 0 or not os.access(exe, os.X_OK):
                raise Fatal("building %s with %s failed:\n%s\n(full log: %s)"
                            % (prog, cc, r.stdout.strip()[-3000:], logf))
    return bdir


def write_pin_wrapper(out_dir):
    path = os.path.join(out_dir, "pinwrap.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n# Pins this rank to core (rank mod ncpu); written by harness.py.\n")
        f.write("r=\n")
        for v in RANK_ENV_VARS:
            f.write('[ -z "$r" ] && r=${%s:-}\n' % v)
        f.write('if [ -z "$r" ]; then echo "pinwrap: no rank variable (%s) set by the '
                'launcher" >&2; exit 97; fi\n' % " ".join(RANK_ENV_VARS))
        f.write('n=$(nproc); exec taskset -c $((r % n)) "$@"\n')
    os.chmod(path, 0o755)
    return path


def clean_env(strip_mpi):
    env = dict(os.environ)
    if strip_mpi:
        for k in list(env):
            if k.startswith("UCX_") or k.startswith("MPIR_CVAR_") or k.startswith("HYDRA_"):
                del env[k]
    return env


def launch_argv(config, exe, args, opts, wrap, np=2, files=False):
    """files: the program uses FILES_DIR (io.c's -d, the applications' run directories)."""
    pre = [wrap] if wrap else []
    if config == "ivc" or config in WAIT_CONFIGS or config in ABI_CONFIGS:
        # A simulated VM's /tmp is its own: a file directory there must be shared.
        share = (["--share", FILES_DIR] if ("-d" in args or files) and FILES_DIR and
                 FILES_DIR.startswith("/tmp/") else [])
        return ([os.path.join(opts.ivc_prefix, "bin", "ivcrun"), "-n", str(np), "--vms",
                 str(np)] + share + shlex.split(opts.ivc_launch_args) + pre + [exe] + args)
    if config == "mpich-shm":
        return ["mpiexec.mpich", "-n", str(np)] + pre + [exe] + args
    if config == "ompi-shm":
        # ob1 with the vader BTL: Open MPI's shared memory (single copy through the kernel
        # for large messages); no binding, as neither ivcrun nor Hydra binds by default.
        return (["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
                 "--mca", "pml", "ob1", "--mca", "btl", "self,vader", "-n", str(np)] + pre +
                [exe] + args)
    if np % 2 or config not in TCP_CONFIGS:
        raise ValueError("%s runs an even number of ranks only" % config)
    if config in TCP_CONFIGS:
        net = _netns
        argv = ["mpiexec.mpich",
                "-genv", "MPIR_CVAR_NOLOCAL", "1",        # no intra-node (shm) path in MPICH
                "-genv", "UCX_TLS", "tcp,self",           # UCX: TCP only (self = loopback to itself)
                "-genv", "UCX_WARN_UNUSED_ENV_VARS", "n"]
        for i in range(2):
            if i:
                argv.append(":")
            argv += ["-n", str(np // 2), "-env", "UCX_NET_DEVICES", net.dev[i]]
            if config == "ivc-net":  # a region per "host": the ranks create and remove them
                argv += ["-env", "IVC_REGION", "/dev/shm/ivc-bench-%d-h%d" % (os.getpid(), i)]
            argv += ["ip", "netns", "exec", net.ns[i],
                     "unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"',
                     "ivcbench-vm%d" % i] + pre + [exe] + args
        return argv
    raise ValueError(config)


def parse_output(bench, text):
    """Returns ({size: value}, {size: extra}, payload (0->1, 1->0)) or raises ValueError."""
    spec = BENCHES[bench]
    vals, extra, ok, payload = {}, {}, False, None
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            if s.startswith("# Validation: OK"):
                ok = True
            m = re.match(r"# Payload bytes: rank0->rank1 (\d+) rank1->rank0 (\d+)", s)
            if m:
                payload = (int(m.group(1)), int(m.group(2)))
                break  # last line; anything after it is launcher noise
            continue
        parts = s.split()
        try:
            size = int(parts[0])
            vals[size] = float(parts[spec["col"]])
            if "extra" in spec:
                extra[size] = float(parts[spec["extra"][0]])
        except (ValueError, IndexError):
            raise ValueError("unexpected output line: %r" % line)
    if not ok:
        raise ValueError("no '# Validation: OK' line (program did not finish cleanly)")
    if not vals:
        raise ValueError("no result rows")
    return vals, extra, payload


PATH_RE = re.compile(r"^ivc: rank (\d+) path (\d+)([KMGTPE]?): sent (\d+)/(\d+)/(\d+) "
                     r"received (\d+)/(\d+)/(\d+)")


def parse_paths(err):
    """{bucket bytes: (read, write, pipe)} messages received, summed over the ranks."""
    got = {}
    for line in err.splitlines():
        m = PATH_RE.match(line.strip())
        if not m:
            continue
        b = int(m.group(2)) << (10 * " KMGTPE".index(m.group(3) or " "))
        r = got.get(b, (0, 0, 0))
        got[b] = tuple(r[i] + int(m.group(7 + i)) for i in range(3))
    return got


def path_label(paths, size):
    """The path messages of `size` bytes took: bucket floor(log2(size))."""
    if size <= 0:
        return "eager"
    b = 1 << (size.bit_length() - 1)
    n = paths.get(b)
    if not n or not sum(n):
        return "eager"
    names = ("one-copy", "one-copy(w)", "two-copy")
    parts = [(c, names[i]) for i, c in enumerate(n) if c]
    if len(parts) == 1:
        return parts[0][1]
    return "/".join("%s %d%%" % (nm, round(100.0 * c / sum(n))) for c, nm in parts)


def run_logged(config, argv, env, timeout, cwd, opts, logf, **capture):
    """Runs a launcher (run_capture, with --finalize-grace), reading the veth counters around
    it in the TCP configurations, and writes logf. Returns (res, out, err, veth): res is what
    every run's result starts with (ok False, secs, log; note when it hung after finishing;
    why, and tail, when it timed out or failed), veth the veth byte counts it moved
    (tx, rx), or None outside the TCP configurations."""
    before = _netns.counters(0) if config in TCP_CONFIGS else None
    rc, out, err, secs, how = run_capture(argv, env=env, timeout=timeout, cwd=cwd,
                                          grace=opts.finalize_grace, **capture)
    after = _netns.counters(0) if config in TCP_CONFIGS else None
    with open(logf, "w") as f:
        f.write("$ %s\n# cwd=%s rc=%s seconds=%.1f end=%s\n"
                % (" ".join(shlex.quote(a) for a in argv), cwd, rc, secs, how))
        if before is not None:
            f.write("# veth %s tx/rx bytes before %s after %s\n" % (_netns.dev[0], before, after))
        f.write("---- stdout\n%s---- stderr\n%s" % (out, err))
    res = dict(ok=False, secs=secs, log=logf)
    if how == "hung-after-done":
        # Finished and validated, then stuck in MPI_Finalize (MPICH 4.0.2 ch4:ucx over TCP
        # does this now and then); the numbers are complete, keep them but say so.
        res["note"] = ("did not exit within %gs after its final output (stuck in "
                       "MPI_Finalize?); killed, results kept" % opts.finalize_grace)
    if how == "timeout":
        res["why"] = "timed out after %ds" % timeout
    elif rc != 0 and how != "hung-after-done":
        lines = (err.strip() or out.strip() or "(no output)").splitlines()
        key = [l for l in (err + out).splitlines() if "VALIDATION FAILED" in l]
        res["why"] = "exit status %d: %s" % (rc, (key or lines)[-1].strip())
        res["tail"] = "\n".join("      | " + l for l in lines[-12:])
    veth = (after[0] - before[0], after[1] - before[1]) if before is not None else None
    return res, out, err, veth


def run_one(bench, config, rep, exe, args, opts, wrap, logs_dir):
    env = clean_env(strip_mpi=config.startswith("mpich"))
    if config == "ivc" and not BENCHES[bench].get("files"):  # p2p paths mean nothing for I/O
        env["IVC_REPORT_PATH"] = "1"
    if config in WAIT_CONFIGS:
        env["IVC_WAIT"] = config[len("ivc-"):]
    argv = launch_argv(config, exe, args, opts, wrap, BENCHES[bench].get("np", 2))
    res, out, err, veth = run_logged(
        config, argv, env, opts.timeout, os.path.dirname(exe), opts,
        os.path.join(logs_dir, "%s-%s-rep%d.log" % (bench, config, rep)),
        done_marker=DONE_MARKER)
    if "why" in res:
        return res
    try:
        vals, extra, payload = parse_output(bench, out)
    except ValueError as e:
        res["why"] = str(e)
        return res
    if veth is not None:
        dtx, drx = veth
        res["veth"] = (dtx, drx, payload)
        if payload is None or dtx < payload[0] or drx < payload[1]:
            res["why"] = ("TCP PATH NOT PROVEN: veth %s moved tx %d / rx %d bytes but the "
                          "benchmark sent %s / %s payload bytes -- traffic did not go over "
                          "the veth" % (_netns.dev[0], dtx, drx,
                                        payload and payload[0], payload and payload[1]))
            res["fatal_tcp"] = True
            return res
    res.update(ok=True, vals=vals, extra=extra, payload=payload)
    if config == "ivc":
        paths = parse_paths(err)
        if paths:
            PATHS[bench] = {sz: path_label(paths, sz) for sz in vals}
    return res


APP_IMPL = {"ivc": "ivc", "mpich-shm": "mpich", "mpich-tcp": "mpich", "ompi-shm": "ompi"}


def build_apps(opts, configs, out_dir):
    """({config: HPCC executable}, source tree) for the configurations that run the
    application rows; raises apps.AppError when HPCC cannot be had or built."""
    tree = apps.find_source(opts.hpcc_src, opts.ivc_prefix, os.path.join(out_dir, "apps"))
    ccs = {"ivc": os.path.join(opts.ivc_prefix, "bin", "mpicc"), "mpich": "mpicc.mpich",
           "ompi": "mpicc.openmpi"}
    built, exes = {}, {}
    for c in configs:
        impl = APP_IMPL.get(c)
        if impl is None:
            continue
        if impl not in built:
            built[impl] = apps.build(tree, ccs[impl], impl, out_dir)
        exes[c] = built[impl]
    return exes, tree


def run_app(config, rep, exe, tree, opts, wrap, logs_dir):
    """One HPCC run: like run_one's result, vals = {benchmark: value}."""
    run_dir = os.path.join(FILES_DIR, "hpcc-%s-rep%d" % (config, rep))
    apps.write_input(tree, run_dir, opts.hpcc_n)
    argv = launch_argv(config, exe, [], opts, wrap, apps.NP, files=True)
    res, _, _, veth = run_logged(
        config, argv, clean_env(config.startswith("mpich")), max(opts.timeout, 900), run_dir,
        opts, os.path.join(logs_dir, "hpcc-%s-rep%d.log" % (config, rep)),
        done_file=(os.path.join(run_dir, "hpccoutf.txt"), "End of HPC Challenge tests."))
    if "why" in res:
        return res
    try:
        res["vals"] = apps.parse(run_dir)
    except apps.AppError as e:
        res["why"] = str(e)
        return res
    if veth is not None:
        # No payload count from HPCC: its exchanges move megabytes, so anything that stayed
        # below 1 MB each way did not take the veth.
        res["veth"] = veth
        if veth[0] < 1e6 or veth[1] < 1e6:
            res["why"] = ("TCP PATH NOT PROVEN: veth %s moved tx %d / rx %d bytes during HPCC"
                          % (_netns.dev[0], veth[0], veth[1]))
            res["fatal_tcp"] = True
            return res
    res["ok"] = True
    return res


def run_apps(app_benches, configs, exes, tree, opts, wrap, logs_dir):
    """Runs HPCC --reps times per configuration (interleaved); returns
    ({config: [{benchmark: value}, ...]}, [(bench, config, rep, why)], tcp_fatal,
    [(bench, config, rep, note)] of runs kept after hanging in MPI_Finalize)."""
    confs = [c for c in configs if c in exes and
             any(c in BENCHES[b]["configs"] for b in app_benches)]
    per_conf, failures, tcp_fatal, notes = {c: [] for c in confs}, [], False, []
    for rep in range(1, opts.reps + 1):
        for c in confs:
            res = run_app(c, rep, exes[c], tree, opts, wrap, logs_dir)
            if res["ok"]:
                msg = ", ".join("%s %.4g" % (b[5:], res["vals"][b]) for b in app_benches)
                if "veth" in res:
                    msg += " (veth tx %.1f MB, rx %.1f MB)" % (res["veth"][0] / 1e6,
                                                               res["veth"][1] / 1e6)
                if res.get("note"):
                    msg += " -- WARNING: " + res["note"]
                    notes.append(("hpcc", c, rep, res["note"]))
                log("  hpcc  %-10s rep %d: ok, %s, %.1f s" % (c, rep, msg, res["secs"]))
                per_conf[c].append(res["vals"])
            else:
                log("  %shpcc  %-10s rep %d: FAILED: %s -- log %s"
                    % ("!!!! " if res.get("fatal_tcp") else "", c, rep, res["why"], res["log"]))
                if res.get("tail"):
                    log(res["tail"])
                failures.append(("hpcc", c, rep, res["why"]))
                tcp_fatal = tcp_fatal or bool(res.get("fatal_tcp"))
    return per_conf, failures, tcp_fatal, notes


# --------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------

def best_of(values, better):
    return min(values) if better == "lower" else max(values)


def fmt_val(v, unit):
    if v is None:
        return "-"
    if unit == "msg/s":
        return "%.0f" % v
    return "%.2f" % v


def fmt_ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    return "%.2fx" % (a / b)


def print_table(bench, best, configs, reps):
    spec = BENCHES[bench]
    unit = spec["unit"]
    log("")
    log("== %s: %s, %s, best of %d (%s is better)" % (bench, spec["title"], unit, reps,
                                                     spec["better"]))
    paths = PATHS.get(bench, {})
    hdr = "%-10s%14s%14s%14s%14s%14s%14s%14s" % ("Size", "ivc", "mpich-shm", "mpich-tcp",
                                                 "ompi-shm", "ivc/shm", "ivc/ompi", "tcp/ivc")
    if paths:
        hdr += "  %s" % "ivc path"
    log(hdr)
    sizes = sorted({s for c in configs for s in best.get(c, {})})
    if not sizes:
        log("(no successful runs)")
        return
    for s in sizes:
        v = {c: best.get(c, {}).get(s) for c in CONFIGS}
        log("%-10d%14s%14s%14s%14s%14s%14s%14s" % (
            s, fmt_val(v["ivc"], unit), fmt_val(v["mpich-shm"], unit),
            fmt_val(v["mpich-tcp"], unit), fmt_val(v["ompi-shm"], unit),
            fmt_ratio(v["ivc"], v["mpich-shm"]), fmt_ratio(v["ivc"], v["ompi-shm"]),
            fmt_ratio(v["mpich-tcp"], v["ivc"])) + ("  %s" % paths.get(s, "") if paths else ""))
    waits = [c for c in WAIT_CONFIGS if best.get(c)]
    if waits:
        log("-- %s with other waiting policies (IVC_WAIT), against mpich-shm" % bench)
        log("%-10s" % "Size" + "".join("%14s" % c for c in waits) +
            "".join("%14s" % (c[4:] + "/shm") for c in waits))
        for s in sizes:
            shm = best.get("mpich-shm", {}).get(s)
            vals = [best.get(c, {}).get(s) for c in waits]
            log("%-10d" % s + "".join("%14s" % fmt_val(v, unit) for v in vals) +
                "".join("%14s" % fmt_ratio(v, shm) for v in vals))
    if bench.startswith("barrier"):
        log("-- barriers per second (1e6 / latency): " + ", ".join(
            "%s %.3g" % (c, 1e6 / best[c][0]) for c in configs if best.get(c, {}).get(0)))
    abis = [c for c in ABI_CONFIGS if best.get(c)]
    if abis:
        log("-- %s built for another ABI, run on IVC's library of that ABI, against ivc "
            "(ivc-abi: mpicc -mpi-abi, the MPI-5 standard ABI; ivc-mpich: mpicc.mpich)" % bench)
        log("%-10s%14s" % ("Size", "ivc") + "".join("%14s" % c for c in abis) +
            "".join("%14s" % (c[4:] + "/ivc") for c in abis))
        for s in sizes:
            nat = best.get("ivc", {}).get(s)
            vals = [best.get(c, {}).get(s) for c in abis]
            log("%-10d%14s" % (s, fmt_val(nat, unit)) + "".join("%14s" % fmt_val(v, unit) for v in vals) +
                "".join("%14s" % fmt_ratio(v, nat) for v in vals))
    if best.get("ivc-net"):
        log("-- %s between two simulated hosts (same veth): IVC network channel vs MPICH"
            % bench)
        log("%-10s%14s%14s%14s" % ("Size", "ivc-net", "mpich-tcp", "ivc-net/tcp"))
        for s in sorted(best["ivc-net"]):
            a, t = best["ivc-net"].get(s), best.get("mpich-tcp", {}).get(s)
            log("%-10d%14s%14s%14s" % (s, fmt_val(a, unit), fmt_val(t, unit), fmt_ratio(a, t)))


def summary(best_all, configs, med_all):
    lines = ["", "== Summary against the IVC targets (best values of this run; "
                 "'median' = same ratio from the per-size medians over the reps)"]
    lat = best_all.get("lat", {})
    small = [0, 1, 2, 4, 8]

    def mean(xs):
        return sum(xs) / len(xs) if xs else None

    def vals(bench_best, conf, sizes):
        d = bench_best.get(conf, {})
        return [d[s] for s in sizes if s in d]

    def verdict(ok):
        return "MET" if ok else "NOT MET"

    def med_ratio(bench, num, den, sizes, fmt):
        m = med_all.get(bench, {})
        a, b = m.get(num, {}), m.get(den, {})
        rs = [a[s] / b[s] for s in sizes if s in a and s in b and b[s]]
        return ("   (median: " + fmt + ")") % mean(rs) if rs else ""

    if lat:
        lines.append("small-message latency, 0-8 B (mean over sizes, us):")
        for c in CONFIGS:
            v = vals(lat, c, small)
            lines.append("  %-10s %s" % (c, "%.2f" % mean(v) if v else "- (not run)"))
        ivc, shm, tcp, ompi = (lat.get(c, {}) for c in CONFIGS)
        common = [s for s in small if s in ivc and s in ompi]
        if common:
            rs = [ivc[s] / ompi[s] for s in common]
            lines.append("  ivc / ompi-shm  : worst %.2fx, mean %.2fx%s"
                         % (max(rs), mean(rs),
                            med_ratio("lat", "ivc", "ompi-shm", common, "mean %.2fx")))
        common = [s for s in small if s in ivc and s in shm]
        if common:
            rs = [ivc[s] / shm[s] for s in common]
            lines.append("  ivc / mpich-shm : worst %.2fx, mean %.2fx   target <= 1.5x  -> %s%s"
                         % (max(rs), mean(rs), verdict(max(rs) <= 1.5),
                            med_ratio("lat", "ivc", "mpich-shm", common, "mean %.2fx")))
        common = [s for s in small if s in ivc and s in tcp]
        if common:
            rs = [tcp[s] / ivc[s] for s in common]
            lines.append("  mpich-tcp / ivc : worst %.1fx, mean %.1fx   target >= 10x   -> %s%s"
                         % (min(rs), mean(rs), verdict(min(rs) >= 10),
                            med_ratio("lat", "mpich-tcp", "ivc", common, "mean %.1fx")))
        common = [s for s in small if s in shm and s in tcp]
        if common:
            rs = [tcp[s] / shm[s] for s in common]
            lines.append("  (reference) mpich-tcp / mpich-shm : mean %.1fx" % mean(rs))
    for b in ("bw", "bibw"):
        d = best_all.get(b, {})
        big = sorted({s for c in d for s in d[c] if s >= (1 << 20)})
        if not big:
            continue
        lines.append("%s bandwidth, sizes >= 1 MiB (MB/s):" % b)
        for c in CONFIGS:
            v = vals(d, c, big)
            lines.append("  %-10s %s" % (c, "  ".join("%d:%.0f" % (s, d[c][s]) for s in big
                                                    if s in d.get(c, {})) if v else "- (not run)"))
        ivc, shm, tcp, ompi = (d.get(c, {}) for c in CONFIGS)
        common = [s for s in big if s in ivc and s in ompi]
        if common:
            rs = [ivc[s] / ompi[s] for s in common]
            lines.append("  ivc / ompi-shm  : worst %.2fx, mean %.2fx" % (min(rs), mean(rs)))
        common = [s for s in big if s in ivc and s in shm]
        if common:
            rs = [ivc[s] / shm[s] for s in common]
            tgt = "  target >= 0.8x  -> %s" % verdict(min(rs) >= 0.8) if b == "bw" else ""
            lines.append("  ivc / mpich-shm : worst %.2fx, mean %.2fx%s%s"
                         % (min(rs), mean(rs), tgt,
                            med_ratio(b, "ivc", "mpich-shm", common, "mean %.2fx")))
        common = [s for s in big if s in ivc and s in tcp]
        if common:
            rs = [ivc[s] / tcp[s] for s in common]
            lines.append("  ivc / mpich-tcp : mean %.1fx" % mean(rs))
        common = [s for s in big if s in shm and s in tcp]
        if common:
            rs = [shm[s] / tcp[s] for s in common]
            lines.append("  (reference) mpich-shm / mpich-tcp : mean %.1fx" % mean(rs))
    coll_rows = [(b, s) for b in COLLS for s in ((0,) if b == "barrier" else (8, 65536))
                 if b in best_all]
    if coll_rows:
        lines.append("collectives, 2 ranks (us; targets: ivc/mpich-shm <= 1.5x, "
                     "mpich-tcp/ivc >= 5x):")
        lines.append("  %-10s %8s %10s %10s %10s %10s %10s %10s %10s  %s" % (
            "coll", "size", "ivc", "mpich-shm", "mpich-tcp", "ompi-shm", "ivc/shm", "ivc/ompi",
            "tcp/ivc", "verdict"))
        for b, sz in coll_rows:
            d = best_all[b]
            ivc, shm, tcp, ompi = (d.get(c, {}).get(sz) for c in CONFIGS)
            r3 = ivc / ompi if ivc is not None and ompi else None
            r1 = ivc / shm if ivc is not None and shm else None
            r2 = tcp / ivc if ivc and tcp is not None else None
            ok = [r1 <= 1.5] if r1 is not None else []
            ok += [r2 >= 5] if r2 is not None else []
            lines.append("  %-10s %8d %10s %10s %10s %10s %10s %10s %10s  %s%s" % (
                b, sz, fmt_val(ivc, "us"), fmt_val(shm, "us"), fmt_val(tcp, "us"),
                fmt_val(ompi, "us"), "%.2fx" % r1 if r1 is not None else "-",
                "%.2fx" % r3 if r3 is not None else "-", "%.1fx" % r2 if r2 is not None else "-",
                verdict(all(ok)) if ok else "-",
                med_ratio(b, "ivc", "mpich-shm", [sz], "ivc/shm %.2fx")))
    rma = [b for b in ("put_lat", "get_lat") if b in best_all]
    if rma:
        lines.append("one-sided latency (ivc / mpich-shm, worst over sizes; target <= 1.5x):")
        for b in rma:
            ivc, shm = best_all[b].get("ivc", {}), best_all[b].get("mpich-shm", {})
            common = [sz for sz in ivc if sz in shm and shm[sz]]
            if common:
                rs = [ivc[sz] / shm[sz] for sz in common]
                lines.append("  %-10s worst %.2fx, mean %.2fx -> %s" % (
                    b, max(rs), mean(rs), verdict(max(rs) <= 1.5)))
    a4 = best_all.get("allreduce4", {})
    if a4:
        ivc, shm = a4.get("ivc", {}).get(8), a4.get("mpich-shm", {}).get(8)
        lines.append("allreduce, 8 B, 4 ranks on %d cores: ivc %s us, mpich-shm %s us   "
                     "target ivc <= 50 us -> %s" % (
                         os.cpu_count() or 0, fmt_val(ivc, "us"), fmt_val(shm, "us"),
                         verdict(ivc is not None and ivc <= 50) if ivc is not None else "-"))
    net_lines(best_all, lines, verdict, mean)
    if "ivc" not in configs:
        lines.append("(ivc not run: targets not evaluated)")
    return lines


def net_lines(best_all, lines, verdict, mean):
    """Inter-host target: IVC's network channel within 10% of MPICH over the same TCP."""
    for b, sizes, what in (("lat", [0, 1, 2, 4, 8], "latency 0-8 B"),
                           ("bw", None, "bandwidth >= 1 MiB")):
        d = best_all.get(b, {})
        net, tcp = d.get("ivc-net", {}), d.get("mpich-tcp", {})
        if sizes is None:
            sizes = [s for s in net if s >= (1 << 20)]
        common = [s for s in sizes if s in net and s in tcp]
        if not common:
            continue
        if b == "lat":
            rs = [net[s] / tcp[s] for s in common]  # > 1: IVC slower
            worst = max(rs)
        else:
            rs = [tcp[s] / net[s] for s in common]  # > 1: IVC slower
            worst = max(rs)
        lines.append("inter-host %s: ivc-net is %.2fx (worst) / %.2fx (mean) of mpich-tcp's "
                     "time   target <= 1.10x -> %s" % (what, worst, mean(rs),
                                                        verdict(worst <= 1.10)))


def write_csv(path, best_all, extra_all):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["benchmark", "size", "config", "value", "unit"])
        for b in BENCH_ORDER:
            for c in ALL_CONFIGS:
                for s in sorted(best_all.get(b, {}).get(c, {})):
                    w.writerow([b, s, c, "%.6g" % best_all[b][c][s], BENCHES[b]["unit"]])
                    if "extra" in BENCHES[b] and s in extra_all.get(b, {}).get(c, {}):
                        w.writerow([b, s, c, "%.6g" % extra_all[b][c][s],
                                    BENCHES[b]["extra"][1]])


STYLE = {"ivc": ("tab:red", "o"), "mpich-shm": ("tab:blue", "s"),
         "mpich-tcp": ("tab:green", "^"), "ompi-shm": ("tab:purple", "D"),
         "ivc-net": ("tab:orange", "v"), "ivc-spin": ("tab:pink", "x"),
         "ivc-yield": ("tab:brown", "+"), "ivc-block": ("tab:gray", "*"),
         "ivc-abi": ("tab:olive", "D"), "ivc-mpich": ("tab:cyan", "x")}


def read_results(csv_path):
    """{benchmark: {config: [(size, value)]}} of the primary values in results.csv."""
    data = {}
    with open(csv_path) as f:
        for r in csv.DictReader(f):
            b = r["benchmark"]
            if b not in BENCHES or r["unit"] != BENCHES[b]["unit"]:
                continue
            data.setdefault(b, {}).setdefault(r["config"], []).append(
                (int(r["size"]), float(r["value"])))
    return data


def plot_each(csv_path, plot_dir):
    """One plot per benchmark (plot_dir/BENCH.png): value against size, one line per
    implementation. Returns the benchmarks drawn; needs matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(plot_dir, exist_ok=True)
    drawn = []
    data = read_results(csv_path)
    if plot_apps({b: v for b, v in data.items() if BENCHES[b].get("app")}, plot_dir, plt):
        drawn.append("hpcc")
    for b, confs in sorted(data.items()):
        spec = BENCHES[b]
        if spec.get("app"):
            continue
        fig, ax = plt.subplots(figsize=(6.5, 4.5))
        sized = len({p[0] for c in confs for p in confs[c]}) > 1
        for c in ALL_CONFIGS:
            # A log axis has no 0: the 0-byte row is in report.md's table only.
            pts = sorted(p for p in confs.get(c, []) if p[1] > 0 and (p[0] > 0 or not sized))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=STYLE[c][1],
                        color=STYLE[c][0], label=c, markersize=4)
        if sized:
            ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("%s (%s)" % (b, spec["title"]), fontsize=9)
        ax.set_xlabel("message size (bytes)" if sized else "row")
        ax.set_ylabel("%s, %s is better" % (spec["unit"], spec["better"]))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(plot_dir, "%s.png" % b), dpi=100)
        plt.close(fig)
        drawn.append(b)
    return drawn


def plot_apps(data, plot_dir, plt):
    """plots/hpcc.png: one bar chart per application row, one bar per implementation."""
    rows = [b for b in apps.BENCH_NAMES if b in data]
    if not rows:
        return False
    fig, axes = plt.subplots(1, len(rows), figsize=(3.2 * len(rows), 3.8), squeeze=False)
    for ax, b in zip(axes.flat, rows):
        confs = [c for c in ALL_CONFIGS if data[b].get(c)]
        ax.bar(range(len(confs)), [data[b][c][0][1] for c in confs],
               color=[STYLE[c][0] for c in confs])
        ax.set_xticks(range(len(confs)))
        ax.set_xticklabels(confs, rotation=45, ha="right", fontsize=8)
        ax.set_title("%s (%s)" % (b[5:], BENCHES[b]["unit"]), fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("HPCC at %d ranks, higher is better" % apps.NP, fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(plot_dir, "hpcc.png"), dpi=100)
    plt.close(fig)
    return True


def app_table(best_all, peers):
    """report.md's application section: one row per HPCC figure."""
    rows = [b for b in apps.BENCH_NAMES if best_all.get(b, {}).get("ivc")]
    if not rows:
        return []
    cols = [c for c in ["ivc"] + peers if any(best_all[b].get(c) for b in rows)]
    rat = [p for p in peers if p in cols]
    out = ["## hpcc: HPCC 1.5.0, %d ranks on %d cores (IVC: %d simulated VMs)"
           % (apps.NP, os.cpu_count() or 0, apps.NP), "",
           "Higher is better; ratios above 1.00x mean IVC is faster.", "",
           "| figure | " + " | ".join(cols) + "".join(" | ivc/%s" % p for p in rat) + " |",
           "|---" * (1 + len(cols) + len(rat)) + "|"]
    for b in rows:
        v = {c: best_all[b].get(c, {}).get(apps.NP) for c in cols}
        out.append("| %s (%s) | " % (b[5:], BENCHES[b]["unit"]) +
                   " | ".join(fmt_val(v[c], "") for c in cols) +
                   "".join(" | " + fmt_ratio(v["ivc"], v[p]) for p in rat) + " |")
    return out + [""]


def write_report(md_path, best_all, configs, reps, drawn, header):
    """report.md: per benchmark, the best values and IVC's ratio to each peer (below 1.00x:
    IVC better for times, worse for rates), and its plot."""
    peers = [c for c in ("mpich-shm", "ompi-shm", "mpich-tcp") if c in configs]
    out = ["# IVC side by side", "", header, "",
           "Best of %d runs per size. Ratios are IVC's value divided by the peer's: for "
           "times (us) below 1.00x means IVC is faster, for rates (MB/s, msg/s) above "
           "1.00x means IVC is faster." % reps, ""]
    for b in BENCH_ORDER:
        best = best_all.get(b)
        if not best or not best.get("ivc"):
            continue
        spec = BENCHES[b]
        if spec.get("app"):  # last in BENCH_ORDER: one section for all application rows
            out += app_table(best_all, peers)
            if "hpcc" in drawn:
                out += ["![hpcc](plots/hpcc.png)", ""]
            break
        cols = [c for c in ["ivc"] + peers if best.get(c)]
        out += ["## %s: %s (%s)" % (b, spec["title"], spec["unit"]), ""]
        rat = [p for p in peers if best.get(p)]
        out.append("| size | " + " | ".join(cols) + "".join(" | ivc/%s" % p for p in rat) + " |")
        out.append("|---" * (1 + len(cols) + len(rat)) + "|")
        for sz in sorted(best["ivc"]):
            vals = [best[c].get(sz) for c in cols]
            out.append("| %d | " % sz + " | ".join(fmt_val(v, spec["unit"]) for v in vals) +
                       "".join(" | " + fmt_ratio(best["ivc"].get(sz), best[p].get(sz))
                               for p in rat) + " |")
        if b in drawn:
            out += ["", "![%s](plots/%s.png)" % (b, b)]
        out.append("")
    with open(md_path, "w") as f:
        f.write("\n".join(out))


def plot(csv_path, png_path):
    """Draws results.png from results.csv; needs matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = {}
    with open(csv_path) as f:
        for r in csv.DictReader(f):
            data.setdefault((r["benchmark"], r["unit"]), {}).setdefault(r["config"], []).append(
                (int(r["size"]), float(r["value"])))
    panels = [(("lat", "us"), "One-way latency (us), lower is better"),
              (("bw", "MB/s"), "Bandwidth (MB/s)"),
              (("bibw", "MB/s"), "Bidirectional bandwidth (MB/s)"),
              (("mr", "msg/s"), "Message rate (messages/s)")]
    panels = [p for p in panels if p[0] in data]
    if not panels:
        return False
    ncols = 2 if len(panels) > 1 else 1
    nrows = (len(panels) + 1) // 2
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.5 * ncols, 4.5 * nrows), squeeze=False)
    style = STYLE
    for ax, (key, title) in zip(axes.flat, panels):
        for c in ALL_CONFIGS:
            pts = sorted(p for p in data[key].get(c, []) if p[0] > 0 and p[1] > 0)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=style[c][1],
                        color=style[c][0], label=c, markersize=4)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("message size (bytes)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    return True


def make_plot(csv_path, png_path):
    with open(csv_path) as f:
        if len(f.read().splitlines()) < 2:
            log("no results to plot")
            return False
    try:
        import matplotlib  # noqa: F401
        have = True
    except ImportError:
        have = False
    if have:
        return plot(csv_path, png_path)
    alt = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(alt) and os.access(alt, os.X_OK):
        r = subprocess.run([alt, os.path.abspath(__file__), "--plot-from", csv_path,
                            "--plot-to", png_path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode == 0:
            return True
        warn("plotting with %s failed:\n%s" % (alt, r.stdout.strip()[-2000:]))
    warn("matplotlib not available (apt-get install -y python3-matplotlib); no results.png")
    return False


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(
        description="Build and run the IVC point-to-point benchmarks side by side: IVC "
                    "(2 simulated VMs), MPICH shared memory, MPICH over TCP between two "
                    "network namespaces.")
    ap.add_argument("--ivc-prefix", default=None,
                    help="IVC install prefix with bin/mpicc and bin/ivcrun "
                         "(default: <repo>/install)")
    ap.add_argument("--out", default=None, help="output directory (default: <repo>/bench/out)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per configuration; the "
                    "best value per size is kept (default 3)")
    ap.add_argument("--quick", action="store_true",
                    help="fewer sizes and iterations (whole run well under 2 minutes)")
    ap.add_argument("--only", default=",".join(c for c in ALL_CONFIGS if c not in ABI_CONFIGS),
                    help="comma-separated subset of %s (default: all but %s, which are asked "
                         "for by name)" % (",".join(ALL_CONFIGS), ",".join(ABI_CONFIGS)))
    ap.add_argument("--bench", default=",".join(BENCH_ORDER),
                    help="comma-separated subset of %s" % ",".join(BENCH_ORDER))
    ap.add_argument("--pin", choices=["none", "cores"], default="none",
                    help="CPU pinning, the same for every configuration: none (default) or "
                         "cores = rank r on core r mod nproc via taskset (needs the launcher "
                         "to export one of %s)" % ", ".join(RANK_ENV_VARS))
    ap.add_argument("--iter-scale", type=float, default=None,
                    help="pass -i SCALE to every benchmark (overrides --quick's 0.2)")
    ap.add_argument("--bench-args", default="",
                    help="extra arguments appended to every benchmark command line")
    ap.add_argument("--ivc-launch-args", default="",
                    help="extra ivcrun arguments, inserted before the program")
    ap.add_argument("--compete", type=int, default=0, metavar="N",
                    help="run N CPU-bound competitor processes (busy loops, one per core for "
                         "N = the number of CPUs) during every benchmark run: the "
                         "oversubscription that other programs cause (issue 11)")
    ap.add_argument("--timeout", type=int, default=180,
                    help="seconds before one benchmark run is killed (default 180)")
    ap.add_argument("--finalize-grace", type=float, default=5.0,
                    help="seconds a benchmark may take to exit after its final output line "
                         "before it is ended and its (complete, validated) results are kept "
                         "with a warning (default 5)")
    ap.add_argument("--hpcc-n", type=int, default=apps.DEFAULT_N, metavar="N",
                    help="HPL's matrix order in the HPCC rows (default %d)" % apps.DEFAULT_N)
    ap.add_argument("--hpcc-src", default=None, metavar="DIR",
                    help="an unpacked hpcc-1.5.0 tree (default: the one the external.hpcc "
                         "test unpacked under the IVC prefix, else apt-get source hpcc)")
    ap.add_argument("--plot-from", help=argparse.SUPPRESS)
    ap.add_argument("--plot-to", help=argparse.SUPPRESS)
    ap.add_argument("--plots-dir", help=argparse.SUPPRESS)
    return ap.parse_args()


def start_competitors(n):
    """N busy-looping processes (the CPU-bound competitors of --compete), killed at exit."""
    procs = []
    for _ in range(n):
        procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                      start_new_session=True))
    if n:
        log("competing: %d CPU-bound processes (busy loops) run during every benchmark" % n)

        def stop():
            for p in procs:
                p.kill()
                p.wait()
        import atexit
        atexit.register(stop)
    return procs


def check_prereqs(opts, configs):
    if any(c.startswith("mpich") or c == "ivc-mpich" for c in configs):
        missing = [t for t in ("mpicc.mpich", "mpiexec.mpich") if not shutil.which(t)]
        if missing:
            raise Fatal("MPICH not found (%s missing): apt-get install mpich libmpich-dev"
                        % ", ".join(missing))
    if any(c.startswith("ivc") for c in configs):
        p = opts.ivc_prefix
        missing = [x for x in ("bin/mpicc", "bin/ivcrun")
                   if not os.access(os.path.join(p, x), os.X_OK)]
        if not os.path.isdir(p) or missing:
            raise Fatal("IVC prefix %s %s. Build and install IVC first "
                        "(cmake -B build && cmake --build build && cmake --install build "
                        "--prefix %s), pass --ivc-prefix, or run only the reference "
                        "configurations with --only mpich-shm,mpich-tcp"
                        % (p, "does not exist" if not os.path.isdir(p)
                           else "lacks " + " and ".join(missing), p))


def main():
    global _netns
    opts = parse_args()
    if opts.plot_from and opts.plots_dir:
        print(" ".join(plot_each(opts.plot_from, opts.plots_dir)))
        sys.exit(0)
    if opts.plot_from:
        sys.exit(0 if plot(opts.plot_from, opts.plot_to) else 1)

    configs = [c.strip() for c in opts.only.split(",") if c.strip()]
    benches = [b.strip() for b in opts.bench.split(",") if b.strip()]
    bad = [c for c in configs if c not in ALL_CONFIGS] + [b for b in benches
                                                             if b not in BENCHES]
    if bad or not configs or not benches:
        raise Fatal("unknown or empty --only/--bench entries: %s (configs: %s; benchmarks: %s)"
                    % (", ".join(bad) or "(empty)", ", ".join(ALL_CONFIGS),
                       ", ".join(BENCH_ORDER)))
    configs = [c for c in ALL_CONFIGS if c in configs]
    benches = [b for b in BENCH_ORDER if b in benches]
    for b in list(benches):
        if not os.path.exists(os.path.join(BENCH_DIR, BENCHES[b]["src"])):
            log("SKIP %s: bench/%s not found" % (b, BENCHES[b]["src"]))
            benches.remove(b)
    if not benches:
        raise Fatal("no benchmark left to run")
    if opts.reps < 1:
        raise Fatal("--reps must be >= 1")
    opts.ivc_prefix = os.path.abspath(opts.ivc_prefix or os.path.join(REPO_DIR, "install"))
    out_dir = os.path.abspath(opts.out or os.path.join(BENCH_DIR, "out"))
    global FILES_DIR
    FILES_DIR = os.path.join(out_dir, "files")
    os.makedirs(FILES_DIR, exist_ok=True)

    check_prereqs(opts, configs)
    skipped = {}
    missing = [t for t in ("mpicc.openmpi", "mpirun.openmpi") if not shutil.which(t)]
    if "ompi-shm" in configs and missing:
        skipped["ompi-shm"] = ("Open MPI not found (%s missing: apt-get install openmpi-bin "
                               "libopenmpi-dev, or scripts/setup.sh --bench)" % ", ".join(missing))
        configs.remove("ompi-shm")
        log("SKIP ompi-shm: %s" % skipped["ompi-shm"])
    if "ivc-net" in configs and not shutil.which("mpiexec.mpich"):
        skipped["ivc-net"] = "mpiexec.mpich (Hydra, the PMI-1 launcher) not found"
        configs.remove("ivc-net")
    for c in TCP_CONFIGS:
        why = tcp_unavailable_reason() if c in configs else None
        if why:
            skipped[c] = why
            configs.remove(c)
            log("SKIP %s: %s" % (c, why))
    if not configs:
        raise Fatal("no configuration left to run")

    t_start = time.monotonic()
    os.makedirs(out_dir, exist_ok=True)
    logs_dir = os.path.join(out_dir, "logs")
    os.makedirs(logs_dir, exist_ok=True)

    # Build the same sources against each implementation.
    cflags = CFLAGS
    exes = {}
    app_benches = [b for b in benches if BENCHES[b].get("app")]
    app_exes, app_tree = {}, None
    if app_benches:
        try:
            app_exes, app_tree = build_apps(opts, configs, out_dir)
        except apps.AppError as e:
            log("SKIP %s: %s" % (", ".join(app_benches), e))
            skipped["hpcc"] = str(e).splitlines()[0]
        for b in app_benches:
            benches.remove(b)
        if app_exes:
            log("built HPCC (%s) in %s" % (app_tree, os.path.join(out_dir, "build")))
    if any(c.startswith("ivc") for c in configs):
        d = build(os.path.join(opts.ivc_prefix, "bin", "mpicc"), "ivc", benches, out_dir, cflags)
        exes["ivc"] = exes["ivc-net"] = d
        for c in WAIT_CONFIGS:
            exes[c] = d
    if "ivc-abi" in configs:
        exes["ivc-abi"] = build(os.path.join(opts.ivc_prefix, "bin", "mpicc"), "ivc-abi", benches,
                                out_dir, ["-mpi-abi"] + cflags)
    if any(c.startswith("mpich") or c == "ivc-mpich" for c in configs):
        d = build("mpicc.mpich", "mpich", benches, out_dir, cflags)
        exes["mpich-shm"] = exes["mpich-tcp"] = exes["ivc-mpich"] = d
    if "ompi-shm" in configs:
        exes["ompi-shm"] = build("mpicc.openmpi", "ompi", benches, out_dir, cflags)
    log("built %s in %s" % (", ".join(benches), os.path.join(out_dir, "build")))

    if any(c in configs for c in TCP_CONFIGS):
        _netns = TcpNet()
        try:
            _netns.setup()
        except Fatal as e:
            _netns.teardown()
            _netns = None
            for c in TCP_CONFIGS:
                if c in configs:
                    skipped[c] = "could not create namespaces/veth: %s" % e
                    configs.remove(c)
                    log("SKIP %s: %s" % (c, skipped[c]))
            if not configs:
                raise Fatal("no configuration left to run")
        else:
            log("mpich-tcp: namespaces %s / %s, veth %s (%s) <-> %s (%s)"
                % (_netns.ns[0], _netns.ns[1], _netns.dev[0], NET_SUBNET_A, _netns.dev[1],
                   NET_SUBNET_B))

    wrap = write_pin_wrapper(out_dir) if opts.pin == "cores" else None
    iter_scale = opts.iter_scale
    if iter_scale is None and opts.quick:
        iter_scale = QUICK_ITER_SCALE

    log("configs: %s | benchmarks: %s | reps: %d | pinning: %s%s | %d CPUs | out: %s"
        % (", ".join(configs), ", ".join(benches), opts.reps, opts.pin,
           " | quick" if opts.quick else "", os.cpu_count(), out_dir))
    log("Results from one invocation are comparable with each other only (shared, noisy host).")

    competitors = start_competitors(opts.compete)
    raw = []  # (bench, size, config, rep, value, unit)
    best_all, extra_all, med_all, failures = {}, {}, {}, []
    tcp_proof = []
    tcp_fatal = False
    notes = []
    if app_exes:  # the applications (one HPCC run, four rows) after the micro-benchmarks
        benches += [b for b in app_benches]
    for b in benches:
        spec = BENCHES[b]
        if spec.get("app"):
            if b == app_benches[0]:
                app_runs, app_fail, app_tcp, app_notes = run_apps(
                    app_benches, configs, app_exes, app_tree, opts, wrap, logs_dir)
                failures += app_fail
                notes += app_notes
                tcp_fatal = tcp_fatal or app_tcp
            best = {c: {apps.NP: best_of([r[b] for r in runs], "higher")}
                    for c, runs in app_runs.items() if runs}
            med_all[b] = {c: {apps.NP: statistics.median([r[b] for r in runs])}
                          for c, runs in app_runs.items() if runs}
            for c, runs in app_runs.items():
                for k, r in enumerate(runs, 1):
                    raw.append((b, apps.NP, c, k, r[b], spec["unit"]))
            best_all[b], extra_all[b] = best, {}
            print_table(b, best, list(app_runs), opts.reps)
            continue
        args = list(QUICK_ARGS[b]) if opts.quick else list(FULL_ARGS.get(b, []))
        if iter_scale is not None:
            args += ["-i", "%g" % iter_scale]
        args += shlex.split(opts.bench_args)
        if spec.get("files"):
            args += ["-d", FILES_DIR]
        args += BENCHES[b].get("args", [])  # last: rma.c takes its mode as a plain word
        bconfigs = [c for c in configs if c in spec.get("configs", CONFIGS) or
                    (c in NET_CONFIGS and b in P2P_BENCHES) or
                    (c in ABI_CONFIGS and (b in P2P_BENCHES or b in COLLS))]
        per_conf = {c: [] for c in bconfigs}
        per_conf_extra = {c: [] for c in bconfigs}
        for rep in range(1, opts.reps + 1):
            for c in bconfigs:  # configurations interleaved within each repetition
                exe = os.path.join(exes[c], prog_of(b))
                res = run_one(b, c, rep, exe, args, opts, wrap, logs_dir)
                if res["ok"]:
                    msg = "ok"
                    if "veth" in res:
                        dtx, drx, pl = res["veth"]
                        msg += " (veth tx %.1f MB >= payload %.1f MB, rx %.1f MB >= %.1f MB)" % (
                            dtx / 1e6, pl[0] / 1e6, drx / 1e6, pl[1] / 1e6)
                        tcp_proof.append((b, rep, dtx, drx, pl))
                    msg += ", %.1f s" % res["secs"]
                    if res.get("note"):
                        msg += " -- WARNING: " + res["note"]
                        notes.append((b, c, rep, res["note"]))
                    log("  %-5s %-10s rep %d: %s" % (b, c, rep, msg))
                    per_conf[c].append(res["vals"])
                    per_conf_extra[c].append(res["extra"])
                    for s, v in res["vals"].items():
                        raw.append((b, s, c, rep, v, spec["unit"]))
                else:
                    loud = "!!!! " if res.get("fatal_tcp") else ""
                    log("  %s%-5s %-10s rep %d: FAILED: %s -- log %s"
                        % (loud, b, c, rep, res["why"], res["log"]))
                    if res.get("tail"):
                        log(res["tail"])
                    failures.append((b, c, rep, res["why"]))
                    if res.get("fatal_tcp"):
                        tcp_fatal = True
        best = {}
        bextra = {}
        for c in bconfigs:
            runs = per_conf[c]
            if not runs:
                continue
            sizes = sorted({s for r in runs for s in r})
            best[c] = {s: best_of([r[s] for r in runs if s in r], spec["better"]) for s in sizes}
            if "extra" in spec:
                bextra[c] = {s: max(r[s] for r in per_conf_extra[c] if s in r) for s in sizes}
        best_all[b] = best
        med_all[b] = {c: {s: statistics.median([r[s] for r in per_conf[c] if s in r])
                          for s in best[c]} for c in best}
        extra_all[b] = bextra
        print_table(b, best, bconfigs, opts.reps)

    csv_path = os.path.join(out_dir, "results.csv")
    write_csv(csv_path, best_all, extra_all)
    with open(os.path.join(out_dir, "results_raw.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["benchmark", "size", "config", "rep", "value", "unit"])
        for r in raw:
            w.writerow(list(r[:4]) + ["%.6g" % r[4], r[5]])

    lines = summary(best_all, configs, med_all)
    if tcp_proof:
        tot_tx = sum(p[2] for p in tcp_proof)
        tot_pl = sum(p[4][0] for p in tcp_proof)
        lines.append("TCP path (mpich-tcp, ivc-net): verified in %d/%d runs -- veth %s carried "
                     "%.1f MB tx for %.1f MB of rank0->rank1 payload" % (
                         len(tcp_proof), len(tcp_proof) + sum(1 for f in failures
                                                               if f[1] in TCP_CONFIGS),
                         _netns.dev[0], tot_tx / 1e6, tot_pl / 1e6))
    for c, why in skipped.items():
        lines.append("SKIPPED %s: %s" % (c, why))
    for c in ALL_CONFIGS:
        if c not in configs and c not in skipped:
            lines.append("not run: %s (not in --only)" % c)
    if notes:
        by_conf = {}
        for b, c, rep, _ in notes:
            by_conf.setdefault(c, []).append("%s#%d" % (b, rep))
        lines.append("WARNING: runs that hung after finishing (ended after %gs, results kept): %s"
                     % (opts.finalize_grace, "; ".join("%s: %s" % (c, " ".join(v))
                                                       for c, v in by_conf.items())))
    if failures:
        lines.append("FAILED runs: %d (see logs in %s)" % (len(failures), logs_dir))
        for b, c, rep, why in failures:
            lines.append("  %s %s rep %d: %s" % (b, c, rep, why.splitlines()[0]))
    if tcp_fatal:
        lines.append("!!!! TCP traffic (mpich-tcp/ivc-net) was NOT proven to cross the veth: "
                     "those runs are excluded")
    lines.append("elapsed: %.0f s" % (time.monotonic() - t_start))
    for l in lines:
        log(l)
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write("\n".join(lines[1:]) + "\n")

    drawn = []
    try:
        drawn = plot_each(csv_path, os.path.join(out_dir, "plots"))
    except ImportError:
        if os.path.realpath(sys.executable) != "/usr/bin/python3" and os.access(
                "/usr/bin/python3", os.X_OK):
            r = subprocess.run(["/usr/bin/python3", os.path.abspath(__file__), "--plot-from",
                                csv_path, "--plots-dir", os.path.join(out_dir, "plots")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            drawn = r.stdout.split() if r.returncode == 0 else []
    write_report(os.path.join(out_dir, "report.md"), best_all, configs, opts.reps, drawn,
                 "%s; configurations %s; %d CPUs; %s" % (
                     time.strftime("%Y-%m-%d"), ", ".join(configs), os.cpu_count() or 0,
                     "quick" if opts.quick else "full sizes"))
    log("wrote %s (%d plots in %s)" % (os.path.join(out_dir, "report.md"), len(drawn),
                                       os.path.join(out_dir, "plots")))
    png = os.path.join(out_dir, "results.png")
    if make_plot(csv_path, png):
        log("wrote %s, %s, %s" % (csv_path, png, os.path.join(out_dir, "summary.txt")))
    else:
        log("wrote %s, %s" % (csv_path, os.path.join(out_dir, "summary.txt")))
    return 1 if failures else 0


def _on_signal(signum, frame):
    raise KeyboardInterrupt("signal %d" % signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    rc = 1
    try:
        rc = main()
    except Fatal as e:
        print("harness: ERROR: %s" % e, file=sys.stderr, flush=True)
        rc = 2
    except KeyboardInterrupt:
        print("\nharness: interrupted, cleaning up", file=sys.stderr, flush=True)
        rc = 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if _current_proc is not None:
            kill_group(_current_proc, grace=2.0)
        if _netns is not None:
            _netns.teardown()
    sys.exit(rc)
