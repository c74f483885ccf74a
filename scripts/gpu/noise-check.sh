#!/usr/bin/env bash
# The nightly's noise rules with real timings on GPUs (docs/regressions.md): 5 identical
# all_reduce runs make a baseline (commsweep baseline), 5 more are each judged against it
# (commsweep compare: every one must exit 0), then a run with a planted 2x slowdown (the
# testing-only --fault slow:R, R = 2, or the last rank below 3 ranks) must fail compare (exit 9,
# a regression).
# Each step is bounded in time; the runs, verdicts and logs go to $OUT, a summary line per step
# to $OUT/summary.txt. Exit 0 when every step gave its expected exit code.
#   OUT=/tmp/out scripts/gpu/noise-check.sh build-gpu/commsweep 4 [extra all_reduce flags]
# NOISE_BACKEND=mpi runs the same steps on host buffers (a dry run without GPUs; add
# NOISE_MPIRUN_ARGS=--oversubscribe on a machine of fewer cores than ranks).
set -euo pipefail

readonly RUNS=5                # the baseline's runs, and the runs judged against it
readonly STEP_TIMEOUT_S=300    # one sweep of 8 B - 1 GiB with -N 3 takes seconds on GPUs
readonly BACKEND=${NOISE_BACKEND:-nccl}
# 8 B to 1 GiB, every power of 2, three cycles per run: each measurement's median drops a
# disturbed moment and their spread is the run's own noise (the rules use both).
readonly -a SWEEP=(all_reduce -b 8 -e "${NOISE_MAX_BYTES:-1G}" -f 2 -N 3 -c 1 --backend "$BACKEND")
# NVLink multicast stays off on shared machines (it can take the host's GPUs down).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}

declare -a SUMMARY=()
FAILED=0

usage() {
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
}

# One step: NAME EXPECTED_RC then the command; its output in $OUT/NAME.log.
step() {
  local name=$1 want=$2 rc=0
  shift 2
  echo "== $name: $*" | tee "$OUT/$name.log"
  timeout --kill-after=30 "$STEP_TIMEOUT_S" "$@" >>"$OUT/$name.log" 2>&1 || rc=$?
  SUMMARY+=("$name: exit $rc (expected $want)")
  [[ "|$want|" == *"|$rc|"* ]] || FAILED=1  # WANT: a code, or codes as "0|10"
}

# sweep NAME WANT [FLAGS...]: an all_reduce run on NP ranks with FLAGS added, its JSON in
# $OUT/NAME.json; WANT its exit code, or codes as "0|10".
sweep() {
  local name=$1 want=$2
  shift 2
  local -a cmd=(mpirun --bind-to none -np "$NP")
  [ "$(id -u)" -ne 0 ] || cmd+=(--allow-run-as-root)
  # shellcheck disable=SC2206 # NOISE_MPIRUN_ARGS is a list of words on purpose
  cmd+=(${NOISE_MPIRUN_ARGS:-} -x NCCL_NVLS_ENABLE "$BIN" "${SWEEP[@]}" --json "$OUT/$name.json" "${EXTRA[@]}" "$@")
  step "$name" "$want" "${cmd[@]}"
}

# compare NAME RESULTS EXPECTED_RC: the verdict table in $OUT/NAME.log, the verdicts as JSON beside it.
compare() {
  step "$1" "$3" "$BIN" compare "$2" --baseline "$OUT/baseline.json" --json "$OUT/$1.verdicts.json"
  grep -E '^(verdicts|exit|setup)' "$OUT/$1.log" || true
}

main() {
  [ $# -ge 2 ] || usage
  BIN=$(realpath "$1")
  NP=$2
  shift 2
  EXTRA=("$@")
  [ -x "$BIN" ] || { echo "noise-check: $BIN is not executable" >&2; exit 2; }
  if ! [[ "$NP" =~ ^[1-9][0-9]*$ ]] || [ "$NP" -lt 2 ]; then
    echo "noise-check: RANKS '$NP' is not a number of 2 or more" >&2
    exit 2
  fi
  : "${OUT:?set OUT to the folder for the logs}"
  mkdir -p "$OUT"
  local slow_rank=$((NP > 2 ? 2 : NP - 1)) i
  [ "$BACKEND" != nccl ] || timeout 60 nvidia-smi -L >"$OUT/nvidia-smi.txt" 2>&1 || true

  local -a base=()
  for ((i = 1; i <= RUNS; i++)); do
    sweep "base$i" 0
    base+=("$OUT/base$i.json")
  done
  step baseline 0 "$BIN" baseline "${base[@]}" -o "$OUT/baseline.json" --note "scripts/gpu/noise-check.sh"
  for ((i = 1; i <= RUNS; i++)); do
    sweep "run$i" 0
    compare "compare-run$i" "$OUT/run$i.json" 0
  done
  # The slowed run itself: 0, or 10 where an expected figure applies to the hardware (its rows
  # below their FAIL floor: docs/expected.md); compare must call it a regression either way.
  sweep slowed "0|10" --fault "slow:$slow_rank"
  compare compare-slowed "$OUT/slowed.json" 9  # a regression (docs/failures.md)

  echo "== summary"
  printf '%s\n' "${SUMMARY[@]}" | tee "$OUT/summary.txt"
  return "$FAILED"
}

main "$@"
