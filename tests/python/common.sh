# common.sh - sourced by the Python package's shell tests (python_doc.sh, python_pip.sh): their
# arguments PYTHON SOURCE LIB RINGSIM into py, src, lib, bin; a fresh temporary folder tmp, removed
# on exit (its name: /tmp/ringsim-WHAT-XXXXXX); fail MESSAGE, which says FAIL and exits 1.
rs_py_setup() { # rs_py_setup WHAT USAGE PYTHON SOURCE LIB RINGSIM
  what=$1 usage=$2
  shift 2
  py=${1:?usage: $usage}
  src=$(cd "${2:?usage: $usage}" && pwd); lib=${3:?usage: $usage}; bin=${4:?usage: $usage}
  tmp=$(mktemp -d "/tmp/ringsim-$what-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
}
fail() { echo "FAIL: $*"; exit 1; }
