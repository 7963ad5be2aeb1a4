# Capacity planning: memory model, model presets, plan and Ring/Ulysses/USP costs (owner: helper-plan).
rs_add_cunit_test(test_memory SOURCES test_memory.c LABELS plan)
rs_add_cunit_test(test_plan SOURCES test_plan.c LABELS plan)
if(TARGET rs_sim)
  rs_add_cunit_test(test_plan_sim SOURCES test_plan_sim.c LIBS rs_sim LABELS plan sim)
endif()
rs_add_cunit_test(test_plan_cli SOURCES test_plan_cli.c LABELS plan cli)
add_dependencies(test_plan_cli ringsim)
rs_add_cunit_test(test_infer_plan SOURCES test_infer_plan.c LABELS plan)
