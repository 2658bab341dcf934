# Negative tests: what a faulty or foreign region, or a faulty peer, must not get past.
ivc_unit_test(neg_region_attach neg/region_attach.c)
ivc_unit_test(neg_corrupt neg/corrupt.c)
# Links the core for the region layout (the faulty rank writes the region directly).
ivc_mpi_test(neg_mpi_corrupt SOURCES neg/mpi_corrupt.c NP 3 CONFIGS vms plain)
target_link_libraries(neg_mpi_corrupt PRIVATE ivc_core)
# MPI_Init on a foreign region: refused with a message naming what differs.
add_test(NAME neg.mpi_region COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/mpi_region.sh)
set_tests_properties(neg.mpi_region PROPERTIES TIMEOUT 120 LABELS neg
                     ENVIRONMENT "PROG=$<TARGET_FILE:launcher_mpi_failure>")
