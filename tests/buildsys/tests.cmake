# Build systems and the loader meet IVC as a user's machine has it: installed into a prefix
# whose bin/ comes first on PATH, with MPICH installed behind it (Debian's mpich).
# IVCTEST_REQUIRE_BUILDSYS=1 turns a skip (no meson, pkg-config, gfortran or MPICH) into a
# failure.
foreach(t wrappers cmake meson pkgconfig libpath info)
  add_test(NAME buildsys.${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${t}.sh)
  set_tests_properties(buildsys.${t} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
    LABELS buildsys
    ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR};SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endforeach()
