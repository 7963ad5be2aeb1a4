#!/bin/sh
# docs_ranges.sh RINGSIM DOC - the table of accepted ranges in DOC (between "<!-- ranges: begin -->"
# and "<!-- ranges: end -->") is exactly what `RINGSIM profiles --ranges` prints from
# model/3-machine/ranges.c: the docs list the one table the checks read.
set -u
bin=${1:?usage: docs_ranges.sh RINGSIM DOC}
doc=${2:?usage: docs_ranges.sh RINGSIM DOC}
want=$("$bin" profiles --ranges) || { echo "FAIL: $bin profiles --ranges exited $?"; exit 1; }
got=$(sed -n '/<!-- ranges: begin -->/,/<!-- ranges: end -->/p' "$doc" | sed '1d;$d')
[ -n "$want" ] || { echo "FAIL: profiles --ranges printed nothing"; exit 1; }
if [ "$want" != "$got" ]; then
  echo "FAIL: $doc's ranges table differs from 'ringsim profiles --ranges' (update the doc from its output):"
  printf '%s\n' "$want" >/tmp/docs_ranges.want.$$
  printf '%s\n' "$got" >/tmp/docs_ranges.got.$$
  diff /tmp/docs_ranges.got.$$ /tmp/docs_ranges.want.$$
  rm -f /tmp/docs_ranges.want.$$ /tmp/docs_ranges.got.$$
  exit 1
fi
echo "ok: $(printf '%s\n' "$want" | tail -n +3 | wc -l) ranges, the same in $doc"
