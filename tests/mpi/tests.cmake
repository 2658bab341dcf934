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
# Up to 64 KiB with streaming stores forced (IVC_STREAM_MIN=0, the choice of small
# machines), without check words (their copy does not stream): eager records from 8 KiB
# and every rendezvous chunk are written with them.
ivc_mpi_test(sizes_stream SOURCES mpi/sizes.c    NP 2 CONFIGS vms ARGS 65537
             ENV IVC_CHECKSUM=0 IVC_STREAM_MIN=0)
# Without check words (IVC_CHECKSUM's default outside this suite), eager messages up to
# 232 B travel as short records packed into lines and full records follow a pad
# (shm_ring.h); in the small configuration the ring wraps every few messages.
ivc_mpi_test(order_nocsum     SOURCES mpi/order.c     NP 4 CONFIGS vms small ENV IVC_CHECKSUM=0)
ivc_mpi_test(storm_nocsum     SOURCES mpi/storm.c     NP 4 CONFIGS vms small ENV IVC_CHECKSUM=0)
ivc_mpi_test(datatypes_nocsum SOURCES mpi/datatypes.c NP 2 CONFIGS vms small ENV IVC_CHECKSUM=0)
ivc_mpi_test(ssend_nocsum     SOURCES mpi/ssend.c     NP 2 CONFIGS vms small ENV IVC_CHECKSUM=0)
ivc_mpi_test(probe_nocsum     SOURCES mpi/probe.c     NP 3 CONFIGS vms small ENV IVC_CHECKSUM=0)
ivc_mpi_test(sizes_nocsum     SOURCES mpi/sizes.c     NP 2 CONFIGS vms small ARGS 65537
             ENV IVC_CHECKSUM=0)
ivc_mpi_test(storm      SOURCES mpi/storm.c      NP 4)
ivc_mpi_test(storm_np8  SOURCES mpi/storm.c      NP 8)
ivc_mpi_test(oversub    SOURCES mpi/oversub.c    NP 8)
ivc_mpi_test(ssend      SOURCES mpi/ssend.c      NP 2)
ivc_mpi_test(requests   SOURCES mpi/requests.c   NP 2)
ivc_mpi_test(procnull   SOURCES mpi/procnull.c   NP 3)
ivc_mpi_test(status_error SOURCES mpi/status_error.c NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(abi_native SOURCES mpi/abi_native.c NP 2 CONFIGS vms plain)
ivc_mpi_test(sendrecv   SOURCES mpi/sendrecv.c   NP 4)
ivc_mpi_test(comms      SOURCES mpi/comms.c      NP 4)
ivc_mpi_test(errors     SOURCES mpi/errors.c     NP 2)
ivc_mpi_test(misc       SOURCES mpi/misc.c       NP 2)
ivc_mpi_test(pmpi       SOURCES mpi/pmpi.c       NP 2)
# MPI_THREAD_MULTIPLE: 4 threads per rank in MPI at once; 3 ranks (an odd ring), and 4
# ranks on 2 cores sleeping on doorbells while other threads of theirs call MPI.
ivc_mpi_test(threads    SOURCES mpi/threads.c    NP 3 TIMEOUT 180 CONFIGS vms plain small hosts)
target_link_libraries(threads PRIVATE Threads::Threads)
ivc_mpi_test(threads_block SOURCES mpi/threads.c NP 4 TIMEOUT 180 CONFIGS vms ARGS 60
             ENV IVC_WAIT=block)
# Communicators made by 4 threads per rank at once, every constructor side by side.
ivc_mpi_test(comm_threads SOURCES mpi/comm_threads.c NP 4 TIMEOUT 120 CONFIGS vms plain)
target_link_libraries(comm_threads PRIVATE Threads::Threads)
# The locked entry points (src/binding/gen_mt.py's outputs) match the library's functions.
find_program(IVC_PYTHON3 python3 REQUIRED)
add_test(NAME mpi.threads.wrappers
         COMMAND ${IVC_PYTHON3} ${PROJECT_SOURCE_DIR}/src/binding/gen_mt.py --check)
set_tests_properties(mpi.threads.wrappers PROPERTIES LABELS "mpi")

# Collectives: odd rank counts in every configuration, and 8 ranks (more ranks than cores:
# waiting ranks must yield) in the two VM layouts; "hosts" (two simulated hosts: shared
# memory inside each, the hierarchical and point-to-point algorithms across) for all.
ivc_mpi_test(coll_move      SOURCES mpi/coll_move.c   NP 3 TIMEOUT 180
             CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(coll_move_np8  SOURCES mpi/coll_move.c   NP 8 TIMEOUT 240 CONFIGS vms vm2 hosts)

# One-sided and API surface (hosts: also on two simulated hosts, see tests/CMakeLists.txt)
ivc_mpi_test(rma_fence    SOURCES mpi/rma_fence.c    NP 4 CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(coll_reduce     SOURCES mpi/coll_reduce.c NP 5 TIMEOUT 180
             CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(coll_reduce_np8 SOURCES mpi/coll_reduce.c NP 8 TIMEOUT 240 CONFIGS vms vm2 hosts)
ivc_mpi_test(rma_lock     SOURCES mpi/rma_lock.c     NP 4)
ivc_mpi_test(rma_pscw     SOURCES mpi/rma_pscw.c     NP 4 CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(rma_shared   SOURCES mpi/rma_shared.c   NP 4 CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(rma_dynamic  SOURCES mpi/rma_dynamic.c  NP 3 CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(coll_comm       SOURCES mpi/coll_comm.c   NP 5 TIMEOUT 180
             CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(coll_comm_np8   SOURCES mpi/coll_comm.c   NP 8 TIMEOUT 240 CONFIGS vms vm2 hosts)
# Banks of the collective areas: publishers run ahead of late readers (coll_banks.c).
ivc_mpi_test(coll_banks      SOURCES mpi/coll_banks.c  NP 3 TIMEOUT 180
             CONFIGS vms vm2 plain ENV IVC_COLL_ROOTED_P2P=off)
ivc_mpi_test(coll_banks_np5  SOURCES mpi/coll_banks.c  NP 5 TIMEOUT 240 CONFIGS vms
             ENV IVC_COLL_ROOTED_P2P=off)
ivc_mpi_test(coll_banks_pieces SOURCES mpi/coll_banks.c NP 3 TIMEOUT 180 CONFIGS vms
             ENV IVC_COLL_ROOTED_P2P=off IVC_COLL_AREA=4K IVC_COLL_CHUNK=1K)
# Acknowledgements of a Bcast whose counts do not match (coll_acklen.c).
ivc_mpi_test(coll_acklen     SOURCES mpi/coll_acklen.c NP 3 TIMEOUT 120
             CONFIGS vms plain ENV IVC_COLL_ROOTED_P2P=off)
ivc_mpi_test(coll_nbc        SOURCES mpi/coll_nbc.c    NP 3 TIMEOUT 180
             CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(coll_nbc_np8    SOURCES mpi/coll_nbc.c    NP 8 TIMEOUT 240 CONFIGS vms vm2 hosts)
ivc_mpi_test(group        SOURCES mpi/group.c        NP 5 CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(topo         SOURCES mpi/topo.c         NP 5 CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(info_attr    SOURCES mpi/info_attr.c    NP 2 CONFIGS vms vm2 plain small hosts)
ivc_mpi_test(mprobe       SOURCES mpi/mprobe.c       NP 3 CONFIGS vms vm2 plain small hosts)
# Two simulated hosts: targets on the other host are reached by active messages over the
# network channel (fewer iterations: every one is a network round trip).
ivc_mpi_test(rma_lock_hosts SOURCES mpi/rma_lock.c   NP 4 CONFIGS hosts ARGS 60)
# 8 ranks on the CI machine's 2 cores: contention on lock words and accumulate locks.
ivc_mpi_test(rma_lock_np8   SOURCES mpi/rma_lock.c   NP 8 ARGS 60)
ivc_mpi_test(rma_fence_np8  SOURCES mpi/rma_fence.c  NP 8)
ivc_mpi_test(rma_shared_np8 SOURCES mpi/rma_shared.c NP 8)
# No arena (IVC_RMA_ARENA=0): every window is private memory, every peer is reached through
# active messages.
ivc_mpi_test(rma_lock_am    SOURCES mpi/rma_lock.c   NP 4 CONFIGS vm2 ENV IVC_RMA_ARENA=0)
ivc_mpi_test(rma_fence_am   SOURCES mpi/rma_fence.c  NP 4 CONFIGS vm2 ENV IVC_RMA_ARENA=0)
# A faulty rank forges hostile active messages straight into the region (links the core).
# Forged records carry no check word: checksums off here.
ivc_mpi_test(rma_forge      SOURCES mpi/rma_forge.c  NP 3 CONFIGS vms plain ENV IVC_CHECKSUM=0)
target_link_libraries(rma_forge PRIVATE ivc_core)
target_include_directories(rma_forge PRIVATE ${PROJECT_SOURCE_DIR}/src/mpi)
# Lock words naming a live rank that holds nothing: on one host the named rank clears its
# name, across hosts the owner does (issue 15).
ivc_mpi_test(rma_lock_names SOURCES mpi/rma_lock_names.c NP 3 CONFIGS vms hosts TIMEOUT 60)
target_link_libraries(rma_lock_names PRIVATE ivc_core)
target_include_directories(rma_lock_names PRIVATE ${PROJECT_SOURCE_DIR}/src/mpi
                           ${PROJECT_SOURCE_DIR}/src)
# The point-to-point algorithms (communicators that span hosts use them) and operations
# in pieces (a 4 KiB area: every size above runs in many pieces).
ivc_mpi_test(coll_move_p2p      SOURCES mpi/coll_move.c   NP 5 CONFIGS vms ENV IVC_COLL_SHM=no)
ivc_mpi_test(coll_reduce_p2p    SOURCES mpi/coll_reduce.c NP 5 CONFIGS vms ENV IVC_COLL_SHM=no)
ivc_mpi_test(coll_move_pieces   SOURCES mpi/coll_move.c   NP 3 CONFIGS vms
             ENV IVC_COLL_AREA=4K IVC_COLL_CHUNK=1K)
ivc_mpi_test(coll_reduce_pieces SOURCES mpi/coll_reduce.c NP 3 CONFIGS vms
             ENV IVC_COLL_AREA=4K IVC_COLL_CHUNK=1K)
# More ranks than this machine's cores send small rooted operations point-to-point
# (IVC_COLL_ROOTED_P2P=auto); these keep them in shared memory.
ivc_mpi_test(coll_move_shmroot   SOURCES mpi/coll_move.c   NP 5 CONFIGS vms vm2
             ENV IVC_COLL_ROOTED_P2P=off)
ivc_mpi_test(coll_reduce_shmroot SOURCES mpi/coll_reduce.c NP 5 CONFIGS vms vm2
             ENV IVC_COLL_ROOTED_P2P=off)

# Tests of each room of the MPI layer (src/mpi/<room>) live beside each other in
# tests/mpi/<room>/, each folder with a tests.cmake of its own.
file(GLOB ivc_mpi_room_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mpi/*/tests.cmake)
foreach(f IN LISTS ivc_mpi_room_tests)
  include(${f})
endforeach()

# The eager rings' pages are mapped at MPI_Init: no page faults in the first messages.
ivc_mpi_test(ring_prefault SOURCES mpi/ring_prefault.c NP 4 CONFIGS vms vm2 plain small hosts)

# Polling loops of the program (MPI_Test, MPI_Iprobe, MPI_Testany) yield the core once they
# have found nothing for a while, except with IVC_WAIT=spin (poll_yield.c, poll_yield.sh).
add_executable(poll_yield ${CMAKE_CURRENT_LIST_DIR}/poll_yield.c)
target_link_libraries(poll_yield PRIVATE mpi)
set_target_properties(poll_yield PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
add_test(NAME mpi.poll_yield COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/poll_yield.sh)
set_tests_properties(mpi.poll_yield PROPERTIES TIMEOUT 300 LABELS mpi
                     ENVIRONMENT "IVCRUN=$<TARGET_FILE:ivcrun>;POLL_YIELD=$<TARGET_FILE:poll_yield>")
