#!/bin/sh
# layers.sh CHECK ROOT - scripts/check-layers on a small tree with includes going down (must pass),
# then with one going up, one between peers and a file outside every layer's folder (must fail,
# naming each file and line), then on the real tree.
set -u
CHECK=$1 ROOT=$2
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/model/2-schedule" "$T/model/4-cost" "$T/traces" "$T/cli" "$T/sim" "$T/exec"
printf '#include "low.h"\n' > "$T/model/4-cost/high.h"
printf '/* the bottom */\n' > "$T/model/2-schedule/low.h"
printf '#include "high.h"\n#include "low.h"\n#include <stdio.h>\n' > "$T/cli/main.c"
printf '#include "high.h"\n' > "$T/sim/s.h"
printf '#include "low.h"\n' > "$T/exec/e.h"
"$CHECK" "$T" || { echo "layers: a tree that keeps the order was refused"; exit 1; }
printf '#include <stdint.h>\n#include "high.h"\n' > "$T/model/2-schedule/low.h"
printf '#include "low.h"\n' > "$T/traces/t.h"
printf '#include "t.h"\n' >> "$T/model/4-cost/high.h"
printf '#include "low.h"\n#include "s.h"\n' > "$T/exec/e.h"
mkdir -p "$T/model/misc"
printf '/* nowhere */\n' > "$T/model/misc/x.c"
out=$("$CHECK" "$T") && { echo "layers: a tree that breaks the order was accepted"; exit 1; }
echo "$out"
echo "$out" | grep -q '^model/2-schedule/low.h:2: includes high.h (cost)' || { echo "layers: schedule -> cost not caught"; exit 1; }
echo "$out" | grep -q '^model/4-cost/high.h:2: includes t.h (traces)' || { echo "layers: cost -> traces not caught"; exit 1; }
echo "$out" | grep -q '^exec/e.h:2: includes s.h (sim)' || { echo "layers: exec -> sim (peers) not caught"; exit 1; }
echo "$out" | grep -q "^model/misc/x.c: in model/misc, which is no layer's folder" || { echo "layers: a file outside the layers not caught"; exit 1; }
"$CHECK" --map "$ROOT" | grep -q '^gpu  *exec/gpu ' || { echo "layers: --map lacks the gpu row"; exit 1; }
"$CHECK" "$ROOT"
