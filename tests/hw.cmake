# Hardware profiles: presets and their figures, validation errors, round trip, machine cost helpers.
rs_add_cunit_test(test_hw SOURCES test_hw.c LIBS PkgConfig::JANSSON LABELS hw)
# `ringsim profiles`, linked in-process from its source (cli/cmd_profiles.c, the shared
# cli/common.c, which fills the studies' setup, and the option parser cli/options.c).
rs_add_cunit_test(test_hw_cli SOURCES test_hw_cli.c ${PROJECT_SOURCE_DIR}/cli/cmd_profiles.c
  ${PROJECT_SOURCE_DIR}/cli/common.c ${PROJECT_SOURCE_DIR}/cli/options.c LIBS rs_studies LABELS hw)
target_include_directories(test_hw_cli PRIVATE ${PROJECT_SOURCE_DIR}/cli)
