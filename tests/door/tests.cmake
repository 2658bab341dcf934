# Doorbell tests (issue 11): waiting ranks sleep and are woken; see tests/door/README.md.
foreach(t storm victim rmawait)
  add_executable(door_${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
  target_link_libraries(door_${t} PRIVATE mpi)
  set_target_properties(door_${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
endforeach()
set(door_env "IVCRUN=$<TARGET_FILE:ivcrun>;IVC_HOST=$<TARGET_FILE:ivc-host>"
             "STORM=$<TARGET_FILE:door_storm>;VICTIM=$<TARGET_FILE:door_victim>"
             "RMAWAIT=$<TARGET_FILE:door_rmawait>")
foreach(c "storm 2" "storm 4" kill nosrv srvgone "rmacpu lock" "rmacpu amlock"
          "rmacpu shared" "rmacpu agree" "rmastorm 2" "rmastorm 4")
  string(REPLACE " " "" n "${c}")
  separate_arguments(args UNIX_COMMAND "${c}")
  add_test(NAME door.${n} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/door.sh ${args})
  set_tests_properties(door.${n} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS door
                       ENVIRONMENT "${door_env}")
endforeach()
