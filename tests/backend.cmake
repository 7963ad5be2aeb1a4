# The backend interface (backend/backend.h) and the child-process helper every backend's
# subprocesses use (model/1-base/subprocess.h).
rs_add_cunit_test(test_subprocess SOURCES test_subprocess.c LABELS backend)
rs_add_cunit_test(test_backend SOURCES test_backend.c LIBS rs_studies LABELS backend)
add_dependencies(test_backend ringsim)
set_tests_properties(test_backend PROPERTIES TIMEOUT 120)
