add_executable(bench_model model_bench.c)
target_link_libraries(bench_model PRIVATE rs_core)
