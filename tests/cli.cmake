# `ringsim model` end to end (owner: lead). Needs the ringsim binary from the same build.
rs_add_cunit_test(test_cli SOURCES test_cli.c LIBS rs_studies LABELS cli)
# The bad-input suite (issue 13 item 7): tests/bad_input.tab, each case under a watchdog; and the
# options' ranges read back against model/3-machine/ranges.c. Runs in the ASan+UBSan build too.
rs_add_cunit_test(test_bad_input SOURCES test_bad_input.c LABELS cli)
add_dependencies(test_bad_input ringsim)
set_tests_properties(test_bad_input PROPERTIES TIMEOUT 900)
