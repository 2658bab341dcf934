# Hostile writers: what a co-tenant that scribbles on the region must not get past
# (issue 15, items 4 and 7). Unit tests drive two channels in one process; the MPI tests
# run a job and scribble on one area of its region while the ranks communicate.
ivc_unit_test(hostile_csum hostile/csum.c)

# A co-tenant writes random bytes over one area of a running 3-rank job's region (run.c);
# the ranks (work.c) check every byte they receive. Each test passes when the job ends
# within its bound with correct data or with a report naming a rank or the area, and
# fails on a hang or on wrong data delivered as success. Checksums are on.
add_executable(hostile_work hostile/work.c)
target_link_libraries(hostile_work PRIVATE mpi m)
add_executable(hostile_run hostile/run.c)
target_link_libraries(hostile_run PRIVATE ivc_core)
set_target_properties(hostile_work hostile_run PROPERTIES
                      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
foreach(area header members rings counters chunks coll rma)
  add_test(NAME hostile.${area}
           COMMAND hostile_run ${area} $<TARGET_FILE:ivcrun> $<TARGET_FILE:hostile_work> 3)
  set_tests_properties(hostile.${area} PROPERTIES TIMEOUT 150 LABELS hostile
                       ENVIRONMENT "IVC_CHECKSUM=1")
endforeach()
