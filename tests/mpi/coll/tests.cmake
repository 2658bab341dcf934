# Tests of the collectives room (src/mpi/coll); see README.md in this folder.
ivc_mpi_test(coll_icoll SOURCES mpi/coll/icoll.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_validate SOURCES mpi/coll/validate.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_alias SOURCES mpi/coll/alias.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_neighbor SOURCES mpi/coll/neighbor.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_persistent SOURCES mpi/coll/persistent.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_inter SOURCES mpi/coll/inter.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_op_create_c SOURCES mpi/coll/op_create_c.c NP 3 CONFIGS vms plain hosts)
ivc_mpi_test(coll_neighbor_c SOURCES mpi/coll/neighbor_c.c NP 3 CONFIGS vms plain hosts)
# The vectorized loops of the predefined operations and the one-pass fold of two
# contributions, bit for bit: odd counts, misaligned starts, piece boundaries, heap and
# private buffers.
ivc_mpi_test(coll_reduce_kernels SOURCES mpi/coll/reduce_kernels.c NP 2 TIMEOUT 180 CONFIGS vms plain)
# The same without check words (the suite's default is IVC_CHECKSUM=1): readers then fold
# and copy straight from the peers' areas and heaps, with no private copies in between.
ivc_mpi_test(coll_reduce_kernels_nocsum SOURCES mpi/coll/reduce_kernels.c NP 2 TIMEOUT 180 CONFIGS vms ENV IVC_CHECKSUM=0)
# The cost model (issue 27): what each rank's shared-memory collectives copy, read and
# reduce at 16 ranks, against the lower bound of any algorithm (cost.sh); counts, not
# times, so the oversubscribed development machine serves.
add_executable(coll_cost mpi/coll/cost.c)
target_link_libraries(coll_cost PRIVATE mpi)
set_target_properties(coll_cost PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
add_test(NAME mpi.coll_cost
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/coll/cost.sh $<TARGET_FILE:ivcrun>
                 $<TARGET_FILE:coll_cost> 16)
set_tests_properties(mpi.coll_cost PROPERTIES TIMEOUT 600 LABELS "mpi;vms")
# Counts that differ between ranks: MPI_ERR_TRUNCATE where the mismatch shows, no hang; the
# blocking Bcast on the point-to-point tree whatever the machine's core count.
ivc_mpi_test(coll_length SOURCES mpi/coll/length.c NP 4 TIMEOUT 120 CONFIGS vms plain hosts ENV IVC_COLL_ROOTED_P2P=64K)
