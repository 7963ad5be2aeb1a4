# SimGrid backend tests (only when the backend is built).
if(TARGET rs_sim)
  rs_add_cunit_test(test_sim SOURCES test_sim.c LIBS rs_sim LABELS sim)
  rs_add_cunit_test(test_job SOURCES test_job.c LIBS rs_sim LABELS sim)
endif()
if(TARGET rs_sim AND TARGET ringsim)
  rs_add_cunit_test(test_sim_cli SOURCES test_sim_cli.c LABELS sim cli)
  add_dependencies(test_sim_cli ringsim)
endif()
