# Fault tolerance (src/mpi/ft, include/mpi-ext.h): ULFM shrink-and-continue, error classes
# after a failure, revocation, agreement. A test whose victim dies runs under
# `ivcrun --disable-auto-cleanup` (the job goes on without the victim; ivcrun then exits
# with the victim's status) through run.sh, which counts the survivors' "ft-ok" lines.
# See tests/mpi/ft/README.md.

# ivc_ft_test(<name> SOURCE <file> NP <ranks> SURVIVORS <n> STATUS <ivcrun status>
#             [CONFIGS <cfg>...] [ARGS <args>...] [ENV <VAR=value>...] [TIMEOUT <s>])
function(ivc_ft_test name)
  cmake_parse_arguments(T "" "SOURCE;NP;SURVIVORS;STATUS;TIMEOUT;TARGET" "CONFIGS;ARGS;ENV"
                        ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 150)
  endif()
  if(NOT T_TARGET)
    set(T_TARGET ft_${name})
  endif()
  if(NOT TARGET ${T_TARGET})
    add_executable(${T_TARGET} ${T_SOURCE})
    target_link_libraries(${T_TARGET} PRIVATE mpi m)
    # mpi-ext.h (install rules put it beside mpi.h; the build tree has it in include/)
    target_include_directories(${T_TARGET} PRIVATE ${PROJECT_SOURCE_DIR}/include)
    set_target_properties(${T_TARGET} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                          ${PROJECT_BINARY_DIR}/tests)
  endif()
  foreach(cfg IN LISTS T_CONFIGS)
    if(cfg STREQUAL "vms")
      set(flags --vms ${T_NP})
    elseif(cfg STREQUAL "vm2")
      set(flags --vms 2)
    elseif(cfg STREQUAL "plain")
      set(flags --no-ns)
    elseif(cfg STREQUAL "small")
      set(flags --vms ${T_NP})
    elseif(cfg STREQUAL "hosts")
      set(flags --hosts 2 --vms-per-host 2)
    else()
      message(FATAL_ERROR "ivc_ft_test(${name}): unknown configuration ${cfg}")
    endif()
    set(env ${T_ENV})
    if(cfg STREQUAL "small")
      list(APPEND env IVC_EAGER_LIMIT=256 IVC_RING_SIZE=4K IVC_CHUNK_SIZE=1K IVC_CHUNKS=2)
    endif()
    add_test(NAME mpi.ft.${name}.${cfg}
             COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh ${T_SURVIVORS} ${T_STATUS}
                     $<TARGET_FILE:ivcrun> --disable-auto-cleanup -n ${T_NP} ${flags}
                     --timeout ${T_TIMEOUT} $<TARGET_FILE:${T_TARGET}> ${T_ARGS})
    set_tests_properties(mpi.ft.${name}.${cfg} PROPERTIES TIMEOUT ${T_TIMEOUT}
                         SKIP_RETURN_CODE 77 LABELS "mpi;ft;${cfg}" ENVIRONMENT "${env}")
  endforeach()
endfunction()

# A rank dies (SIGKILL: ivcrun's status 137); the survivors revoke, shrink and finish.
ivc_ft_test(shrink SOURCE mpi/ft/shrink.c NP 4 SURVIVORS 3 STATUS 137
            CONFIGS vms vm2 plain small hosts)
# The same with the shared-memory areas in small pieces and the victim in the middle.
ivc_ft_test(shrink_pieces SOURCE mpi/ft/shrink.c TARGET ft_shrink NP 4 SURVIVORS 3 STATUS 137
            CONFIGS vms ARGS 1 ENV IVC_COLL_AREA=4K IVC_COLL_CHUNK=1K)
# Error classes of point-to-point, MPI_ANY_SOURCE and collectives after a failure.
ivc_ft_test(errors SOURCE mpi/ft/errors.c NP 4 SURVIVORS 3 STATUS 137
            CONFIGS vms vm2 plain small)
# Revocation while members block in receives and collectives, and everything afterwards;
# agreement and shrink on revoked communicators. Nobody dies: ivcrun's status is 0.
ivc_ft_test(revoke SOURCE mpi/ft/revoke.c NP 4 SURVIVORS 4 STATUS 0
            CONFIGS vms vm2 plain small hosts)
# Probes: blocked at a failure (MPI_ANY_SOURCE and of the victim) and at a revocation, and
# every probe afterwards, before and after MPIX_Comm_failure_ack.
ivc_ft_test(probe SOURCE mpi/ft/probe.c NP 4 SURVIVORS 3 STATUS 137 CONFIGS vms plain)
# Agreement with members dying during it (two victims: 137 from the first).
ivc_ft_test(agree SOURCE mpi/ft/agree.c NP 5 SURVIVORS 3 STATUS 137 CONFIGS vms vm2 plain small)
# Agreement and shrink on an intercommunicator (even and odd world ranks), the last rank dying.
ivc_ft_test(inter SOURCE mpi/ft/inter.c NP 5 SURVIVORS 4 STATUS 137 CONFIGS vms plain hosts)
# A survivor on the other host finalizes early (the victim dead: no meeting first); the
# others must not take its disconnecting for a failure.
ivc_ft_test(early SOURCE mpi/ft/early.c NP 4 SURVIVORS 3 STATUS 137 CONFIGS hosts vms)
# A window lock held by a rank that dies: direct lock words, and active messages only.
ivc_ft_test(rma SOURCE mpi/ft/rma.c NP 3 SURVIVORS 2 STATUS 137 CONFIGS vms vm2 plain)
ivc_ft_test(rma_am SOURCE mpi/ft/rma.c TARGET ft_rma NP 3 SURVIVORS 2 STATUS 137 CONFIGS vms
            ENV IVC_RMA_ARENA=0)
# MPI_ERRORS_ARE_FATAL: the survivors end the job naming the failed rank and the detector.
ivc_ft_test(fatal SOURCE mpi/ft/fatal.c NP 3 SURVIVORS 0 STATUS nz CONFIGS vms plain
            ENV "FT_EXPECT_TEXT=rank 2 ended without MPI_Finalize.*seen by .*MPI_ERRORS_ARE_FATAL")

# Started by hand, no launcher: the ranks' own detector (region file locks) sees the death.
foreach(t shrink errors agree)
  if(t STREQUAL "agree")
    set(np 5)
    set(surv 3)
  else()
    set(np 4)
    set(surv 3)
  endif()
  add_test(NAME mpi.ft.${t}.hand
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/hand.sh ${surv} ${np} $<TARGET_FILE:ft_${t}>)
  set_tests_properties(mpi.ft.${t}.hand PROPERTIES TIMEOUT 150 SKIP_RETURN_CODE 77
                       LABELS "mpi;ft;hand")
endforeach()
