#!/bin/sh
# sweep_mpi.sh RINGSIM - `mpirun -np P ringsim sweep ...` divides the points over the ranks (their
# SimGrid children included) and rank 0 writes the one CSV: byte-identical to one process, for
# P = 2, 3 and 4 (more ranks than points of some series; -np 4 with 22 points). A rank whose point
# fails (RINGSIM_SWEEP_FAIL_POINT, a test hook) names its points; the job exits non-zero and no file
# (nor temporary) is left. Every mpirun runs under a watchdog (timeout).
set -u
bin=${1:?usage: sweep_mpi.sh RINGSIM}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
dir=$(mktemp -d /tmp/ringsim-sweep-mpi-XXXXXX)
trap 'rm -rf "$dir"' EXIT
root=""
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root
watch="timeout -k 10 120"
args="--block 256:8K:x2 -N 2,4 -L zigzag,striped -P forward --profile h100-sxm,mi300x -q -o s.csv"
mkdir "$dir/one" && (cd "$dir/one" && "$bin" sweep $args) || { echo "FAIL: one process"; exit 1; }
for np in 2 3 4; do
  mkdir "$dir/np$np"
  (cd "$dir/np$np" && $watch mpirun $root --oversubscribe -np $np "$bin" sweep $args) || { echo "FAIL: -np $np exit $?"; exit 1; }
  cmp "$dir/one/s.csv" "$dir/np$np/s.csv" || { echo "FAIL: -np $np differs from one process"; exit 1; }
done
echo "ok: -np 2, 3, 4 write the single-process CSV ($(grep -vc '^#' "$dir/one/s.csv") lines)"
mkdir "$dir/fail"
cd "$dir/fail" || exit 1
RINGSIM_SWEEP_FAIL_POINT=5 $watch mpirun $root --oversubscribe -x RINGSIM_SWEEP_FAIL_POINT -np 3 "$bin" sweep $args 2>err.txt
rc=$?
cat err.txt | grep ringsim
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || { echo "FAIL: a failed point, exit $rc"; exit 1; }
grep -q 'ringsim sweep: rank 2 (points 2 5 8 11 .*): point 5: failed on purpose' err.txt || { echo "FAIL: message"; exit 1; }
[ "$(grep -c '^ringsim sweep:' err.txt)" -eq 1 ] || { echo "FAIL: not one message"; exit 1; }
ls s.csv s.csv.tmp.* >/dev/null 2>&1 && { echo "FAIL: a file was left"; exit 1; }
echo "ok: the failing rank is named, exit $rc, no file"
exit 0
