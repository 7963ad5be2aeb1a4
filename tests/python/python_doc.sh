#!/bin/sh
# python_doc.sh PYTHON SOURCE LIB RINGSIM - docs/python.md's session, run: in a fresh directory the
# three commands the page names write pred.csv, sim.csv and sweep.csv, then the page goes through
# doctest (ELLIPSIS: the rows it elides), so every figure on it is what this build computes.
# RS_PRELOAD: LD_PRELOAD for the Python process that loads libringsim (the sanitizer build).
set -u
. "$(dirname "$0")/common.sh"
rs_py_setup pydoc "python_doc.sh PYTHON SOURCE LIB RINGSIM" "$@"
cd "$tmp" || exit 1
"$bin" model -N 8 -L zigzag -P forward --trace pred.csv >/dev/null || fail "ringsim model"
"$bin" sim -N 8 -L zigzag -P forward --trace sim.csv >/dev/null || fail "ringsim sim"
"$bin" sweep --block 256:64K:x4 -N 8 -q -o sweep.csv >/dev/null || fail "ringsim sweep"
env LD_PRELOAD="${RS_PRELOAD:-}" RINGSIM_LIB="$lib" PYTHONPATH="$src/python" PYTHONDONTWRITEBYTECODE=1 "$py" -c '
import doctest, sys
r = doctest.testfile(sys.argv[1], module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
print("docs/python.md: %d examples, %d failed" % (r.attempted, r.failed))
sys.exit(1 if r.failed or r.attempted < 15 else 0)' "$src/docs/python.md" || fail "docs/python.md's session differs from this build"
echo "PASS"
