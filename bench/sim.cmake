# SimGrid backend benchmark: `ringsim sim` against a bare SimGrid C ring of the same shape.
# Run: build/bench/sim_bench [--sizes 256,512,1024] [--repeat R]   (figures: docs/sim.md)
if(TARGET rs_sim AND TARGET ringsim)
  add_executable(sim_bare_ring ${CMAKE_CURRENT_SOURCE_DIR}/sim_bare_ring.c)
  target_link_libraries(sim_bare_ring PRIVATE PkgConfig::SIMGRID)
  set_target_properties(sim_bare_ring PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)

  add_executable(sim_bench ${CMAKE_CURRENT_SOURCE_DIR}/sim_bench.c)
  target_link_libraries(sim_bench PRIVATE rs_core)
  target_compile_definitions(sim_bench PRIVATE RS_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set_target_properties(sim_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
  add_dependencies(sim_bench ringsim sim_bare_ring)
endif()

# Concurrent rings: R rings of N ranks on a generated fabric against one ring of R N ranks.
# Run: build/bench/sim_job_bench [--rings 8] [--ranks 64] [--repeat R] [--args "--fabric rail ..."]
if(TARGET rs_sim AND TARGET ringsim)
  add_executable(sim_job_bench ${CMAKE_CURRENT_SOURCE_DIR}/sim_job_bench.c)
  target_link_libraries(sim_job_bench PRIVATE rs_core)
  target_compile_definitions(sim_job_bench PRIVATE RS_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set_target_properties(sim_job_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
  add_dependencies(sim_job_bench ringsim)
endif()

# The simulator at datacenter scale: one job shape (tp 8 x cp 8 x dp P on rails) at growing P.
# Run: build/bench/sim_scale [--dp 16,64,256] [--backward] [--args "..."]   (figures: docs/benchmarks.md)
if(TARGET rs_sim AND TARGET ringsim)
  add_executable(sim_scale ${CMAKE_CURRENT_SOURCE_DIR}/sim_scale.c)
  target_link_libraries(sim_scale PRIVATE rs_core)
  target_compile_definitions(sim_scale PRIVATE RS_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set_target_properties(sim_scale PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
  add_dependencies(sim_scale ringsim)
endif()
