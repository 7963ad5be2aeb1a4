#!/bin/sh
# signals.sh RINGSIM [GNUPLOT] - interrupted, raced, size-limited and orphaned runs lose nothing and
# leave nothing behind (docs/architecture.md, "Outputs, signals, children and locales"). Each case is bounded (timeout) and runs in a scratch
# folder with its own $TMPDIR, removed at the end:
#   1. Ctrl-C during `sweep -o out.csv` leaves the previous complete out.csv byte for byte; the points
#      finished so far go to out.partial.csv, which reads back as a sweep;
#   2. two `report -o R` without --force started together: exactly one succeeds, the other fails
#      (exit 1 "created by another run meanwhile", or exit 2 "exists"), R is the winner's, whole;
#   3. under `ulimit -f 16`, `sim --trace` and `sweep -o` exit 1 naming the file ("File too large"),
#      with no temporary left;
#   4. a gnuplot that ignores SIGTERM and never returns is ended by the child bound
#      (RINGSIM_CHILD_TIMEOUT_S) with its process group: `plot` exits 1 "timeout after 1 s" at once,
#      its stderr folder removed;
#      and `sweep --exec` with an exec binary that never returns reports its point timed out, leaving
#      no ringsim-sweep-exec folder;
#   5. SIGKILL of `plot` while its gnuplot runs: the child dies with it (PR_SET_PDEATHSIG);
#   6. a sweep whose output name holds a newline writes `# command=` on one line (escaped), and the
#      file reads back (`plot`, with GNUPLOT);
#   7. with GNUPLOT: `plot` in the C locale and in an empty environment draws the figure (gnuplot's
#      iconv warning there is not a failure).
set -u
bin=${1:?usage: signals.sh RINGSIM [GNUPLOT]}
gnuplot=${2:-}
name=signals
. "$(dirname "$0")/scratch.sh"

# --- 1. Ctrl-C never replaces a previous complete output ---
"$bin" sweep --block 1K:8K:x2 -N 2,4 -q -o out.csv || bad "the first sweep failed"
cp out.csv before.csv
timeout 120 "$bin" sweep -N 8:512:x2 -S 64K:4M:x2 --sim -q -o out.csv 2>sweep_int.txt &
p=$!
pids="$pids $p"
sleep 3
kill -INT $p
wait $p
rc=$?
cmp -s out.csv before.csv || bad "1: Ctrl-C replaced the previous out.csv (exit $rc)"
grep -q "kept in out.partial.csv (out.csv is left as it was)" sweep_int.txt || bad "1: no word of the partial file: $(cat sweep_int.txt)"
[ -f out.partial.csv ] && grep -q '^# ringsim-sweep=1' out.partial.csv || bad "1: out.partial.csv missing or not a sweep"
[ "$(temps)" = 0 ] || bad "1: temporaries left: $(find . -name '*.tmp.*'; ls tmp)"

# --- 2. concurrent reports without --force: one wins, the other fails ---
timeout 120 "$bin" report --quick --no-sim --no-exec --no-figures -q -o R >ra.txt 2>&1 &
a=$!
timeout 120 "$bin" report --quick --no-sim --no-exec --no-figures -q -o R >rb.txt 2>&1 &
b=$!
pids="$pids $a $b"
wait $a
ra=$?
wait $b
rb=$?
ok=0
[ $ra = 0 ] && ok=$((ok + 1))
[ $rb = 0 ] && ok=$((ok + 1))
[ $ok = 1 ] || bad "2: $ok of 2 concurrent reports succeeded (exits $ra $rb): $(cat ra.txt rb.txt)"
cat ra.txt rb.txt | grep -Eq "R: created by another run meanwhile|-o R: exists" || bad "2: the loser did not say why: $(cat ra.txt rb.txt)"
[ -f R/report.md ] && [ -f R/report.html ] || bad "2: R is not a whole report"
[ "$(temps)" = 0 ] || bad "2: temporaries left"

# --- 3. a file-size limit: the write fails, names the file, leaves nothing ---
(ulimit -f 16; timeout 60 "$bin" sim -N 8 -S 128K --trace t.csv >/dev/null 2>sim_fsz.txt; echo $? >sim_rc.txt)
[ "$(cat sim_rc.txt)" = 1 ] || bad "3: sim under ulimit -f exited $(cat sim_rc.txt), not 1"
grep -q "t.csv: write failed: File too large" sim_fsz.txt || bad "3: sim did not name its file: $(cat sim_fsz.txt)"
(ulimit -f 16; timeout 60 "$bin" sweep -N 8:512:x2 -S 4K:4M:x2 -q -o big.csv 2>sweep_fsz.txt; echo $? >sweep_rc.txt)
[ "$(cat sweep_rc.txt)" = 1 ] || bad "3: sweep under ulimit -f exited $(cat sweep_rc.txt), not 1"
grep -q "big.csv: write failed: File too large" sweep_fsz.txt || bad "3: sweep did not name its file: $(cat sweep_fsz.txt)"
[ ! -e t.csv ] && [ ! -e big.csv ] || bad "3: a half-written output is left"
[ "$(temps)" = 0 ] || bad "3: temporaries left: $(find . -name '*.tmp.*'; ls tmp)"

# --- 4. a hanging gnuplot that ignores SIGTERM: the bound ends its group ---
printf '#!/bin/sh\ntrap "" TERM\nsleep 300 &\necho $! >"%s/hang.pid"\nwait\n' "$dir" >hang.sh
chmod +x hang.sh
t0=$(date +%s)
RINGSIM_CHILD_TIMEOUT_S=1 RINGSIM_GNUPLOT=./hang.sh timeout 60 "$bin" plot scaling out.csv -o f.png 2>plot_hang.txt
rc=$?
t1=$(date +%s)
[ $rc = 1 ] || bad "4: plot with a hanging gnuplot exited $rc"
grep -q "timeout after 1 s" plot_hang.txt || bad "4: no timeout message: $(cat plot_hang.txt)"
[ $((t1 - t0)) -le 10 ] || bad "4: plot took $((t1 - t0)) s to give up"
sleep 0.5
[ -f hang.pid ] && ! alive "$(cat hang.pid)" || bad "4: gnuplot's own child survived"
[ ! -e f.png ] && [ "$(temps)" = 0 ] || bad "4: a figure or a temporary is left: $(ls tmp)"

# --- 5. SIGKILL of the parent: its child dies with it ---
printf '#!/bin/sh\necho $$ >"%s/child.pid"\nexec sleep 300\n' "$dir" >sleepy.sh
chmod +x sleepy.sh
RINGSIM_GNUPLOT=./sleepy.sh timeout 60 "$bin" plot scaling out.csv -o g.png 2>/dev/null &
p=$!
pids="$pids $p"
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s child.pid ] && break; sleep 0.3; done
kill -9 "$(pgrep -P $p ringsim || echo $p)" 2>/dev/null # the ringsim under timeout
wait $p 2>/dev/null
sleep 1
[ -s child.pid ] || bad "5: the gnuplot stand-in never started"
if [ -s child.pid ] && alive "$(cat child.pid)"; then
  bad "5: the child outlived its killed parent"
  kill -9 "$(cat child.pid)" 2>/dev/null
fi
# the killed run's temporary (SIGKILL cannot be cleaned up after) goes at the next run on that name
RINGSIM_GNUPLOT=/bin/true timeout 60 "$bin" plot scaling out.csv -o g.png 2>/dev/null
rm -f g.png
[ "$(temps)" = 0 ] || bad "5: the killed run's temporary was not removed by the next run: $(find . -name '*.tmp.*')"

# --- 4b. sweep --exec with an exec binary that never returns: bounded, its temporary folder removed ---
printf '#!/bin/sh\nexec sleep 300\n' >never.sh
chmod +x never.sh
RINGSIM_CHILD_TIMEOUT_S=1 timeout 60 "$bin" sweep --block 1K -N 2 --dtype fp32 --exec --exec-bin ./never.sh -q -o x.csv 2>/dev/null
grep -q "exec failed (ringsim exec --launch=mpirun timeout after 1 s)" x.csv || bad "4b: the hanging exec is not reported as timed out"
[ "$(temps)" = 0 ] || bad "4b: sweep --exec left a temporary: $(ls tmp)"
rm -f x.csv

# --- 6. a newline in argv: the header stays one line and the file reads back ---
nl='new
line.csv'
"$bin" sweep --block 1K:4K:x2 -N 2 -q -o "$nl" || bad "6: sweep -o with a newline failed"
grep -q '^# command=.*-o new\\nline.csv$' "$nl" || bad "6: the command line is not escaped: $(head -3 "$nl")"
[ "$(grep -vc '^#' "$nl")" = "$(grep -v '^#' "$nl" | grep -c ',')" ] || bad "6: a header line lost its '#'"
if [ -n "$gnuplot" ]; then
  "$bin" plot scaling "$nl" -o nl.png 2>plot_nl.txt || bad "6: plot cannot read the file: $(cat plot_nl.txt)"
fi

# --- 7. plotting in the C locale and in an empty environment ---
if [ -n "$gnuplot" ]; then
  gdir=$(dirname "$gnuplot")
  env -i PATH="$gdir:/usr/bin:/bin" TMPDIR="$TMPDIR" LC_ALL=C "$bin" plot scaling out.csv -o c.png 2>plot_c.txt ||
    bad "7: plot in LC_ALL=C failed: $(cat plot_c.txt)"
  env -i PATH="$gdir:/usr/bin:/bin" "$bin" plot scaling out.csv -o e.png 2>plot_e.txt ||
    bad "7: plot in an empty environment failed: $(cat plot_e.txt)"
  [ -s c.png ] && [ -s e.png ] || bad "7: a figure is missing"
fi
[ "$(temps)" = 0 ] || bad "temporaries left at the end: $(find . -name '*.tmp.*'; ls tmp)"
[ $fail = 0 ] && echo "signals: every case passed"
exit $fail
