#!/bin/sh
# layers.sh CHECK ROOT - scripts/check-layers on a small tree with an include going down (must pass)
# and one going up (must fail, naming the file, the line and the header), then on the real tree.
set -u
CHECK=$1 ROOT=$2
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/model/schedule" "$T/model/cost" "$T/traces" "$T/cli"
printf '#include "low.h"\n' > "$T/model/cost/high.h"
printf '/* the bottom */\n' > "$T/model/schedule/low.h"
printf '#include "high.h"\n#include "low.h"\n#include <stdio.h>\n' > "$T/cli/main.c"
"$CHECK" "$T" || { echo "layers: a tree that keeps the order was refused"; exit 1; }
printf '#include <stdint.h>\n#include "high.h"\n' > "$T/model/schedule/low.h"
printf '#include "low.h"\n' > "$T/traces/t.h"
printf '#include "t.h"\n' >> "$T/model/cost/high.h"
out=$("$CHECK" "$T") && { echo "layers: an include from schedule up to cost was accepted"; exit 1; }
echo "$out"
echo "$out" | grep -q '^model/schedule/low.h:2: includes high.h (cost)' || { echo "layers: wrong message"; exit 1; }
echo "$out" | grep -q '^model/cost/high.h:2: includes t.h (traces)' || { echo "layers: cost -> traces not caught"; exit 1; }
"$CHECK" "$ROOT"
