#!/usr/bin/env bash
# NCCL on GPUs under the container runtime's default seccomp profile (the pods' RuntimeDefault,
# volcano/base/job.yaml), on one machine with 4 GPUs: mpirun forks the 4 ranks locally (no sshd).
# Each case runs
#   [setpriv (the worker pod's capabilities)] seccomp-runtime-default --caps <the worker's> --
#     mpirun --allow-run-as-root --bind-to none -np 4 -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH ...
# so that mpirun, its daemons and the ranks all run under the filter a worker pod gets:
#   a_filter     each rank's /proc/self/status says Seccomp: 2 (and one filter more than without)
#   b_allreduce  all_reduce -b 16 -e 1G -f 4 -c 1 --json, NCCL_DEBUG=INFO: exit 0, #wrong 0, the
#                transports NCCL chose (P2P/CUMEM/IPC, ...) from its INFO lines
#                (-b 16, not 8: with -f 4, 8·4^k skips 64M and 1G, the sizes compared below)
#   c_alltoall   alltoall -b 1M -e 64M -f 4 -c 1: exit 0
#   d_ep         ep --ep-impl alltoallv,lsa --tokens 128,4096 -c 1 -n 5 -w 2: exit 0 (lsa: NCCL
#                symmetric windows, cuMem IPC between processes: what pidfd_getfd could serve,
#                which the profile denies without CAP_SYS_PTRACE)
#   e_bind_auto  all_reduce --bind auto -b 1M -e 64M -c 1 (hwloc_set_cpubind: commsweep binds
#                CPUs, never memory; a memory binding would need mbind or set_mempolicy, denied
#                without CAP_SYS_NICE, and would show in the lines recorded): a failure is FAIL
#   f_unfiltered b_allreduce's sweep without the launcher (nor setpriv): busbw at 64M and 1G of
#                both side by side
# stdout: one summary line per case: PASS|FAIL case exit=N seconds=S key figures. Logs (each
# case's command, stdout, stderr, results JSON) under $OUT. Exit 0 when every case passed,
# 1 when one failed, 2 bad usage, 6 no GPU here (nothing run).
#
#   OUT=/tmp/seccomp scripts/gpu-seccomp.sh build-gpu/commsweep build-gpu/tests/security/seccomp-runtime-default
# Settings: SECCOMP_NP (4), SECCOMP_CASE_BOUND_S (150: each case's `timeout`),
# SECCOMP_TOTAL_BOUND_S (540: the whole script),
# SECCOMP_MPIRUN_ARGS (more mpirun arguments, split at spaces, e.g. --oversubscribe),
# SECCOMP_BACKEND (nccl; mpi tries the plumbing on a machine without GPUs: host buffers, sizes
# capped at 4M, ep without lsa, no GPU check).
set -euo pipefail

# The worker pod's capabilities (volcano/base/job.yaml; tests/manifests/security.py's POLICY).
readonly WORKER_CAPS=IPC_LOCK,SETUID,SETGID,SYS_CHROOT
readonly NP=${SECCOMP_NP:-4}
readonly CASE_BOUND_S=${SECCOMP_CASE_BOUND_S:-150}
readonly PROBE_BOUND_S=60
# The whole script stays inside 10 minutes (the device machine's limit on one command): a case
# gets what is left of this, and one with less than MIN_CASE_S left is not started (FAIL).
readonly TOTAL_BOUND_S=${SECCOMP_TOTAL_BOUND_S:-540}
readonly MIN_CASE_S=30
# Sizes whose busbw the filtered and unfiltered runs are compared at (bytes): 64M and 1G.
readonly -a COMPARE_SIZES=(67108864 1073741824)
# Every sweep: checked (-c 1), no fabric preflight (no RDMA devices on the GPU machine).
readonly BACKEND=${SECCOMP_BACKEND:-nccl}
readonly -a COMMON=(--backend "$BACKEND" --no-preflight -c 1)
if [ "$BACKEND" = mpi ]; then
  readonly BIG=4M MID=4M EP_IMPL=alltoallv
else
  readonly BIG=1G MID=64M EP_IMPL=alltoallv,lsa
fi
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}   # NVLink multicast stays off on the lent machines
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}

LOGS=""
BIN=""
LAUNCHER=""
FAILED=0
declare -a MPIRUN=() CONFINE=()

say() { echo "gpu-seccomp: $*" >&2; }
usage_error() { say "$*"; say "usage: OUT=DIR $0 COMMSWEEP_BIN SECCOMP_LAUNCHER"; exit 2; }

# PASS or FAIL line for a case: summary CASE OK(0/1) RC SECONDS FIGURES...
summary() {
  local name=$1 ok=$2 rc=$3 secs=$4
  shift 4
  local verdict=PASS
  [ "$ok" = 1 ] || { verdict=FAIL; FAILED=1; }
  echo "$verdict $name exit=$rc seconds=$secs $*" | tee -a "$LOGS/summary.txt"
}

# Runs a case's command under `timeout`, output in $LOGS/NAME.{cmd,out,err}; sets RC and SECS.
#   run_bounded NAME BOUND COMMAND...
run_bounded() {
  local name=$1 bound=$2 start=$SECONDS left=$((TOTAL_BOUND_S - SECONDS))
  shift 2
  [ "$left" -ge "$bound" ] || bound=$left
  if [ "$bound" -lt "$MIN_CASE_S" ]; then
    echo "not started: ${left}s left of the script's ${TOTAL_BOUND_S}s" | tee "$LOGS/$name.err" >&2
    : >"$LOGS/$name.out"
    RC=124 SECS=0
    return 0
  fi
  printf '%q ' "$@" >"$LOGS/$name.cmd"
  echo >>"$LOGS/$name.cmd"
  RC=0
  timeout --kill-after=20 "$bound" "$@" >"$LOGS/$name.out" 2>"$LOGS/$name.err" || RC=$?
  SECS=$((SECONDS - start))
  case "$RC" in 124|137) say "$name: killed after $bound s (timeout)" ;; esac
}

# The worker pod's confinement: its capability bounding set and no_new_privs with setpriv where
# this machine allows it (a container may lack CAP_SETPCAP), then the seccomp filter.
set_confinement() {
  local bounding="-all,+ipc_lock,+setuid,+setgid,+sys_chroot"
  local -a setpriv=(setpriv "--bounding-set=$bounding" --inh-caps=-all --no-new-privs --)
  CONFINE=()
  if command -v setpriv >/dev/null && timeout 10 "${setpriv[@]}" true 2>/dev/null; then
    CONFINE=("${setpriv[@]}")
    echo "confinement: setpriv (capabilities $WORKER_CAPS, no_new_privs) + seccomp filter" >>"$LOGS/summary.txt"
  else
    say "note: setpriv cannot drop capabilities here: the filter alone is applied (the ranks keep root's)"
    echo "confinement: seccomp filter only (setpriv unavailable or refused)" >>"$LOGS/summary.txt"
  fi
  CONFINE+=("$LAUNCHER" --caps "$WORKER_CAPS" --)
}

# No GPU, no run: say so (exit 6) instead of waiting for NCCL to fail or hang.
require_gpus() {
  local gpus
  gpus=$(timeout 30 nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
  if [ "${gpus:-0}" -lt "$NP" ]; then
    summary preflight 0 6 0 "needs $NP GPUs, nvidia-smi -L lists ${gpus:-0} (no GPU or no driver here)"
    exit 6
  fi
}

# Fields of a results JSON: wrong elements, and busbw (GB/s, out of place) at COMPARE_SIZES.
results_figures() {
  python3 - "$1" "${COMPARE_SIZES[@]}" <<'EOF'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("results=unreadable(%s)" % e.__class__.__name__)
    sys.exit(0)
rows, ep_rows = doc.get("rows", []), doc.get("ep_rows", [])
wrong = sum((r["out_of_place"].get("wrong") or 0) + (r["in_place"].get("wrong") or 0) for r in rows)
wrong += sum((r["dispatch"]["wrong"] or 0) + (r["combine"]["wrong"] or 0) for r in ep_rows)
out = ["wrong=%d" % wrong, "rows=%d" % (len(rows) + len(ep_rows))]
complete = doc.get("summary", {}).get("complete")
if complete is not True:
    out.append("complete=%s" % complete)
for r in ep_rows:
    out.append("%s/t%d:dispatch=%.1f,combine=%.1fGB/s" % (r.get("impl", "alltoallv"), r["tokens"],
               r["dispatch"]["bandwidth_gbps"], r["combine"]["bandwidth_gbps"]))
for size in sys.argv[2:] if rows else []:
    row = next((r for r in rows if r["size_bytes"] == int(size)), None)
    out.append("busbw@%dM=%s" % (int(size) >> 20, "%.1f" % row["out_of_place"]["busbw_gbps"] if row else "none"))
print(" ".join(out))
EOF
}

# NCCL's transports from its INFO lines: "via P2P/CUMEM/IPC" etc., counted.
transports() {
  cat "$@" 2>/dev/null | grep -oE 'via (P2P|SHM|NET)[^ ]*' | sort | uniq -c |
    awk '{ printf "%s%s:%s", sep, $3, $1; sep = "," } END { if (!NR) printf "none-seen" }'
}

case_filter() {
  run_bounded a_filter "$PROBE_BOUND_S" "${CONFINE[@]}" "${MPIRUN[@]}" \
    grep -E '^Seccomp(_filters)?:' /proc/self/status
  local filtered plain_filters rank_filters
  filtered=$(grep -cE '^Seccomp:[[:space:]]+2$' "$LOGS/a_filter.out" || true)
  plain_filters=$(awk '$1 == "Seccomp_filters:" { print $2 }' /proc/self/status)
  rank_filters=$(awk '$1 == "Seccomp_filters:" { print $2 }' "$LOGS/a_filter.out" | sort -u | tr '\n' ' ')
  local ok=0
  [ "$RC" = 0 ] && [ "$filtered" = "$NP" ] && ok=1
  summary a_filter "$ok" "$RC" "$SECS" "ranks_with_Seccomp:2=$filtered/$NP" \
    "filters_per_rank=${rank_filters:-n/a}(this_shell:${plain_filters:-n/a})"
}

# A commsweep sweep under CONFINE (or not): exit 0 and, with a results file, #wrong 0.
#   case_sweep NAME CONFINED(1/0) ENV_ARGS... -- COMMSWEEP_ARGS...
case_sweep() {
  local name=$1 confined=$2
  shift 2
  local -a env_args=()
  while [ "$1" != -- ]; do env_args+=("$1"); shift; done
  shift
  local json="$LOGS/$name.json"
  local -a pre=()
  [ "$confined" = 0 ] || pre=("${CONFINE[@]}")
  rm -f "$json"
  run_bounded "$name" "$CASE_BOUND_S" "${pre[@]}" "${MPIRUN[@]}" "${env_args[@]}" "$BIN" "$@" \
    "${COMMON[@]}" --json "$json"
  local figures="" ok=0
  if [ -f "$json" ]; then figures=$(results_figures "$json") || figures="results=unparsed"; fi
  [ "$RC" = 0 ] && ok=1
  # A run that exits 0 without a complete results file, or with wrong elements, failed.
  case "$figures" in *wrong=0\ *) ;; *) ok=0 ;; esac
  case "$figures" in *complete=*) ok=0 ;; esac
  LAST_FIGURES=$figures
  summary "$name" "$ok" "$RC" "$SECS" "$figures"
  [ "$ok" = 1 ] || { tail -n 5 "$LOGS/$name.err" | sed "s/^/gpu-seccomp: $name: /" >&2 || true; }
}

case_bind_auto() {
  case_sweep e_bind_auto 1 -- all_reduce --bind auto -b 1M -e "$MID"
  # What hwloc and commsweep said about the binding (a denied mbind/set_mempolicy shows here).
  local said
  said=$(grep -ihE 'bind|mbind|mempolicy|hwloc|not permitted' "$LOGS/e_bind_auto.out" "$LOGS/e_bind_auto.err" |
    sort -u | head -n 3 | tr '\n' '|' | tr -s ' ') || true
  echo "e_bind_auto said: ${said:-nothing about binding}" | tee -a "$LOGS/summary.txt"
}

main() {
  [ "$#" -eq 2 ] || usage_error "expected 2 arguments, got $#"
  [ -n "${OUT:-}" ] || usage_error "OUT (the logs' directory) is not set"
  [ -x "$1" ] || usage_error "COMMSWEEP_BIN $1 is not an executable"
  [ -x "$2" ] || usage_error "SECCOMP_LAUNCHER $2 is not an executable (build: tests/security)"
  command -v mpirun >/dev/null || usage_error "mpirun not found"
  BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  LAUNCHER=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  mkdir -p "$OUT"
  LOGS=$(cd "$OUT" && pwd)
  : >"$LOGS/summary.txt"
  local -a more=()
  read -r -a more <<<"${SECCOMP_MPIRUN_ARGS:-}"
  MPIRUN=(mpirun --allow-run-as-root --bind-to none -np "$NP" -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH
          "${more[@]}")
  [ "$BACKEND" = mpi ] || require_gpus
  set_confinement
  case_filter
  case_sweep b_allreduce 1 -x NCCL_DEBUG=INFO -- \
    all_reduce -b 16 -e "$BIG" -f 4
  local filtered=$LAST_FIGURES
  echo "b_allreduce transports: $(transports "$LOGS/b_allreduce.out" "$LOGS/b_allreduce.err")" | tee -a "$LOGS/summary.txt"
  case_sweep c_alltoall 1 -- alltoall -b 1M -e "$MID" -f 4
  case_sweep d_ep 1 -- ep --ep-impl "$EP_IMPL" --tokens 128,4096 -n 5 -w 2
  case_bind_auto
  case_sweep f_unfiltered 0 -- all_reduce -b 16 -e "$BIG" -f 4
  echo "busbw filtered (b): ${filtered:-none} | unfiltered (f): ${LAST_FIGURES:-none}" | tee -a "$LOGS/summary.txt"
  say "logs in $LOGS"
  exit "$FAILED"
}

main "$@"
