#!/bin/sh
# check_fails.sh PYTHON VALIDATE RESULTS - validate.py --check must fail, naming the case, when a case is
# worse than its baseline: a baseline from RESULTS (validation_published's run) with the first case's
# error set to 0 must make --check exit 1 and name that case; the unchanged baseline must pass.
set -u
py=$1 validate=$2 results=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/validation-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$py" "$validate" --from "$results" --update-baseline --baseline "$tmp/same.csv" >/dev/null || exit 1
"$py" "$validate" --from "$results" --check --baseline "$tmp/same.csv" >"$tmp/same.out" 2>&1 \
  || { echo "FAIL: --check against its own baseline failed:"; cat "$tmp/same.out"; exit 1; }
case=$(awk -F, '!/^#/ && $1 != "case" && $2 != "none" && $2 + 0 > 0.05 { print $1; exit }' "$tmp/same.csv")
[ -n "$case" ] || { echo "FAIL: no case with an error above 5% to make worse"; exit 1; }
awk -F, -v c="$case" 'BEGIN { OFS = "," } $1 == c { $2 = "0.000000" } { print }' "$tmp/same.csv" >"$tmp/tight.csv"
if "$py" "$validate" --from "$results" --check --baseline "$tmp/tight.csv" >"$tmp/tight.out" 2>&1; then
  echo "FAIL: --check passed although $case is worse than its baseline:"; cat "$tmp/tight.out"; exit 1
fi
grep -q "worse than the baseline: $case:" "$tmp/tight.out" \
  || { echo "FAIL: --check did not name $case:"; cat "$tmp/tight.out"; exit 1; }
echo "OK: --check fails naming $case when it is worse than its baseline, passes against its own"
