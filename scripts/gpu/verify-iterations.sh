#!/usr/bin/env bash
# Issue 26's checks on the GPUs of one machine (docs/iterations.md; not a CI gate): NCCL's choice
# per row against its own TUNING lines (scripts/check-nccl-algo.py), which clock timed every
# iteration, the straggler finding under --fault slow:2 and its silence on healthy runs, what
# keeping every iteration costs (5 rounds alternating: the kernel clock, off, the CUDA events),
# what CUPTI kernel tracing costs for reference (where PyTorch is installed), and the nightly's
# noise check. Every step is bounded in time; a line per step goes to $OUT/iterations/steps.txt.
#   OUT=/tmp/out scripts/gpu/verify-iterations.sh build-gpu/commsweep
# BIN's folder must hold libcommsweep-nccl-profiler.so (the build puts it there). LD_LIBRARY_PATH
# must find NCCL; NCCL_NVLS_ENABLE is 0 unless set.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:?usage: OUT=DIR $0 COMMSWEEP_BINARY}
[ -f "$(dirname "$BIN")/libcommsweep-nccl-profiler.so" ] || { echo "no libcommsweep-nccl-profiler.so beside $BIN" >&2; exit 2; }
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=${OUT:-/tmp/verify-iterations}/iterations; mkdir -p "$R/cost"
N=$(nvidia-smi -L | grep -c '^GPU')
MPI=(mpirun --bind-to none -np "$N" -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE)
t0=$(date +%s)
say() { echo "$* at $(( $(date +%s) - t0 )) s" | tee -a "$R/steps.txt"; }
{ date -u; nvidia-smi -L; "$BIN" --version; } > "$R/machine.txt" 2>&1

tuned() {  # NAME commsweep-args...: NCCL's INIT and TUNING lines per rank, then the cross-check
  local name=$1; shift
  mkdir -p "$R/$name/logs"
  timeout 300 "${MPI[@]}" -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,TUNING \
    -x NCCL_DEBUG_FILE="$R/$name/logs/nccl.%h.%p.log" "$BIN" "$@" --show-algo --show-iterations \
    --json "$R/$name/results.json" > "$R/$name/table.txt" 2>&1
  say "$name sweep rc $? straggler lines: $(grep -c '^# Straggler' "$R/$name/table.txt")"
  python3 "$REPO/scripts/check-nccl-algo.py" "$R/$name/results.json" "$R/$name/logs" > "$R/$name/check.txt" 2>&1
  say "$name check-nccl-algo rc $? ($(tail -1 "$R/$name/check.txt"))"
  python3 - "$R/$name/results.json" <<'PY' | tee -a "$R/steps.txt"
import collections, json, sys
rows = json.load(open(sys.argv[1]))["rows"]
print("clocks:", dict(collections.Counter((r[h]["per_iter"] or {}).get("clock", "none") for r in rows for h in ("out_of_place", "in_place"))))
PY
}
tuned all_reduce all_reduce -b 8 -e 8G -f 2
tuned every all -b 8 -e 64M -f 64

mkdir -p "$R/slow"
timeout 200 "${MPI[@]}" "$BIN" all_reduce,all_gather -b 1M -e 256M -f 4 --fault slow:2 --show-iterations \
  --json "$R/slow/results.json" > "$R/slow/table.txt" 2>&1
say "slow:2 rc $?"
grep -h '^# Straggler' "$R/slow/table.txt" | tee -a "$R/steps.txt"

for i in 1 2 3 4 5; do
  for mode in on off; do
    timeout 100 "${MPI[@]}" "$BIN" all_reduce -b 1M -e 64M -f 2 -n 50 --per-iteration "$mode" --no-preflight \
      --json "$R/cost/$mode-$i.json" > "$R/cost/$mode-$i.txt" 2>&1; say "cost $mode $i rc $?"
  done
  timeout 100 "${MPI[@]}" -x NCCL_PROFILER_PLUGIN=none "$BIN" all_reduce -b 1M -e 64M -f 2 -n 50 --no-preflight \
    --json "$R/cost/events-$i.json" > "$R/cost/events-$i.txt" 2>&1; say "cost events $i rc $?"
done
python3 "$REPO/scripts/gpu/iteration_cost.py" "$R/cost" | tee "$R/cost/summary.txt" | tee -a "$R/steps.txt"
if python3 -c 'import torch' 2>/dev/null; then
  timeout 240 python3 "$REPO/scripts/gpu/cupti_cost.py" > "$R/cupti.txt" 2>&1; say "cupti rc $?"
  grep '^cupti:' "$R/cupti.txt" | tee -a "$R/steps.txt"
fi
OUT=$R/noise timeout 300 "$REPO/scripts/gpu/noise-check.sh" "$BIN" "$N" > "$R/noise.log" 2>&1; say "noise-check rc $?"
