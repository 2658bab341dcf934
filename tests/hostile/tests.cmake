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
# Under ivcrun the rings, counters, chunks and collective areas lie in write-exclusive
# sections outside the region file (the co-tenant finds nothing of them: run.c says so).
# The same areas as they lie without sections (IVC_SECTIONS=no: regions made by other
# launchers or by hand, where they share the file with everything):
foreach(area rings counters chunks coll)
  add_test(NAME hostile.${area}_nosect
           COMMAND hostile_run ${area} $<TARGET_FILE:ivcrun> $<TARGET_FILE:hostile_work> 3)
  set_tests_properties(hostile.${area}_nosect PROPERTIES TIMEOUT 150 LABELS hostile
                       ENVIRONMENT "IVC_CHECKSUM=1;IVC_SECTIONS=no")
endforeach()

# Well-formed lies in the membership table and the abort word (run.c's "forge"): a rank
# declared failed by an honest peer or the launcher, ABORTED with an abort word, FINALIZED, a
# blocked failure claim. With sections none may count: every rank finishes. Five runs.
add_test(NAME hostile.forge
         COMMAND bash -c "for i in 1 2 3 4 5; do echo \"== run $i\"; \"$0\" forge \"$1\" \"$2\" 3 || exit 1; done"
                 $<TARGET_FILE:hostile_run> $<TARGET_FILE:ivcrun> $<TARGET_FILE:hostile_work>)
set_tests_properties(hostile.forge PROPERTIES TIMEOUT 300 LABELS hostile)

# A rank of the job scribbles over its own section (its rings, chunks, counters, private
# slots and collective area: all it can write by construction) while the job runs the p2p
# or coll workload; with check words on, the others must not hang, take nothing corrupted
# as success, and blame that rank alone. Ten runs of each (a scribble lands elsewhere each
# time).
foreach(kind p2p coll)
  add_test(NAME hostile.own_${kind}
           COMMAND bash -c "for i in 1 2 3 4 5 6 7 8 9 10; do echo \"== run $i\"; \"$0\" own-${kind} \"$1\" \"$2\" 3 || exit 1; done"
                   $<TARGET_FILE:hostile_run> $<TARGET_FILE:ivcrun> $<TARGET_FILE:hostile_work>)
  set_tests_properties(hostile.own_${kind} PROPERTIES TIMEOUT 600 LABELS hostile
                       ENVIRONMENT "IVC_CHECKSUM=1")
endforeach()
# Each collective alone (work.c's HOSTILE_COLL), ten runs each, so that every one of them
# meets the scribble first: a rank scribbling its own section, and a co-tenant scribbling
# the collective areas where they lie in the region file (IVC_SECTIONS=no).
set(IVC_HOSTILE_COLLS "bcast allreduce allgather alltoall scatter gather reduce_scatter reduce scan vector")
foreach(area own-coll coll)
  string(REPLACE "-" "_" name "${area}")
  set(env "IVC_CHECKSUM=1")
  if(area STREQUAL "coll")
    set(name coll_nosect)
    list(APPEND env IVC_SECTIONS=no)
  endif()
  add_test(NAME hostile.${name}_each
           COMMAND bash -c "for k in $3; do for i in 1 2 3 4 5 6 7 8 9 10; do echo \"== $k run $i\"; HOSTILE_COLL=$k \"$0\" $4 \"$1\" \"$2\" 3 || exit 1; done; done"
                   $<TARGET_FILE:hostile_run> $<TARGET_FILE:ivcrun> $<TARGET_FILE:hostile_work>
                   "${IVC_HOSTILE_COLLS}" ${area})
  set_tests_properties(hostile.${name}_each PROPERTIES TIMEOUT 900 LABELS hostile
                       ENVIRONMENT "${env}")
endforeach()
# The same with the default settings (no check words): no hang, and nobody but the writer's
# receiver takes wrong data (its scribbled messages are its data). Who is blamed is not
# judged there (run.c, README's threat model: without check words a forged record can get
# the peer that answered it blamed).
add_test(NAME hostile.own_p2p_nocsum
         COMMAND bash -c "for i in 1 2 3 4 5 6 7 8 9 10; do echo \"== run $i\"; \"$0\" own-p2p \"$1\" \"$2\" 3 || exit 1; done"
                 $<TARGET_FILE:hostile_run> $<TARGET_FILE:ivcrun> $<TARGET_FILE:hostile_work>)
set_tests_properties(hostile.own_p2p_nocsum PROPERTIES TIMEOUT 600 LABELS hostile)

# Write-exclusive sections (src/region/region_sect.h), seen from inside the job: each rank's
# own section read-write, its peers' read-only, every way to write a peer's refused, the
# collectives over them checked.
ivc_mpi_test(hostile_sections SOURCES hostile/sections.c NP 4 CONFIGS vms vm2 plain)
target_include_directories(hostile_sections PRIVATE ${PROJECT_SOURCE_DIR}/include)
# A rank of the job stores into a peer's collective area: it faults (SIGSEGV: killed by
# signal 11; under AddressSanitizer, which catches the signal, it exits with status 1), the
# peer's area is unchanged, and the survivors find that rank, and only it, failed, shrink
# and go on (tests/mpi/ft/run.sh counts their ft-ok lines).
set(IVC_SCRIBBLER_ENDED "rank 1 [(][^)]*[)] (killed by signal 11|exited with status 1)")
foreach(cfg vms plain)
  if(cfg STREQUAL "vms")
    set(flags --vms 4)
  else()
    set(flags --no-ns)
  endif()
  add_test(NAME hostile.sections_scribble.${cfg}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/mpi/ft/run.sh 3 nz
                   $<TARGET_FILE:ivcrun> --disable-auto-cleanup -n 4 ${flags} --timeout 90
                   $<TARGET_FILE:hostile_sections> scribble)
  set_tests_properties(hostile.sections_scribble.${cfg} PROPERTIES TIMEOUT 120
                       LABELS "hostile;${cfg}" SKIP_RETURN_CODE 77
                       ENVIRONMENT "FT_EXPECT_TEXT=${IVC_SCRIBBLER_ENDED}")
endforeach()
# The same ten times, each store at another byte of another peer's section (its channel
# block, its parts private to other pairs, its collective area), while the others wait for
# the writer in an Allreduce: every run must end with the writer alone blamed, no hang;
# with the default settings and with check words on.
foreach(variant "" _csum)
  set(env "FT_EXPECT_TEXT=${IVC_SCRIBBLER_ENDED}")
  if(variant STREQUAL "_csum")
    list(APPEND env IVC_CHECKSUM=1)
  endif()
  add_test(NAME hostile.sections_scribble10${variant}
           COMMAND bash -c "for seed in 1 2 3 4 5 6 7 8 9 10; do echo \"== seed $seed\"; bash \"$0\" 3 nz \"$1\" --disable-auto-cleanup -n 4 --vms 4 --timeout 60 \"$2\" scribble $seed || exit 1; done"
                   ${PROJECT_SOURCE_DIR}/tests/mpi/ft/run.sh $<TARGET_FILE:ivcrun>
                   $<TARGET_FILE:hostile_sections>)
  set_tests_properties(hostile.sections_scribble10${variant} PROPERTIES TIMEOUT 300
                       LABELS hostile SKIP_RETURN_CODE 77 ENVIRONMENT "${env}")
endforeach()
