# The install tree as a new user meets it.
add_test(NAME install.layout COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install.sh)
set_tests_properties(install.layout PROPERTIES TIMEOUT 120 LABELS install
  ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR};SOURCE_DIR=${PROJECT_SOURCE_DIR}")
