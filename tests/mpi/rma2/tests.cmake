# One-sided fixes (src/mpi/rma): see README.md in this folder.
ivc_mpi_test(rma2_ops      SOURCES mpi/rma2/ops.c      NP 3 TIMEOUT 300 CONFIGS vms plain hosts)
ivc_mpi_test(rma2_fop_char SOURCES mpi/rma2/fop_char.c NP 3 TIMEOUT 300 CONFIGS vms plain hosts)
ivc_mpi_test(rma2_pairs    SOURCES mpi/rma2/pairs.c    NP 3 CONFIGS vms plain hosts)
ivc_mpi_test(rma2_zero     SOURCES mpi/rma2/zero.c     NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(rma2_dynspan  SOURCES mpi/rma2/dynspan.c  NP 3 CONFIGS vms plain hosts)
ivc_mpi_test(rma2_info     SOURCES mpi/rma2/info.c     NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(rma2_squery   SOURCES mpi/rma2/squery.c   NP 3 CONFIGS vms plain hosts)
ivc_mpi_test(rma2_progress SOURCES mpi/rma2/progress.c NP 3 CONFIGS vms plain hosts)
