# Jobs under Slurm (issue 16): tests/slurm/slurm.sh starts a throw-away cluster of this
# machine (munged, slurmctld, one or two slurmd as simulated nodes) and runs slurm_job
# with srun --mpi=pmi2 (label slurm). Skipped without Slurm and munge, a failure then when
# IVCTEST_REQUIRE_SLURM=1. The cluster's ports are picked at random; RESOURCE_LOCK keeps
# two of these clusters from starting at once on 2 cores.
add_executable(slurm_job ${CMAKE_CURRENT_LIST_DIR}/slurm_job.c)
target_link_libraries(slurm_job PRIVATE mpi)
set_target_properties(slurm_job PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
function(ivc_slurm_test name)
  add_test(NAME slurm.${name} COMMAND ${CMAKE_CURRENT_LIST_DIR}/slurm.sh ${ARGN})
  set_tests_properties(slurm.${name} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS slurm
                       RESOURCE_LOCK slurm)
endfunction()
# (a) 4 ranks on one node: one region, created by the ranks.
ivc_slurm_test(ring 4 $<TARGET_FILE:slurm_job> ring 4 1)
# The same with MpiDefault=pmi2 in slurm.conf and a plain srun -n 4.
ivc_slurm_test(mpidefault --mpi-default 4 $<TARGET_FILE:slurm_job> ring 4 1)
# (b) 4 ranks over two simulated nodes, a region each: the network channel between them.
ivc_slurm_test(nodes2 --nodes 2 4 $<TARGET_FILE:slurm_job> ring 4 2)
# (c) rank 1 dies (SIGKILL) or exits 3 without finalizing: srun fails, nothing hangs,
# the survivors name rank 1.
ivc_slurm_test(kill --fail 4 $<TARGET_FILE:slurm_job> kill 4)
ivc_slurm_test(exit --fail 4 $<TARGET_FILE:slurm_job> exit 4)
# The same across the simulated host boundary: the survivors on the other node learn it
# from the network channel, and none of them waits in the finalize barrier for rank 1
# (srun leaves the other tasks running after one failed).
ivc_slurm_test(nodes2.kill --fail --nodes 2 4 $<TARGET_FILE:slurm_job> kill 4)
ivc_slurm_test(nodes2.exit --fail --nodes 2 4 $<TARGET_FILE:slurm_job> exit 4)
