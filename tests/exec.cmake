# exec/: the executor on the CPU backend (threads; no mpirun) and, when MPI is built, real MPI runs.
if(TARGET rs_exec)
  rs_add_cunit_test(test_exec SOURCES test_exec.c LIBS rs_exec LABELS exec)
  set_tests_properties(test_exec PROPERTIES TIMEOUT 120)
endif()
