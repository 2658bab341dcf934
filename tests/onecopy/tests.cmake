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
