# Tests of the collectives room (src/mpi/coll); see README.md in this folder.
ivc_mpi_test(coll_icoll SOURCES mpi/coll/icoll.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_validate SOURCES mpi/coll/validate.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
ivc_mpi_test(coll_neighbor SOURCES mpi/coll/neighbor.c NP 4 TIMEOUT 180 CONFIGS vms plain hosts)
