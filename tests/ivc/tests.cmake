# libivc: standalone programs over include/ivc.h (and, for the ring's table test and the
# hostile tests, libivc's internal layout headers). Each makes a region file of its own in
# /dev/shm and forks its participants.
function(ivc_lib_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "ENV;ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  if(NOT TARGET ivclib_${name})
    add_executable(ivclib_${name} ivc/${name}.c)
    target_link_libraries(ivclib_${name} PRIVATE ivc)
    target_include_directories(ivclib_${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                               ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
    set_target_properties(ivclib_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                          ${PROJECT_BINARY_DIR}/tests)
  endif()
  add_test(NAME ivc.${name} COMMAND ivclib_${name} ${T_ARGS})
  set_tests_properties(ivc.${name} PROPERTIES TIMEOUT ${T_TIMEOUT} SKIP_RETURN_CODE 77
                       LABELS ivc ENVIRONMENT "${T_ENV}")
endfunction()

# ivc_lib_test_env(<test> <name> <VAR=value>...): another run of ivc.<test> with variables.
function(ivc_lib_test_env test name)
  add_test(NAME ivc.${test}.${name} COMMAND ivclib_${test})
  set_tests_properties(ivc.${test}.${name} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
                       LABELS ivc ENVIRONMENT "${ARGN}")
endfunction()

ivc_lib_test(ring)
ivc_lib_test(chan)
ivc_lib_test_env(chan small IVC_LIB_RING_SIZE=4K)
ivc_lib_test(endpoints)
ivc_lib_test(port)
ivc_lib_test_env(port one_lane IVC_LIB_LANES=1)
ivc_lib_test(barrier)
ivc_lib_test(mtx)
ivc_lib_test(hostile)
target_link_libraries(ivclib_hostile PRIVATE Threads::Threads)

# The examples, built here and run across simulated VMs by ivcrun (and by hand: echo).
foreach(ex ivc_echo ivc_prodcons)
  add_executable(${ex} ${PROJECT_SOURCE_DIR}/examples/${ex}.c)
  target_link_libraries(${ex} PRIVATE ivc)
  set_target_properties(${ex} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/examples)
endforeach()
add_test(NAME ivc.echo.vms COMMAND $<TARGET_FILE:ivcrun> -n 3 --vms 3 $<TARGET_FILE:ivc_echo>)
add_test(NAME ivc.echo.plain COMMAND $<TARGET_FILE:ivcrun> -n 2 --no-ns $<TARGET_FILE:ivc_echo>)
add_test(NAME ivc.prodcons.vms
         COMMAND $<TARGET_FILE:ivcrun> -n 4 --vms 4 $<TARGET_FILE:ivc_prodcons> 100)
add_test(NAME ivc.prodcons.vm2
         COMMAND $<TARGET_FILE:ivcrun> -n 3 --vms 2 $<TARGET_FILE:ivc_prodcons> 100)
set_tests_properties(ivc.echo.vms ivc.echo.plain ivc.prodcons.vms ivc.prodcons.vm2 PROPERTIES
                     TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS ivc)

# Blocking calls sleep on doorbells (ivcrun's eventfds): CPU of a blocked call, no lost
# wake-up (tests/ivc/sleep.sh).
add_executable(ivclib_sleep ivc/sleep.c)
target_link_libraries(ivclib_sleep PRIVATE ivc)
set_target_properties(ivclib_sleep PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
foreach(m cpu storm)
  add_test(NAME ivc.sleep.${m} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ivc/sleep.sh
                                       $<TARGET_FILE:ivcrun> $<TARGET_FILE:ivclib_sleep> ${m})
  set_tests_properties(ivc.sleep.${m} PROPERTIES TIMEOUT 300 LABELS ivc)
endforeach()

# The libivc benchmarks (bench/ivc; bench/ivc/run.sh runs them and prints the tables).
foreach(b barrier counter chan)
  add_executable(ivc_bench_${b} ${PROJECT_SOURCE_DIR}/bench/ivc/${b}.c)
  target_link_libraries(ivc_bench_${b} PRIVATE ivc Threads::Threads)
  set_target_properties(ivc_bench_${b} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                        ${PROJECT_BINARY_DIR}/bench)
endforeach()

# The SPH fluid (apps/sph): processes in VMs against threads, bit-identical.
add_executable(ivc_sph ${PROJECT_SOURCE_DIR}/apps/sph/main.c ${PROJECT_SOURCE_DIR}/apps/sph/sph.c
               ${PROJECT_SOURCE_DIR}/apps/sph/png.c)
target_link_libraries(ivc_sph PRIVATE ivc Threads::Threads m)
set_target_properties(ivc_sph PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/apps)
foreach(cfg "2;spin" "4;block")
  list(GET cfg 0 n)
  list(GET cfg 1 w)
  add_test(NAME ivc.sph.vms${n}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ivc/sph.sh $<TARGET_FILE:ivcrun>
                   $<TARGET_FILE:ivc_sph> ${n} ${w})
  set_tests_properties(ivc.sph.vms${n} PROPERTIES TIMEOUT 300 LABELS ivc)
endforeach()
