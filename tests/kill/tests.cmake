# Kill tests without a launcher (issue 15): ranks started by hand on one zero-filled region
# file, one of them killed with SIGKILL (or stopped with SIGSTOP) while the others block on
# it; every survivor must report within 10 s and do what its error handler says. kill.sh
# runs a group of cases (see its header); the groups split the matrix so that each ctest
# entry stays within a few minutes on 2 cores.
add_executable(kill_rank ${CMAKE_CURRENT_LIST_DIR}/kill_rank.c)
target_link_libraries(kill_rank PRIVATE mpi pthread)
set_target_properties(kill_rank PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
foreach(group p2p rndv coll stop)
  add_test(NAME kill.${group} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/kill.sh ${group})
  set_tests_properties(kill.${group} PROPERTIES TIMEOUT 420 SKIP_RETURN_CODE 77 LABELS kill
    ENVIRONMENT "KILL_RANK=$<TARGET_FILE:kill_rank>")
endforeach()
