# Binaries built for MPICH's ABI (Debian's mpicc.mpich) run under ivcrun on IVC's
# MPICH-ABI library (src/abi), data checked by each program; and the PyPI mpi4py wheel
# (MPICH flavour) on the same library. Label abi. CI sets IVCTEST_REQUIRE_ABI=1 so that
# they cannot skip for want of libmpich-dev or PyPI. See tests/abi/README.md.
foreach(t p2p:2 datatypes:2 callbacks:2 coll:4 rma:2 fortran_f08:2 fortran_mpif:2 fortran_usempi:2 threads:2 dyn:2 io:3)
  string(REPLACE ":" ";" tn ${t})
  list(GET tn 0 name)
  list(GET tn 1 np)
  add_test(NAME abi.${name} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh ${name} ${np})
  set_tests_properties(abi.${name} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS abi
    ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR};SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endforeach()
# The same programs (and std_abi.c, fortran_std.f90: what only the standard ABI has) built
# with IVC's `mpicc -mpi-abi`/`mpifort -mpi-abi` for the MPI-5 standard ABI
# (lib/abi/std/libmpi_abi.so.0, libmpifort_abi.so.0): nothing to install, so these never
# skip (the Fortran ones only where IVC was built without gfortran, never in CI).
foreach(t p2p:2 datatypes:2 callbacks:2 coll:4 rma:2 threads:2 dyn:2 io:3 std_abi:2 std_abi:3
          fortran_f08:2 fortran_mpif:2 fortran_usempi:2 fortran_std:2 fortran_std:3)
  string(REPLACE ":" ";" tn ${t})
  list(GET tn 0 name)
  list(GET tn 1 np)
  set(tname abi.std.${name})
  if(name STREQUAL "std_abi" OR name STREQUAL "fortran_std")
    set(tname abi.std.${name}_np${np})
  endif()
  add_test(NAME ${tname} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh ${name} ${np} std)
  set_tests_properties(${tname} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS abi
    ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR};SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endforeach()
add_test(NAME abi.launcher COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/launcher.sh)
add_test(NAME abi.exports COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/exports.sh)
add_test(NAME abi.std.exports COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/exports_std.sh)
set_tests_properties(abi.std.exports PROPERTIES TIMEOUT 120 LABELS abi
  ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR};SOURCE_DIR=${PROJECT_SOURCE_DIR}")
add_test(NAME abi.netpipe COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/netpipe.sh)
add_test(NAME abi.mpi4py_wheel COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/mpi4py_wheel.sh)
add_test(NAME abi.mpi4py_suite COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/mpi4py_suite.sh)
add_test(NAME abi.mpi4py_std COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/mpi4py_std.sh)
set_tests_properties(abi.launcher abi.exports abi.netpipe abi.mpi4py_wheel abi.mpi4py_suite abi.mpi4py_std PROPERTIES TIMEOUT 1800 SKIP_RETURN_CODE 77
  LABELS abi ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR};SOURCE_DIR=${PROJECT_SOURCE_DIR}")
# The wheel runs Python, which is not built with the sanitizers: like the other outside
# suites (label external), only in the plain pass.
set_tests_properties(abi.mpi4py_wheel abi.mpi4py_suite abi.mpi4py_std PROPERTIES LABELS "abi;external")
