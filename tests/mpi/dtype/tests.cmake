# Datatype room tests (src/mpi/dtype): see README.md in this folder.
ivc_mpi_test(dtype_array      SOURCES mpi/dtype/array.c      NP 3 CONFIGS vms plain hosts)
ivc_mpi_test(dtype_envelope   SOURCES mpi/dtype/envelope.c   NP 2 CONFIGS vms plain)
ivc_mpi_test(dtype_elements   SOURCES mpi/dtype/elements.c   NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(dtype_external32 SOURCES mpi/dtype/external32.c NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(dtype_predefined SOURCES mpi/dtype/predefined.c NP 4 CONFIGS vms plain hosts)
ivc_mpi_test(dtype_lbub       SOURCES mpi/dtype/lbub.c       NP 2 CONFIGS vms plain)
ivc_mpi_test(dtype_large      SOURCES mpi/dtype/large.c      NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(dtype_optional   SOURCES mpi/dtype/optional.c   NP 4 CONFIGS vms plain hosts)
