#!/usr/bin/env bash
# `commsweep pairs --backend nccl` on one 4-GPU machine, its nodes emulated with NCCL_HOSTID
# (scripts/emulate-nodes.sh: NCCL then uses its network transport between the "nodes", as it
# would between hosts): 2 nodes of 2 GPUs, 4 nodes of 1 GPU, 4 nodes of 1 GPU with a planted
# slow rail (rank 2: the testing-only --fault slow-rank:2) that must be named, and 4 nodes of 1
# GPU whose rank 2 hangs from round 2 of 3 (--fault hang:2@2 -T 10): exit 4, round 1's two
# pairs kept in the JSON, marked incomplete.
# Prints each matrix; logs and JSON go to $OUT. Every step is bounded in time.
#   OUT=/tmp/out scripts/gpu-pairs.sh build-gpu/commsweep [extra pairs flags, e.g. -s 256M]
# PAIRS_BACKEND=mpi runs the same steps on host buffers (a dry run of this script without GPUs).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE
readonly STEP_TIMEOUT_S=300  # a 64 MiB exchange over sockets takes tens of ms; 300 s is ample
readonly SLOW_PAIR_EXIT=6    # commsweep pairs: a slow pair was found
readonly TIMEOUT_EXIT=4      # a phase did not finish within -T
readonly BACKEND=${PAIRS_BACKEND:-nccl}
# NVLink multicast stays off on shared machines (it can take the host's GPUs down).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}

declare -a SUMMARY=()
FAILED=0

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
}

# One pairs run: NAME RANKS_PER_NODE EXPECTED_RC then commsweep pairs arguments.
pairs_step() {
  local name=$1 per_node=$2 want=$3 rc=0
  shift 3
  # --oversubscribe: only for a PAIRS_BACKEND=mpi dry run on a machine of fewer cores.
  local -a cmd=(mpirun --bind-to none --oversubscribe -np 4)
  [ "$(id -u)" -ne 0 ] || cmd+=(--allow-run-as-root)
  cmd+=(-x NCCL_NVLS_ENABLE -x COMMSWEEP_RANKS_PER_NODE "$HERE/emulate-nodes.sh" "$BIN" pairs
        --backend "$BACKEND" --json "$OUT/$name.json" "$@")
  echo "== $name: COMMSWEEP_RANKS_PER_NODE=$per_node ${cmd[*]}" | tee "$OUT/$name.log"
  COMMSWEEP_RANKS_PER_NODE=$per_node timeout --kill-after=30 "$STEP_TIMEOUT_S" "${cmd[@]}" \
    >>"$OUT/$name.log" 2>&1 || rc=$?
  # The legend, the matrix and the findings (mpirun's own lines after them left out).
  sed -n '/^# Nodes:/,/^# Results written/p' "$OUT/$name.log" | head -60
  SUMMARY+=("$name: exit $rc (expected $want)")
  [ "$rc" = "$want" ] || FAILED=1
}

# The hang step's JSON: incomplete by a timeout, holding exactly the pairs of round 1.
check_kept() {
  local verdict
  verdict=$(python3 - "$1" <<'PY' 2>&1 || true
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
want = [tuple(p) for p in d["rounds"][0]["pairs"]]
got = [(p["node_a"], p["node_b"]) for p in d["pairs"]]
ok = s["complete"] is False and s["interrupted_by"] == "timeout" and got == want and "failure" in s
print("%s: complete %s, interrupted_by %s, pairs kept %s (round 1: %s)"
      % ("kept" if ok else "NOT KEPT", s["complete"], s["interrupted_by"], got, want))
PY
)
  echo "$verdict"
  SUMMARY+=("pairs-4nodes-hang-rank2 JSON: $verdict")
  [[ "$verdict" == kept:* ]] || FAILED=1
}

main() {
  [ $# -ge 1 ] || usage
  BIN=$(realpath "$1")
  shift
  [ -x "$BIN" ] || { echo "gpu-pairs: $BIN is not executable" >&2; exit 2; }
  : "${OUT:?set OUT to the folder for the logs}"
  mkdir -p "$OUT"
  if [ "$BACKEND" = nccl ]; then
    local gpus
    gpus=$(timeout 60 nvidia-smi -L | grep -c '^GPU' || true)
    [ "${gpus:-0}" -ge 4 ] || { echo "gpu-pairs: needs 4 GPUs, nvidia-smi -L lists ${gpus:-none}" >&2; exit 2; }
    timeout 60 nvidia-smi -L >"$OUT/nvidia-smi.txt" 2>&1 || true
  fi

  pairs_step pairs-2nodes-x2gpus 2 0 "$@"
  pairs_step pairs-4nodes-x1gpu 1 0 "$@"
  pairs_step pairs-4nodes-slow-rank2 1 "$SLOW_PAIR_EXIT" --fault slow-rank:2 "$@"
  pairs_step pairs-4nodes-hang-rank2 1 "$TIMEOUT_EXIT" --fault hang:2@2 -T 10 "$@"
  check_kept "$OUT/pairs-4nodes-hang-rank2.json"

  echo "== summary"
  printf '%s\n' "${SUMMARY[@]}" | tee "$OUT/summary.txt"
  return "$FAILED"
}

main "$@"
