# GPU backend (exec/gpu/, helper-gpu).
#  test_gpu_host  host logic of the GPU backend; runs everywhere the backend compiles (no GPU needed).
#  test_gpu       kernels vs float64 and the N = 1 ring on a GPU; "skipped: no GPU" (exit 77, CTest
#                 Skipped) where cudaGetDeviceCount finds none.
if(TARGET rs_gpu_host AND TARGET rs_exec)
  rs_add_cunit_test(test_gpu_host SOURCES test_gpu_host.c LIBS rs_gpu_host rs_exec LABELS gpu)
endif()
if(TARGET rs_gpu AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu.c)
  rs_add_cunit_test(test_gpu SOURCES test_gpu.c LIBS rs_gpu LABELS gpu)
  set_tests_properties(test_gpu PROPERTIES TIMEOUT 600)
endif()
