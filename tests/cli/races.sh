#!/bin/sh
# races.sh RINGSIM - concurrent runs on one output and interrupted MPI jobs (docs/architecture.md,
# "Outputs, signals, children and locales"). Each case is bounded (timeout) and runs in a scratch
# folder with its own $TMPDIR, removed at the end. A race is made certain, not left to timing: run A
# is stopped (SIGSTOP) once it is past its checks (its temporary exists), run B runs to its end, then
# A goes on (SIGCONT) and commits after B:
#   1. two `sweep -o out.csv`: B's output stays whole, A exits 1 "out.csv: replaced by another run
#      meanwhile"; when out.csv was missing at the start, A says "created by another run meanwhile";
#   2. two `report --force -o R` into an existing R: B's report stays, A exits 1 "R: replaced by
#      another run meanwhile" and merges none of its files;
#   6. a partial result: `sweep -o p.csv` stopped after its first point, another run commits
#      p.partial.csv, then the first is interrupted (SIGINT): its partial commit finds p.partial.csv
#      created meanwhile, exits 1 "p.partial.csv: created by another run meanwhile" and the other's
#      file stays; p.csv is not written;
#   with mpirun (skipped without it):
#   3. two `exec -N 2 --trace t.csv` (the ranks hand their outputs to the launching run, which commits
#      them): the same as 1;
#   4. SIGINT to the process group of `exec -N 2` at 0.5 .. 2.5 s: the previous t.csv stays byte for
#      byte, no temporary is left beside it or in $TMPDIR; while the job runs, Open MPI's
#      shared-memory segments (vader_segment.*) lie in the run's folder, not in /dev/shm;
#   5. SIGKILL of `exec`: its ranks are gone within 5 s, its output is not replaced afterwards, and
#      the next MPI run removes the dead run's folder;
#   7. a plain `mpirun -np 2 ringsim exec` (not launched by ringsim): while it runs, Open MPI's
#      shared-memory segments lie in mpirun's session folder in $TMPDIR, not in /dev/shm; after a
#      normal end and after SIGINT to its process group nothing is left in $TMPDIR or /dev/shm, and
#      no process of the job (the session folder's watcher included) within 5 s.
set -u
bin=${1:?usage: races.sh RINGSIM}
name=races
. "$(dirname "$0")/scratch.sh"
# wait (at most 60 s) until the glob $1 matches something
await() { for _ in $(seq 600); do for f in $1; do [ -e "$f" ] && return 0; done; sleep 0.1; done; return 1; }

# race A B GLOB OUT: start command A, stop it once GLOB exists, run B, go on with A; the exits in
# ra, rb, B's stderr in b.txt, A's in a.txt, OUT as B left it in b.out
race() {
  timeout 120 sh -c "$1" >a.txt 2>&1 &
  a=$!
  pids="$pids $a"
  await "$3" || bad "race: A never got past its checks: $1"
  ringsim_a=$(pgrep -P $a | head -1) # the ringsim under sh: it is what commits
  kill -STOP "${ringsim_a:-$a}"
  timeout 120 sh -c "$2" >b.txt 2>&1
  rb=$?
  cp -R "$4" b.out 2>/dev/null
  kill -CONT "${ringsim_a:-$a}"
  wait $a
  ra=$?
}

# --- 1. two sweeps on one file ---
slow="\"$bin\" sweep -N 8:128:x2 -S 256K:8M:x2 --sim -q"
fast="\"$bin\" sweep --block 1K:8K:x2 -N 2,4 -q"
sh -c "$fast -o out.csv" || bad "1: the first sweep failed"
race "$slow -o out.csv" "$fast -N 2 -o out.csv" 'out.csv.tmp.*' out.csv
[ $rb = 0 ] || bad "1: the later-started, first-committing sweep failed ($rb): $(cat b.txt)"
[ $ra = 1 ] || bad "1: the sweep that committed second exited $ra, not 1: $(cat a.txt)"
grep -q "out.csv: replaced by another run meanwhile: that run's output is kept" a.txt || bad "1: the loser did not say so: $(cat a.txt)"
cmp -s out.csv b.out || bad "1: out.csv is not the winner's"
grep -q '^# command=.* -N 2 -o out.csv$' out.csv || bad "1: out.csv is not the winner's: $(grep command= out.csv)"
[ "$(temps)" = 0 ] || bad "1: temporaries left: $(find . -name '*.tmp.*'; ls tmp)"
rm -f b.out
race "$slow -o new.csv" "$fast -o new.csv" 'new.csv.tmp.*' new.csv
[ $rb = 0 ] && [ $ra = 1 ] || bad "1: missing at the start: exits $ra $rb: $(cat a.txt b.txt)"
grep -q "new.csv: created by another run meanwhile" a.txt || bad "1: missing at the start: the loser did not say so: $(cat a.txt)"
cmp -s new.csv b.out || bad "1: new.csv is not the winner's"
rm -f b.out

# --- 2. two reports with --force into one folder ---
"$bin" report --quick --no-sim --no-exec --no-figures -q -o R >/dev/null 2>&1 || bad "2: the first report failed"
race "\"$bin\" report --force --quick --no-exec --no-figures -q -o R" \
  "\"$bin\" report --force --quick --no-sim --no-exec --no-figures -q -o R" 'R.tmp.*.ringsim' R
[ $rb = 0 ] && [ $ra = 1 ] || bad "2: exits $ra (A) $rb (B), not 1 and 0: $(cat a.txt b.txt)"
grep -q "R: replaced by another run meanwhile" a.txt || bad "2: the loser did not say so: $(cat a.txt)"
diff -r R b.out >/dev/null || bad "2: R is not the winner's report: $(diff -rq R b.out | head -3)"
[ "$(temps)" = 0 ] || bad "2: temporaries left: $(find . -name '*.tmp.*'; ls tmp)"
rm -rf b.out

# --- 6. a partial commit against another run's commit of the same name ---
timeout 120 "$bin" sweep -N 8:512:x2 -S 64K:4M:x2 --sim -q -o p.csv >a.txt 2>&1 &
a=$!
pids="$pids $a"
# stopped once a point's row is in its temporary (rows are flushed one by one)
rows() { for f in p.csv.tmp.*; do [ -e "$f" ] && grep -vc '^#' "$f"; done 2>/dev/null | head -1; }
for _ in $(seq 600); do [ "$(rows)" -ge 2 ] 2>/dev/null && break; sleep 0.1; done
[ "$(rows)" -ge 2 ] 2>/dev/null || bad "6: the sweep never finished a point"
rs=$(pgrep -P $a | head -1) # the ringsim under timeout: it is what commits
kill -STOP "${rs:-$a}"
sh -c "$fast -o p.partial.csv" >b.txt 2>&1 || bad "6: the other run failed: $(cat b.txt)"
cp p.partial.csv b.out
kill -INT "${rs:-$a}"
kill -CONT "${rs:-$a}"
wait $a
ra=$?
[ $ra = 1 ] || bad "6: the interrupted sweep exited $ra, not 1: $(cat a.txt)"
grep -q "p.partial.csv: created by another run meanwhile: that run's output is kept" a.txt || bad "6: the loser did not say so: $(cat a.txt)"
[ "$(wc -l <a.txt)" = 1 ] || bad "6: not one line: $(cat a.txt)"
cmp -s p.partial.csv b.out || bad "6: p.partial.csv is not the other run's"
[ -e p.csv ] && bad "6: p.csv was written"
[ "$(temps)" = 0 ] || bad "6: temporaries left: $(find . -name '*.tmp.*'; ls tmp)"
rm -f b.out

# --- MPI: the ranks' outputs, temporaries and shared memory ---
exe="\"$bin\" exec -N 2 --dtype fp32 --warmup 0"
if ! command -v mpirun >/dev/null || ! timeout 120 sh -c "$exe --seq 1K --reps 1 --trace t.csv" >mpi.txt 2>&1; then
  echo "races: MPI cases skipped: no mpirun or no MPI in this build ($(tail -1 mpi.txt 2>/dev/null))"
else
  # --- 3. two exec runs on one trace ---
  race "$exe --seq 16K --reps 6 --trace t.csv" "$exe --seq 1K --reps 1 --trace t.csv" 'tmp/ringsim-mpi.*' t.csv
  [ $rb = 0 ] && [ $ra = 1 ] || bad "3: exits $ra (A) $rb (B), not 1 and 0: $(cat a.txt b.txt)"
  grep -q "t.csv: replaced by another run meanwhile" a.txt || bad "3: the loser did not say so: $(cat a.txt)"
  cmp -s t.csv b.out || bad "3: t.csv is not the winner's"
  [ "$(temps)" = 0 ] || bad "3: temporaries left: $(find . -name '*.tmp.*'; ls tmp)"
  rm -f b.out

  # --- 4. SIGINT to the process group late and early in the job ---
  cp t.csv before.csv
  seen=0
  for d in 0.5 1 1.5 2 2.5; do
    # a group of its own, SIGINT not ignored (as sh leaves it for a command in the background)
    setsid env --default-signal=INT,TERM timeout 120 "$bin" exec -N 2 --dtype fp32 --warmup 0 --seq 16K --reps 6 \
      --trace t.csv >int.txt 2>&1 &
    p=$!
    pids="$pids $p"
    sleep $d
    for s in tmp/ringsim-mpi.*/vader_segment.*; do # Open MPI's segments, in the run's folder
      [ -e "$s" ] || continue
      seen=1
      [ -e "/dev/shm/${s##*/}" ] && bad "4: $s is in /dev/shm too"
    done
    kill -INT "-$p" 2>/dev/null
    wait $p
    rc=$?
    [ $rc != 0 ] || bad "4: SIGINT at $d s: exec went on to exit 0"
    cmp -s t.csv before.csv || bad "4: SIGINT at $d s replaced t.csv"
    [ "$(temps)" = 0 ] || bad "4: SIGINT at $d s left: $(find . -name '*.tmp.*'; find tmp)"
  done
  [ $seen = 1 ] || bad "4: no shared-memory segment seen in the run's folder"

  # --- 5. SIGKILL of the launching run ---
  "$bin" exec -N 2 --dtype fp32 --warmup 0 --seq 16K --reps 6 --trace "$dir/t.csv" >kill.txt 2>&1 & # killed below
  p=$!
  pids="$pids $p"
  await 'tmp/ringsim-mpi.*/vader_segment.*' || bad "5: the job never started"
  kill -9 $p
  wait $p 2>/dev/null
  for _ in $(seq 50); do pgrep -f "trace $dir/t.csv" >/dev/null || break; sleep 0.1; done
  pgrep -f "trace $dir/t.csv" >/dev/null && bad "5: ranks outlived their killed launcher: $(pgrep -af "trace $dir/t.csv")"
  sleep 1
  cmp -s t.csv before.csv || bad "5: t.csv was replaced after its run was killed"
  timeout 120 sh -c "$exe --seq 1K --reps 1 --trace u.csv" >/dev/null 2>&1 || bad "5: the next exec failed"
  [ "$(temps)" = 0 ] || bad "5: the killed run's folder is left after the next run: $(find tmp)"

  # --- 7. a plain mpirun job ---
  root=""
  [ "$(id -u)" = 0 ] && root="--allow-run-as-root"
  timeout 120 mpirun $root --oversubscribe -np 2 "$bin" exec -N 2 --dtype fp32 --warmup 0 --seq 1K --reps 1 --trace p7.csv >p7.txt 2>&1 ||
    bad "7: the plain mpirun job failed: $(tail -3 p7.txt)"
  for _ in $(seq 50); do [ "$(temps)" = 0 ] && break; sleep 0.1; done
  [ "$(temps)" = 0 ] || bad "7: a normal end left: $(find tmp)"
  setsid env --default-signal=INT,TERM timeout 120 mpirun $root --oversubscribe -np 2 "$bin" exec -N 2 --dtype fp32 --warmup 0 --seq 16K \
    --reps 6 --trace "$dir/p7.csv" >p7.txt 2>&1 &
  p=$!
  pids="$pids $p"
  await 'tmp/ompi.*/pid.*/vader_segment.*.1' || bad "7: no shared-memory segment of rank 1 in mpirun's session folder: $(find tmp; tail -3 p7.txt)"
  await 'tmp/ompi.*/pid.*/vader_segment.*.0' || bad "7: no shared-memory segment of rank 0 in mpirun's session folder: $(find tmp; tail -3 p7.txt)"
  segs=$(for s in tmp/ompi.*/pid.*/vader_segment.*; do [ -e "$s" ] && echo "${s##*/}"; done)
  for s in $segs; do [ -e "/dev/shm/$s" ] && bad "7: $s is in /dev/shm too"; done
  kill -INT "-$p" 2>/dev/null
  wait $p
  for _ in $(seq 50); do pgrep -f "trace $dir/p7.csv" >/dev/null || break; sleep 0.1; done
  pgrep -f "trace $dir/p7.csv" >/dev/null && bad "7: processes of the job left: $(pgrep -af "trace $dir/p7.csv")"
  [ "$(temps)" = 0 ] || bad "7: SIGINT left: $(find tmp)"
  for s in $segs; do [ -e "/dev/shm/$s" ] && bad "7: SIGINT left /dev/shm/$s"; done
fi
[ $fail = 0 ] && echo "races: every case passed"
exit $fail
