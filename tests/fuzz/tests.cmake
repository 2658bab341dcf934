# Fuzz targets for everything read from the region (region header and membership table,
# receive-block geometry, ring records, pipeline counters and chunks), built with clang's
# libFuzzer apart from this build and run for a bounded time each (run.sh). Skips without
# clang/libFuzzer unless IVCTEST_REQUIRE_FUZZ=1 (CI sets it).
add_test(NAME fuzz.parsers
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh ${PROJECT_SOURCE_DIR}
                 ${PROJECT_BINARY_DIR}/fuzz 25)
set_tests_properties(fuzz.parsers PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS fuzz)
