#!/bin/sh
# install.sh SOURCE BUILD - `cmake --install BUILD --prefix P` into a temporary prefix, then, from the
# installed files only: the command runs and finds its data beside itself (an installed profile is a
# preset, the installed plot scripts are the ones gnuplot runs, also after the prefix is moved); the
# library has its versioned SONAME and exports only rs_*; every public header compiles on its own;
# examples/ring_walk.c builds and runs through pkg-config and through find_package(ringsim) and
# prints exactly the figures of `ringsim model --json`; the man pages render without warnings.
# RS_EXAMPLE_CFLAGS: flags for the example (the sanitizer build passes its -fsanitize flags).
set -u
src=${1:?usage: install.sh SOURCE BUILD}
build=${2:?usage: install.sh SOURCE BUILD}
cflags=${RS_EXAMPLE_CFLAGS:-}
tmp=$(mktemp -d /tmp/ringsim-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
P=$tmp/prefix

cmake --install "$build" --prefix "$P" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
echo "installed $(find "$P" -type f | wc -l) files, $(du -sk "$P" | cut -f1) KiB"
lib=$(ls "$P"/lib*/libringsim.so.*.*.* 2>/dev/null | head -n 1)
[ -n "$lib" ] || fail "no libringsim.so.X.Y.Z under $P"
libdir=$(dirname "$lib")

# the command, from the installed files
version=$("$P/bin/ringsim" --version) || fail "ringsim --version"
echo "$version"
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
v=${version#ringsim }
major=${v%%.*}; rest=${v#*.}; minor=${rest%%.*}
[ "$major" = 0 ] && want="libringsim.so.$major.$minor" || want="libringsim.so.$major"
[ "$soname" = "$want" ] || fail "SONAME '$soname', expected '$want'"
[ -L "$libdir/$soname" ] && [ -L "$libdir/libringsim.so" ] || fail "the links libringsim.so and $soname are missing"
others=$(nm -D --defined-only "$lib" | awk '$3 !~ /^rs_/ {print $3}' | head -n 5)
[ -z "$others" ] || fail "libringsim exports symbols outside rs_*: $others"
echo "SONAME $soname, $(nm -D --defined-only "$lib" | wc -l) symbols exported, all rs_*"

# every public header on its own
for h in "$P"/include/ringsim/*.h; do
  printf '#include <ringsim/%s>\n' "$(basename "$h")" |
    cc -std=c17 -Wall -Wextra -Werror -fsyntax-only -I"$P/include" -x c - || fail "$(basename "$h") does not compile alone"
done
echo "$(ls "$P"/include/ringsim/*.h | wc -l) public headers compile alone"

# the data beside the binary: an installed profile becomes a preset; the installed plot scripts run
cp "$P/share/ringsim/profiles/devices/h100-sxm.json" "$P/share/ringsim/profiles/devices/site-test.json"
"$P/bin/ringsim" profiles | grep -q 'site-test' || fail "an installed profile is not listed by ringsim profiles"
"$P/bin/ringsim" model -p site-test -L zigzag -P forward >/dev/null || fail "ringsim model -p site-test"
echo "set print \"$tmp/marker\"; print \"installed style.gp\"; unset print" >>"$P/share/ringsim/plots/style.gp"
(cd "$tmp" && "$P/bin/ringsim" model -L zigzag -P forward -N 4 --trace t.csv >/dev/null &&
  "$P/bin/ringsim" plot timeline t.csv -o t.png) || fail "ringsim plot from the installed tree"
[ -s "$tmp/marker" ] || fail "ringsim plot did not run the installed share/ringsim/plots"
echo "data found beside the binary (profiles, plots)"

# the example against the installed library: pkg-config, then find_package
model=$("$P/bin/ringsim" model -L zigzag -P forward --json -) || fail "ringsim model --json"
expect() { # the example's key=value lines against the JSON
  for k in t_comp_s t_comm_s b_min_tokens makespan_s balance_efficiency; do
    a=$(sed -n "s/^$k=//p" "$1")
    b=$(echo "$model" | sed -n "s/^ *\"$k\": \([^,]*\),*$/\1/p" | head -n 1)
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "$2: $k = '$a', ringsim model --json says '$b'"
  done
}
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --modversion ringsim)" = "$v" ] || fail "pkg-config --modversion ringsim"
# shellcheck disable=SC2046,SC2086
cc -std=c17 -Wall -Wextra -Werror $cflags $(pkg-config --cflags ringsim) "$src/examples/ring_walk.c" -o "$tmp/walk-pc" \
  $(pkg-config --libs ringsim) -Wl,-rpath,"$(pkg-config --variable=libdir ringsim)" || fail "the example through pkg-config"
"$tmp/walk-pc" >"$tmp/pc.txt" || fail "the pkg-config example did not run"
expect "$tmp/pc.txt" pkg-config
cmake -S "$src/examples" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_BUILD_TYPE=Release \
  >"$tmp/ex.log" 2>&1 && cmake --build "$tmp/ex" >>"$tmp/ex.log" 2>&1 || { cat "$tmp/ex.log"; fail "the example through find_package"; }
"$tmp/ex/ring_walk" >"$tmp/cm.txt" || fail "the find_package example did not run"
expect "$tmp/cm.txt" find_package
echo "examples/ring_walk.c: pkg-config and find_package builds print the figures of ringsim model --json"

# man pages and completion
n=0
for m in "$P"/share/man/man1/*.1; do
  w=$(groff -ww -man -Tutf8 "$m" 2>&1 >/dev/null)
  [ -z "$w" ] || fail "$(basename "$m"): $w"
  n=$((n + 1))
done
cmds=$("$P/bin/ringsim" --help | awk '/^  [a-z]/ {print $1}' | wc -l)
[ "$n" -eq $((cmds + 1)) ] || fail "$n man pages for $cmds commands (expected ringsim.1 and one per command)"
[ -s "$P/share/bash-completion/completions/ringsim" ] && ls "$P"/share/zsh/*/_ringsim >/dev/null 2>&1 ||
  fail "completion scripts missing"
echo "$n man pages render without warnings; bash and zsh completion installed"
# the installation moved as a whole: the command still finds its data beside itself
mv "$P" "$tmp/moved"
"$tmp/moved/bin/ringsim" profiles | grep -q 'site-test' || fail "after moving the prefix, the data directory is lost"
echo "after moving the prefix, the command still finds its data"
echo "PASS"
