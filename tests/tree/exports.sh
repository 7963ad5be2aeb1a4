#!/bin/sh
# exports.sh CHECK-EXPORTS EXPORT-NAMES BUILD SOURCE - scripts/check-exports on a small tree that
# breaks each of its rules (it must name each offence and fail), then on the real build.
set -u
CHECK=$1 NAMES=$2 BUILD=$3 SRC=$4
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
O="$T/build/model/CMakeFiles/t.dir/1-base" # where CMake puts the objects of model/1-base/*.c
mkdir -p "$T/src/cmake" "$T/src/scripts" "$T/src/model/1-base" "$T/build/lib" "$O" "$T/build/CMakeFiles"
cp "$NAMES" "$T/src/scripts/export-names"
printf 'set(RINGSIM_PUBLIC_HEADERS\n  model/1-base/pub.h)\n' > "$T/src/cmake/Library.cmake"
printf '/* pub.h */\nint rs_ok(void);\nint rs_missing(void);\nstatic inline int rs_inline(void) { return 1; }\n' > "$T/src/model/1-base/pub.h"
cat > "$T/src/model/1-base/lib.c" <<'C'
#include "pub.h"
int rs_ok(void) { return rs_inline(); }
int rs_leak(void) { return 2; }
int rs_lonely(void) { return rs_ok(); }
int rs_lonely_caller(void) { return rs_lonely(); }
int rs_dead(void) { return 3; }
C
printf 'int rs_leak(void);\nint rs_user(void) { return rs_leak(); }\n' > "$T/src/model/1-base/user.c"
printf 'CMAKE_C_COMPILER:FILEPATH=cc\n' > "$T/build/CMakeCache.txt"
printf '%s\n' "$T/build/model/CMakeFiles/t.dir" > "$T/build/CMakeFiles/TargetDirectories.txt"
cc -fPIC -I"$T/src/model/1-base" -c "$T/src/model/1-base/lib.c" -o "$O/lib.c.o" &&
  cc -fPIC -c "$T/src/model/1-base/user.c" -o "$O/user.c.o" &&
  printf 'int rs_stale(void) { return 4; }\n' | cc -x c -c - -o "$O/gone.c.o" && # its source was removed
  cc -shared "$O/lib.c.o" "$O/user.c.o" -o "$T/build/lib/libringsim.so.0.0.0" ||
  { echo "exports: cannot build the small tree"; exit 1; }
out=$(python3 "$CHECK" "$T/build" "$T/src") && { echo "exports: a library that breaks the rules was accepted"; exit 1; }
echo "$out"
for want in "exported but declared in no installed header: rs_dead" \
            "exported but declared in no installed header: rs_leak" \
            "declared in an installed header but not in the library: rs_missing" \
            "rs_dead (lib.c.o) is dead: nothing calls it" \
            "rs_lonely (lib.c.o) is global, declared in no header and used by no other file: make it static"; do
  echo "$out" | grep -qxF "$want" || { echo "exports: missing '$want'"; exit 1; }
done
echo "$out" | grep -q "rs_ok\b\|rs_inline\|rs_stale" && { echo "exports: a name that keeps the rules (or a stale object's) was reported"; exit 1; }
python3 "$CHECK" "$BUILD" "$SRC"
