# Argument checks (issue 15 item 6): every call of an area with NULL buffers, statuses and
# output pointers under MPI_ERRORS_RETURN, checked against MPICH's error classes; no call may
# crash. See tests/mpi/args/README.md.
ivc_mpi_test(args_p2p SOURCES mpi/args/p2p.c NP 2 CONFIGS vms plain)
ivc_mpi_test(args_dtype SOURCES mpi/args/dtype.c NP 2 CONFIGS vms plain)
ivc_mpi_test(args_coll SOURCES mpi/args/coll.c NP 3 CONFIGS vms plain)
ivc_mpi_test(args_comm SOURCES mpi/args/comm.c NP 3 CONFIGS vms plain)
ivc_mpi_test(args_env SOURCES mpi/args/env.c NP 2 CONFIGS vms plain)
ivc_mpi_test(args_request SOURCES mpi/args/request.c NP 2 CONFIGS vms plain)
ivc_mpi_test(args_rma SOURCES mpi/args/rma.c NP 2 CONFIGS vms plain)
ivc_mpi_test(args_op SOURCES mpi/args/op.c NP 2 CONFIGS vms plain)
