# One copy through the shared heap (src/shm/shm_heap.h, shm_chan.c "One copy",
# src/mpi/env/mpi_malloc.c). The MPI programs reuse tests/mpi's helpers (t_util.h).
function(ivc_onecopy_test name src np)
  cmake_parse_arguments(T "" "" "ARGS;ENV;CONFIGS" ${ARGN})
  ivc_mpi_test(${name} SOURCES ${src} NP ${np} CONFIGS ${T_CONFIGS} ARGS ${T_ARGS} ENV ${T_ENV})
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
endfunction()

# Every path with data checks, and the path each message took (IVC_REPORT_PATH).
ivc_onecopy_test(onecopy_paths onecopy/paths.c 2 CONFIGS vms vm2 plain)
# The same messages with one copy turned off: all through the pipeline.
ivc_onecopy_test(onecopy_paths_off onecopy/paths.c 2 CONFIGS vm2 ARGS off)
# The malloc family in and out of a small heap that fills up (opted in: the program's memory
# is private by default), fork, use after MPI_Finalize;
# with the heap off (the calls must work alike).
ivc_onecopy_test(onecopy_heap onecopy/heap.c 2 CONFIGS vm2 plain
                 ENV IVC_SHARED_HEAP=on IVC_SHARED_HEAP_SIZE=4M IVC_RMA_ARENA=1M)
ivc_onecopy_test(onecopy_heap_off onecopy/heap.c 2 CONFIGS vm2 ARGS expect-off
                 ENV IVC_SHARED_HEAP=off)
# Containment by default: with no setting at all, the program's malloc memory stays private.
ivc_onecopy_test(onecopy_heap_default onecopy/heap.c 2 CONFIGS vm2 plain ARGS expect-off)
# Offsets a peer publishes (request-to-send, clear-to-send, completions, its heap), forged.
ivc_unit_test(onecopy_forge onecopy/forge.c)
# Alltoall and Reduce_scatter with operands read where they lie in the shared heap, mixed
# with ranks whose operands do not; with one copy off (every operand through the areas).
ivc_onecopy_test(onecopy_coll onecopy/coll.c 3 CONFIGS vms vm2 plain)
ivc_onecopy_test(onecopy_coll_np2 onecopy/coll.c 2 CONFIGS vms)
ivc_onecopy_test(onecopy_coll_off onecopy/coll.c 3 CONFIGS vm2 ENV IVC_ONE_COPY=no)
# Without check words (the suite's default is IVC_CHECKSUM=1).
ivc_onecopy_test(onecopy_coll_nocsum onecopy/coll.c 2 CONFIGS vms ENV IVC_CHECKSUM=0)
