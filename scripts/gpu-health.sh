#!/usr/bin/env bash
# Fabric evidence on a GPU machine (issue 15): `commsweep health` reads the real NVML of the
# driver (GPUs, PCIe, NVLink: a VM may show no NVLink, and the output says so), once and then
# before/after 5 s; a 1-GPU all_reduce sweep on the nccl backend keeps both snapshots in its
# JSON. Each step says PASS or FAIL; logs, JSON and the Prometheus text go to $OUT; every step
# is bounded in time.
#   OUT=/tmp/out scripts/gpu-health.sh build-gpu/commsweep
# With `calibrate` (issue 24, 2 GPUs or more): the health rules on real NVLink. all_reduce 8 B to
# 8 GiB, ep, an idle `health --duration 30` and pairs on emulated nodes, each with its block and
# JSON: no WARN or FAIL, at most 3 block lines a node, the per-link NVLink CRC rates measured,
# and `health --judge` of its file. The nightly's side (identical runs judged by `compare` against
# a baseline of others, a planted slowdown failing it) is scripts/gpu/noise-check.sh.
#   OUT=/tmp/out scripts/gpu-health.sh build-gpu/commsweep calibrate
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE

# NVML reads take well under a second, a 64 MiB sweep seconds; calibrate's 8 GiB sweeps a minute.
readonly STEP_TIMEOUT_S=600
readonly FAIL_EXIT=6         # commsweep health: a FAIL finding (a real one is reported, not hidden)
# NVLink multicast stays off on shared machines (it can take the host's GPUs down).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}

declare -a SUMMARY=()
FAILED=0

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
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

# The health block of LOG, its WARN/FAIL lines and lines per node; the per-link CRC rates of
# JSON; PASS when healthy (exit 0, no WARN or FAIL, at most 3 lines a node).
judge_run() {
  local name=$1 json=$2 key=$3
  local verdict
  verdict=$(python3 - "$OUT/$name.log" "$json" "$key" "$RC" <<'PY' 2>&1 || true
import json, sys
log, path, key, rc = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lines = [l for l in open(log).read().splitlines() if l.startswith("# Health:") or l.startswith("#   ")]
start = next((i for i, l in enumerate(lines) if l.startswith("# Health:")), None)
block = [] if start is None else [lines[start]] + [l for l in lines[start + 1:] if l.startswith("#   ")]
alarms = [l for l in block if l.startswith("#   WARN") or l.startswith("#   FAIL")]
doc = json.load(open(path))
h = doc[key] if key else doc
rates = []
for n in h["nodes"]:
    a, b = n["after"], n.get("before")
    if not b:
        continue
    s = a["taken_at"] - b["taken_at"]
    for g, gb in zip(a["gpus"], b["gpus"]):
        for l, lb in zip(g["nvlinks"], gb["nvlinks"]):
            rates.append(max(l.get("crc_data", 0) - lb.get("crc_data", 0), l.get("crc_flit", 0) - lb.get("crc_flit", 0)) / s)
nodes = max(1, len(h["nodes"]))
ok = rc == 0 and not alarms and len(block) <= 3 * nodes
crc = "CRC %.2f-%.2f/s per link over %d links" % (min(rates), max(rates), len(rates)) if rates else "no NVLink rise"
print("%s: exit %d, %d WARN/FAIL line(s), %d block line(s) for %d node(s), %s" % (
    "PASS" if ok else "FAIL", rc, len(alarms), len(block), nodes, crc))
for l in alarms[:5]:
    print("   " + l)
PY
)
  echo "$verdict"
  SUMMARY+=("$name: $verdict")
  [[ "$verdict" == PASS:* ]] || FAILED=1
  step "$name-judge" "$BIN" health --judge "$json"
  SUMMARY+=("$name: health --judge exit $RC")
  [ "$RC" = 0 ] || FAILED=1
}

# `calibrate`: the measuring commands on GPUS GPUs and an idle health run, then compare.
calibrate() {
  local gpus=$1
  [ "$gpus" -ge 2 ] || { echo "gpu-health: calibrate needs 2 GPUs or more, found $gpus" >&2; exit 2; }
  local -a mpirun=(mpirun -np "$gpus" --bind-to none -x NCCL_NVLS_ENABLE) one=(mpirun -np 1 --bind-to none)
  if [ "$(id -u)" -eq 0 ]; then
    mpirun+=(--allow-run-as-root)
    one+=(--allow-run-as-root)
  fi
  step all_reduce "${mpirun[@]}" "$BIN" all_reduce -b 8 -e 8G -f 2 --json "$OUT/all_reduce.json"
  judge_run all_reduce "$OUT/all_reduce.json" health
  step ep "${mpirun[@]}" "$BIN" ep --tokens 128,512,1024,4096 --json "$OUT/ep.json"
  judge_run ep "$OUT/ep.json" health
  step health-idle30 "${one[@]}" "$BIN" health --duration 30 --json "$OUT/health-idle30.json"
  judge_run health-idle30 "$OUT/health-idle30.json" ""
  step pairs env COMMSWEEP_RANKS_PER_NODE=1 "${mpirun[@]}" "$HERE/emulate-nodes.sh" "$BIN" pairs --json "$OUT/pairs.json"
  judge_run pairs "$OUT/pairs.json" health
}

main() {
  [ $# -ge 1 ] || usage
  BIN=$(realpath "$1")
  [ -x "$BIN" ] || { echo "gpu-health: $BIN is not executable" >&2; exit 2; }
  : "${OUT:?set OUT to the folder for the logs}"
  mkdir -p "$OUT"
  timeout 60 nvidia-smi -L >"$OUT/nvidia-smi.txt" 2>&1 || true
  timeout 60 nvidia-smi topo -m >>"$OUT/nvidia-smi.txt" 2>&1 || true
  if [ "${2:-}" = calibrate ]; then
    calibrate "$(grep -c '^GPU ' "$OUT/nvidia-smi.txt" || true)"
    printf '%s\n' "---- summary" "${SUMMARY[@]}" | tee "$OUT/summary.txt"
    return "$FAILED"
  fi
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
