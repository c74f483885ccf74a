#!/usr/bin/env bash
# `commsweep pairs --backend nccl` on one 4-GPU machine, its nodes emulated with NCCL_HOSTID
# (scripts/emulate-nodes.sh: NCCL then uses its network transport between the "nodes", as it
# would between hosts): 2 nodes of 2 GPUs, 4 nodes of 1 GPU, 4 nodes of 1 GPU with a planted
# slow rail (rank 2: the testing-only --fault slow-rank:2) that must be named, and 4 nodes of 1
# GPU whose rank 2 hangs from round 2 of 3 (--fault hang:2@2 -T 10): exit 4, round 1's two
# pairs kept in the JSON, marked incomplete; 4 nodes of 1 GPU under 2 leaves (a topology file
# written to $OUT) with rank 2 planted slow, the bisection pattern and --adaptive: the follow-up
# must name node 2 (two leaves alone cannot tell whose uplinks are slow); and the plan of 1,000 x 8-GPU
# nodes at 1 MiB and 64 MiB with the cost model fitted to the healthy 4-node run (--cost-from).
# On a machine of 2 or 3 GPUs (nvidia-h100-x2) the steps that need 4 ranks are skipped (said):
# 2 nodes of 1 GPU are measured at 1 MiB and 64 MiB, and each size's plan is fitted to its run.
# Prints each matrix; logs and JSON go to $OUT. Every step is bounded in time.
#   OUT=/tmp/out scripts/gpu-pairs.sh build-gpu/commsweep [extra pairs flags, e.g. -s 256M]
# PAIRS_BACKEND=mpi runs the same steps on host buffers (a dry run of this script without GPUs;
# PAIRS_NP=2 for the 2-GPU steps).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE
readonly STEP_TIMEOUT_S=300  # a 64 MiB exchange over sockets takes tens of ms; 300 s is ample
readonly SLOW_PAIR_EXIT=10   # commsweep pairs: a slow pair was found (docs/failures.md)
readonly TIMEOUT_EXIT=4      # a phase did not finish within -T
readonly BACKEND=${PAIRS_BACKEND:-nccl}
# NVLink multicast stays off on shared machines (it can take the host's GPUs down).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}

declare -a SUMMARY=()
FAILED=0

usage() {
  sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
}

# One pairs run: NAME RANKS_PER_NODE EXPECTED_RC then commsweep pairs arguments.
pairs_step() {
  local name=$1 per_node=$2 want=$3 rc=0
  shift 3
  # --oversubscribe: only for a PAIRS_BACKEND=mpi dry run on a machine of fewer cores.
  local -a cmd=(mpirun --bind-to none --oversubscribe -np "$NP")
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

# The adaptive step's JSON: exactly one finding, the node of rank 2.
check_node_finding() {
  local verdict
  verdict=$(python3 - "$1" <<'PY' 2>&1 || true
import json, sys
d = json.load(open(sys.argv[1]))
f = [(x["kind"], x.get("node_name", "").split("/")[-1]) for x in d["findings"]]
print("%s: findings %s" % ("named" if f == [("node", "node2")] else "NOT NAMED", f))
PY
)
  echo "$verdict"
  SUMMARY+=("pairs-4nodes-adaptive-slow-rank2 JSON: $verdict")
  [[ "$verdict" == named:* ]] || FAILED=1
}

# The predicted wall time of every pair of 1,000 x 8-GPU nodes, the cost per round fitted to a
# measured run of this machine.
# predict_1000_nodes FILE_1M FILE_64M: each size's plan fitted to the run of that size (one
# message size cannot separate latency from bandwidth, so the fit of one size is used for it).
predict_1000_nodes() {
  local size file
  for size in 1M 64M; do
    file=$1
    [ "$size" = 1M ] || file=$2
    echo "== plan: 1000 nodes x 8 GPUs, -s $size, cost model from $file" | tee -a "$OUT/plan-1000x8.txt"
    timeout 60 "$BIN" pairs --plan --nodes 1000 --gpus-per-node 8 -s "$size" --cost-from "$file" \
      | grep -E '^# (cost model|predicted)' | tee -a "$OUT/plan-1000x8.txt" || FAILED=1
  done
}

main() {
  [ $# -ge 1 ] || usage
  BIN=$(realpath "$1")
  shift
  [ -x "$BIN" ] || { echo "gpu-pairs: $BIN is not executable" >&2; exit 2; }
  : "${OUT:?set OUT to the folder for the logs}"
  mkdir -p "$OUT"
  NP=${PAIRS_NP:-4}  # PAIRS_NP=2 with PAIRS_BACKEND=mpi: a dry run of the 2-GPU steps
  if [ "$BACKEND" = nccl ]; then
    local gpus
    gpus=$(timeout 60 nvidia-smi -L | grep -c '^GPU' || true)
    [ "${gpus:-0}" -ge 2 ] || { echo "gpu-pairs: needs 2 GPUs or more, nvidia-smi -L lists ${gpus:-none}" >&2; exit 2; }
    [ "$gpus" -ge 4 ] || NP=2
    timeout 60 nvidia-smi -L >"$OUT/nvidia-smi.txt" 2>&1 || true
  fi

  if [ "$NP" -eq 2 ]; then
    echo "gpu-pairs: 2 GPUs: 2 nodes of 1 GPU at 1 MiB and 64 MiB; the 4-rank steps (slow rail, hang, adaptive) need 4 GPUs and are skipped" | tee "$OUT/skipped.txt"
    pairs_step pairs-2nodes-x1gpu-1M 1 0 -s 1M "$@"
    pairs_step pairs-2nodes-x1gpu-64M 1 0 -s 64M "$@"
    predict_1000_nodes "$OUT/pairs-2nodes-x1gpu-1M.json" "$OUT/pairs-2nodes-x1gpu-64M.json"
    echo "== summary"
    printf '%s\n' "${SUMMARY[@]}" | tee "$OUT/summary.txt"
    return "$FAILED"
  fi
  pairs_step pairs-2nodes-x2gpus 2 0 "$@"
  pairs_step pairs-4nodes-x1gpu 1 0 "$@"
  pairs_step pairs-4nodes-slow-rank2 1 "$SLOW_PAIR_EXIT" --fault slow-rank:2 "$@"
  pairs_step pairs-4nodes-hang-rank2 1 "$TIMEOUT_EXIT" --fault hang:2@2 -T 10 "$@"
  check_kept "$OUT/pairs-4nodes-hang-rank2.json"
  printf 'node0 leafA\nnode1 leafA\nnode2 leafB\nnode3 leafB\n' >"$OUT/two-leaves.txt"
  pairs_step pairs-4nodes-adaptive-slow-rank2 1 "$SLOW_PAIR_EXIT" --topology "$OUT/two-leaves.txt" \
    --pattern bisection --adaptive --fault slow-rank:2 "$@"
  check_node_finding "$OUT/pairs-4nodes-adaptive-slow-rank2.json"
  predict_1000_nodes "$OUT/pairs-4nodes-x1gpu.json" "$OUT/pairs-4nodes-x1gpu.json"

  echo "== summary"
  printf '%s\n' "${SUMMARY[@]}" | tee "$OUT/summary.txt"
  return "$FAILED"
}

main "$@"
