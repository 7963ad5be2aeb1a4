add_executable(bench_model model_bench.c)
target_link_libraries(bench_model PRIVATE rs_core)
add_executable(bench_closed_loop closed_loop.c)
target_link_libraries(bench_closed_loop PRIVATE rs_core)
