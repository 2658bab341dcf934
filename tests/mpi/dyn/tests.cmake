# Dynamic processes (src/mpi/comm/mpi_dyn.c, tools/ivcrun/dyn_server.c): see the top of each
# program. Spawned ranks run in new simulated VMs (vms) or as plain processes (plain).
ivc_mpi_test(dyn_spawn1  SOURCES mpi/dyn/spawn.c NP 1 ARGS 1 CONFIGS vms plain)
ivc_mpi_test(dyn_spawn4  SOURCES mpi/dyn/spawn.c NP 2 ARGS 4 CONFIGS vms plain hosts)
ivc_mpi_test(dyn_spawn16 SOURCES mpi/dyn/spawn.c NP 1 ARGS 16 TIMEOUT 240 CONFIGS plain)
ivc_mpi_test(dyn_nest    SOURCES mpi/dyn/spawn.c NP 1 ARGS 2 nest CONFIGS vms plain)
ivc_mpi_test(dyn_multiple SOURCES mpi/dyn/multiple.c NP 2 CONFIGS vms plain)
ivc_mpi_test(dyn_ports    SOURCES mpi/dyn/ports.c NP 2 ARGS within CONFIGS vms plain hosts)
ivc_mpi_test(dyn_join     SOURCES mpi/dyn/join.c NP 1 CONFIGS vms plain)
# Two ivcrun jobs on one host: one accepts, the other connects (names and ports).
add_test(NAME mpi.dyn_xjob COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/xjob.sh
         $<TARGET_FILE:ivcrun> $<TARGET_FILE:dyn_ports>)
set_tests_properties(mpi.dyn_xjob PROPERTIES TIMEOUT 120 LABELS "mpi;vms")
# A spawned rank dies: the parent gets an error, no hang (judged by tests/mpi/ft/run.sh).
add_executable(dyn_die ${CMAKE_CURRENT_LIST_DIR}/die.c)
target_link_libraries(dyn_die PRIVATE mpi m)
target_include_directories(dyn_die PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
set_target_properties(dyn_die PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
foreach(cfg vms plain)
  if(cfg STREQUAL "vms")
    set(flags --vms 1)
  else()
    set(flags --no-ns)
  endif()
  add_test(NAME mpi.ft.dyn_die.${cfg}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../ft/run.sh 1 nz $<TARGET_FILE:ivcrun>
                   -n 1 ${flags} --timeout 90 $<TARGET_FILE:dyn_die>)
  set_tests_properties(mpi.ft.dyn_die.${cfg} PROPERTIES TIMEOUT 100 SKIP_RETURN_CODE 77
                       LABELS "mpi;ft;${cfg}")
endforeach()
# Without ivcrun: clear errors, no hang (a singleton; the program is run directly).
add_executable(dyn_nolauncher ${CMAKE_CURRENT_LIST_DIR}/nolauncher.c)
target_link_libraries(dyn_nolauncher PRIVATE mpi m)
target_include_directories(dyn_nolauncher PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
set_target_properties(dyn_nolauncher PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
add_test(NAME mpi.dyn_nolauncher COMMAND dyn_nolauncher)
set_tests_properties(mpi.dyn_nolauncher PROPERTIES TIMEOUT 60 LABELS "mpi;plain")
ivc_mpi_test(dyn_loop SOURCES mpi/dyn/loop.c NP 1 ARGS 10 TIMEOUT 120 CONFIGS vms plain)
ivc_mpi_test(dyn_win  SOURCES mpi/dyn/win.c NP 2 CONFIGS vms plain)
# A spawn of a program that cannot be run: MPI_ERR_SPAWN at every parent, no hang.
add_test(NAME mpi.ft.dyn_badprog.plain
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../ft/run.sh 2 nz $<TARGET_FILE:ivcrun>
                 -n 2 --no-ns --timeout 90 $<TARGET_FILE:dyn_die> badprog)
set_tests_properties(mpi.ft.dyn_badprog.plain PROPERTIES TIMEOUT 100 LABELS "mpi;ft;plain")
# A program written into the spawning rank's private /tmp: MPI_ERR_SPAWN, and ivcrun says why.
add_test(NAME mpi.ft.dyn_tmpprog.vms
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../ft/run.sh 1 nz $<TARGET_FILE:ivcrun>
                 -n 1 --vms 1 --timeout 90 $<TARGET_FILE:dyn_die> tmpprog)
set_tests_properties(mpi.ft.dyn_tmpprog.vms PROPERTIES TIMEOUT 100 SKIP_RETURN_CODE 77
  LABELS "mpi;ft;vms" ENVIRONMENT "FT_EXPECT_TEXT=not visible outside the spawning rank's simulated VM")
