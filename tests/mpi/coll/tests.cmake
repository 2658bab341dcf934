# Tests of the collectives room (src/mpi/coll); see README.md in this folder.
ivc_mpi_test(coll_icoll SOURCES mpi/coll/icoll.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_validate SOURCES mpi/coll/validate.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_neighbor SOURCES mpi/coll/neighbor.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_persistent SOURCES mpi/coll/persistent.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_inter SOURCES mpi/coll/inter.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_op_create_c SOURCES mpi/coll/op_create_c.c NP 3 CONFIGS vms plain hosts)
ivc_mpi_test(coll_neighbor_c SOURCES mpi/coll/neighbor_c.c NP 3 CONFIGS vms plain hosts)
