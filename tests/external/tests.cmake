# Software written elsewhere, built against IVC and judged by its own checks: mpi4py's
# test suite at 1, 2 and 3 ranks, and the HPC Challenge at 4 ranks (label external; CI
# sets IVCTEST_REQUIRE_EXTERNAL=1 so that they cannot skip for want of the network).
foreach(t mpi4py hpcc)
  add_test(NAME external.${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${t}.sh)
  set_tests_properties(external.${t} PROPERTIES TIMEOUT 3600 LABELS external
    SKIP_RETURN_CODE 77 ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR};SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endforeach()
