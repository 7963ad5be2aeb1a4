#!/bin/sh
# validate_ranks_list.sh RINGSIM - `ringsim validate --ranks-list` keeps its temporaries in the output
# module (output.h): the per-N summaries in "$TMPDIR/ringsim-validate.PID.XXXXXX", the per-N
# --csv / --save-profile / --trace-dir held until every N has run. Checks, each in a fresh folder with
# its own $TMPDIR (the threads launcher: no mpirun needed):
#   1. a run whose second N fails (--cached 4 does not divide over N = 3) exits with the child's 2 and
#      leaves nothing: no per-N output of the N that passed, no --trace-dir, no temporary;
#   2. SIGTERM while the first child runs: exit 143, the child is gone, nothing is left;
#   3. a temporary folder of a dead PID ("ringsim-validate.<pid>.XXXXXX", a SIGKILLed run's) is
#      removed by the next run, one of a live PID is kept;
#   4. a run that passes commits every per-N output and the summary, and leaves no temporary.
set -u
bin=${1:?usage: validate_ranks_list.sh RINGSIM}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
root=$(mktemp -d /tmp/ringsim-vrl-XXXXXX)
trap 'rm -rf "$root"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
quick="validate --launch threads --blocks 8,16 --rounds 1 --reps 1 --warmup 0 --min-time 0.001 --no-sim -q"
outs="--csv v.csv --save-profile p.json --trace-dir td --summary s.csv"
# fresh NAME: a folder with its own TMPDIR, entered
fresh() { mkdir -p "$root/$1/tmp" && cd "$root/$1" && TMPDIR=$root/$1/tmp && export TMPDIR; }
# nothing_left: only the driver's own files (out.txt, err.txt, tmp/) remain, and tmp/ is empty
nothing_left() {
  left=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' -e '^tmp$' | tr '\n' ' ')
  [ -z "$left" ] || fail "$1: left behind: $left"
  [ -z "$(ls -A tmp)" ] || fail "$1: temporaries left in \$TMPDIR: $(ls -A tmp | tr '\n' ' ')"
}

# 1. the second N fails
fresh fail
"$bin" $quick --ranks-list 2,3 --cached 4 $outs >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 2 ] || fail "1: exit $rc, expected 2"
grep -q -- '--cached 4: must be divisible by N = 3' err.txt || fail "1: stderr: $(cat err.txt)"
grep -q 'held-out table' out.txt || fail "1: the first N did not run (stdout: $(head -c 300 out.txt))"
nothing_left 1

# 2. SIGTERM during the first N
fresh term
"$bin" validate --launch threads --blocks 8,16,32,64 --rounds 100 --reps 5 --min-time 0.02 --no-sim -q --ranks-list 2,3 $outs \
  >out.txt 2>err.txt &
pid=$!
i=0
while [ $i -lt 300 ] && ! ls td/N2.tmp.* >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done # the first child is running
ls tmp/ringsim-validate.* >/dev/null 2>&1 || fail "2: no ringsim-validate.PID temporary while running"
kill -TERM "$pid"
wait "$pid" 2>/dev/null
rc=$?
[ "$rc" -eq 143 ] || fail "2: exit $rc, expected 143 (SIGTERM)"
sleep 0.5
pgrep -f "summary=$root/term/tmp" >/dev/null 2>&1 && fail "2: a child validate is still running"
nothing_left 2

# 3. a dead PID's temporary is removed by the next run, a live one's is kept
fresh stale
sh -c 'exit 0' &
dead=$!
wait "$dead"
kill -0 "$dead" 2>/dev/null && dead=999999999
mkdir "tmp/ringsim-validate.$dead.AbCdEf" "tmp/ringsim-validate.$$.GhIjKl"
: >"tmp/ringsim-validate.$dead.AbCdEf/N2.csv"
"$bin" $quick --ranks-list 2,3 >out.txt 2>err.txt || fail "3: exit $?: $(cat err.txt)"
[ -e "tmp/ringsim-validate.$dead.AbCdEf" ] && fail "3: the dead PID's temporary folder is still there"
[ -d "tmp/ringsim-validate.$$.GhIjKl" ] || fail "3: a live PID's temporary folder was removed"
rmdir "tmp/ringsim-validate.$$.GhIjKl"
nothing_left 3

# 4. a run that passes
fresh pass
"$bin" $quick --ranks-list 2,3 $outs >out.txt 2>err.txt || fail "4: exit $?: $(cat err.txt)"
for f in v-N2.csv v-N3.csv p-N2.json p-N3.json s.csv td/N2/validate-B8-exec.csv td/N3/validate-B16-model.csv; do
  [ -s "$f" ] || fail "4: $f missing or empty"
done
[ "$(grep -vc '^#' s.csv)" -eq 3 ] || fail "4: s.csv: expected a header and one row per N"
# --no-sim: the per-B CSV's makespan_sim_s cell is empty, never "nan" (a reader's parser takes it)
grep -qi 'nan\|inf' v-N2.csv && fail "4: v-N2.csv has a non-finite cell: $(grep -i 'nan\|inf' v-N2.csv | head -1)"
awk -F, 'NR > 1 && (NF != 13 || $13 != "" || $5 == "") { bad = 1 } END { exit !bad }' v-N2.csv &&
  fail "4: v-N2.csv: a row without 13 cells, an empty measured cell or a sim cell with --no-sim: $(sed -n 2p v-N2.csv)"
grep -q 'every N' out.txt || fail "4: no table of every N"
ls ./*.tmp.* td/*.tmp.* >/dev/null 2>&1 && fail "4: a temporary output is left"
[ -z "$(ls -A tmp)" ] || fail "4: temporaries left in \$TMPDIR"

[ "$fails" -eq 0 ] || exit 1
echo "4 passed, 0 failed"
