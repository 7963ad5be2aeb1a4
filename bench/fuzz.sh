#!/usr/bin/env bash
# bench/fuzz.sh SECONDS [HARNESS...] - build the libFuzzer harnesses (tests/fuzz/fuzz_*.c) with clang
# (-fsanitize=fuzzer,address,undefined, in build-fuzz/) and run each for SECONDS, one after the other
# (one job each), then print per harness: executions, coverage (cov = edges, ft = features, from
# libFuzzer's last status line) and the corpus size. Harnesses: profile trace hostmap sweep opts (all
# by default). Corpora grow in build-fuzz/corpus/NAME (seeded from the shipped files, see
# tests/fuzz/CMakeLists.txt); a crash, leak, timeout or sanitizer report is saved to
# build-fuzz/artifacts/NAME/ and makes the script exit 1 - keep it as tests/fuzz/regressions/NAME/FILE
# once fixed. Logs: build-fuzz/logs/NAME.log. Needs clang and libclang-rt-14-dev (libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:?usage: bench/fuzz.sh SECONDS [profile|trace|hostmap|sweep|opts]...}"
shift
harnesses=("$@")
((${#harnesses[@]})) || harnesses=(profile trace hostmap sweep opts)
src="$PWD"
out="$src/build-fuzz"

# SimGrid stays on: the opts harness parses sweep's fabric knobs (cli/job_opts.c) only when it is built
CC=clang cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGSIM_FUZZ=ON -DRINGSIM_WITH_GPU=OFF \
  -DRINGSIM_WITH_MPI=OFF >/dev/null
cmake --build "$out" -j2 --target "${harnesses[@]/#/fuzz_}" >/dev/null

seeds_of() {
  case "$1" in
    profile) echo "$src/profiles/devices $src/profiles/links $src/tests/fixtures/golden $src/tests/fuzz/seeds/profile" ;;
    trace)   echo "$src/tests/fixtures/golden $src/tests/fuzz/seeds/trace" ;;
    *)       echo "$src/tests/fuzz/seeds/$1" ;;
  esac
}

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
summary=()
for h in "${harnesses[@]}"; do
  mkdir -p "$out/corpus/$h" "$out/artifacts/$h" "$out/logs"
  dict=()
  [ -f "$src/tests/fuzz/dict/$h.dict" ] && dict=(-dict="$src/tests/fuzz/dict/$h.dict")
  log="$out/logs/$h.log"
  echo "== fuzz_$h: ${secs} s" >&2
  rc=0
  # shellcheck disable=SC2046
  "$out/fuzz/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/artifacts/$h/" "${dict[@]}" "$out/corpus/$h" $(seeds_of "$h") >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
  verdict="no finding"
  if [ "$rc" != 0 ]; then
    verdict="FINDING (exit $rc): $(ls -t "$out/artifacts/$h" | head -1) - see $log"
    status=1
  fi
  summary+=("$(printf '%-8s %12s execs %8s/s  cov %6s  ft %7s  corpus %-12s %s' "$h" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "${ft:-?}" "${corp:-?}" "$verdict")")
done
echo "harness         executions      rate     coverage         corpus (units/bytes)"
printf '%s\n' "${summary[@]}"
exit "$status"
