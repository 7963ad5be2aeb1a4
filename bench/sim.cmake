# SimGrid backend benchmarks (figures: docs/benchmarks.md, "Simulator"):
#   build/bench/sim_bench [--sizes 256,512,1024] [--repeat R]   `ringsim sim` against a bare SimGrid C ring of the same shape
#   build/bench/sim_job_bench [--rings 8] [--ranks 64] [--repeat R] [--args "--fabric rail ..."]
#                                                              R rings of N ranks on a fabric against one ring of R N ranks
#   build/bench/sim_scale [--dp 16,64,256] [--backward] [--args "..."]
#                                                              one job shape (tp 8 x cp 8 x dp P on rails) at growing P
if(TARGET rs_sim AND TARGET ringsim)
  add_executable(sim_bare_ring ${CMAKE_CURRENT_SOURCE_DIR}/sim_bare_ring.c)
  target_link_libraries(sim_bare_ring PRIVATE PkgConfig::SIMGRID)
  set_target_properties(sim_bare_ring PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
  foreach(b sim_bench sim_job_bench sim_scale)
    add_executable(${b} ${CMAKE_CURRENT_SOURCE_DIR}/${b}.c)
    target_link_libraries(${b} PRIVATE rs_core)
    target_compile_definitions(${b} PRIVATE RS_BINARY_DIR="${PROJECT_BINARY_DIR}")
    set_target_properties(${b} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
    add_dependencies(${b} ringsim)
  endforeach()
  add_dependencies(sim_bench sim_bare_ring)
endif()
