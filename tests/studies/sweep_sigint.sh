#!/bin/sh
# sweep_sigint.sh RINGSIM - Ctrl-C during `ringsim sweep -o out.csv` keeps the finished points in a
# valid file beside the output, out.partial.csv (out.csv itself is not written: a previous complete
# one would stay). Ctrl-C reaches the whole process group (the sweep and its SimGrid child), so the
# group gets SIGINT once the sweep has written some rows. Checks: exit 1, no out.csv, out.partial.csv
# (no temporary left) ends with "# interrupted after K of N points" with 0 < K < N, and every row has
# the header's column count.
set -u
bin=${1:?usage: sweep_sigint.sh RINGSIM}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
dir=$(mktemp -d /tmp/ringsim-sigint-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
setsid sh -c "exec '$bin' sweep --block 64:64K:x2 -N 2:256:x2 -L all -P both -q -o out.csv" &
pid=$!
i=0
while [ $i -lt 1200 ]; do # the temporary file passes 8 KB after a few rows (<= 120 s)
  size=$(cat out.csv.tmp.* 2>/dev/null | wc -c)
  [ "$size" -gt 8192 ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
  i=$((i + 1))
done
kill -INT "-$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; exit 1; }
[ -e out.csv ] && { echo "FAIL: out.csv written by an interrupted run"; exit 1; }
[ -f out.partial.csv ] || { echo "FAIL: out.partial.csv missing"; exit 1; }
ls out.csv.tmp.* >/dev/null 2>&1 && { echo "FAIL: temporary file left"; exit 1; }
mv out.partial.csv out.csv
last=$(tail -n 1 out.csv)
echo "$last"
k=$(echo "$last" | sed -n 's/^# interrupted after \([0-9]*\) of \([0-9]*\) points$/\1/p')
n=$(echo "$last" | sed -n 's/^# interrupted after \([0-9]*\) of \([0-9]*\) points$/\2/p')
[ -n "$k" ] && [ "$k" -gt 0 ] && [ "$k" -lt "$n" ] || { echo "FAIL: last line '$last'"; exit 1; }
rows=$(grep -vc '^#' out.csv)
[ "$rows" -eq $((k + 1)) ] || { echo "FAIL: $rows lines for $k points + header"; exit 1; }
widths=$(awk -F, '!/^#/ {print NF}' out.csv | sort -u | wc -l)
[ "$widths" -eq 1 ] || { echo "FAIL: rows of different widths"; exit 1; }
echo "1 passed, 0 failed"
