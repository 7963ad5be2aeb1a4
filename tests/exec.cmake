# exec/: the executor on the CPU backend (threads; no mpirun) and, when MPI is built, real MPI runs
# through `ringsim exec` (which starts itself under mpirun --oversubscribe [--allow-run-as-root]).
if(TARGET rs_exec)
  rs_add_cunit_test(test_exec SOURCES test_exec.c LIBS rs_exec LABELS exec)
  set_tests_properties(test_exec PROPERTIES TIMEOUT 120)
  rs_add_cunit_test(test_loopback SOURCES test_loopback.c LIBS rs_exec LABELS exec)
  set_tests_properties(test_loopback PROPERTIES TIMEOUT 60)
  rs_add_cunit_test(test_infer_exec SOURCES test_infer_exec.c LIBS rs_exec LABELS exec)
  set_tests_properties(test_infer_exec PROPERTIES TIMEOUT 120)

  set(RS_EXEC_SMALL -S 96 --heads 2 --kv-heads 1 --head-dim 16 --tile 8 --dtype fp32 --reps 1 --warmup 0)
  string(REPLACE ";" " " RS_EXEC_SMALL_SH "${RS_EXEC_SMALL}")
  # Bad input fails before any rank starts, exit 2, one line naming the parameter.
  add_test(NAME exec_bad_input COMMAND sh -c
    "$<TARGET_FILE:ringsim> exec -S 1000 -N 3 -L striped 2>err.txt; rc=$?; cat err.txt; test $rc -eq 2 && grep -q 'seq 1000' err.txt && test $(wc -l < err.txt) -eq 1")
  add_test(NAME exec_bad_dtype COMMAND sh -c
    "$<TARGET_FILE:ringsim> exec --dtype bf16 --launch threads 2>&1; test $? -eq 2")
  # One process plays every rank in turn (loopback): a trace of the whole ring, marked as such.
  add_test(NAME exec_loopback_local COMMAND sh -c
    "$<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 3 -L zigzag -P forward --loopback local --trace lb.csv && grep -q '^# loopback=' lb.csv && test $(grep -c ',compute,' lb.csv) -eq 9")
  # Refused: a GPU loopback kind on the CPU, --check with a loopback, a stall the transport cannot make.
  add_test(NAME exec_loopback_bad COMMAND sh -c
    "$<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 3 --loopback nccl 2>e1.txt; r1=$?; $<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 3 --loopback local --check 2>e2.txt; r2=$?; $<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 3 --loopback local --stall 1:1 2>e3.txt; r3=$?; cat e1.txt e2.txt e3.txt; test $r1 -eq 2 && test $r2 -eq 2 && test $r3 -eq 1 && grep -q 'expected local with --backend cpu' e1.txt && grep -q 'need the real ring' e2.txt && grep -q 'rank 1: the local transport cannot inject a stall' e3.txt")
  # validate on one device playing each rank of a 4-rank ring in turn (the same code as --backend gpu
  # --loopback nccl): the walk predicts the loopback machine, the simulator says why it does not run it
  add_test(NAME exec_validate_loopback COMMAND sh -c
    "$<TARGET_FILE:ringsim> validate --loopback local -N 4 --blocks 16,32,64 --rounds 1 --reps 1 --min-time 0.005 --head-dim 32 > vl.txt 2>&1; rc=$?; cat vl.txt; test $rc -eq 0 && grep -q 'progress loopback' vl.txt && grep -q 'simulator: not run (a loopback machine' vl.txt && grep -q '^ *64 ' vl.txt")
  # an executor asked for a dtype it does not compute in, or a loopback it does not have: exit 2, one line
  add_test(NAME exec_calibrate_bad_backend COMMAND sh -c
    "$<TARGET_FILE:ringsim> calibrate --out cb.json --loopback nccl 2>cb1.txt; r1=$?; $<TARGET_FILE:ringsim> validate --backend tpu 2>cb2.txt; r2=$?; cat cb1.txt cb2.txt; test $r1 -eq 2 && test $r2 -eq 2 && grep -q 'expected local with --backend cpu' cb1.txt && grep -q -- '--backend tpu: expected cpu or gpu' cb2.txt && test ! -e cb.json")
  # The inference variants' bad input: exit 2, one line naming the option and the rule; pass-q without
  # a cache runs and says its pass-kv equivalent; a loopback cannot run the all-to-all.
  add_test(NAME exec_infer_bad_input COMMAND sh -c
    "$<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 3 --cached 100 --launch threads 2>i1.txt; r1=$?; $<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 3 --pass decode --no-causal --cached 96 --launch threads 2>i2.txt; r2=$?; $<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 3 --ring pass-q --launch threads --loopback local 2>i3.txt; r3=$?; $<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 3 --ring pass-q --launch threads >/dev/null 2>i4.txt; r4=$?; $<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 2 --ring pass-kv --pass decode --cached 96 --launch threads 2>i5.txt; r5=$?; cat i1.txt i2.txt i3.txt i4.txt i5.txt; test $r1 -eq 2 && test $r2 -eq 2 && test $r3 -eq 2 && test $r4 -eq 0 && test $r5 -eq 2 && grep -q -- '--cached 100: must be divisible by 2\\*N = 6' i1.txt && grep -q -- '--pass decode: needs the causal mask' i2.txt && grep -q 'needs the real ring' i3.txt && grep -q 'note: --ring pass-q without a cache (--cached 0): the same FLOPs as --ring pass-kv' i4.txt && grep -q -- '--pass decode: runs as --ring pass-q' i5.txt && test $(wc -l < i1.txt) -eq 1")
  set_tests_properties(exec_infer_bad_input PROPERTIES LABELS exec TIMEOUT 60)
  # validate --ranks-list (threads): its temporaries through the output module - a failing or
  # SIGTERMed run leaves nothing, a dead PID's temporary folder is removed by the next run, a passing
  # run commits every per-N output (tests/validate_ranks_list.sh).
  add_test(NAME exec_validate_ranks_list_temporaries COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/validate_ranks_list.sh
    $<TARGET_FILE:ringsim>)
  set_tests_properties(exec_validate_ranks_list_temporaries PROPERTIES LABELS exec TIMEOUT 120
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  set_tests_properties(exec_bad_input exec_bad_dtype exec_loopback_local exec_loopback_bad exec_validate_loopback
                       exec_calibrate_bad_backend PROPERTIES LABELS exec TIMEOUT 60)
  if(RINGSIM_HAVE_MPI)
    # Every layout and both passes, float64 check, 3 MPI ranks, progress thread.
    add_test(NAME exec_mpi_check_thread COMMAND $<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL} -N 3
      -L all -P both --causal --check --progress thread --launch mpirun --timeout 30)
    # Non-causal, GQA, progress by polling, 2 ranks; the trace is written.
    add_test(NAME exec_mpi_check_poll COMMAND $<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL} -N 2
      -L zigzag -P both --no-causal --check --progress poll --launch mpirun --timeout 30
      --trace ${CMAKE_BINARY_DIR}/tests/exec_mpi_poll.csv)
    # A rank that stops answering: the others time out naming the rank and the step; non-zero exit.
    add_test(NAME exec_mpi_dead_rank COMMAND sh -c
      "$<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL_SH} -N 3 -L zigzag --launch mpirun --timeout 1 --fault 1:1 --progress none >out.txt 2>&1; rc=$?; grep ringsim out.txt; test $rc -ne 0 && grep -q 'step 1: timeout after 1 s waiting for .* rank 1' out.txt")
    # Calibration writes a profile that `ringsim model --profile` reads; validate runs end to end.
    add_test(NAME exec_calibrate_profile COMMAND sh -c
      "$<TARGET_FILE:ringsim> calibrate --out cal-test.json --blocks 64,128,256 --min-time 0.005 && $<TARGET_FILE:ringsim> model --profile cal-test.json --dtype fp32 -S 256 -N 2 --heads 2 --kv-heads 2 -L contiguous -P forward --no-causal | grep -q contiguous && grep -q '\"overlap_curve\": \\[\\[' cal-test.json && grep -q '\"host_s_per_byte\"' cal-test.json && grep -q '\"name\": \"ringsim-cpu\"' cal-test.json && grep -q '\"default_impl\": \"ringsim\"' cal-test.json")
    add_test(NAME exec_validate_quick COMMAND sh -c
      "$<TARGET_FILE:ringsim> validate --blocks 16,32,64 --rounds 1 --reps 1 --min-time 0.005 --head-dim 32 --no-sim > val.txt 2>&1; rc=$?; cat val.txt; test $rc -eq 0 && grep -q 'crossover B (T_comm = T_comp alone' val.txt && grep -q 't_comm' val.txt && grep -q 'interleaved with the runs (transport, host cost' val.txt && grep -q 'per-rank kernel time over the fastest' val.txt")
    # validate (every layout, pass and mask) and calibrate print no nan or inf (tests/no_nan.sh).
    add_test(NAME exec_text_no_nan COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/no_nan.sh $<TARGET_FILE:ringsim> exec)
    # a causal configuration: the causal and shifted calls are sampled with the runs and set the
    # kernel table's level at the sweep's B (studies/study_validate.c val_refit_kernel_table)
    add_test(NAME exec_validate_causal_samples COMMAND sh -c
      "$<TARGET_FILE:ringsim> validate -L striped --causal --blocks 16,32 --rounds 1 --reps 1 --min-time 0.005 --head-dim 32 --no-sim > vc.txt 2>&1; rc=$?; cat vc.txt; test $rc -eq 0 && grep -q 'kernel table at the sweep.s B from samples interleaved' vc.txt && grep -Eq '^ +32 +[0-9.]+ +[0-9.]+ +[0-9.]+$' vc.txt")
    add_test(NAME exec_validate_bad_input COMMAND sh -c
      "$<TARGET_FILE:ringsim> validate --blocks 64 2>&1; test $? -eq 2")
    # Inference: pass-q over a cached prefix (every layout) and decode, float64 check, 3 MPI ranks.
    add_test(NAME exec_mpi_pass_q_cached COMMAND $<TARGET_FILE:ringsim> exec ${RS_EXEC_SMALL} -N 3 -L all
      --cached 192 --ring pass-q --check --launch mpirun --timeout 30)
    add_test(NAME exec_mpi_decode COMMAND $<TARGET_FILE:ringsim> exec --heads 2 --kv-heads 1 --head-dim 16 --tile 8
      --dtype fp32 --reps 1 --warmup 0 -N 3 -L striped --pass decode --batch 4 --cached 96 --check --launch mpirun
      --timeout 30)
    set_tests_properties(exec_mpi_pass_q_cached exec_mpi_decode PROPERTIES
      LABELS "exec;mpi" TIMEOUT 120 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0;OMPI_MCA_rmaps_base_oversubscribe=1")
    set_tests_properties(exec_mpi_check_thread exec_mpi_check_poll exec_mpi_dead_rank exec_calibrate_profile
                         exec_validate_quick exec_validate_causal_samples exec_validate_bad_input exec_text_no_nan PROPERTIES
      LABELS "exec;mpi" TIMEOUT 120 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0;OMPI_MCA_rmaps_base_oversubscribe=1")
  endif()
endif()

# calibrate / validate --from-trace (studies/study_fromtrace.c): traces of a known profile through
# Kineto and back, the fit within 1%, validate ~0, bad input.
if(TARGET rs_exec)
  rs_add_cunit_test(test_fromtrace SOURCES test_fromtrace.c LIBS rs_studies LABELS "exec;traces")
  set_tests_properties(test_fromtrace PROPERTIES TIMEOUT 120)
endif()
