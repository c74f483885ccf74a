#!/usr/bin/env bash
# Builds the libFuzzer targets (every tests/fuzz/<name>_fuzz.cpp) with clang, AddressSanitizer
# and UndefinedBehaviorSanitizer into build-fuzz/, and runs each for a bounded time from its
# seed corpus tests/fuzz/corpus/<name>/. Any crash, sanitizer report, leak, timeout or
# out-of-memory fails the script; the input that did it is kept in build-fuzz/artifacts/.
#
#   scripts/fuzz.sh                 build, then run every target (FUZZ_SECONDS each)
#   scripts/fuzz.sh options_fuzz    only that target
#   reproduce: build-fuzz/fuzz/<name>_fuzz build-fuzz/artifacts/<name>_fuzz-crash-...
# Settings: FUZZ_SECONDS (default 20), FUZZ_BUILD_DIR (default <repo>/build-fuzz),
#           FUZZ_JOBS (targets run at once, default the number of cores),
#           COMMSWEEP_JOBS (build jobs, default the number of cores).
set -euo pipefail

readonly COMMSWEEP_SCRIPT=fuzz
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

readonly FUZZ_BUILD="${FUZZ_BUILD_DIR:-$COMMSWEEP_REPO/build-fuzz}"
readonly FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
# Per input: a parser that takes longer than this on a few kilobytes is hanging.
readonly FUZZ_INPUT_TIMEOUT_S=10
# Memory for the whole process; more means a parser allocates from a size it read.
readonly FUZZ_RSS_LIMIT_MB=2048

build_fuzz_targets() {
  command -v clang++ >/dev/null || die "clang++ not found: scripts/install-deps.sh --tests installs clang"
  mkdir -p "$FUZZ_BUILD"
  # A build folder configured for fuzzing already (scripts/sanitize.sh's, in CI) is reused as
  # it is: its library carries the same instrumentation.
  if grep -qx "COMMSWEEP_FUZZ:BOOL=ON" "$FUZZ_BUILD/CMakeCache.txt" 2>/dev/null; then
    say "building the fuzz targets in $FUZZ_BUILD (configured for fuzzing already)"
  else
    say "building the fuzz targets (clang, -fsanitize=fuzzer,address,undefined) into $FUZZ_BUILD"
    CC=clang CXX=clang++ cmake -S "$COMMSWEEP_REPO" -B "$FUZZ_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCOMMSWEEP_CUDA=OFF -DCOMMSWEEP_TESTS=OFF -DCOMMSWEEP_FUZZ=ON >"$FUZZ_BUILD/configure.log" 2>&1 ||
      { cat "$FUZZ_BUILD/configure.log" >&2; die "configuring $FUZZ_BUILD failed"; }
  fi
  cmake --build "$FUZZ_BUILD" -j "${COMMSWEEP_JOBS:-$(nproc)}" --target fuzz_targets
}

# Runs one target; new inputs go to build-fuzz/corpus/<name>/, never into the source tree.
run_target() {
  local target=$1
  local name=${target%_fuzz}
  local seeds="$COMMSWEEP_REPO/tests/fuzz/corpus/$name"
  local work="$FUZZ_BUILD/corpus/$name"
  mkdir -p "$work" "$FUZZ_BUILD/artifacts"
  [ -d "$seeds" ] || die "$target has no seed corpus: add tests/fuzz/corpus/$name/"
  local log="$FUZZ_BUILD/$target.log"
  local rc=0
  "$FUZZ_BUILD/fuzz/$target" "$work" "$seeds" -max_total_time="$FUZZ_SECONDS" \
    -timeout="$FUZZ_INPUT_TIMEOUT_S" -rss_limit_mb="$FUZZ_RSS_LIMIT_MB" \
    -artifact_prefix="$FUZZ_BUILD/artifacts/$target-" -print_final_stats=1 >"$log" 2>&1 || rc=$?
  local runs
  runs=$(grep -Eo "stat::number_of_executed_units: *[0-9]+" "$log" | grep -Eo "[0-9]+$" || echo "?")
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$log" >&2
    say "FAIL $target (exit code $rc after $runs inputs; log $log)"
    return 1
  fi
  say "ok   $target ($runs inputs in ${FUZZ_SECONDS} s)"
}

main() {
  local start=$SECONDS
  build_fuzz_targets
  local -a targets
  if [ "$#" -gt 0 ]; then
    targets=("$@")
  else
    mapfile -t targets < <(find "$FUZZ_BUILD/fuzz" -maxdepth 1 -name '*_fuzz' -type f -printf '%f\n' | sort)
  fi
  [ "${#targets[@]}" -gt 0 ] || die "no fuzz targets built in $FUZZ_BUILD/fuzz"
  # libFuzzer runs one process on one core: FUZZ_JOBS targets at once (default: the cores), each
  # for its FUZZ_SECONDS on a core of its own, so each does the work it would do alone.
  local jobs="${FUZZ_JOBS:-$(nproc)}" failed=0 target
  local results="$FUZZ_BUILD/results"
  rm -rf "$results" && mkdir -p "$results"
  for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    { run_target "$target" && touch "$results/$target.ok"; } &
  done
  wait
  for target in "${targets[@]}"; do
    [ -e "$results/$target.ok" ] || failed=$((failed + 1))
  done
  say "${#targets[@]} targets, $failed failed, in $((SECONDS - start)) s (build and runs, $jobs at once)"
  [ "$failed" -eq 0 ]
}

main "$@"
