#!/bin/sh
# no_nan.sh RINGSIM [exec] - no nan, -nan or inf reaches a reader: the report's report.md and
# report.html, and the text every command prints (model and sim tables, plan's table, a sweep's summary
# lines and its CSV's crossover lines; with "exec": validate's output over every layout, pass and
# mask on tiny blocks, and calibrate's tables). Cases that could print nan: a sweep whose crossover
# is not reached, plan without --sim or prices, validate's crossovers in backward passes and causal
# sweeps, calibration's overlap points whose eta is undetermined; calibrate and validate --from-trace.
set -u
bin=${1:?usage: no_nan.sh RINGSIM [exec]}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
dir=$(mktemp -d /tmp/ringsim-nonan-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
run() { # run NAME ARGS...: the command's stdout and stderr into NAME.txt; it must succeed
  name=$1
  shift
  "$bin" "$@" >"$name.txt" 2>&1 || { echo "FAIL: ringsim $* exited $?"; cat "$name.txt"; fail=1; }
}
run report report -o rep --quick --no-exec --force
run model model
run model_inter model -p h100-sxm -N 32 -L zigzag -P forward
run sim sim -N 4 -S 8K -L all -P both
run plan plan --model llama3-8b
run sweep sweep --block 64:1K:x4 -N 2 -L zigzag -o sweep.csv
grep '^# crossover' sweep.csv >sweep_crossovers.txt
files="rep/report.md rep/report.html model.txt model_inter.txt sim.txt plan.txt sweep.txt sweep_crossovers.txt"
if [ "${2:-}" = exec ]; then
  run validate validate --blocks 16,32 --rounds 1 --reps 1 --min-time 0.005 --head-dim 32 --no-sim -L all -P both --mask both \
    --summary heldout.csv
  run calibrate calibrate --out cal.json --blocks 16,32,64 --min-time 0.005 --head-dim 32
  # from traces: the walk's traces at two B (forward; contiguous causal: idle ranks, skipped steps)
  run tr1 model -S 4K -N 4 -L contiguous -P forward --trace t1.csv
  run tr2 model -S 8K -N 4 -L contiguous -P forward --trace t2.csv
  run calibrate_ft calibrate --out ft.json --from-trace t1.csv t2.csv
  run validate_ft validate --from-trace t1.csv t2.csv --calibrated ft.json
  files="$files validate.txt calibrate.txt calibrate_ft.txt validate_ft.txt"
  grep -q 'held-out table' validate.txt || { echo "FAIL: validate printed no held-out table"; fail=1; }
fi
for f in $files; do
  [ -s "$f" ] || { echo "FAIL: $f is missing or empty"; fail=1; continue; }
  if grep -n -i -w -E 'nan|-nan|inf|-inf|infinity' "$f"; then
    echo "FAIL: $f has nan or inf (lines above)"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "no nan or inf in: $files"
exit $fail
