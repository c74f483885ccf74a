#!/usr/bin/env bash
# The fabric checks on a GPU node (the lent 4 x H200 machine: NVSwitch, no RDMA devices), for
# the issue's must-show: preflight (table, GPU/NIC matrix, JSON), the transport report of real
# NCCL runs with --require-transport (NVLink on one node; sockets between two nodes emulated
# with NCCL_HOSTID, where `ib` must FAIL with exit code 6), topo dump / detect, --bind auto.
# Each step runs under `timeout`; its command, output and exit code go to $OUT/<step>.log and
# to stdout; a step whose exit code is not the expected one is marked FAIL in the summary, and
# the script then exits 1. The whole run stays under 4 minutes (steps are skipped past a
# deadline, and said so).
#   OUT=/tmp/fabric scripts/gpu-fabric.sh build-gpu/commsweep
set -euo pipefail

readonly BIN=${1:?usage: scripts/gpu-fabric.sh PATH/TO/commsweep  (logs under \$OUT)}
readonly LOGDIR=${OUT:-./gpu-fabric-logs}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly REPO
readonly STEP_S=60    # the longest one step may take (an NCCL start takes a few seconds)
readonly TOTAL_S=230  # every step ends by then (its timeout is cut to what is left): under 4 min
readonly MIN_STEP_S=15  # a step with less time than this left is skipped, and said so
# A short sweep: the point is the transport report before the table, not the figures.
readonly SWEEP=(all_reduce -b 8 -e 16M -f 4 -w 2 -n 5 --backend nccl)
# NVLink multicast stays off on the shared machine (KINDS.md).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}

declare -a SUMMARY=()
FAILED=0

ranks() { timeout 20 nvidia-smi -L 2>/dev/null | grep -c "^GPU" || true; }

# mpirun as the lent machine wants it (root, Open MPI 4.1); --bind-to none: commsweep's
# --bind auto (or nothing) decides the binding, not Open MPI's default.
MPIRUN=(mpirun --bind-to none --oversubscribe)
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
readonly MPIRUN

# step NAME EXPECTED_RC COMMAND...: runs it bounded, logs it, records PASS/FAIL ("any": the
# output is what matters, e.g. topo detect on a machine that is no known shape exits 2).
step() {
  local name=$1 want=$2
  shift 2
  local log="$LOGDIR/$name.log" rc=0 limit=$STEP_S
  if [ $((TOTAL_S - SECONDS)) -lt "$limit" ]; then limit=$((TOTAL_S - SECONDS)); fi
  if [ "$limit" -lt "$MIN_STEP_S" ]; then
    echo "== $name: SKIPPED (${SECONDS} s elapsed: too little of the ${TOTAL_S} s left)" | tee "$log"
    SUMMARY+=("SKIP  $name")
    FAILED=1
    return 0
  fi
  echo "== $name: $* (expect exit $want, at most $limit s)" | tee "$log"
  timeout --kill-after=5 "$limit" "$@" >>"$log" 2>&1 || rc=$?
  # The lines worth reading: commsweep's '#' preamble, the preflight table and matrix, the
  # messages; not the measured rows.
  grep -vE '^ +[0-9]+ +[0-9]+ ' "$log" | sed -n '2,80p' || true
  local verdict=PASS
  if [ "$want" = any ]; then
    verdict=SHOWN
  elif [ "$rc" -ne "$want" ]; then
    verdict=FAIL
    FAILED=1
  fi
  echo "-- $name: exit $rc, expected $want: $verdict ($SECONDS s)" | tee -a "$log"
  SUMMARY+=("$verdict  $name (exit $rc, expected $want)")
}

# check NAME PATTERN: the step's log must hold the pattern (an extended regex).
check() {
  local name=$1 pattern=$2
  if grep -qE -- "$pattern" "$LOGDIR/$name.log"; then
    SUMMARY+=("PASS  $name shows: $pattern")
  else
    SUMMARY+=("FAIL  $name lacks: $pattern")
    FAILED=1
  fi
}

machine() {
  {
    timeout 20 nvidia-smi -L || true
    timeout 20 nvidia-smi topo -m || true
    ls /sys/class/infiniband 2>/dev/null || echo "/sys/class/infiniband: absent or empty"
    env | grep -E '^(NCCL|UCX|CUDA)_' | sort || true
  } >"$LOGDIR/machine.log" 2>&1
}

# What the JSON files hold, printed: a host's GPU/NIC matrix (preflight --json) or the
# transport record of a run (--json).
write_json_reader() {
  cat >"$LOGDIR/show_json.py" <<'PY'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
if kind == "preflight":
    for h in doc["hosts"]:
        print("host %s: %d RDMA devices; locality.matrix:" % (h["host"], len(h["rdma_devices"])))
        print("\n".join(h["locality"]["matrix"]))
else:
    t = doc["transport"]
    print("transport: status %s, required %s, require_gdr %s, source %s" %
          (t["status"], t["required"], t["require_gdr"], t["source"]))
    for r in t["ranks"]:
        print("  rank %d host %s GPU %d: network %s %s link %r gdr %s channels %d graph %s peers %s" %
              (r["rank"], r["host"], r["device"], r["network"], r["hcas"], r["link"], r["gdr"],
               r["channels"], r["graph"], r["peers"]))
PY
}

main() {
  mkdir -p "$LOGDIR"
  write_json_reader
  machine
  local n
  n=$(ranks)
  if [ "$n" -lt 2 ]; then
    echo "gpu-fabric: needs 2 GPUs or more (nvidia-smi -L lists $n)" >&2
    exit 2
  fi
  # The user's own NCCL_DEBUG would stop the capture (that case is tested in tests/gpu).
  unset NCCL_DEBUG NCCL_DEBUG_FILE NCCL_DEBUG_SUBSYS

  step preflight 0 "${MPIRUN[@]}" -np "$n" "$BIN" preflight
  check preflight 'rdma\.devices +WARN +no RDMA devices'
  check preflight '# GPU/NIC matrix of '
  step preflight_json 0 "${MPIRUN[@]}" -np "$n" "$BIN" preflight --json "$LOGDIR/preflight.json"
  # The JSON holds each host's matrix: printed back from the file.
  step preflight_json_matrix 0 python3 "$LOGDIR/show_json.py" preflight "$LOGDIR/preflight.json"
  check preflight_json_matrix 'GPU0 +X '

  # The fixture trees (tests/fixtures/sysfs): an IB node with its hwloc.xml (the matrix of a
  # 2-socket machine), a RoCE/SR-IOV pod with broken host settings (FAILs, exit 6).
  step preflight_fixture_ib 0 "${MPIRUN[@]}" -np 1 "$BIN" preflight --sysfs-root "$REPO/tests/fixtures/sysfs/ib"
  check preflight_fixture_ib 'GPU0 +X +NODE +SYS +SYS +PXB'
  step preflight_fixture_roce 6 "${MPIRUN[@]}" -np 1 "$BIN" preflight \
    --sysfs-root "$REPO/tests/fixtures/sysfs/roce_sriov"

  step nvlink 0 "${MPIRUN[@]}" -np "$n" "$BIN" "${SWEEP[@]}" --require-transport nvlink --json "$LOGDIR/nvlink.json"
  check nvlink "# Transport \\(NCCL's INFO lines, captured\\): $n ranks alike: .*peers via P2P"
  check nvlink '# Transport: PASS --require-transport nvlink'
  step nvlink_json 0 python3 "$LOGDIR/show_json.py" transport "$LOGDIR/nvlink.json"

  # Two nodes of n/2 ranks on one machine: NCCL_HOSTID=node0/node1 (scripts/emulate-nodes.sh).
  # NCCL cannot use P2P or SHM between different host ids, so it uses its network transport:
  # with no RDMA device, sockets (over the default interface; NCCL_SOCKET_IFNAME picks another).
  export COMMSWEEP_RANKS_PER_NODE=$((n / 2))
  step emulated_socket 0 "${MPIRUN[@]}" -np "$n" "$REPO/scripts/emulate-nodes.sh" "$BIN" "${SWEEP[@]}" \
    --require-transport socket --json "$LOGDIR/emulated_socket.json"
  check emulated_socket '# World: .* on 2 hosts'
  check emulated_socket 'NET/Socket'
  check emulated_socket '# Transport: PASS --require-transport socket'
  step emulated_socket_json 0 python3 "$LOGDIR/show_json.py" transport "$LOGDIR/emulated_socket.json"
  check emulated_socket_json 'peers .*NET/Socket'
  step emulated_ib 6 "${MPIRUN[@]}" -np "$n" "$REPO/scripts/emulate-nodes.sh" "$BIN" "${SWEEP[@]}" \
    --require-transport ib
  check emulated_ib '# Transport: FAIL --require-transport ib: rank 0 .*used network Socket, not IB: NCCL fell back to sockets'
  check emulated_ib 'nothing was measured \(exit code 6'
  unset COMMSWEEP_RANKS_PER_NODE

  step topo_dump 0 "$BIN" topo dump --out "$LOGDIR/nccl-topology-dump.xml"
  step topo_detect any "$BIN" topo detect

  step bind_auto 0 "${MPIRUN[@]}" -np "$n" "$BIN" all_reduce -b 8 -e 1M -f 4 -w 2 -n 5 --backend nccl --bind auto
  check bind_auto '# Binding \(--bind auto\), host '
  step ep_transport 0 "${MPIRUN[@]}" -np "$n" "$BIN" ep --backend nccl --tokens 128 --experts $((8 * n)) \
    -w 1 -n 3 --require-transport nvlink --bind auto
  check ep_transport '# Transport: PASS --require-transport nvlink'

  echo "== summary ($SECONDS s)" | tee "$LOGDIR/summary.log"
  printf '%s\n' "${SUMMARY[@]}" | tee -a "$LOGDIR/summary.log"
  return "$FAILED"
}

main "$@"
