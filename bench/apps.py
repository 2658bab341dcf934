"""Application rows of the harness: the HPC Challenge suite (HPCC 1.5.0, Debian's source).

One HPCC run per configuration and repetition gives four rows: HPL (Gflop/s), PTRANS
(GB/s), MPIRandomAccess (MUP/s) and MPIFFT (Gflop/s), at 4 ranks on a 2 x 2 process grid.
The same upstream tree is built with each implementation's mpicc against the system BLAS;
a run counts only when HPCC's own checks pass (HPL's residuals, PTRANS's residual, no
RandomAccess errors, the FFT's error), so a fast wrong answer is a failure, not a figure.

Where the source comes from, first found: --hpcc-src DIR; the tree the external.hpcc test
unpacked into IVC's build directory (<ivc-prefix>/external/hpcc); OUT/apps/src, downloaded
there with `apt-get source --download-only hpcc` (needs deb-src entries; the test's
tests/external/lib.sh adds them as root).

Standard library only; the harness owns launching, timing and reporting.
"""

import glob
import os
import re
import shutil
import subprocess
import tarfile

NP = 4
# (harness benchmark, HPCC summary key, factor to the unit, unit, title)
METRICS = [
    ("hpcc_hpl", "HPL_Tflops", 1000.0, "Gflop/s", "HPCC HPL (dense LU solve)"),
    ("hpcc_ptrans", "PTRANS_GBs", 1.0, "GB/s", "HPCC PTRANS (parallel matrix transpose)"),
    ("hpcc_ra", "MPIRandomAccess_GUPs", 1000.0, "MUP/s",
     "HPCC MPIRandomAccess (updates to a distributed table)"),
    ("hpcc_fft", "MPIFFT_Gflops", 1.0, "Gflop/s", "HPCC MPIFFT (distributed 1-D FFT)"),
]
BENCH_NAMES = [m[0] for m in METRICS]
DEFAULT_N = 2000  # HPL's matrix order; HPCC sizes the other tests from its memory


class AppError(Exception):
    pass


def find_source(explicit, ivc_prefix, work_dir):
    """Directory of an unpacked hpcc-1.5.0 tree (see the module's docstring)."""
    cands = [explicit] if explicit else []
    cands += sorted(glob.glob(os.path.join(ivc_prefix, "external", "hpcc", "hpcc-*/")))
    src_dir = os.path.join(work_dir, "src")
    cands += sorted(glob.glob(os.path.join(src_dir, "hpcc-*/")))
    for c in cands:
        if c and os.path.isfile(os.path.join(c, "_hpccinf.txt")):
            return os.path.abspath(c)
    if explicit:
        raise AppError("--hpcc-src %s holds no HPCC tree (_hpccinf.txt missing)" % explicit)
    os.makedirs(src_dir, exist_ok=True)
    r = subprocess.run(["apt-get", "source", "--download-only", "hpcc"], cwd=src_dir,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tars = glob.glob(os.path.join(src_dir, "hpcc_*.orig.tar.gz"))
    if not tars:
        raise AppError("no HPCC source: `apt-get source --download-only hpcc` failed (%s); "
                       "add deb-src entries or pass --hpcc-src"
                       % (r.stdout.strip().splitlines() or ["no output"])[-1])
    with tarfile.open(tars[0]) as t:
        t.extractall(src_dir)
    trees = sorted(glob.glob(os.path.join(src_dir, "hpcc-*/")))
    if not trees:
        raise AppError("%s unpacked to no hpcc-* directory" % tars[0])
    return os.path.abspath(trees[0])


MAKE_TEMPLATE = """SHELL = /bin/sh
CD = cd
CP = cp
LN_S = ln -s
MKDIR = mkdir
RM = /bin/rm -f
TOUCH = touch
ARCH = $(arch)
TOPdir = ../../..
INCdir = $(TOPdir)/include
BINdir = $(TOPdir)/bin/$(ARCH)
LIBdir = $(TOPdir)/lib/$(ARCH)
HPLlib = $(LIBdir)/libhpl.a
HPL_INCLUDES = -I$(INCdir) -I$(INCdir)/$(ARCH)
HPL_LIBS = $(HPLlib) -lblas -lm
HPL_DEFS = -DAdd_ -DF77_INTEGER=int -DStringSunStyle $(HPL_INCLUDES){include}
CC = {cc}
CCNOOPT = $(HPL_DEFS)
CCFLAGS = $(HPL_DEFS) -O2 -fcommon
LINKER = {cc}
LINKFLAGS = $(CCFLAGS)
ARCHIVER = ar
ARFLAGS = r
RANLIB = echo
"""
# HPL calls MPI_Address and MPI_Type_struct, which MPI-3 removed; Open MPI 4.1's mpi.h turns
# them into compile errors. Every implementation builds the same code: their MPI-2 successors.
COMPAT_H = """#include <mpi.h>
#undef MPI_Address
#define MPI_Address MPI_Get_address
#undef MPI_Type_struct
#define MPI_Type_struct MPI_Type_create_struct
"""


def make_file(cc, compat=None):
    """HPL's make include for `cc`, with `compat` (a header path) forced into every file.
    Also what tests/external/hpcc.sh builds IVC's HPCC with (`apps.py make-file CC`, no
    compat header: that test calls the removed functions on purpose)."""
    return MAKE_TEMPLATE.format(cc=cc, include=" -include " + compat if compat else "")


def build(tree, cc, impl, out_dir):
    """Builds HPCC with `cc` in a copy of `tree` under out_dir/build/<impl>/hpcc-src;
    returns the executable's path. The copy keeps the implementations' objects apart."""
    cc = shutil.which(cc) or cc
    dst = os.path.join(out_dir, "build", impl, "hpcc-src")
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    shutil.copytree(tree, dst, symlinks=True,
                    ignore=shutil.ignore_patterns("hpcc", "hpccoutf.txt"))
    arch = "harness"
    compat = os.path.join(dst, "harness_compat.h")
    with open(compat, "w") as f:
        f.write(COMPAT_H)
    with open(os.path.join(dst, "hpl", "Make." + arch), "w") as f:
        f.write(make_file(cc, compat))
    logf = os.path.join(out_dir, "build", impl, "hpcc-build.log")
    with open(logf, "w") as lf:
        subprocess.run(["make", "-C", dst, "arch=" + arch, "clean"], stdout=lf,
                       stderr=subprocess.STDOUT)
        r = subprocess.run(["make", "-C", dst, "arch=" + arch, "-j%d" % (os.cpu_count() or 1)],
                           stdout=lf, stderr=subprocess.STDOUT)
    exe = os.path.join(dst, "hpcc")
    if r.returncode != 0 or not os.access(exe, os.X_OK):
        with open(logf) as lf:
            tail = lf.read()[-2000:]
        raise AppError("building HPCC with %s failed:\n%s\n(full log: %s)" % (cc, tail, logf))
    return exe


def write_input(tree, run_dir, n):
    """hpccinf.txt: HPCC's own sample input with HPL's N set to `n` and a 2 x 2 grid."""
    with open(os.path.join(tree, "_hpccinf.txt")) as f:
        lines = f.read().splitlines()
    # Lines 6 (Ns), 11 (Ps), 12 (Qs) of the HPL input format; checked, not assumed.
    for idx, want in ((5, "Ns"), (10, "Ps"), (11, "Qs")):
        if want not in lines[idx]:
            raise AppError("unexpected _hpccinf.txt: line %d is %r" % (idx + 1, lines[idx]))
    lines[5] = "%-12d Ns" % n
    lines[10] = "2            Ps"
    lines[11] = "2            Qs"
    os.makedirs(run_dir, exist_ok=True)
    out = os.path.join(run_dir, "hpccoutf.txt")
    if os.path.exists(out):
        os.remove(out)
    with open(os.path.join(run_dir, "hpccinf.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def parse(run_dir):
    """{benchmark: value} from run_dir/hpccoutf.txt; raises AppError unless every check
    HPCC makes passed and the run used NP ranks."""
    path = os.path.join(run_dir, "hpccoutf.txt")
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise AppError("no HPCC output (%s)" % e)
    m = re.search(r"Begin of Summary section.*?\n(.*)End of Summary section", text, re.S)
    if not m:
        raise AppError("no summary section in %s (run did not finish)" % path)
    kv = dict(l.split("=", 1) for l in m.group(1).splitlines() if "=" in l)

    def num(k):
        try:
            return float(kv[k])
        except (KeyError, ValueError):
            raise AppError("summary lacks %s" % k)

    if kv.get("Success") != "1":
        raise AppError("HPCC reports Success=%s" % kv.get("Success"))
    if num("CommWorldProcs") != NP:
        raise AppError("ran %s ranks, expected %d" % (kv.get("CommWorldProcs"), NP))
    if "tests completed and passed residual checks" not in text or re.search(
            r"^\s*[1-9]\d* tests completed and failed residual checks", text, re.M):
        raise AppError("HPL residual checks did not pass")
    if num("PTRANS_residual") != 0:
        raise AppError("PTRANS_residual=%s" % kv["PTRANS_residual"])
    for k in ("MPIRandomAccess_ErrorsFraction", "MPIRandomAccess_LCG_ErrorsFraction"):
        if num(k) != 0:  # HPCC tolerates 1%; a correct MPI makes none
            raise AppError("%s=%s" % (k, kv[k]))
    if not num("MPIFFT_maxErr") < 1e-10:
        raise AppError("MPIFFT_maxErr=%s" % kv["MPIFFT_maxErr"])
    return {b: num(key) * scale for b, key, scale, _, _ in METRICS}


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 3 or sys.argv[1] != "make-file":
        sys.exit("usage: apps.py make-file CC  (HPL's make include, on stdout)")
    sys.stdout.write(make_file(sys.argv[2]))
