# `ringsim model` end to end (owner: lead). Needs the ringsim binary from the same build.
rs_add_cunit_test(test_cli SOURCES test_cli.c LABELS cli)
