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
ivc_mpi_test(io_atomic     SOURCES mpi/io/atomic.c NP 4 TIMEOUT 120 CONFIGS vms vm2 plain hosts)
ivc_mpi_test(io_atomic_np2 SOURCES mpi/io/atomic.c NP 2 TIMEOUT 120 CONFIGS vms)
# Each simulated VM has a /tmp of its own: an open there must fail with MPI_ERR_NOT_SAME.
ivc_mpi_test(io_errors        SOURCES mpi/io/errors.c NP 2 CONFIGS vms ARGS private)
ivc_mpi_test(io_errors_np4    SOURCES mpi/io/errors.c NP 4 CONFIGS vm2 hosts ARGS private)
ivc_mpi_test(io_errors_shared SOURCES mpi/io/errors.c NP 2 CONFIGS plain ARGS shared)
ivc_mpi_test(io_errors_np1    SOURCES mpi/io/errors.c NP 1 CONFIGS vms plain)
# ivcrun --share / IVC_SHARE make a /tmp directory one for every simulated VM.
add_test(NAME mpi.io_share COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mpi/io/share.sh
         $<TARGET_FILE:ivcrun> $<TARGET_FILE:io_basic>)
set_tests_properties(mpi.io_share PROPERTIES TIMEOUT 120 LABELS "mpi;vms")
ivc_mpi_test(io_ext32     SOURCES mpi/io/ext32.c NP 2 CONFIGS vms plain)
ivc_mpi_test(io_ext32_np4 SOURCES mpi/io/ext32.c NP 4 CONFIGS vm2)
