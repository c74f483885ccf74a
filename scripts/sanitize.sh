#!/usr/bin/env bash
# Builds commsweep, its unit tests and its MPI tests with AddressSanitizer and
# UndefinedBehaviorSanitizer (host code: COMMSWEEP_CUDA=OFF) into build-asan/, and runs them
# with ctest. Any sanitizer report ends the process that made it with an error, so the test
# fails. Extra arguments go to ctest (e.g. scripts/sanitize.sh -R unit).
# With clang (CI installs it) the same build also carries libFuzzer's coverage and holds the
# fuzz targets, so that scripts/fuzz.sh (FUZZ_BUILD_DIR=build-asan) needs no second build of
# the library: on 2 cores each instrumented build costs about ten minutes.
# Settings: SANITIZE_BUILD_DIR (default <repo>/build-asan), COMMSWEEP_JOBS, COMMSWEEP_DEBUG_INFO.
set -euo pipefail

readonly COMMSWEEP_SCRIPT=sanitize
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

readonly SANITIZE_BUILD="${SANITIZE_BUILD_DIR:-$COMMSWEEP_REPO/build-asan}"

# detect_leaks=0: Open MPI and its components (PMIx, hwloc, UCX) keep allocations alive until
# exit by design and LeakSanitizer reports hundreds of them in every rank, none ours; commsweep
# owns its memory through RAII types, which the unit tests exercise under ASan all the same.
# abort_on_error: the failing rank dies at once and mpiexec ends the job with an error.
sanitizer_environment() {
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
}

build_sanitized() {
  local -a compilers=() fuzz=(-DCOMMSWEEP_FUZZ=OFF)
  if command -v clang++ >/dev/null; then
    compilers=(CC=clang CXX=clang++)
    fuzz=(-DCOMMSWEEP_FUZZ=ON)
  fi
  say "building with -fsanitize=address,undefined (CUDA off; ${compilers[*]:-default compiler}," \
      "${fuzz[*]}) into $SANITIZE_BUILD"
  local -a generator=() debug=()
  mapfile -t generator < <(generator_flags "$SANITIZE_BUILD")
  debug_info_flags >/dev/null  # a bad value dies here, not in the substitution below
  mapfile -t debug < <(debug_info_flags)
  mkdir -p "$SANITIZE_BUILD"
  env "${compilers[@]}" cmake -S "$COMMSWEEP_REPO" -B "$SANITIZE_BUILD" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOMMSWEEP_UNITY_BUILD="$(unity_build)" \
    -DCOMMSWEEP_CUDA=OFF -DCOMMSWEEP_SANITIZE=ON "${fuzz[@]}" "${debug[@]}" >"$SANITIZE_BUILD/configure.log" 2>&1 ||
    { cat "$SANITIZE_BUILD/configure.log" >&2; die "configuring $SANITIZE_BUILD failed"; }
  cmake --build "$SANITIZE_BUILD" -j "${COMMSWEEP_JOBS:-$(nproc)}"
}

run_sanitized_tests() {
  local log="$SANITIZE_BUILD/ctest-output.log"
  local rc=0
  (cd "$SANITIZE_BUILD" &&
     ctest --output-on-failure -L "unit|mpi" -j "$(ctest_jobs)" "$@") 2>&1 |
    tee "$log" || rc=$?
  local reports
  reports=$(grep -cE "ERROR: AddressSanitizer|runtime error:" "$log" || true)
  say "sanitizer reports in the test output: $reports"
  say "$(grep -E "tests passed|tests failed" "$log" | tail -n 1 || echo "ctest printed no summary")"
  return "$rc"
}

main() {
  local start=$SECONDS
  sanitizer_environment
  build_sanitized
  local tested=$SECONDS rc=0
  run_sanitized_tests "$@" || rc=$?
  say "finished in $((SECONDS - start)) s: build $((tested - start)) s, tests $((SECONDS - tested)) s;" \
      "exit code $rc"
  return "$rc"
}

main "$@"
