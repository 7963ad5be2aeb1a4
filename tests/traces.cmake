# Trace schema (traces/trace.c): CSV round trip, malformed input, Chrome JSON, atomic writes.
rs_add_cunit_test(test_trace SOURCES test_trace.c LIBS PkgConfig::JANSSON LABELS traces)
