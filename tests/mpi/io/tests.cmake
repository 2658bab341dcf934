# I/O room tests (src/mpi/io): see README.md in this folder. Files are made in the test's
# working directory (the build tree), which every simulated VM sees.
ivc_mpi_test(io_basic     SOURCES mpi/io/basic.c NP 2 CONFIGS vms plain)
ivc_mpi_test(io_basic_np1 SOURCES mpi/io/basic.c NP 1 CONFIGS vms)
ivc_mpi_test(io_basic_np4 SOURCES mpi/io/basic.c NP 4 CONFIGS vms vm2 hosts)
ivc_mpi_test(io_views     SOURCES mpi/io/views.c NP 2 CONFIGS vms plain small)
ivc_mpi_test(io_views_np1 SOURCES mpi/io/views.c NP 1 CONFIGS vms)
ivc_mpi_test(io_views_np4 SOURCES mpi/io/views.c NP 4 CONFIGS vms vm2 hosts)
ivc_mpi_test(io_shared     SOURCES mpi/io/shared.c NP 2 CONFIGS vms plain)
ivc_mpi_test(io_shared_np1 SOURCES mpi/io/shared.c NP 1 CONFIGS vms)
ivc_mpi_test(io_shared_np4 SOURCES mpi/io/shared.c NP 4 CONFIGS vms vm2 hosts)
ivc_mpi_test(io_nonblock     SOURCES mpi/io/nonblock.c NP 2 TIMEOUT 60 CONFIGS vms plain small)
ivc_mpi_test(io_nonblock_np1 SOURCES mpi/io/nonblock.c NP 1 TIMEOUT 60 CONFIGS vms)
ivc_mpi_test(io_nonblock_np4 SOURCES mpi/io/nonblock.c NP 4 TIMEOUT 60 CONFIGS vms vm2 hosts)
