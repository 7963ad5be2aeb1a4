# scratch.sh - sourced by signals.sh and races.sh once `bin` and `name` are set: bin made absolute, a
# scratch folder /tmp/ringsim-NAME-XXXXXX to work in with its own $TMPDIR, removed at the end with
# every process in $pids (and its process group) killed; bad() records a failure in $fail, alive()
# tells a live process from a dead one, temps() counts the temporaries left.
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
dir=$(mktemp -d "/tmp/ringsim-$name-XXXXXX")
pids=""
cleanup() {
  for p in $pids; do kill -9 "$p" 2>/dev/null; kill -9 "-$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir" || exit 1
mkdir tmp
export TMPDIR="$dir/tmp"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
alive() { s=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$s" ] && [ "${s#Z}" = "$s" ]; } # a zombie is dead
temps() { find . \( -name '*.tmp.*' -o -path './tmp/*' \) -print 2>/dev/null | grep -c . ; }
