# GPU benchmarks (helper-gpu): `cmake --build <dir> --target bench_gpu` runs the kernel timings of
# dev/cuda (CUDA events, medians) on this machine's GPU; figures are recorded in docs/gpu.md with the
# command. Where no GPU is present the programs print "skipped: no GPU".
if(TARGET attention_forward AND TARGET attention_backward)
  set(_dev ${PROJECT_BINARY_DIR}/dev/cuda)
  add_custom_target(bench_gpu
    COMMAND ${_dev}/attention_forward 1 --no-check --rows 8K --heads 16 --dim 128 --mask full
    COMMAND ${_dev}/attention_forward 1 --no-check --rows 16K --heads 16 --dim 128 --mask causal
    COMMAND ${_dev}/attention_backward 1 --no-check --rows 8K --heads 16 --dim 128 --mask full
    COMMAND ${_dev}/attention_backward 1 --no-check --rows 16K --heads 16 --dim 128 --mask causal
    DEPENDS attention_forward attention_backward
    USES_TERMINAL
    COMMENT "GPU attention kernel timings (dev/cuda)")
endif()
