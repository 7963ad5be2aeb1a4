# Progress on a terminal (model/1-base/meter.h), through a pseudo-terminal: sim, sweep, report,
# calibrate (under mpirun), validate; none on pipes or with -q.
rs_add_cunit_test(test_progress SOURCES test_progress.c LIBS rs_studies LABELS progress)
add_dependencies(test_progress ringsim)
set_tests_properties(test_progress PROPERTIES TIMEOUT 900
                     ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1;ASAN_OPTIONS=detect_leaks=0")
