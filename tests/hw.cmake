# Hardware profiles: presets and their figures, validation errors, round trip, machine cost helpers.
rs_add_cunit_test(test_hw SOURCES test_hw.c LIBS PkgConfig::JANSSON LABELS hw)
# `ringsim profiles`: the built binary (test_util.h runs it).
rs_add_cunit_test(test_hw_cli SOURCES test_hw_cli.c LABELS hw)
add_dependencies(test_hw_cli ringsim)
