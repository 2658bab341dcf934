# Jobs launched by an external process manager over the PMI-1 wire protocol: a subset of
# the MPI suite under MPICH's mpiexec.hydra (label pmi; see hydra.sh).
function(ivc_hydra_test name np)
  add_test(NAME pmi.${name} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/pmi/hydra.sh ${np} ${ARGN})
  set_tests_properties(pmi.${name} PROPERTIES TIMEOUT 150 SKIP_RETURN_CODE 77 LABELS pmi)
endfunction()
ivc_hydra_test(storm 4 $<TARGET_FILE:storm>)
ivc_hydra_test(anysrc 4 $<TARGET_FILE:anysrc>)
ivc_hydra_test(sendrecv 3 $<TARGET_FILE:sendrecv>)
ivc_hydra_test(comms 4 $<TARGET_FILE:comms>)
ivc_hydra_test(vm_job 5 $<TARGET_FILE:vm_job>)
ivc_hydra_test(abort --abort 2 $<TARGET_FILE:launcher_mpi_failure> abort)
ivc_hydra_test(crash --abort 2 $<TARGET_FILE:launcher_mpi_failure> crash)
