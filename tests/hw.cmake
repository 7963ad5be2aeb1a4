# Hardware profiles: presets and their figures, validation errors, round trip, machine cost helpers.
rs_add_cunit_test(test_hw SOURCES test_hw.c LIBS PkgConfig::JANSSON LABELS hw)
# `ringsim profiles`: the built binary (test_util.h runs it).
rs_add_cunit_test(test_hw_cli SOURCES test_hw_cli.c LABELS hw)
add_dependencies(test_hw_cli ringsim)
# The docs' table of accepted ranges is the binary's (ringsim profiles --ranges).
add_test(NAME docs_ranges COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs_ranges.sh $<TARGET_FILE:ringsim>
         ${PROJECT_SOURCE_DIR}/docs/profiles.md)
set_tests_properties(docs_ranges PROPERTIES LABELS hw TIMEOUT 30)
