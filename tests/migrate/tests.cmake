# VM migration (issue 12): simulated VMs moved between simulated hosts while a job runs
# (ivcrun --hosts --migrate); every message must arrive once, in order, intact.
add_executable(migrate_storm ${CMAKE_CURRENT_LIST_DIR}/storm.c)
target_link_libraries(migrate_storm PRIVATE mpi)
set_target_properties(migrate_storm PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
# A VM that dies mid-switch (die.c).
add_executable(migrate_die ${CMAKE_CURRENT_LIST_DIR}/die.c)
target_link_libraries(migrate_die PRIVATE mpi)
set_target_properties(migrate_die PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
# A migration during MPI_Finalize (fin.c).
add_executable(migrate_fin ${CMAKE_CURRENT_LIST_DIR}/fin.c)
target_link_libraries(migrate_fin PRIVATE mpi)
set_target_properties(migrate_fin PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
foreach(case options storm rma big hostmove together die-drain die-moved die-hello finalize revisit)
  add_test(NAME migrate.${case} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/migrate.sh ${case})
  set_tests_properties(migrate.${case} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS migrate
    ENVIRONMENT "IVCRUN=$<TARGET_FILE:ivcrun>;HOST_TOOL=$<TARGET_FILE:ivc-host>;STORM=$<TARGET_FILE:migrate_storm>;DIE=$<TARGET_FILE:migrate_die>;FIN=$<TARGET_FILE:migrate_fin>;LAUNCHER_SCRATCH=${CMAKE_CURRENT_BINARY_DIR}")
endforeach()
