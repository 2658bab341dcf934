# Unit tests of the core layers.
ivc_unit_test(unit_ring unit/ring.c)
ivc_unit_test(unit_data unit/data.c)
ivc_unit_test(unit_alloc unit/alloc.c)
target_link_libraries(unit_alloc PRIVATE pthread)
ivc_unit_test(unit_config unit/config.c)
# Matching through the MPI API in a singleton job (self messages are fully deterministic).
ivc_unit_test(unit_match unit/match.c)
target_link_libraries(unit_match PRIVATE mpi)
ivc_unit_test(unit_ivshmem unit/ivshmem.c)
# MPI_THREAD_MULTIPLE's lock: exclusion and hand-over from wait loops, 8 threads.
ivc_unit_test(unit_biglock unit/biglock.c)
target_link_libraries(unit_biglock PRIVATE pthread)
# Membership with write-exclusive sections: forged records in the file refused, true
# declarations confirmed from the declarer's section, in forced orders (6 ranks, 1 process).
ivc_unit_test(unit_members unit/members.c)
# The streaming-store threshold that IVC_STREAM_MIN=auto picks from the cache topology.
ivc_unit_test(unit_topo unit/topo.c)
