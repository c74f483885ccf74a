#!/usr/bin/env bash
# Fabric evidence on a GPU machine (issue 15): `commsweep health` reads the real NVML of the
# driver (GPUs, PCIe, NVLink: a VM may show no NVLink, and the output says so), once and then
# before/after 5 s; a 1-GPU all_reduce sweep on the nccl backend keeps both snapshots in its
# JSON. Each step says PASS or FAIL; logs, JSON and the Prometheus text go to $OUT; every step
# is bounded in time.
#   OUT=/tmp/out scripts/gpu-health.sh build-gpu/commsweep
set -euo pipefail

readonly STEP_TIMEOUT_S=180  # NVML reads take well under a second; a 64 MiB sweep seconds
readonly FAIL_EXIT=6         # commsweep health: a FAIL finding (a real one is reported, not hidden)
# NVLink multicast stays off on shared machines (it can take the host's GPUs down).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}

declare -a SUMMARY=()
FAILED=0

usage() {
  sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
}

# NAME then the command: its output in $OUT/NAME.log (and on stdout); sets RC.
step() {
  local name=$1
  shift
  echo "== $name: $*" | tee "$OUT/$name.log"
  RC=0
  timeout --kill-after=30 "$STEP_TIMEOUT_S" "$@" >>"$OUT/$name.log" 2>&1 || RC=$?
  grep '^#' "$OUT/$name.log" | tail -40 || true
}

# PASS when the JSON's health (a health file, or a results file's "health") has a node whose
# snapshots hold the GPUs NVML listed; prints what it saw. KEY: "" (a health file) or "health".
check_json() {
  local name=$1 file=$2 key=$3 want_before=$4 verdict
  verdict=$(python3 - "$file" "$key" "$want_before" <<'PY' 2>&1 || true
import json, sys
doc = json.load(open(sys.argv[1]))
h = doc[sys.argv[2]] if sys.argv[2] else doc
node = h["nodes"][0]
after = node["after"]
gpus = after["gpus"]
links = sum(len(g["nvlinks"]) for g in gpus)
active = sum(1 for g in gpus for l in g["nvlinks"] if l["active"])
ok = bool(gpus) and not after["nvml_note"] and (sys.argv[3] == "0" or "before" in node)
print("%s: %d GPU(s) read through NVML (%s), NVLink %d/%d active%s, %d PCIe link(s), %d RDMA port(s), "
      "%d finding(s), %d item(s) not read, before snapshot: %s"
      % ("PASS" if ok else "FAIL", len(gpus), ", ".join(g["name"] for g in gpus) or after["nvml_note"],
         active, links, " (no NVLink: a VM or a PCIe board)" if not links else "", len(after["pcie"]),
         len(after["ports"]), len(h["findings"]), len(h["unread"]), "yes" if "before" in node else "no"))
PY
)
  echo "$verdict"
  SUMMARY+=("$name JSON: $verdict")
  [[ "$verdict" == PASS:* ]] || FAILED=1
}

rc_ok() {
  local name=$1
  SUMMARY+=("$name: exit $RC")
  [ "$RC" = 0 ] || [ "$RC" = "$FAIL_EXIT" ] || FAILED=1
}

main() {
  [ $# -ge 1 ] || usage
  BIN=$(realpath "$1")
  [ -x "$BIN" ] || { echo "gpu-health: $BIN is not executable" >&2; exit 2; }
  : "${OUT:?set OUT to the folder for the logs}"
  mkdir -p "$OUT"
  timeout 60 nvidia-smi -L >"$OUT/nvidia-smi.txt" 2>&1 || true
  timeout 60 nvidia-smi topo -m >>"$OUT/nvidia-smi.txt" 2>&1 || true
  local -a mpirun=(mpirun -np 1 --bind-to none)
  [ "$(id -u)" -ne 0 ] || mpirun+=(--allow-run-as-root)

  step health-once "${mpirun[@]}" "$BIN" health --json "$OUT/health-once.json" --prometheus "$OUT/health.prom"
  rc_ok health-once
  check_json health-once "$OUT/health-once.json" "" 0
  step health-5s "${mpirun[@]}" "$BIN" health --duration 5 --json "$OUT/health-5s.json"
  rc_ok health-5s
  check_json health-5s "$OUT/health-5s.json" "" 1
  step sweep-1gpu "${mpirun[@]}" -x NCCL_NVLS_ENABLE "$BIN" all_reduce --backend nccl -b 8 -e 64M -f 4 \
    --json "$OUT/sweep-1gpu.json"
  SUMMARY+=("sweep-1gpu: exit $RC")
  [ "$RC" = 0 ] || FAILED=1
  check_json sweep-1gpu "$OUT/sweep-1gpu.json" health 1

  printf '%s\n' "---- summary" "${SUMMARY[@]}"
  if [ "$FAILED" = 0 ]; then echo "gpu-health: PASS"; else echo "gpu-health: FAIL"; fi
  return "$FAILED"
}

main "$@"
