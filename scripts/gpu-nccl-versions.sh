#!/usr/bin/env bash
# The NCCL version policy on a GPU machine (nccl backend, one host), one bounded run each:
#   current-collectives  the build against the CUDA toolkit's NCCL 2.28.9 headers, run with the
#                        image's NCCL 2.28.9: every collective, #wrong 0, the policy's
#                        host_collectives decision "accepted" in the preamble and the results
#   current-ep           the same binary: commsweep ep --ep-impl alltoallv,lsa, both
#                        implementations' rows, #wrong 0, lsa_ep accepted, no note
#   current-lsa          --ep-impl lsa alone (the device API path by itself), #wrong 0
#   newest-refused       a build against NCCL 2.32.3's headers (scripts/test-nccl-newest.sh) run
#                        with the image's 2.28.9: refused at set-up with the policy's message
#                        naming both versions and the remedy, exit 3, no results file
#   older-refused        the current build run with an older library than its headers (the
#                        image's system NCCL, OLDER_NCCL_LIB, 2.28.3 on the lent machines):
#                        refused with the policy's message, exit 3, no results file; skipped
#                        (said) where there is no such library
# Prints one line per case (PASS/FAIL, exit code, seconds) and writes every case's output and
# results under OUT. Every case is under `timeout` (CASE_BOUND_S); the whole script ends within
# about 5 minutes.
#
#   OUT=/tmp/nccl-versions scripts/gpu-nccl-versions.sh build/commsweep build-nccl-newest/commsweep
# Settings: OUT (default ./gpu-nccl-versions-logs); NCCL_LIB, the folder of the machine's
# libnccl.so.2 (default: the nvidia-nccl-cu13 Python package's nvidia/nccl/lib); VERSIONS_NP,
# ranks (default 1: one GPU is enough; the EP sweep runs on one rank); OLDER_NCCL_LIB, the folder
# of an NCCL older than 2.28.9 (default /lib/x86_64-linux-gnu, the system package's). Exit code: 0 when every
# case passed, 1 otherwise, 2 for a bad argument or setting.
set -euo pipefail

readonly NP=${VERSIONS_NP:-1}
readonly CASE_BOUND_S=120
# NVLink multicast stays off on the lent machines (KINDS.md).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
LOGS=${OUT:-./gpu-nccl-versions-logs}
FAILED=0

say() { echo "gpu-nccl-versions: $*" >&2; }
die() { say "$*"; exit 2; }

# The folder of the machine's libnccl.so.2: NCCL_LIB, else the Python package's.
nccl_lib() {
  if [ -n "${NCCL_LIB:-}" ]; then
    echo "$NCCL_LIB"
    return 0
  fi
  python3 -c 'import os, nvidia.nccl as m; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null ||
    die "no NCCL_LIB and no nvidia.nccl Python package: set NCCL_LIB to the folder of the image's libnccl.so.2"
}

mpirun_base() {
  local -a base=(mpirun --bind-to none -np "$NP")
  [ "$(id -u)" -eq 0 ] && base+=(--allow-run-as-root)
  printf '%s\n' "${base[@]}"
}

# run_case NAME BIN ARGS...: runs BIN under mpirun with the machine's NCCL first on
# LD_LIBRARY_PATH, bounded; leaves RC and the output in $LOGS/NAME.log, results in $LOGS/NAME.json.
run_case() {
  local name=$1 bin=$2
  shift 2
  local -a launch
  mapfile -t launch < <(mpirun_base)
  rm -f "$LOGS/$name.json"
  local start=$SECONDS
  RC=0
  echo "\$ ${launch[*]} -x LD_LIBRARY_PATH $bin $* --json $LOGS/$name.json" >"$LOGS/$name.log"
  timeout --kill-after=10 "$CASE_BOUND_S" "${launch[@]}" -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE \
    "$bin" "$@" --json "$LOGS/$name.json" >>"$LOGS/$name.log" 2>&1 || RC=$?
  ELAPSED=$((SECONDS - start))
}

# verdict NAME WHY...: PASS where WHY is empty.
verdict() {
  local name=$1 why=$2 line
  if [ -z "$why" ]; then
    line=$(printf 'PASS  %-20s exit %-3s %4d s' "$name" "$RC" "$ELAPSED")
  else
    line=$(printf 'FAIL  %-20s exit %-3s %4d s  %s' "$name" "$RC" "$ELAPSED" "$why")
    FAILED=$((FAILED + 1))
  fi
  echo "$line" | tee -a "$LOGS/summary.txt"
}

# Checks a results file: python prints what is wrong ("" when all is as expected).
# check_results FILE VERSION PATH:VERDICT... [--impls a,b]
check_results() {
  python3 - "$@" <<'PY'
import json, sys
path, version, *rest = sys.argv[1:]
impls = None
if "--impls" in rest:
    impls = set(rest[rest.index("--impls") + 1].split(","))
    rest = rest[:rest.index("--impls")]
try:
    doc = json.load(open(path))
except Exception as e:
    print("no readable results file: %s" % e); sys.exit()
p = doc["provenance"]
problems = []
if p["nccl_version"] != version: problems.append("library %s, not %s" % (p["nccl_version"], version))
if doc["summary"]["wrong_total"] != 0: problems.append("wrong_total %s" % doc["summary"]["wrong_total"])
if not doc["summary"]["complete"]: problems.append("incomplete")
decided = {d["path"]: d["verdict"] for d in p.get("nccl_policy", [])}
for want in rest:
    path_, verdict = want.split(":")
    if decided.get(path_) != verdict: problems.append("%s %s, not %s" % (path_, decided.get(path_), verdict))
if impls is not None:
    seen = {r["impl"] for r in doc["ep_rows"]}
    if seen != impls: problems.append("ep rows of %s, not %s" % (sorted(seen), sorted(impls)))
    if doc.get("notes"): problems.append("notes: %s" % doc["notes"])
print("; ".join(problems))
PY
}

# The version of the libnccl.so.2 in a folder, from the string every NCCL library carries.
library_version() {
  grep -aom1 'NCCL version [0-9]*\.[0-9]*\.[0-9]*' "$1/libnccl.so.2" 2>/dev/null | awk '{print $3}'
}

# The current build against an NCCL older than its headers: refused by the policy, exit 3.
older_refused() {
  local current=$1 older=${OLDER_NCCL_LIB:-/lib/x86_64-linux-gnu} version why=""
  version=$(library_version "$older")
  case "$version" in
    2.28.[0-8] | 2.2[0-7].*)
      ;;
    *)
      echo "SKIP  older-refused        no NCCL older than 2.28.9 in $older (found '${version:-none}')" | tee -a "$LOGS/summary.txt"
      return 0
      ;;
  esac
  CASES=$((CASES + 1))
  LD_LIBRARY_PATH="$older:$LD_LIBRARY_PATH" run_case older-refused "$current" all_reduce --backend nccl --no-preflight -b 8 -e 1M -c 1
  [ "$RC" -eq 3 ] || why="exit $RC, not 3"
  grep -qF "the NCCL library loaded at run time is $version, older than the headers commsweep was built with (2.28.9)" \
    "$LOGS/older-refused.log" || why="${why:+$why; }not the policy's message"
  [ ! -e "$LOGS/older-refused.json" ] || why="${why:+$why; }a results file was written"
  verdict older-refused "$why"
}

main() {
  CASES=4
  [ "$#" -eq 2 ] || die "usage: scripts/gpu-nccl-versions.sh CURRENT_BIN NEWEST_BIN (build/commsweep build-nccl-newest/commsweep)"
  local current=$1 newest=$2 lib why
  [ -x "$current" ] || die "$current: not an executable"
  [ -x "$newest" ] || die "$newest: not an executable"
  [[ "$NP" =~ ^[1-9][0-9]*$ ]] || die "VERSIONS_NP must be a whole number of 1 or more (got '$NP')"
  mkdir -p "$LOGS"
  LOGS=$(cd "$LOGS" && pwd)
  : >"$LOGS/summary.txt"
  lib=$(nccl_lib)
  [ -e "$lib/libnccl.so.2" ] || die "$lib/libnccl.so.2: not found"
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "machine's NCCL: $lib/libnccl.so.2; $NP rank(s); logs in $LOGS"
  { ldd "$current"; echo; ldd "$newest"; } >"$LOGS/ldd.txt" 2>&1 || true

  run_case current-collectives "$current" all --backend nccl --no-preflight -b 8 -e 16M -f 8 -c 1 -w 1 -n 5
  why=$(check_results "$LOGS/current-collectives.json" 2.28.9 host_collectives:accepted)
  [ "$RC" -eq 0 ] || why="exit $RC${why:+; $why}"
  grep -q '^# NCCL policy (headers 2.28.9, library 2.28.9): host_collectives: accepted' "$LOGS/current-collectives.log" ||
    why="${why:+$why; }no policy line in the preamble"
  verdict current-collectives "$why"

  run_case current-ep "$current" ep --backend nccl --no-preflight --ep-impl alltoallv,lsa --tokens 128,1024 -c 1 -n 3
  why=$(check_results "$LOGS/current-ep.json" 2.28.9 alltoallv_ep:accepted lsa_ep:accepted ll_all_to_all_counts:accepted --impls alltoallv,lsa)
  [ "$RC" -eq 0 ] || why="exit $RC${why:+; $why}"
  verdict current-ep "$why"

  run_case current-lsa "$current" ep --backend nccl --no-preflight --ep-impl lsa --tokens 4096 -c 1 -n 3
  why=$(check_results "$LOGS/current-lsa.json" 2.28.9 lsa_ep:accepted --impls lsa)
  [ "$RC" -eq 0 ] || why="exit $RC${why:+; $why}"
  verdict current-lsa "$why"

  # Refused before NCCL starts: the exact message of src/nccl_policy (host_collectives).
  run_case newest-refused "$newest" all_reduce --backend nccl --no-preflight -b 8 -e 1M -c 1
  why=""
  [ "$RC" -eq 3 ] || why="exit $RC, not 3"
  grep -qF "the NCCL library loaded at run time is 2.28.9, older than the headers commsweep was built with (2.32.3), whose symbols and structures it may lack: point LD_LIBRARY_PATH at the folder of a libnccl.so.2 of NCCL 2.32.3 or newer, or rebuild with NCCL_ROOT set to the NCCL 2.28.9 you run with (scripts/build.sh)" \
    "$LOGS/newest-refused.log" || why="${why:+$why; }not the policy's message"
  [ ! -e "$LOGS/newest-refused.json" ] || why="${why:+$why; }a results file was written"
  verdict newest-refused "$why"

  older_refused "$current"

  say "$((CASES - FAILED)) of $CASES cases passed (summary: $LOGS/summary.txt)"
  [ "$FAILED" -eq 0 ] || exit 1
}

main "$@"
