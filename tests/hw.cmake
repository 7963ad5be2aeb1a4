# Hardware profiles: presets and their figures, validation errors, round trip, machine cost helpers.
rs_add_cunit_test(test_hw SOURCES test_hw.c LIBS PkgConfig::JANSSON LABELS hw)
