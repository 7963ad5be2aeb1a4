#!/bin/sh
# python_pip.sh PYTHON SOURCE LIB RINGSIM - `pip install ./python` offline (no index, no build
# isolation: the system's setuptools) into a fresh virtual environment, then from the installed
# package (not the source tree): the unittest suite against the command; the library found through
# RINGSIM_LIB, next to the package, and a clear ImportError when it is nowhere.
# RS_PRELOAD: LD_PRELOAD for the Python processes that load libringsim (the sanitizer build).
set -u
. "$(dirname "$0")/common.sh"
rs_py_setup pip "python_pip.sh PYTHON SOURCE LIB RINGSIM" "$@"
cp -r "$src/python" "$tmp/src" # pip builds in the tree it is given: not in the source tree
"$py" -m venv --system-site-packages "$tmp/venv" || fail "python -m venv"
"$tmp/venv/bin/python" -m pip install --no-index --no-build-isolation --quiet "$tmp/src" >"$tmp/pip.log" 2>&1 ||
  { cat "$tmp/pip.log"; fail "pip install --no-index --no-build-isolation ./python"; }
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
[ -f "$site/ringsim/__init__.py" ] || fail "ringsim not installed in $site"
echo "installed into $site"
cd "$tmp" || exit 1
run() { env LD_PRELOAD="${RS_PRELOAD:-}" "$@"; }
RINGSIM_LIB=$lib RINGSIM_BIN=$bin run "$tmp/venv/bin/python" -m unittest discover -s "$src/python/tests" -t "$src/python/tests" \
  >"$tmp/unittest.log" 2>&1 || { cat "$tmp/unittest.log"; fail "the unittest suite on the installed package"; }
ran=$(sed -n 's/^Ran \([0-9]*\) tests* in .*/\1/p' "$tmp/unittest.log")
[ "${ran:-0}" -ge 10 ] || { cat "$tmp/unittest.log"; fail "the installed package's suite ran ${ran:-no} tests (Python 3.11 passes an empty run)"; }
echo "the unittest suite on the installed package: $ran tests passed"
where=$(RINGSIM_LIB=$lib run "$tmp/venv/bin/python" -c 'import ringsim; print(ringsim.__file__)')
case $where in "$site"/*) ;; *) fail "the tests imported $where, not the installed package" ;; esac
cp "$lib" "$site/ringsim/"
got=$(env -u RINGSIM_LIB LD_PRELOAD="${RS_PRELOAD:-}" "$tmp/venv/bin/python" -c 'import ringsim; print(ringsim.lib_path)')
[ "$got" = "$site/ringsim/$(basename "$lib")" ] || fail "the library next to the package was not used: $got"
msg=$(RINGSIM_LIB=/nonexistent/libringsim.so "$tmp/venv/bin/python" -c 'import ringsim' 2>&1)
case $msg in *"set RINGSIM_LIB"*"/nonexistent/libringsim.so"*) ;; *) fail "no clear error without the library: $msg" ;; esac
echo "library found through RINGSIM_LIB and next to the package; a clear ImportError without it"
echo "PASS"
