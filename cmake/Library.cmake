# libringsim: the library every layer below cli/ makes (docs/install.md), as one shared object with a
# versioned SONAME, and the public headers under include/ringsim/. Included by the top-level
# CMakeLists.txt after the layers' static archives exist.
#
#   ringsim_shared   libringsim.so.<SOVERSION>: the layers' archives whole (rs_base .. rs_plan,
#                    rs_traces, rs_plots, rs_backend, the backends this build has, rs_studies),
#                    exporting exactly what the installed headers declare; the Python package
#                    (python/) and programs built on the installed headers use it
#   ringsim_headers  the layers' include folders and RINGSIM_HAVE_* definitions, without their archives
#                    (the command's objects compile against them; the command links the archives
#                    themselves, cli/CMakeLists.txt, since it uses the layers' internal functions too)
#
# SOVERSION: the major version, or major.minor while the major is 0 (before 1.0 a minor release may
# change the ABI).

if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(RINGSIM_SOVERSION "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}")
else()
  set(RINGSIM_SOVERSION "${PROJECT_VERSION_MAJOR}")
endif()

# The archives inside the shared object, in link order: rs_exec (MPI) before rs_sim (libsimgrid.so
# also exports MPI_*: the first library in the link order wins at run time, cli/CMakeLists.txt).
set(RINGSIM_LIB_PARTS rs_studies)
foreach(lib rs_exec rs_gpu rs_gpu_host rs_sim)
  if(TARGET ${lib})
    list(APPEND RINGSIM_LIB_PARTS ${lib})
  endif()
endforeach()
list(APPEND RINGSIM_LIB_PARTS rs_backend rs_plots rs_traces rs_plan rs_cost rs_machine rs_schedule rs_base)

# Public headers, by layer (docs/architecture.md; the layering holds: each includes only these).
# libringsim.so exports exactly the functions they declare (scripts/export-names). Left out: each
# layer's internal headers (the ones no public header includes: subprocess.h, output_*.h, jsonpos.h,
# embed.h, presets.h, profile_json.h, cost_step.h, import_*.h, trace_private.h, plot_prep.h,
# plot_gnuplot.h, plot_vars.h, study_*_state.h ...), the backends' own headers (sim/, exec/: built
# only where SimGrid and OpenBLAS are) and the studies that need them
# (study_calibrate.h, study_validate.h, study_contention.h).
set(RINGSIM_PUBLIC_HEADERS
  model/1-base/util.h model/1-base/stats.h model/2-schedule/schedule.h model/2-schedule/event.h model/1-base/meter.h model/1-base/estimate.h
  model/3-machine/dtype.h model/3-machine/calibration.h model/3-machine/rate_source.h model/3-machine/kernel_table.h model/3-machine/profile.h model/3-machine/machine.h
  model/4-cost/kernel.h model/4-cost/cost.h
  model/5-plan/memory.h model/5-plan/tp.h model/5-plan/gemm.h model/5-plan/alt.h model/5-plan/plan.h model/5-plan/budget.h
  traces/trace.h traces/compare.h traces/import.h
  plots/plot.h plots/plot_table.h
  backend/backend.h
  studies/registry.h studies/setup.h studies/study_sweep.h studies/study_report.h studies/study_plan.h studies/binding.h)

# include/ringsim/version.h and the umbrella include/ringsim/ringsim.h, in the build tree's include/
set(RINGSIM_GEN_INCLUDE ${PROJECT_BINARY_DIR}/include)
set(RINGSIM_UMBRELLA_INCLUDES "")
foreach(h ${RINGSIM_PUBLIC_HEADERS})
  get_filename_component(_name ${h} NAME)
  string(APPEND RINGSIM_UMBRELLA_INCLUDES "#include \"${_name}\"\n")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/version.h.in ${RINGSIM_GEN_INCLUDE}/ringsim/version.h @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ringsim.h.in ${RINGSIM_GEN_INCLUDE}/ringsim/ringsim.h @ONLY)

# The shared object has no sources of its own: everything comes from the archives.
file(WRITE ${PROJECT_BINARY_DIR}/libringsim.c "/* libringsim.so: the layers' archives, whole (cmake/Library.cmake). */\n")
# Its version script exports exactly the functions and tables the installed headers declare
# (scripts/export-names, run at build time on RINGSIM_PUBLIC_HEADERS; scripts/check-exports and the
# CTest exports_declared check the built library against them). Without python3 every rs_* symbol
# is exported (cmake/ringsim.map).
find_program(RINGSIM_PYTHON3 NAMES python3)
if(RINGSIM_PYTHON3)
  set(RINGSIM_EXPORT_MAP ${PROJECT_BINARY_DIR}/ringsim.map)
  set(_rs_public_abs "")
  foreach(h ${RINGSIM_PUBLIC_HEADERS})
    list(APPEND _rs_public_abs ${PROJECT_SOURCE_DIR}/${h})
  endforeach()
  add_custom_command(OUTPUT ${RINGSIM_EXPORT_MAP}
    COMMAND ${RINGSIM_PYTHON3} ${PROJECT_SOURCE_DIR}/scripts/export-names ${CMAKE_C_COMPILER} ${RINGSIM_EXPORT_MAP}
            ${_rs_public_abs}
    DEPENDS ${_rs_public_abs} ${PROJECT_SOURCE_DIR}/scripts/export-names
    COMMENT "Listing the functions the installed headers declare (libringsim.so's exports)" VERBATIM)
  add_custom_target(ringsim_export_map DEPENDS ${RINGSIM_EXPORT_MAP})
else()
  set(RINGSIM_EXPORT_MAP ${PROJECT_SOURCE_DIR}/cmake/ringsim.map)
  message(STATUS "python3 not found: libringsim.so exports every rs_* symbol (cmake/ringsim.map)")
endif()
add_library(ringsim_shared SHARED ${PROJECT_BINARY_DIR}/libringsim.c)
set_target_properties(ringsim_shared PROPERTIES
  OUTPUT_NAME ringsim EXPORT_NAME ringsim
  VERSION ${PROJECT_VERSION} SOVERSION ${RINGSIM_SOVERSION}
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
  LINK_DEPENDS ${RINGSIM_EXPORT_MAP})
if(TARGET ringsim_export_map)
  add_dependencies(ringsim_shared ringsim_export_map)
endif()
target_link_options(ringsim_shared PRIVATE "LINKER:--version-script=${RINGSIM_EXPORT_MAP}"
                    "LINKER:--no-undefined")
# The archives whole (nothing is dropped: a caller may use any public function), then what they need.
target_link_libraries(ringsim_shared PRIVATE "-Wl,--whole-archive" ${RINGSIM_LIB_PARTS} "-Wl,--no-whole-archive")
target_include_directories(ringsim_shared INTERFACE
  $<BUILD_INTERFACE:${RINGSIM_GEN_INCLUDE}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

# Build-tree usage for the command's objects (cli/CMakeLists.txt): include folders and definitions of
# every part, no archives.
add_library(ringsim_headers INTERFACE)
foreach(lib ${RINGSIM_LIB_PARTS})
  target_include_directories(ringsim_headers INTERFACE $<TARGET_PROPERTY:${lib},INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(ringsim_headers INTERFACE $<TARGET_PROPERTY:${lib},INTERFACE_COMPILE_DEFINITIONS>)
endforeach()
