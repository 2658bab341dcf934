# End-to-end tests in real QEMU guests (label "vm"; see vm_test.sh). The image is built
# once by the vm.image fixture; the guests use both cores, so the tests run serially.
add_executable(vm_job vm/vm_job.c)
target_link_libraries(vm_job PRIVATE mpi)
set_target_properties(vm_job PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
add_executable(vm_wake vm/vm_wake.c)
target_link_libraries(vm_wake PRIVATE mpi)
set_target_properties(vm_wake PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
# Issue 24: the hostile guest of vm.sections (no MPI: it pokes the section devices).
add_executable(vm_scribble vm/vm_scribble.c)
set_target_properties(vm_scribble PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
# Issue 12 part 3: the program of vm.move (a guest live-migrated mid-job).
add_executable(vm_move vm/vm_move.c)
target_link_libraries(vm_move PRIVATE mpi)
set_target_properties(vm_move PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)

set(IVC_VM_ENV IVC_BIN=${PROJECT_BINARY_DIR}/bin IVC_TESTS=${PROJECT_BINARY_DIR}/tests
               IVC_VM_IMAGE=${PROJECT_BINARY_DIR}/tests/vm-image)
add_test(NAME vm.image COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vm/vm_test.sh image)
set_tests_properties(vm.image PROPERTIES FIXTURES_SETUP vm_image TIMEOUT 300 LABELS vm
                     SKIP_RETURN_CODE 77 RUN_SERIAL ON ENVIRONMENT "${IVC_VM_ENV}")
foreach(scenario two sections three mixed doorbell doorwake doorwake4 doorwake-novfio errors libivc move)
  add_test(NAME vm.${scenario} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vm/vm_test.sh ${scenario})
  set_tests_properties(vm.${scenario} PROPERTIES FIXTURES_REQUIRED vm_image TIMEOUT 480
                       LABELS vm SKIP_RETURN_CODE 77 RUN_SERIAL ON ENVIRONMENT "${IVC_VM_ENV}")
endforeach()
