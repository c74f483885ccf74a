#!/usr/bin/env bash
# Faults on the GPU machine (nccl backend, one host, mpirun -np 4), one bounded run each:
#   kill-rank       kill -9 of rank 1 mid-sweep: the job ends, nonzero, no half-written results
#                   (the rows so far marked incomplete, or none)
#   hang            --fault hang:2: exit 4 within the bound, rank 2 named (with FAULTS_NP=2 the
#                   hanging rank is 1, here and in hang-kept)
#   alloc           --fault alloc:1: exit 7 (out of memory), rank 1 named, no results file
#   mpmd            ranks started with different arguments (mpirun's ':'): exit 2 at start
#   oom             all_gather -e 200G (more than an H200's 141 GB): exit 7, no crash
#   sigterm-mpirun  SIGTERM to mpirun mid-sweep (odls_base_sigkill_timeout 10, as the master
#                   entrypoint sets it): results written, complete false, ended within the bound
#   sigterm-ranks   SIGTERM to every rank (a pod's processes): exit 5, results incomplete
#   async-error     --fault async-error:1 over NET/Socket (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1):
#                   rank 1 aborts its communicator; a peer's asynchronous error ends the job, exit 3
#   hang-kept       --fault hang:2@64K: exit 4, rank 2 named, the sizes below 64K kept in the
#                   results file (complete=false, interrupted_by=timeout)
#   async-kept      --fault async-error:1@64K over NET/Socket: exit 3, the sizes below 64K kept
#                   (interrupted_by=error): the peers end the job in place, not by unwinding
# Prints one markdown row per case (case | command | exit | seconds | what the user saw |
# results file | verdict) and writes the table, every case's output and, for the SIGTERM cases,
# the ranks' per-thread signal masks under OUT. Runs in about two minutes; every case is under
# `timeout` and the script gives up on the cases left past TOTAL_BOUND_S.
#
#   OUT=/tmp/faults scripts/gpu-faults.sh build-gpu/commsweep
#   scripts/gpu-faults.sh BIN [CASE...]          only those cases
# Settings: OUT (default ./gpu-faults-logs), FAULTS_BACKEND (nccl; mpi tries the script on a
# machine without GPUs), FAULTS_NP (4), FAULTS_MPIRUN_ARGS (more mpirun arguments, split at
# spaces, e.g. --oversubscribe). Exit code: 0 when every case passed, 1 otherwise, 2 for a bad
# setting.
set -euo pipefail

readonly BACKEND=${FAULTS_BACKEND:-nccl}
readonly NP=${FAULTS_NP:-4}
if ! [[ "$NP" =~ ^[0-9]+$ ]] || [ "$NP" -lt 2 ]; then
  echo "gpu-faults.sh: FAULTS_NP must be a whole number of 2 or more (got '$NP'): every fault needs a peer" >&2
  exit 2
fi
# The rank that hangs: 2, or the last rank of a smaller job (nvidia-h200-x2 has two GPUs).
readonly HANG_RANK=$((NP > 2 ? 2 : NP - 1))
LOGS=${OUT:-./gpu-faults-logs}  # made absolute in main
# The cases left after this many seconds are skipped: with a case's own bound (60 s at most)
# and the clean-up, the script ends inside 5 minutes even when every case hangs.
readonly TOTAL_BOUND_S=230
readonly FIRST_ROW_WAIT_S=60    # NCCL set-up on 4 GPUs takes seconds; a minute is a failure
readonly RESULTS_NAME=results.json
# Every sweep: the backend, checked, short (a case is about the fault, not the figures).
readonly -a SWEEP_ARGS=(--backend "$BACKEND" --no-preflight -c 1 -w 1 -n 5)
# The SIGTERM cases' largest size: a rank answers the signal between operations, so one
# operation must end well inside mpirun's 10 s grace. On the mpi backend a 64 MiB all_reduce of
# 4 ranks on CI's 2 loaded cores took longer (the ranks were killed before writing anything).
if [ "$BACKEND" = mpi ]; then readonly SIGTERM_MAXBYTES=4M; else readonly SIGTERM_MAXBYTES=64M; fi
# Every process of this run carries this variable, so that the clean-up finds exactly them.
COMMSWEEP_FAULTS_RUN="gpu-faults-$$-$(date +%s)"
export COMMSWEEP_FAULTS_RUN
# NVLink multicast stays off on the lent machines (KINDS.md).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}

BIN=""
START=$SECONDS
JOB=""
JOB_START=0
JOB_BOUND=0
RC=0
TIMED_OUT=0
ELAPSED=0
SAW=""
STATE=""
FAILED=0
declare -a ROWS=()

say() { echo "gpu-faults: $*" >&2; }
die() { say "$*"; exit 2; }

# mpirun with what every case needs; more arguments follow.
mpirun_base() {
  local -a base=(mpirun)
  [ "$(id -u)" -eq 0 ] && base+=(--allow-run-as-root)
  # shellcheck disable=SC2206  # FAULTS_MPIRUN_ARGS is a list of words by design
  [ -n "${FAULTS_MPIRUN_ARGS:-}" ] && base+=(${FAULTS_MPIRUN_ARGS})
  printf '%s\n' "${base[@]}"
}

# Whether process PID's environment holds the setting NAME=VALUE (processes come and go:
# an unreadable one holds nothing).
has_setting() {
  local pid=$1 setting=$2
  { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qxF "$setting"
}

# The processes of this run (mpirun, the ranks, and any rank mpirun left behind), not this
# shell.
our_processes() {
  local dir pid
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    [ "$pid" != "$$" ] || continue
    has_setting "$pid" "COMMSWEEP_FAULTS_RUN=$COMMSWEEP_FAULTS_RUN" && echo "$pid"
  done
  return 0
}

clean_up() {
  local pid
  for pid in $(our_processes); do kill -KILL "$pid" 2>/dev/null || true; done
}
trap clean_up EXIT

# "RANK PID" for each rank of this run, the first process whose environment names the rank:
# one pass over /proc for all of them (a pass per rank would signal the ranks seconds apart
# on a loaded machine).
rank_pids() {
  local pid rank
  local -A seen=()
  for pid in $(our_processes); do
    rank=$({ tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    if [ -z "$rank" ] || [ -n "${seen[$rank]:-}" ]; then continue; fi
    seen[$rank]=1
    echo "$rank $pid"
  done
  return 0
}

# The pid of rank R; 1 when no process of this run is that rank.
rank_pid() {
  rank_pids | awk -v r="$1" '$1 == r { print $2; found = 1 } END { exit !found }'
}

# Waits until the case's stdout holds a table row (a measured size); 1 when it never does.
wait_first_row() {
  local out=$1 job=$2 waited=0
  while [ "$waited" -lt "$((FIRST_ROW_WAIT_S * 5))" ]; do
    grep -Eq '^ +[0-9]+ +[0-9]+ +[a-z0-9]+ ' "$out" 2>/dev/null && return 0
    kill -0 "$job" 2>/dev/null || return 1
    sleep 0.2
    waited=$((waited + 1))
  done
  return 1
}

# The signal masks of every thread of every rank (the SIGTERM cases: which thread would take
# the signal). SigBlk/SigIgn/SigCgt are hex masks; SIGTERM is bit 15 (0x4000).
record_signal_masks() {
  local file=$1 rank pid task
  rank_pids | sort -n | while read -r rank pid; do
    for task in /proc/"$pid"/task/*; do
      printf 'rank %s pid %s tid %s %s: %s\n' "$rank" "$pid" "${task##*/}" \
        "$(cat "$task/comm" 2>/dev/null)" "$(grep -E '^Sig(Blk|Ign|Cgt)' "$task/status" 2>/dev/null | tr '\n' ' ')"
    done
  done >"$file" 2>&1 || true
}

# What the results file holds: none, complete, incomplete (and why), or not JSON.
results_state() {
  local file=$1
  local leftovers
  leftovers=$(find "$(dirname "$file")" -maxdepth 1 -name "$(basename "$file").tmp.*" | wc -l)
  python3 - "$file" "$leftovers" <<'EOF'
import json, sys
path, leftovers = sys.argv[1], int(sys.argv[2])
note = "; %d temporary file(s) left" % leftovers if leftovers else ""
try:
    with open(path) as f:
        doc = json.load(f)
except FileNotFoundError:
    print("none" + note)
    sys.exit(0)
except ValueError as e:
    print("HALF-WRITTEN (not JSON: %s)%s" % (e, note))
    sys.exit(0)
s = doc.get("summary", {})
rows = len(doc.get("rows", [])) + len(doc.get("ep_rows", []))
if s.get("complete"):
    print("complete, %d rows%s" % (rows, note))
else:
    print("incomplete (complete=false, interrupted_by=%s), %d rows%s"
          % (s.get("interrupted_by"), rows, note))
EOF
}

# The line a user reads first: commsweep's own message (not a fault injection notice), else
# mpirun's, else the first line of stderr.
first_error_line() {
  local err=$1 line
  line=$(grep -E '^commsweep' "$err" | grep -v ': fault injection: ' | head -n 1 || true)
  [ -n "$line" ] || line=$(grep -E 'mpirun noticed|MPI_ABORT was invoked' "$err" | head -n 1 || true)
  [ -n "$line" ] || line=$(grep -E 'mpirun|Primary job' "$err" | head -n 1 || true)
  [ -n "$line" ] || line=$(grep -Ev '^[- ]*$' "$err" | head -n 1 || true)
  line=${line//|/\\|}
  [ "${#line}" -le 220 ] || line="${line:0:217}..."
  echo "${line:-(nothing on stderr)}"
}

# One row of the table; FAILED counts the cases that did not meet their expectation.
row() {
  local name=$1 cmd=$2 rc=$3 seconds=$4 saw=$5 state=$6 verdict=$7
  cmd=${cmd//"$LOGS"/\$OUT}
  cmd=${cmd//"$BIN"/commsweep}
  ROWS+=("| $name | \`${cmd//|/\\|}\` | $rc | $seconds | $saw | $state | $verdict |")
  echo "${ROWS[-1]}"
  [[ "$verdict" == PASS* ]] || FAILED=$((FAILED + 1))
}

# A case's folder, emptied: a results file of an earlier run must not pass for this one's.
fresh_dir() {
  rm -rf -- "$1"
  mkdir -p -- "$1"
}

# Starts a case in the background under `timeout`; sets JOB (timeout's pid) and JOB_START.
start_case() {
  local name=$1 bound=$2
  shift 2
  : >"$LOGS/$name.stdout"
  : >"$LOGS/$name.stderr"
  JOB_START=$SECONDS
  JOB_BOUND=$bound
  timeout -k 5 "$bound" "$@" >"$LOGS/$name.stdout" 2>"$LOGS/$name.stderr" &
  JOB=$!
}

# Waits for case NAME (not in a subshell: only this shell can wait for its job); sets RC,
# TIMED_OUT (the bound ran out: timeout's 124 or 137 cannot tell, mpirun itself exits 137
# when a rank was killed), ELAPSED, SAW (the first error line) and STATE (its results file's).
finish_case() {
  local name=$1
  RC=0
  wait "$JOB" || RC=$?
  ELAPSED=$((SECONDS - JOB_START))
  TIMED_OUT=0
  [ "$ELAPSED" -lt "$JOB_BOUND" ] || TIMED_OUT=1
  SAW=$(first_error_line "$LOGS/$name.stderr")
  STATE=$(results_state "$LOGS/$name/$RESULTS_NAME")
}

# A case that runs to its end by itself: name, bound, expected exit code, a text the first
# error line must hold, then the command. No results file is expected, unless WANT_STATE
# names the start of its state (results_state).
plain_case() {
  local name=$1 bound=$2 want_rc=$3 want_text=$4 want_state=${WANT_STATE:-none}
  shift 4
  local dir="$LOGS/$name"
  fresh_dir "$dir"
  start_case "$name" "$bound" "$@"
  local verdict="PASS"
  finish_case "$name"
  [ "$RC" = "$want_rc" ] || verdict="FAIL: exit $RC, expected $want_rc"
  [ "$TIMED_OUT" = 0 ] || verdict="FAIL: still running at the bound ($bound s)"
  [[ "$SAW" == *"$want_text"* ]] || verdict="${verdict/#PASS/FAIL:} no '$want_text' in the message"
  [[ "$STATE" == "$want_state"* ]] || verdict="${verdict/#PASS/FAIL:} results file: $STATE"
  row "$name" "$*" "$RC" "$ELAPSED" "$SAW" "$STATE" "$verdict"
}

case_kill_rank() {
  local dir="$LOGS/kill-rank"
  fresh_dir "$dir"
  local -a cmd
  mapfile -t cmd < <(mpirun_base)
  cmd+=(-np "$NP" "$BIN" all_reduce -b 8 -e 256M -N 0 -T 30 --json "$dir/$RESULTS_NAME" "${SWEEP_ARGS[@]}")
  start_case kill-rank 60 "${cmd[@]}"
  local note="" victim="" killed_at=$SECONDS
  if wait_first_row "$LOGS/kill-rank.stdout" "$JOB" && victim=$(rank_pid 1); then
    kill -KILL "$victim"
    killed_at=$SECONDS
    note="kill -9 rank 1 (pid $victim) at $((SECONDS - JOB_START)) s; "
  else
    note="no row or no rank 1 found; "
  fi
  local verdict="PASS"
  finish_case kill-rank
  [ -n "$victim" ] || verdict="FAIL: rank 1 was never killed"
  [ "$RC" != 0 ] || verdict="FAIL: exit 0 after a rank was killed"
  [ "$TIMED_OUT" = 0 ] || verdict="FAIL: still running at the bound ($JOB_BOUND s)"
  [ "$((JOB_START + ELAPSED - killed_at))" -le 30 ] ||
    verdict="FAIL: ended $((JOB_START + ELAPSED - killed_at)) s after the kill"
  # mpirun ends the other ranks with SIGTERM: rank 0 may keep the rows so far (marked
  # incomplete, docs/failures.md) or write nothing; never a complete or half-written file.
  case "$STATE" in none | "incomplete (complete=false, interrupted_by=SIGTERM)"*) ;; *) verdict="FAIL: results file: $STATE" ;; esac
  row kill-rank "${note}${cmd[*]}" "$RC" "$ELAPSED" "$SAW" "$STATE" "$verdict"
}

case_hang() {
  local -a cmd
  mapfile -t cmd < <(mpirun_base)
  cmd+=(-np "$NP" "$BIN" all_reduce -e 1M -T 5 --fault "hang:$HANG_RANK" --json "$LOGS/hang/$RESULTS_NAME" "${SWEEP_ARGS[@]}")
  plain_case hang 60 4 "ranks that did not arrive: $HANG_RANK" "${cmd[@]}"
}

case_alloc() {
  local -a cmd
  mapfile -t cmd < <(mpirun_base)
  cmd+=(-np "$NP" "$BIN" all_reduce -e 1M --fault alloc:1 --json "$LOGS/alloc/$RESULTS_NAME" "${SWEEP_ARGS[@]}")
  plain_case alloc 45 7 "rank 1 (host" "${cmd[@]}"
}

case_mpmd() {
  local -a cmd
  mapfile -t cmd < <(mpirun_base)
  local half=$((NP / 2))
  cmd+=(-np "$half" "$BIN" all_reduce -e 1K --json "$LOGS/mpmd/$RESULTS_NAME" "${SWEEP_ARGS[@]}"
        : -np "$((NP - half))" "$BIN" all_reduce -e 2K --json "$LOGS/mpmd/$RESULTS_NAME" "${SWEEP_ARGS[@]}")
  plain_case mpmd 45 2 "different arguments" "${cmd[@]}"
}

case_oom() {
  local -a cmd
  mapfile -t cmd < <(mpirun_base)
  cmd+=(-np "$NP" "$BIN" all_gather -b 200G -e 200G --json "$LOGS/oom/$RESULTS_NAME" "${SWEEP_ARGS[@]}")
  plain_case oom 60 7 "out of memory" "${cmd[@]}"
}

# SIGTERM mid-sweep, to mpirun (target mpirun) or to every rank (target ranks).
sigterm_case() {
  local name=$1 target=$2 want_rc=$3
  local dir="$LOGS/$name"
  fresh_dir "$dir"
  local -a cmd
  mapfile -t cmd < <(mpirun_base)
  # The master entrypoint's setting (COMMSWEEP_SIGKILL_TIMEOUT_S): the ranks get this long
  # between mpirun's SIGTERM and its SIGKILL to write what they measured.
  cmd+=(--mca odls_base_sigkill_timeout 10 -np "$NP" "$BIN" all_reduce -b 8 -e "$SIGTERM_MAXBYTES" -N 0 -T 30
        --json "$dir/$RESULTS_NAME" "${SWEEP_ARGS[@]}")
  start_case "$name" 60 "${cmd[@]}"
  local note="" signalled_at=$SECONDS mpirun_pid rank pid
  if wait_first_row "$LOGS/$name.stdout" "$JOB"; then
    sleep 2
    record_signal_masks "$LOGS/$name.sigmasks"
    if [ "$target" = mpirun ]; then
      mpirun_pid=$(pgrep -P "$JOB" | head -n 1 || true)
      [ -n "$mpirun_pid" ] && kill -TERM "$mpirun_pid"
      note="SIGTERM to mpirun (pid ${mpirun_pid:-?}) at $((SECONDS - JOB_START)) s; "
    else
      while read -r rank pid; do kill -TERM "$pid" || true; done < <(rank_pids)
      note="SIGTERM to every rank at $((SECONDS - JOB_START)) s; "
    fi
    signalled_at=$SECONDS
  else
    note="no row within ${FIRST_ROW_WAIT_S} s; "
  fi
  local verdict="PASS" ended_after
  finish_case "$name"
  if [ "$want_rc" = nonzero ]; then
    [ "$RC" != 0 ] || verdict="FAIL: exit 0 for an interrupted run"
  else
    [ "$RC" = "$want_rc" ] || verdict="FAIL: exit $RC, expected $want_rc"
  fi
  [ "$TIMED_OUT" = 0 ] || verdict="FAIL: still running at the bound ($JOB_BOUND s)"
  ended_after=$((JOB_START + ELAPSED - signalled_at))
  [ "$ended_after" -le 30 ] || verdict="${verdict/#PASS/FAIL:} ended $ended_after s after the signal"
  [[ "$STATE" == "incomplete (complete=false, interrupted_by=SIGTERM), "[1-9]* ]] ||
    verdict="${verdict/#PASS/FAIL:} results not written as incomplete"
  row "$name" "${note}${cmd[*]}" "$RC" "$ELAPSED" "$SAW" "$STATE" "$verdict"
}

case_sigterm_mpirun() { sigterm_case sigterm-mpirun mpirun nonzero; }
case_sigterm_ranks() { sigterm_case sigterm-ranks ranks 5; }

case_async_error() {
  local -a cmd
  mapfile -t cmd < <(mpirun_base)
  # NET/Socket between the ranks of one host: a peer's socket closes when rank 1 aborts its
  # communicator, which NCCL's proxy reports as an asynchronous error. Over NVLink the peers
  # would only wait (exit 4 at -T).
  cmd+=(-x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 -x NCCL_DEBUG=WARN -np "$NP" "$BIN" all_reduce -e 1M -T 20
        --fault async-error:1 --json "$LOGS/async-error/$RESULTS_NAME" "${SWEEP_ARGS[@]}")
  plain_case async-error 60 3 "error" "${cmd[@]}"
}

# The failures from 64K on, after the smaller sizes were measured: rank 0 keeps those rows.
case_hang_kept() {
  local -a cmd
  mapfile -t cmd < <(mpirun_base)
  cmd+=(-np "$NP" "$BIN" all_reduce -b 8 -e 1M -T 5 --fault "hang:$HANG_RANK@64K" --json "$LOGS/hang-kept/$RESULTS_NAME"
        "${SWEEP_ARGS[@]}")
  WANT_STATE="incomplete (complete=false, interrupted_by=timeout), 13 rows" \
    plain_case hang-kept 60 4 "ranks that did not arrive: $HANG_RANK" "${cmd[@]}"
}

case_async_kept() {
  local -a cmd
  mapfile -t cmd < <(mpirun_base)
  cmd+=(-x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 -x NCCL_DEBUG=WARN -np "$NP" "$BIN" all_reduce -b 8 -e 1M
        -T 20 --fault async-error:1@64K --json "$LOGS/async-kept/$RESULTS_NAME" "${SWEEP_ARGS[@]}")
  WANT_STATE="incomplete (complete=false, interrupted_by=error), 13 rows" \
    plain_case async-kept 60 3 "error" "${cmd[@]}"
}

table_header() {
  echo "| case | command | exit | s | what the user saw | results file | verdict |"
  echo "|---|---|---|---|---|---|---|"
}

main() {
  [ $# -ge 1 ] || die "usage: OUT=DIR scripts/gpu-faults.sh COMMSWEEP_BINARY [CASE...]"
  BIN=$(realpath "$1")
  shift
  [ -x "$BIN" ] || die "$BIN is not an executable"
  command -v mpirun >/dev/null || die "mpirun not found"
  command -v python3 >/dev/null || die "python3 not found (it reads the results files)"
  mkdir -p "$LOGS"
  LOGS=$(realpath "$LOGS")
  local -a cases=(kill-rank hang alloc mpmd oom sigterm-mpirun sigterm-ranks async-error hang-kept async-kept)
  [ $# -eq 0 ] || cases=("$@")
  say "backend $BACKEND, $NP ranks, logs in $LOGS"
  table_header
  local name
  for name in "${cases[@]}"; do
    declare -F "case_${name//-/_}" >/dev/null || die "unknown case $name (${cases[*]})"
    if [ "$((SECONDS - START))" -gt "$TOTAL_BOUND_S" ]; then
      row "$name" "-" "-" "-" "-" "-" "SKIPPED: past ${TOTAL_BOUND_S} s"
      continue
    fi
    "case_${name//-/_}"
    clean_up
  done
  { table_header; printf '%s\n' "${ROWS[@]}"; } >"$LOGS/gpu-faults.md"
  say "$((${#ROWS[@]} - FAILED)) of ${#ROWS[@]} cases passed in $((SECONDS - START)) s; table in $LOGS/gpu-faults.md"
  [ "$FAILED" -eq 0 ]
}

main "$@"
