# Launcher tests: bash scripts that run ivcrun and check what it does, plus a helper that
# stands in for an MPI rank's membership slot. Included from tests/CMakeLists.txt.
add_executable(launcher_member ${CMAKE_CURRENT_LIST_DIR}/member.c)
target_link_libraries(launcher_member PRIVATE ivc_core)
set_target_properties(launcher_member PROPERTIES
                      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)

# ivc_launcher_test(<name> <timeout>): runs tests/launcher/<name>.sh with the tools' paths
# and a scratch directory outside /tmp (a simulated VM's /tmp is private).
# A real MPI program whose rank 1 leaves early, crashes or aborts.
add_executable(launcher_mpi_failure ${CMAKE_CURRENT_LIST_DIR}/mpi_failure.c)
target_link_libraries(launcher_mpi_failure PRIVATE mpi)
set_target_properties(launcher_mpi_failure PROPERTIES
                      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)

# An MPI rank that prints what the launcher gave it (Hydra/Open MPI compatibility tests).
add_executable(launcher_compat_rank ${CMAKE_CURRENT_LIST_DIR}/compat_rank.c)
target_link_libraries(launcher_compat_rank PRIVATE mpi)
set_target_properties(launcher_compat_rank PROPERTIES
                      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)

function(ivc_launcher_test name timeout)
  add_test(NAME launcher.${name}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${name}.sh)
  set_tests_properties(launcher.${name} PROPERTIES
    TIMEOUT ${timeout} SKIP_RETURN_CODE 77 LABELS launcher
    ENVIRONMENT "IVCRUN=$<TARGET_FILE:ivcrun>;MEMBER=$<TARGET_FILE:launcher_member>;MPI_FAILURE=$<TARGET_FILE:launcher_mpi_failure>;COMPAT_RANK=$<TARGET_FILE:launcher_compat_rank>;LAUNCHER_BUILD_DIR=${PROJECT_BINARY_DIR};CMAKE=${CMAKE_COMMAND};LAUNCHER_SCRATCH=${CMAKE_CURRENT_BINARY_DIR}")
endfunction()

ivc_launcher_test(usage 30)
ivc_launcher_test(isolation 30)
ivc_launcher_test(tag_output 30)
ivc_launcher_test(failures 30)
ivc_launcher_test(membership 30)
ivc_launcher_test(region 30)
ivc_launcher_test(signals 30)
ivc_launcher_test(timeout 30)
ivc_launcher_test(tmp_exec 30)
ivc_launcher_test(plain 30)
# Each rank in a session (and scheduler autogroup) of its own, as Hydra starts them.
ivc_launcher_test(session 30)
ivc_launcher_test(unprivileged 30)
ivc_launcher_test(mpi_failure 60)
ivc_launcher_test(join 60)
ivc_launcher_test(hosts 90)
# Hydra and Open MPI spellings (compat.c): job scripts of each run unchanged.
ivc_launcher_test(compat_opts 60)
ivc_launcher_test(compat_hydra 90)
ivc_launcher_test(compat_ompi 90)
ivc_launcher_test(verbose 60)
ivc_launcher_test(tmp_install 180)
