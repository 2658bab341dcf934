# Start-up stress (issue 15): a tiny job started about 100 times through ivcrun (simulated
# VMs and plain processes), mpiexec.hydra with 1, 2 and 3 regions and by hand on one
# zero-filled region, counting failures. `startup.sh --soak` runs 500 per path.
add_executable(startup_tiny ${CMAKE_CURRENT_LIST_DIR}/tiny.c)
target_link_libraries(startup_tiny PRIVATE mpi)
set_target_properties(startup_tiny PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
add_test(NAME startup.stress COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/startup.sh)
set_tests_properties(startup.stress PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS startup
  ENVIRONMENT "IVCRUN=$<TARGET_FILE:ivcrun>;TINY=$<TARGET_FILE:startup_tiny>")
