# Installation, man pages and shell completion (issue 16; docs/install.md).
# install_prefix: `cmake --install` into a temporary prefix, the command and examples/ring_walk.c
# (pkg-config and find_package) run from the installed files only.
add_test(NAME install_prefix COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set(_rs_example_env "ASAN_OPTIONS=detect_leaks=0")
if(RINGSIM_SANITIZE) # the example links the instrumented library: it is instrumented too
  list(APPEND _rs_example_env "RS_EXAMPLE_CFLAGS=-fsanitize=address,undefined")
endif()
set_tests_properties(install_prefix PROPERTIES LABELS install TIMEOUT 600 ENVIRONMENT "${_rs_example_env}")
# man_completion: the generated pages and scripts against `ringsim CMD --help`, bash and zsh.
add_test(NAME man_completion COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs.sh $<TARGET_FILE:ringsim> ${RINGSIM_MAN_DIR}
         ${RINGSIM_BASH_COMPLETION} ${RINGSIM_ZSH_COMPLETION})
set_tests_properties(man_completion PROPERTIES LABELS install TIMEOUT 300 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
