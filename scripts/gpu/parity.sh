#!/usr/bin/env bash
# commsweep's table beside nccl-tests' on the GPUs of one machine (issue 40; docs/figures.md): the
# same collectives, sizes, -w and -n, ROUNDS rounds interleaved (nccl-tests, then commsweep, per
# collective, round after round), then per size the median time of each over the rounds and their
# ratio (scripts/gpu/parity_table.py). It builds nothing: NCCL_TESTS_BIN_DIR holds the *_perf
# binaries of nccl-tests, built outside the project (with MPI=1, against the NCCL commsweep runs).
#   OUT=/tmp/parity scripts/gpu/parity.sh NCCL_TESTS_BIN_DIR COMMSWEEP [EXTRA commsweep FLAGS...]
# Settings: ROUNDS (5), ITERS (-n, 100), WARMUP (-w, 10), RANKS (the GPUs), MAX_ALL_REDUCE (8G),
# MAX_ALLTOALL (4G), MAX_GATHER (1G: all_gather and reduce_scatter), STEP_TIMEOUT (s, 300).
# LD_LIBRARY_PATH must find NCCL; NCCL_NVLS_ENABLE is 0 unless set; NCCL_PROFILER_PLUGIN, where
# set (none: commsweep without its plugin), goes to every rank. Logs, one file per run, and the
# table (parity.txt) go to $OUT.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly REPO
readonly REF_DIR=${1:?usage: OUT=DIR $0 NCCL_TESTS_BIN_DIR COMMSWEEP [commsweep flags...]}
readonly BIN=${2:?usage: OUT=DIR $0 NCCL_TESTS_BIN_DIR COMMSWEEP [commsweep flags...]}
shift 2
readonly -a EXTRA=("$@")
readonly ROUNDS=${ROUNDS:-5} ITERS=${ITERS:-100} WARMUP=${WARMUP:-10}
readonly STEP_TIMEOUT=${STEP_TIMEOUT:-300}
readonly LOGS=${OUT:-/tmp/parity}/parity
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# name, nccl-tests binary, commsweep test, smallest and largest size: the issue's ranges.
readonly -a CASES=(
  "all_reduce all_reduce_perf all_reduce 8 ${MAX_ALL_REDUCE:-8G}"
  "alltoall alltoall_perf alltoall 1M ${MAX_ALLTOALL:-4G}"
  "all_gather all_gather_perf all_gather 8 ${MAX_GATHER:-1G}"
  "reduce_scatter reduce_scatter_perf reduce_scatter 8 ${MAX_GATHER:-1G}"
)

die() {
  echo "parity: $*" >&2
  exit 2
}

ranks() {
  if [ -n "${RANKS:-}" ]; then echo "$RANKS"; else nvidia-smi -L | grep -c '^GPU'; fi
}

# run LOG COMMAND...: one bounded run, its output to LOG; a failed run is said, not fatal (its
# rows are then missing from the table, which says so).
run() {
  local log=$1 rc=0
  shift
  timeout "$STEP_TIMEOUT" "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then echo "parity: exit $rc: $* (log $log)" >&2; fi
}

main() {
  local n name ref test lo hi round
  for c in "${CASES[@]}"; do
    read -r name ref test lo hi <<<"$c"
    [ -x "$REF_DIR/$ref" ] || die "$REF_DIR/$ref: no such program (build nccl-tests with MPI=1 outside the project)"
  done
  [ -x "$BIN" ] || die "$BIN: no such program"
  n=$(ranks)
  mkdir -p "$LOGS"
  local -a mpi=(mpirun --bind-to none -np "$n" -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE)
  if [ -n "${NCCL_PROFILER_PLUGIN:-}" ]; then mpi+=(-x NCCL_PROFILER_PLUGIN); fi
  { date -u; nvidia-smi -L; "$BIN" --version
    echo "ranks $n rounds $ROUNDS -w $WARMUP -n $ITERS ${EXTRA[*]} NCCL_PROFILER_PLUGIN=${NCCL_PROFILER_PLUGIN:-}"; } \
    >"$LOGS/machine.txt" 2>&1
  local t0=$SECONDS
  for round in $(seq 1 "$ROUNDS"); do
    for c in "${CASES[@]}"; do
      read -r name ref test lo hi <<<"$c"
      run "$LOGS/$name.nccl-tests.$round.txt" "${mpi[@]}" "$REF_DIR/$ref" -b "$lo" -e "$hi" -f 2 \
        -w "$WARMUP" -n "$ITERS" -c 0
      run "$LOGS/$name.commsweep.$round.txt" "${mpi[@]}" "$BIN" "$test" -b "$lo" -e "$hi" -f 2 \
        -w "$WARMUP" -n "$ITERS" -c 0 --no-preflight "${EXTRA[@]}"
    done
    echo "parity: round $round of $ROUNDS done at $((SECONDS - t0)) s"
  done
  python3 "$REPO/scripts/gpu/parity_table.py" "$LOGS" | tee "$LOGS/parity.txt"
}

main "$@"
