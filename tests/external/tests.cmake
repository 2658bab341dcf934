# Software written elsewhere, built against IVC and judged by its own checks: mpi4py's
# test suite at 1, 2 and 3 ranks, the HPC Challenge at 4 ranks, parallel HDF5's testpar programs
# at 4 ranks in 4 simulated VMs, and MPICH's own test suite
# (test/mpi, up to 8 ranks, against tests/external/mpich-xfail.txt) (label external; CI
# sets IVCTEST_REQUIRE_EXTERNAL=1 so that they cannot skip for want of the network).
foreach(t mpi4py hpcc mpich hdf5)
  add_test(NAME external.${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${t}.sh)
  set_tests_properties(external.${t} PROPERTIES TIMEOUT 3600 LABELS external
    SKIP_RETURN_CODE 77 ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR};SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endforeach()
