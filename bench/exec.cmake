# exec/: CPU kernel vs plain OpenBLAS sgemm (bench_exec_kernel). Model vs measurement is
# `ringsim validate` (docs/validate.md).
if(TARGET rs_exec)
  add_executable(bench_exec_kernel exec_kernel.c)
  target_link_libraries(bench_exec_kernel PRIVATE rs_exec)
endif()
