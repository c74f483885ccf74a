#!/usr/bin/env bash
# Acceptance run on one GPU node: builds commsweep, then runs the checks a new node must pass
# (all_reduce 8 B to 8 GiB, every collective in float and bf16, ranks that each see one GPU),
# each with verification on. Logs go to LOGDIR (default ./acceptance-logs), one file a step,
# and a summary of exit codes is printed last.
#   scripts/gpu/acceptance.sh [LOGDIR]
set -euo pipefail

readonly LOGDIR=${1:-${OUT:-./acceptance-logs}}
readonly ARCHS=${CUDA_ARCHS:-90}
readonly MAXBYTES=${MAXBYTES:-8G}
readonly BIN=${BIN:-build/commsweep}
# NVLink multicast stays off on shared machines (it can take the host's GPUs down).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}

declare -a SUMMARY=()

mpirun_cmd() {
  local np=$1
  shift
  local extra=()
  if [ "$(id -u)" -eq 0 ]; then extra+=(--allow-run-as-root); fi
  mpirun "${extra[@]}" --bind-to none -np "$np" "$@"
}

step() {
  local name=$1
  shift
  local rc=0
  echo "== $name: $*" | tee "$LOGDIR/$name.log"
  "$@" >>"$LOGDIR/$name.log" 2>&1 || rc=$?
  SUMMARY+=("$name rc=$rc")
  return 0
}

gpu_count() { nvidia-smi -L | grep -c '^GPU'; }

main() {
  mkdir -p "$LOGDIR"
  {
    nvidia-smi -L
    nvidia-smi topo -m || true
    env | grep -E '^(NCCL|UCX|CUDA)_' | sort || true
  } >"$LOGDIR/machine.log" 2>&1
  if [ "${SKIP_BUILD:-0}" != 1 ]; then step build bash -c "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=$ARCHS -DCOMMSWEEP_TESTS=${COMMSWEEP_TESTS:-OFF} && \
      cmake --build build -j$(nproc)"; fi
  local n
  n=$(gpu_count)
  step all_reduce mpirun_cmd "$n" "$BIN" all_reduce -b 8 -e "$MAXBYTES" -f 2 -c 1 \
    --json "$LOGDIR/all_reduce.json"
  # Three cycles of the same sweep: the figures to quote are the medians (median_table.py).
  step all_reduce_x3 mpirun_cmd "$n" "$BIN" all_reduce -b 8 -e "$MAXBYTES" -f 2 -c 1 -N 3 \
    --json "$LOGDIR/all_reduce_x3.json"
  step all_float_bf16 mpirun_cmd "$n" "$BIN" all -d float,bf16 -b 8 -e 1G -f 4 -c 1 \
    --json "$LOGDIR/all_float_bf16.json"
  step one_gpu_per_rank mpirun_cmd "$n" bash -c \
    'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" all -b 1M -e 64M -f 8 -c 1' "$BIN"
  printf '%s\n' "${SUMMARY[@]}" | tee "$LOGDIR/summary.log"
}

main "$@"
