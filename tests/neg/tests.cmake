# Negative tests: what a faulty or foreign region, or a faulty peer, must not get past.
ivc_unit_test(neg_region_attach neg/region_attach.c)
ivc_unit_test(neg_corrupt neg/corrupt.c)
# Links the core for the region layout (the faulty rank writes the region directly).
ivc_mpi_test(neg_mpi_corrupt SOURCES neg/mpi_corrupt.c NP 3 CONFIGS vms plain)
target_link_libraries(neg_mpi_corrupt PRIVATE ivc_core)
