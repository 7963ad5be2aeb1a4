# The Python package (python/ringsim, docs/python.md) against the command: every result compared with
# `ringsim model --json`, `--trace`, `memory --csv`, `plan --csv` and `sweep -o` for the same inputs,
# with numpy (required: scripts/bootstrap installs it) and with lists (RINGSIM_NUMPY=0); and
# `pip install ./python` offline.
# The interpreter: RINGSIM_PYTHON, else Debian's /usr/bin/python3 (its setuptools, wheel and numpy come
# from scripts/bootstrap), else python3 on PATH.
find_program(RINGSIM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT RINGSIM_PYTHON)
  find_program(RINGSIM_PYTHON NAMES python3)
endif()
if(RINGSIM_PYTHON)
  set(_py_env "RINGSIM_LIB=$<TARGET_FILE:ringsim_shared>" "RINGSIM_BIN=$<TARGET_FILE:ringsim>"
              "PYTHONPATH=${PROJECT_SOURCE_DIR}/python" "PYTHONDONTWRITEBYTECODE=1")
  set(_preload "")
  if(RINGSIM_SANITIZE) # Python itself is not instrumented: the sanitizer runtimes must come first
    foreach(rt asan ubsan)
      execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=lib${rt}.so OUTPUT_VARIABLE _rt OUTPUT_STRIP_TRAILING_WHITESPACE)
      string(APPEND _preload "${_rt}:")
    endforeach()
    list(APPEND _py_env "LD_PRELOAD=${_preload}" "ASAN_OPTIONS=detect_leaks=0")
  endif()
  add_test(NAME python_api COMMAND ${RINGSIM_PYTHON} -m unittest discover -s ${PROJECT_SOURCE_DIR}/python/tests -v)
  add_test(NAME python_api_lists COMMAND ${RINGSIM_PYTHON} -m unittest discover -s ${PROJECT_SOURCE_DIR}/python/tests -v)
  # Python 3.11's unittest exits 0 when it finds no test: fewer than 10 run is a failure too.
  set(_few "Ran [0-9] tests?|NO TESTS RAN")
  set_tests_properties(python_api PROPERTIES LABELS python TIMEOUT 600 FAIL_REGULAR_EXPRESSION "${_few}"
                       ENVIRONMENT "${_py_env};RINGSIM_EXPECT_NUMPY=1")
  set_tests_properties(python_api_lists PROPERTIES LABELS python TIMEOUT 600 FAIL_REGULAR_EXPRESSION "${_few}"
                       ENVIRONMENT "${_py_env};RINGSIM_NUMPY=0;RINGSIM_EXPECT_NUMPY=0")
  add_test(NAME python_pip_install COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/python_pip.sh ${RINGSIM_PYTHON} ${PROJECT_SOURCE_DIR}
           $<TARGET_FILE:ringsim_shared> $<TARGET_FILE:ringsim>)
  set_tests_properties(python_pip_install PROPERTIES LABELS python TIMEOUT 600
                       ENVIRONMENT "RS_PRELOAD=${_preload};ASAN_OPTIONS=detect_leaks=0")
  if(RINGSIM_HAVE_SIM) # docs/python.md's session, run (it reads a SimGrid trace)
    add_test(NAME python_doc COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/python_doc.sh ${RINGSIM_PYTHON} ${PROJECT_SOURCE_DIR}
             $<TARGET_FILE:ringsim_shared> $<TARGET_FILE:ringsim>)
    set_tests_properties(python_doc PROPERTIES LABELS python TIMEOUT 600
                         ENVIRONMENT "RS_PRELOAD=${_preload};ASAN_OPTIONS=detect_leaks=0")
  endif()
else() # the package's tests are part of the suite (issue 16): without python3 they fail, not vanish
  add_test(NAME python_api COMMAND sh -c "echo 'python3 not found: scripts/bootstrap installs it (and numpy)'; exit 1")
  set_tests_properties(python_api PROPERTIES LABELS python)
endif()
