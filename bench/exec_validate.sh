#!/bin/sh
# exec_validate.sh - run `ringsim validate` R times (default 3) and print, per run and configuration,
# the row of its held-out table (docs/validate.md, "Held-out configurations") with the load average
# before and after the run: the medians of the per-(rank, step) |error| of T_comp, T_comm, T_step,
# the median and largest makespan |error| over the sweep, the measured / predicted crossover B where
# T_comm = the compute alone (the seed's overlap threshold; '-': not reached, or no step computes
# without a transfer), and the measurement's own spread over its rounds (median |round - median of
# the rounds| / median) of T_comm, T_step and the makespan: an error within it is not resolved by
# the run.
# The machine's load changes between runs (shared machines): compare the runs, not one of them.
# Targets: at N = 2 medians <= 0.10 for T_comm, T_step and the makespan in every
# configuration; each run ends with a line counting the configurations within 10% per metric.
# usage: bench/exec_validate.sh BUILD_DIR [R] [validate options...]
#   e.g. bench/exec_validate.sh build 3 --layout all --pass both --mask both
set -u
build=${1:?usage: exec_validate.sh BUILD_DIR [R] [validate options]}
runs=${2:-3}
[ $# -ge 2 ] && shift 2 || shift 1
out=$(mktemp)
sum=$(mktemp)
trap 'rm -f "$out" "$sum"' EXIT
echo "run  load(before/after)  N  layout      pass      mask    fit       t_comp  t_comm  t_step  mk_med  mk_max  crossover meas / model  spread comm/step/mk"
i=1
while [ "$i" -le "$runs" ]; do
  l0=$(cut -d' ' -f1 /proc/loadavg)
  if ! "$build/bin/ringsim" validate "$@" --summary "$sum" >"$out" 2>&1; then
    echo "run $i failed:"; cat "$out"; exit 1
  fi
  l1=$(cut -d' ' -f1 /proc/loadavg)
  awk -F, -v run="$i" -v load="$l0/$l1" '
    function v(x) { return x == "" ? "-" : x }
    function f(x) { return x == "" ? "-" : sprintf("%.3f", x) }
    NR == 1 { next }
    { printf "%3d  %-18s  %s  %-10s  %-8s  %-6s  %-8s  %6.3f  %6.3f  %6.3f  %6.3f  %6.3f  %s / %s  %s / %s / %s\n", run, load, $1, $3, $4, $5,
             $8 == 1 ? "fitted" : "held-out", $9, $11, $13, $15, $16, v($17), v($18), f($22), f($23), f($24)
      n++; nc += $11 <= 0.10; ns += $13 <= 0.10; nm += $15 <= 0.10 }
    END { printf "%3d  within 10%%: T_comm %d of %d, T_step %d of %d, makespan %d of %d%s\n", run, nc, n, ns, n, nm, n,
                 nc == n && ns == n && nm == n ? " (every target met)" : "" }' "$sum"
  i=$((i + 1))
done
