# Jobs launched by an external process manager over the PMI-1 wire protocol: a subset of
# the MPI suite under MPICH's mpiexec.hydra (label pmi; see hydra.sh), on one host and on
# two simulated hosts (two regions: shm within, the UCX network channel between).
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
# Two simulated hosts: mixed channels, ANY_SOURCE fed by both, a checksum storm over all
# pairs, synchronous sends and every size across the network channel.
ivc_hydra_test(net.order --regions 2 4 $<TARGET_FILE:order>)
ivc_hydra_test(net.anysrc --regions 2 4 $<TARGET_FILE:anysrc>)
ivc_hydra_test(net.storm --regions 2 4 $<TARGET_FILE:storm>)
ivc_hydra_test(net.storm_np8 --regions 3 8 $<TARGET_FILE:storm>)
ivc_hydra_test(net.probe --regions 2 3 $<TARGET_FILE:probe>)
ivc_hydra_test(net.sizes --regions 2 2 $<TARGET_FILE:sizes>)
ivc_hydra_test(net.ssend --regions 2 2 $<TARGET_FILE:ssend>)
ivc_hydra_test(net.truncate --regions 2 2 $<TARGET_FILE:truncate>)
ivc_hydra_test(net.datatypes --regions 2 2 $<TARGET_FILE:datatypes>)
ivc_hydra_test(net.sendrecv --regions 2 4 $<TARGET_FILE:sendrecv>)
ivc_hydra_test(net.comms --regions 2 4 $<TARGET_FILE:comms>)
ivc_hydra_test(net.vm_job --regions 2 5 $<TARGET_FILE:vm_job>)
ivc_hydra_test(net.crash --abort --regions 2 2 $<TARGET_FILE:launcher_mpi_failure> crash)
