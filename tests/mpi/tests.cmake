# Multi-rank MPI tests: one standalone program per behaviour (see tests/mpi/README.md).
# Included from tests/CMakeLists.txt; ivc_mpi_test() registers each in every launch
# configuration (vms, vm2, plain, small) unless CONFIGS says otherwise.
#
# Most programs accept any number of ranks >= 2 and read the size at run time; NP below
# is what CTest uses. Some take optional arguments (documented at the top of each file);
# the strict defaults are what is registered here.

ivc_mpi_test(order      SOURCES mpi/order.c      NP 4)
ivc_mpi_test(anysrc     SOURCES mpi/anysrc.c     NP 4)
ivc_mpi_test(probe      SOURCES mpi/probe.c      NP 3)
ivc_mpi_test(truncate   SOURCES mpi/truncate.c   NP 2)
ivc_mpi_test(datatypes  SOURCES mpi/datatypes.c  NP 2)
# 64 MiB messages; may drop the small configuration if it proves too slow there.
ivc_mpi_test(sizes      SOURCES mpi/sizes.c      NP 2)
ivc_mpi_test(storm      SOURCES mpi/storm.c      NP 4)
ivc_mpi_test(storm_np8  SOURCES mpi/storm.c      NP 8)
ivc_mpi_test(oversub    SOURCES mpi/oversub.c    NP 8)
ivc_mpi_test(ssend      SOURCES mpi/ssend.c      NP 2)
ivc_mpi_test(requests   SOURCES mpi/requests.c   NP 2)
ivc_mpi_test(procnull   SOURCES mpi/procnull.c   NP 3)
ivc_mpi_test(sendrecv   SOURCES mpi/sendrecv.c   NP 4)
ivc_mpi_test(comms      SOURCES mpi/comms.c      NP 4)
ivc_mpi_test(errors     SOURCES mpi/errors.c     NP 2)
ivc_mpi_test(misc       SOURCES mpi/misc.c       NP 2)
ivc_mpi_test(pmpi       SOURCES mpi/pmpi.c       NP 2)
