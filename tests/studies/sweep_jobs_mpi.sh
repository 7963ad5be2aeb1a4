#!/bin/sh
# sweep_jobs_mpi.sh RINGSIM - `mpirun -np P ringsim sweep ... --fabric A,B --oversub ...` (a sweep of
# jobs of concurrent rings) divides its jobs over the ranks (studies/spread.c: job i on rank i mod P)
# and rank 0 writes the one CSV: for P = 2 and 4 (6 jobs: ranks 0 and 1 run two, ranks 2 and 3 one)
# the same bytes as one process in every column but the run's own cost (sim_wall_s, peak_rss_bytes).
# A rank whose job fails (RINGSIM_SWEEP_FAIL_POINT, a test hook) is named with its jobs; the run exits
# non-zero and leaves no file. Every mpirun runs under a watchdog (timeout).
set -u
bin=${1:?usage: sweep_jobs_mpi.sh RINGSIM}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
dir=$(mktemp -d /tmp/ringsim-sweep-jobs-mpi-XXXXXX)
trap 'rm -rf "$dir"' EXIT
root=""
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root
watch="timeout -k 10 120"
# tp 2 x cp 4 x dp 2 = 16 devices on nodes of 2 (every ring hop crosses nodes, one NIC per node),
# 2 fabrics x 3 spine ratios = 6 jobs
args="-S 16K -N 4 --tp 2 --dp 2 --gpus-per-node 2 --inter ib-ndr --fabric flat,leaf-spine --nodes-per-leaf 1 --oversub 1,2,4
      --nics 1 -L zigzag -P forward -q -o j.csv"
# The CSV without the cost columns, found by name in the column line.
strip() {
  awk -F, -v OFS=, '
    /^#/ { print; next }
    !hdr { for (i = 1; i <= NF; i++) if ($i == "sim_wall_s" || $i == "peak_rss_bytes") drop[i] = 1; hdr = 1 }
    { out = ""; n = 0; for (i = 1; i <= NF; i++) if (!(i in drop)) { out = out (n++ ? OFS : "") $i } print out }' "$1"
}
mkdir "$dir/one" && (cd "$dir/one" && $watch "$bin" sweep $args) || { echo "FAIL: one process"; exit 1; }
rows=$(grep -vc '^#' "$dir/one/j.csv")
[ "$rows" -eq 7 ] || { echo "FAIL: one process wrote $rows lines, expected the column line and 6 jobs"; exit 1; }
head=$(grep -v '^#' "$dir/one/j.csv" | head -1)
[ "$(echo "$head" | tr , '\n' | tail -2 | tr '\n' ' ')" = "sim_wall_s peak_rss_bytes " ] || { echo "FAIL: the cost columns are not last: $head"; exit 1; }
strip "$dir/one/j.csv" >"$dir/one.txt"
[ "$(grep -v '^#' "$dir/one.txt" | head -1 | tr , '\n' | grep -c .)" -eq 23 ] || { echo "FAIL: strip kept the wrong columns"; exit 1; }
# the 6 jobs are 6 different rows (a gather in the wrong order would not compare equal)
[ "$(grep -v '^#' "$dir/one.txt" | sort -u | wc -l)" -eq 7 ] || { echo "FAIL: rows repeat"; exit 1; }
for np in 2 4; do
  mkdir "$dir/np$np"
  (cd "$dir/np$np" && $watch mpirun $root --oversubscribe -np $np "$bin" sweep $args) || { echo "FAIL: -np $np exit $?"; exit 1; }
  strip "$dir/np$np/j.csv" >"$dir/np$np.txt"
  cmp "$dir/one.txt" "$dir/np$np.txt" || { echo "FAIL: -np $np differs from one process"; diff "$dir/one.txt" "$dir/np$np.txt"; exit 1; }
done
echo "ok: -np 2 and 4 write the single-process CSV but for sim_wall_s and peak_rss_bytes (6 jobs)"
mkdir "$dir/fail"
cd "$dir/fail" || exit 1
RINGSIM_SWEEP_FAIL_POINT=5 $watch mpirun $root --oversubscribe -x RINGSIM_SWEEP_FAIL_POINT -np 4 "$bin" sweep $args 2>err.txt
rc=$?
grep ringsim err.txt
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || { echo "FAIL: a failed job, exit $rc"; exit 1; }
grep -qx 'ringsim sweep: rank 1 (points 1 5): point 5 (leaf-spine/tp-cp-dp/K=1): failed on purpose (RINGSIM_SWEEP_FAIL_POINT)' err.txt ||
  { echo "FAIL: message"; exit 1; }
[ "$(grep -c '^ringsim sweep:' err.txt)" -eq 1 ] || { echo "FAIL: not one message"; exit 1; }
[ "$(ls)" = "err.txt" ] || { echo "FAIL: a file was left: $(ls)"; exit 1; }
echo "ok: the failing rank is named with its jobs, exit $rc, no file"
exit 0
