# Schedule and analytic model suites (owner: lead).
rs_add_cunit_test(test_schedule SOURCES test_schedule.c LABELS model)
rs_add_cunit_test(test_model SOURCES test_model.c LABELS model)
# Kernel-call cost model: curves, presets, the one step cost function, bounds, shipped curves.
rs_add_cunit_test(test_kernel SOURCES test_kernel.c LABELS model)
rs_add_cunit_test(test_infer_schedule SOURCES test_infer_schedule.c LABELS model)
rs_add_cunit_test(test_infer_model SOURCES test_infer_model.c LABELS model)
