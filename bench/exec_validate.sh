#!/bin/sh
# exec_validate.sh - run `ringsim validate` R times (default 3) and print one line per run: load
# average, the medians of the per-(rank, step) |error| of T_comp, T_comm, T_step, the median makespan
# |error| over the sweep, and the measured / predicted crossover B where T_comm = the compute
# alone (the seed's overlap threshold; docs/exec.md section 5). The machine's load changes
# between runs (shared machines): compare the runs, not one of them. Targets (issue 4): medians
# <= 0.10 for T_comp, T_comm and the makespan, crossover within 25%.
# usage: bench/exec_validate.sh BUILD_DIR [R] [validate options...]
set -u
build=${1:?usage: exec_validate.sh BUILD_DIR [R] [validate options]}
runs=${2:-3}
[ $# -ge 2 ] && shift 2 || shift 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "run  load   t_comp  t_comm  t_step  makespan  crossover (seed's threshold) meas / model (err)"
i=1
while [ "$i" -le "$runs" ]; do
  load=$(cut -d' ' -f1 /proc/loadavg)
  if ! "$build/bin/ringsim" validate "$@" >"$out" 2>&1; then
    echo "run $i failed:"; cat "$out"; exit 1
  fi
  # the first block of statistics is the model's (the simulator's follows)
  awk -v run="$i" -v load="$load" '
    /^# per-\(rank, step\)/ { model = 1 }
    /^# simulator vs measured/ { model = 0 }
    model && $1 == "t_comp" { c = $3 }
    model && $1 == "t_comm" { m = $3 }
    model && $1 == "t_step" { s = $3 }
    model && $1 == "makespan" { k = $3 }
    function after(line, key,   t) { t = substr(line, index(line, key) + length(key)); sub(/[,) ].*/, "", t); return t }
    /^# crossover B \(T_comm = T_comp alone/ { meas = after($0, "measured "); walk = after($0, "walk "); err = after($0, "err ") }
    END { printf "%3d  %5s  %6s  %6s  %6s  %8s  %s / %s (%s)\n", run, load, c, m, s, k, meas, walk, err }' "$out"
  i=$((i + 1))
done
