#!/usr/bin/env bash
# Builds commsweep (installing what is missing) and runs every test with ctest: unit
# (GoogleTest), mpi (the CLI under mpiexec -n 2, 3, 4) and gpu (skipped where no GPU is
# present). Extra arguments go to ctest, e.g. scripts/test.sh -L mpi, scripts/test.sh -R usage.
# Settings (build directory, CUDA architectures, ...): see scripts/common.sh.
set -euo pipefail

readonly COMMSWEEP_SCRIPT=test
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run_ctest() {
  local log="$COMMSWEEP_BUILD/ctest-output.log"
  local rc=0
  say "running ctest in $COMMSWEEP_BUILD (log: $log)"
  (cd "$COMMSWEEP_BUILD" &&
     ctest --output-on-failure -j "$(ctest_jobs)" "$@") 2>&1 | tee "$log" || rc=$?
  # ctest's own summary, repeated last so that it is the line a CI log ends with.
  local summary
  summary=$(grep -E "tests passed|tests failed" "$log" | tail -n 1 || true)
  say "${summary:-ctest printed no summary}"
  grep -E "^Total Test time" "$log" | tail -n 1 || true
  say_skip_reasons
  return "$rc"
}

# ctest reports a skipped test without its output; the checker said why (e.g. no GPU).
say_skip_reasons() {
  local reason
  grep -h "^SKIP: " "$COMMSWEEP_BUILD"/Testing/Temporary/LastTest*.log 2>/dev/null | sort -u |
    while IFS= read -r reason; do
      say "skipped: ${reason#SKIP: }"
    done || true
}

main() {
  local start=$SECONDS
  install_deps --tests
  local built=$SECONDS
  build_commsweep all
  local tested=$SECONDS rc=0
  run_ctest "$@" || rc=$?
  say "finished in $((SECONDS - start)) s: packages $((built - start)) s, build $((tested - built)) s," \
      "tests $((SECONDS - tested)) s; exit code $rc"
  return "$rc"
}

main "$@"
