#!/bin/sh
# exec_validate.sh - run `ringsim validate` R times (default 3) and print each run's summary:
# load average, per-(rank, step) error statistics, makespan and crossover. The machine's load
# changes between runs (shared machines): compare the runs, not one of them.
# usage: bench/exec_validate.sh BUILD_DIR [R] [validate options...]
set -u
build=${1:?usage: exec_validate.sh BUILD_DIR [R] [validate options]}
runs=${2:-3}
[ $# -ge 2 ] && shift 2 || shift 1
i=1
while [ "$i" -le "$runs" ]; do
  echo "## run $i: $(uptime | sed 's/.*load/load/')"
  "$build/bin/ringsim" validate "$@" 2>&1 | grep -E '^# profile|^  (t_comp|t_comm|t_step|makespan) |^# crossover|^# simulator'
  i=$((i + 1))
done
