# Communicators room: intercommunicators, nonblocking dup and info, attribute caching on
# every object kind, virtual topologies (see README.md in this folder).
ivc_mpi_test(comm_intercomm SOURCES mpi/comm/intercomm.c NP 4 CONFIGS vms plain hosts)
ivc_mpi_test(comm_intercomm_np5 SOURCES mpi/comm/intercomm.c NP 5 CONFIGS vms)
ivc_mpi_test(comm_idup SOURCES mpi/comm/idup.c NP 4 CONFIGS vms plain hosts)
ivc_mpi_test(comm_attrs SOURCES mpi/comm/attrs.c NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(comm_topo SOURCES mpi/comm/topo.c NP 4 CONFIGS vms plain hosts)
ivc_mpi_test(comm_split_type SOURCES mpi/comm/split_type.c NP 4 CONFIGS vms plain hosts)
ivc_mpi_test(comm_ids SOURCES mpi/comm/ids.c NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(comm_create_group SOURCES mpi/comm/create_group.c NP 4 CONFIGS vms plain hosts)
