# I/O room tests (src/mpi/io): see README.md in this folder. Files are made in the test's
# working directory (the build tree), which every simulated VM sees.
ivc_mpi_test(io_basic     SOURCES mpi/io/basic.c NP 2 CONFIGS vms plain)
ivc_mpi_test(io_basic_np1 SOURCES mpi/io/basic.c NP 1 CONFIGS vms)
ivc_mpi_test(io_basic_np4 SOURCES mpi/io/basic.c NP 4 CONFIGS vms vm2 hosts)
ivc_mpi_test(io_views     SOURCES mpi/io/views.c NP 2 CONFIGS vms plain small)
ivc_mpi_test(io_views_np1 SOURCES mpi/io/views.c NP 1 CONFIGS vms)
ivc_mpi_test(io_views_np4 SOURCES mpi/io/views.c NP 4 CONFIGS vms vm2 hosts)
ivc_mpi_test(io_shared     SOURCES mpi/io/shared.c NP 2 CONFIGS vms plain)
ivc_mpi_test(io_shared_np1 SOURCES mpi/io/shared.c NP 1 CONFIGS vms)
ivc_mpi_test(io_shared_np4 SOURCES mpi/io/shared.c NP 4 CONFIGS vms vm2 hosts)
ivc_mpi_test(io_nonblock     SOURCES mpi/io/nonblock.c NP 2 TIMEOUT 60 CONFIGS vms plain small)
ivc_mpi_test(io_nonblock_np1 SOURCES mpi/io/nonblock.c NP 1 TIMEOUT 60 CONFIGS vms)
ivc_mpi_test(io_nonblock_np4 SOURCES mpi/io/nonblock.c NP 4 TIMEOUT 60 CONFIGS vms vm2 hosts)
ivc_mpi_test(io_atomic     SOURCES mpi/io/atomic.c NP 4 TIMEOUT 120 CONFIGS vms vm2 plain hosts)
ivc_mpi_test(io_atomic_np2 SOURCES mpi/io/atomic.c NP 2 TIMEOUT 120 CONFIGS vms)
# Each simulated VM has a /tmp of its own: an open there must fail with MPI_ERR_NOT_SAME.
ivc_mpi_test(io_errors        SOURCES mpi/io/errors.c NP 2 CONFIGS vms ARGS private)
ivc_mpi_test(io_errors_np4    SOURCES mpi/io/errors.c NP 4 CONFIGS vm2 hosts ARGS private)
ivc_mpi_test(io_errors_shared SOURCES mpi/io/errors.c NP 2 CONFIGS plain ARGS shared)
ivc_mpi_test(io_errors_np1    SOURCES mpi/io/errors.c NP 1 CONFIGS vms plain)
# ivcrun --share / IVC_SHARE make a /tmp directory one for every simulated VM.
add_test(NAME mpi.io_share COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mpi/io/share.sh
         $<TARGET_FILE:ivcrun> $<TARGET_FILE:io_basic>)
set_tests_properties(mpi.io_share PROPERTIES TIMEOUT 120 LABELS "mpi;vms")
ivc_mpi_test(io_ext32     SOURCES mpi/io/ext32.c NP 2 CONFIGS vms plain)
ivc_mpi_test(io_ext32_np4 SOURCES mpi/io/ext32.c NP 4 CONFIGS vm2)
# A rank dies during a collective write: the survivors get an error, not a hang (ULFM;
# judged by tests/mpi/ft/run.sh: ivcrun's status 137 and two "ft-ok" lines).
add_executable(io_die ${CMAKE_CURRENT_LIST_DIR}/die.c)
target_link_libraries(io_die PRIVATE mpi m)
target_include_directories(io_die PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include)
set_target_properties(io_die PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
foreach(cfg vms vm2)
  if(cfg STREQUAL "vms")
    set(flags --vms 3)
  else()
    set(flags --vms 2)
  endif()
  add_test(NAME mpi.ft.io_die.${cfg}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../ft/run.sh 2 137 $<TARGET_FILE:ivcrun>
                   --disable-auto-cleanup -n 3 ${flags} --timeout 90 $<TARGET_FILE:io_die>)
  set_tests_properties(mpi.ft.io_die.${cfg} PROPERTIES TIMEOUT 100 SKIP_RETURN_CODE 77
                       LABELS "mpi;ft;${cfg}")
endforeach()
