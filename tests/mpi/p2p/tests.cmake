# Point-to-point room (src/mpi/p2p): persistent, buffered, generalized and partitioned
# requests, Isendrecv, status accessors, argument checks. See tests/mpi/p2p/README.md.
ivc_mpi_test(p2p_persistent  SOURCES mpi/p2p/persistent.c  NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(p2p_bsend       SOURCES mpi/p2p/bsend.c       NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(p2p_isendrecv   SOURCES mpi/p2p/isendrecv.c   NP 3 CONFIGS vms plain hosts)
ivc_mpi_test(p2p_partitioned SOURCES mpi/p2p/partitioned.c NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(p2p_part_match  SOURCES mpi/p2p/part_match.c  NP 2 CONFIGS vms plain)
ivc_mpi_test(p2p_args        SOURCES mpi/p2p/args.c        NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(p2p_typesig     SOURCES mpi/p2p/typesig.c     NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(p2p_status      SOURCES mpi/p2p/status.c      NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(p2p_cancel      SOURCES mpi/p2p/cancel.c      NP 2 CONFIGS vms plain hosts)
# Local to each rank (generalized requests, messages to self): no network involved.
ivc_mpi_test(p2p_greq        SOURCES mpi/p2p/greq.c        NP 1 CONFIGS vms plain)
ivc_mpi_test(p2p_getstatus   SOURCES mpi/p2p/getstatus.c   NP 1 CONFIGS vms plain)
