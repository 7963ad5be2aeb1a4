# compare, sweep, figures and the report (issue 6). The CLI tests run the ringsim binary.
if(TARGET rs_plots)
  rs_add_cunit_test(test_report SOURCES test_report.c LIBS rs_studies LABELS report)
  add_dependencies(test_report ringsim)
  rs_add_cunit_test(test_report_plots SOURCES test_report_plots.c LIBS rs_plots LABELS report)
  add_dependencies(test_report_plots ringsim)
endif()

# Ctrl-C (SIGINT to the process group) keeps the finished points of a sweep in a valid file.
add_test(NAME sweep_sigint_keeps_points COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sweep_sigint.sh $<TARGET_FILE:ringsim>)
set_tests_properties(sweep_sigint_keeps_points PROPERTIES LABELS report TIMEOUT 300)

# Under mpirun the points of a sweep are divided over the ranks and rank 0 writes the CSV: the same
# bytes as one process (2, 3 and 4 ranks); a failing rank is named and nothing is written.
if(RINGSIM_HAVE_MPI AND TARGET rs_exec)
  add_test(NAME sweep_mpi_ranks COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sweep_mpi.sh $<TARGET_FILE:ringsim>)
  set_tests_properties(sweep_mpi_ranks PROPERTIES LABELS "report;mpi" TIMEOUT 300
                       ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()

# No nan or inf reaches a reader: report.md/html and every command's printed table (issue 19).
add_test(NAME text_no_nan COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/no_nan.sh $<TARGET_FILE:ringsim>)
set_tests_properties(text_no_nan PROPERTIES LABELS report TIMEOUT 300)
