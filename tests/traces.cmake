# Trace schema (traces/trace.c): CSV round trip, malformed input, Chrome JSON, atomic writes.
rs_add_cunit_test(test_trace SOURCES test_trace.c LIBS PkgConfig::JANSSON LABELS traces)
# Trace import (traces/import*.c): Kineto / nsys fixtures written as the tools write them
# (tests/import_fixtures.c, also used by bench/import_bench.c), round trip, bad input, the CLI.
rs_add_cunit_test(test_import SOURCES test_import.c import_fixtures.c LIBS PkgConfig::SQLITE3 PkgConfig::ZLIB PkgConfig::JANSSON LABELS traces)
