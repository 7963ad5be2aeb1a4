# Capacity planning: memory model, model presets, plan and Ring/Ulysses/USP costs (owner: helper-plan).
rs_add_cunit_test(test_memory SOURCES test_memory.c LABELS plan)
rs_add_cunit_test(test_plan SOURCES test_plan.c LABELS plan)
