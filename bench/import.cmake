# Trace import: a generated 200 MB Kineto trace, read/parse floors side by side.
add_executable(bench_import import_bench.c ${PROJECT_SOURCE_DIR}/tests/fixtures/import_fixtures.c ${PROJECT_SOURCE_DIR}/tests/fixtures/import_fixtures_write.c)
target_include_directories(bench_import PRIVATE ${PROJECT_SOURCE_DIR}/tests/fixtures)
target_link_libraries(bench_import PRIVATE rs_core PkgConfig::YAJL PkgConfig::ZLIB PkgConfig::SQLITE3 PkgConfig::JANSSON)
