# Schedule and analytic model suites (owner: lead).
rs_add_cunit_test(test_schedule SOURCES test_schedule.c LABELS model)
rs_add_cunit_test(test_model SOURCES test_model.c LABELS model)
rs_add_cunit_test(test_infer_schedule SOURCES test_infer_schedule.c LABELS model)
rs_add_cunit_test(test_infer_model SOURCES test_infer_model.c LABELS model)
