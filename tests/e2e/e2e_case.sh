#!/usr/bin/env bash
# One end-to-end case of the Volcano Job emulation (see pods.sh): the real worker and master
# entrypoints in network namespaces, mpirun over ssh between them, commsweep on the mpi
# backend. Exit 0 when the case behaves as it must, 77 (skip) where the machine cannot emulate
# pods, 1 otherwise. Everything it starts is ended on exit, also on failure.
#   e2e_case.sh --case NAME --commsweep BIN --workdir DIR --schema SCHEMA
# Cases: ok, three_workers, worker_never_starts, worker_dies, bad_hostfile, sigterm, baremetal.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
E2E_PREFIX="cse2e$$"
# shellcheck source=tests/e2e/pods.sh
source "$here/pods.sh"

# A short sweep of every collective: rows in each table, seconds in all.
readonly SHORT_SWEEP="all -b 8 -e 64K --backend mpi -c 1 -w 1 -n 2"
read -r -a SHORT_SWEEP_WORDS <<<"$SHORT_SWEEP"
readonly SHORT_SWEEP_WORDS
# A sweep that runs until stopped (-N 0: cycles without end), for the fault cases.
readonly ENDLESS_SWEEP="all_reduce -b 8 -e 64K --backend mpi -w 1 -n 5 -N 0"
readonly MASTER_BOUND_S=90   # no case may take longer; ctest's TIMEOUT is above it

FAILURES=()
expect() {
  local what=$1
  shift
  if "$@"; then log "ok: $what"; else log "FAILED: $what"; FAILURES+=("$what"); fi
}

# The job: `started` workers running the worker entrypoint, `listed` of them in the hostfile
# (listed >= started: the others never start; those with a namespace resolve).
#   create_job STARTED LISTED [WITH_NS]
create_job() {
  local started=$1 listed=$2 with_ns=${3:-$1} i dns=""
  create_switch
  make_ssh_secret "$E2E_WORK/secret" "$listed"
  make_svc_configmap "$E2E_WORK/configmap" "$listed"
  dns+="$(master_pod).$E2E_JOB $E2E_MASTER_IP"$'\n'
  for ((i = 0; i < with_ns; i++)); do dns+="$(worker_pod "$i").$E2E_JOB $(worker_ip "$i")"$'\n'; done
  create_pod_network m "$E2E_MASTER_IP"
  make_pod_dir "$(master_pod)" "$E2E_MASTER_IP" "$dns"
  for ((i = 0; i < with_ns; i++)); do
    create_pod_network "w$i" "$(worker_ip "$i")"
    make_pod_dir "$(worker_pod "$i")" "$(worker_ip "$i")" "$dns"
  done
  for ((i = 0; i < started; i++)); do
    start_pod "w$i" "$(worker_pod "$i")" "$E2E_WORK/$(worker_pod "$i")" \
      "$repo/scripts/entrypoint-worker.sh"
  done
}

make_pod_dir() {
  local pod=$1 ip=$2 dns=$3 dir="$E2E_WORK/$1"
  mkdir -p "$dir"
  make_etc_hosts "$dir/hosts" "$pod" "$ip" "$dns"
  cp -r "$E2E_WORK/secret" "$dir/ssh"
  chmod 0700 "$dir/ssh"
  cp -r "$E2E_WORK/configmap" "$dir/volcano"
}

start_master() {
  start_pod m "$(master_pod)" "$E2E_WORK/$(master_pod)" "$repo/scripts/entrypoint-master.sh" "$@"
}

master_out() { cat "$E2E_WORK/$(master_pod)/stdout"; }
master_err() { cat "$E2E_WORK/$(master_pod)/stderr"; }

show_logs() {
  local f
  for f in "$E2E_WORK"/*/stdout "$E2E_WORK"/*/stderr; do
    [ -s "$f" ] || continue
    echo "---- ${f#"$E2E_WORK"/} (last 30 lines)"
    tail -n 30 "$f"
  done
}

# The run's results file and JSON lines, the table and the JSON against each other.
check_results() {
  local np=$1 hosts=$2
  python3 "$here/check_e2e.py" --stdout "$E2E_WORK/$(master_pod)/stdout" \
    --results-dir "$E2E_WORK/results" --test-id "$COMMSWEEP_TEST_ID" --np "$np" \
    --hosts "$hosts" --schema "$SCHEMA" -- "${SHORT_SWEEP_WORDS[@]}"
}

case_ok() {
  create_job 2 2
  # Set in the master pod only: the ranks on the workers see it only through mpirun's -x.
  export NCCL_E2E_MARKER=from-the-master UCX_E2E_MARKER=from-the-master
  local pid
  start_master
  pid=$POD_PID
  wait_pod "$pid" "$MASTER_BOUND_S"
  expect "master exits 0 (got $POD_RC after $POD_ELAPSED s)" test "$POD_RC" = 0
  expect "the master waited for both workers" grep -q "every worker answers" "$E2E_WORK/$(master_pod)/stderr"
  expect "tables, results file and JSON lines agree" check_results 2 \
    "$(worker_pod 0),$(worker_pod 1)"
  expect "NCCL_* and UCX_* reached rank 0 (provenance.environment)" python3 -c '
import glob, json, sys
env = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["provenance"]["environment"]
assert env.get("NCCL_E2E_MARKER") == env.get("UCX_E2E_MARKER") == "from-the-master", env
' "$E2E_WORK/results"
  expect "the workers created their host keys" grep -q "created host key" \
    "$E2E_WORK/$(worker_pod 0)/stderr"
}

# 3 workers, 2 ranks each, sshd on another port, the ssh plugin's files elsewhere
# (its --ssh-key-file-path), and the command from the Job's arguments.
case_three_workers() {
  export COMMSWEEP_SSH_PORT=2222 COMMSWEEP_GPUS_PER_NODE=2
  export POD_SSH_DIR=/etc/commsweep-ssh COMMSWEEP_SSH_DIR=/etc/commsweep-ssh
  unset COMMSWEEP_ARGS
  create_job 3 3
  local pid
  start_master "${SHORT_SWEEP_WORDS[@]}"
  pid=$POD_PID
  wait_pod "$pid" "$MASTER_BOUND_S"
  expect "master exits 0 (got $POD_RC after $POD_ELAPSED s)" test "$POD_RC" = 0
  expect "mpirun used port 2222 and the plugin's files" grep -q -- \
    "-p 2222 .*-F /etc/commsweep-ssh/config -i /etc/commsweep-ssh/id_rsa" "$E2E_WORK/$(master_pod)/stderr"
  local w0 w1 w2
  w0=$(worker_pod 0) w1=$(worker_pod 1) w2=$(worker_pod 2)
  expect "6 ranks, 2 per worker, results complete" check_results 6 "$w0,$w0,$w1,$w1,$w2,$w2"
}

case_worker_never_starts() {
  export COMMSWEEP_WAIT_WORKERS_S=6
  # Worker 0 runs; worker 1 has no pod (its name does not resolve); worker 2's pod exists
  # but its entrypoint never ran (resolves, no sshd).
  create_job 1 3 1
  create_pod_network w2 "$(worker_ip 2)"
  sed -i "\$a $(worker_ip 2)\t$(worker_pod 2).$E2E_JOB" "$E2E_WORK/$(master_pod)/hosts"
  local pid
  start_master
  pid=$POD_PID
  wait_pod "$pid" 40
  local err
  err=$(master_err)
  expect "master exits 4 (timeout) (got $POD_RC after $POD_ELAPSED s)" test "$POD_RC" = 4
  expect "master gives up at its deadline (6 s; took $POD_ELAPSED s)" test "$POD_ELAPSED" -le 20
  expect "names worker 1 as not resolving" grep -q "$(worker_pod 1).$E2E_JOB (does not resolve" <<<"$err"
  expect "names worker 2 as not answering" grep -q "$(worker_pod 2).$E2E_JOB (no sshd answers" <<<"$err"
  expect "does not name worker 0" bash -c "! grep -q '$(worker_pod 0).$E2E_JOB (' <<<\"\$1\"" _ "$err"
  expect "no mpirun started" bash -c "! grep -q 'running: mpirun' <<<\"\$1\"" _ "$err"
}

case_worker_dies() {
  export COMMSWEEP_ARGS=$ENDLESS_SWEEP
  create_job 2 2
  local pid
  start_master
  pid=$POD_PID
  if ! wait_for_line "$E2E_WORK/$(master_pod)/stdout" '^ +[0-9]+ +[0-9]+ +float' 60; then
    FAILURES+=("the sweep never printed a row")
    return 0
  fi
  log "the sweep runs: killing every process of $(worker_pod 1) (the pod dies)"
  kill_namespace_processes "$(pod_ns w1)"
  local killed=$SECONDS
  wait_pod "$pid" 60
  expect "the job ends nonzero (got $POD_RC)" test "$POD_RC" != 0 -a "$POD_RC" != 124
  expect "within 60 s of the death (took $((SECONDS - killed)) s)" test "$POD_RC" != 124
  # What was left on the surviving worker: no orted, no rank.
  sleep 2
  expect "nothing of the job left on $(worker_pod 0) but sshd" \
    bash -c "! ip netns pids '$(pod_ns w0)' | xargs -r ps -o comm= -p | grep -v '^sshd$'"
}

case_bad_hostfile() {
  export COMMSWEEP_WAIT_WORKERS_S=5
  create_job 0 2 0
  local dir pid err
  dir="$E2E_WORK/$(master_pod)/volcano"
  # A name that is no host name, on line 2 (and still no newline at the end).
  printf '%s\n%s' "$(worker_pod 0).$E2E_JOB" "worker_1!" >"$dir/mpiworker.host"
  start_master
  pid=$POD_PID
  wait_pod "$pid" 20
  err=$(master_err)
  expect "bad name: exit 2 (got $POD_RC)" test "$POD_RC" = 2
  expect "bad name: file and line named" grep -q "/etc/volcano/mpiworker.host line 2: 'worker_1!' is not a host name" <<<"$err"
  printf '%s\n%s' "$(worker_pod 0).$E2E_JOB" "$(worker_pod 0).$E2E_JOB" >"$dir/mpiworker.host"
  start_master
  pid=$POD_PID
  wait_pod "$pid" 20
  expect "a host twice: exit 2 (got $POD_RC)" test "$POD_RC" = 2
  expect "a host twice: named" grep -q "line 2: $(worker_pod 0).$E2E_JOB is listed twice" \
    "$E2E_WORK/$(master_pod)/stderr"
  : >"$dir/mpiworker.host"
  start_master
  pid=$POD_PID
  wait_pod "$pid" 20
  expect "empty: exit 2 (got $POD_RC)" test "$POD_RC" = 2
  expect "empty: said" grep -q "mpiworker.host lists no host" "$E2E_WORK/$(master_pod)/stderr"
  rm "$dir/mpiworker.host"
  start_master
  pid=$POD_PID
  wait_pod "$pid" 20
  expect "missing: exit 2 (got $POD_RC)" test "$POD_RC" = 2
  expect "missing: the svc plugin named" grep -q "does not exist.*svc" "$E2E_WORK/$(master_pod)/stderr"
}

# Kubernetes at activeDeadlineSeconds: SIGTERM to the master's PID 1.
case_sigterm() {
  export COMMSWEEP_ARGS=$ENDLESS_SWEEP COMMSWEEP_SIGKILL_TIMEOUT_S=3
  create_job 2 2
  local pid
  start_master
  pid=$POD_PID
  if ! wait_for_line "$E2E_WORK/$(master_pod)/stdout" '^ +[0-9]+ +[0-9]+ +float' 60; then
    FAILURES+=("the sweep never printed a row")
    return 0
  fi
  sleep 1
  kill -TERM "$pid"
  wait_pod "$pid" 30
  expect "master exits 5 (interrupted) within 30 s (got $POD_RC after $POD_ELAPSED s)" \
    test "$POD_RC" = 5
  expect "partial results stored (complete: false, SIGTERM)" python3 -c '
import glob, json, sys
files = glob.glob(sys.argv[1] + "/*.json")
assert len(files) == 1, files
s = json.load(open(files[0]))["summary"]
assert s["complete"] is False and s["interrupted_by"] == "SIGTERM", s
' "$E2E_WORK/results"
  expect "summary JSON line printed" grep -q '"commsweep":"summary"' "$E2E_WORK/$(master_pod)/stdout"
}

# scripts/run-baremetal.sh from the master's namespace, on an Open MPI hostfile of its own
# (comments, slots), with a shape that has no settings file.
case_baremetal() {
  create_job 2 2
  local hostfile="$E2E_WORK/hosts.txt" pid
  printf '# the nodes\n%s slots=8\n\n%s slots=8  # second node\n' \
    "$(worker_pod 0).$E2E_JOB" "$(worker_pod 1).$E2E_JOB" >"$hostfile"
  unset COMMSWEEP_ARGS
  start_pod m "$(master_pod)" "$E2E_WORK/$(master_pod)" "$repo/scripts/run-baremetal.sh" \
    --shape NO.SUCH.SHAPE "$hostfile" "${SHORT_SWEEP_WORDS[@]}"
  pid=$POD_PID
  wait_pod "$pid" "$MASTER_BOUND_S"
  expect "run-baremetal.sh exits 0 (got $POD_RC after $POD_ELAPSED s)" test "$POD_RC" = 0
  expect "the missing shape settings are said" grep -q "no .*NO.SUCH.SHAPE.conf" \
    "$E2E_WORK/$(master_pod)/stderr"
  expect "tables, results file and JSON lines agree" check_results 2 \
    "$(worker_pod 0),$(worker_pod 1)"
}

main() {
  local name="" commsweep=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --case) name=$2; shift 2 ;;
      --commsweep) commsweep=$2; shift 2 ;;
      --workdir) E2E_WORK=$2; shift 2 ;;
      --schema) SCHEMA=$2; shift 2 ;;
      *) echo "e2e_case.sh: unknown argument $1" >&2; exit 2 ;;
    esac
  done
  declare -F "case_$name" >/dev/null || { echo "e2e_case.sh: unknown case '$name'" >&2; exit 2; }
  require_emulation
  remove_stale_namespaces
  rm -rf "$E2E_WORK"
  mkdir -p "$E2E_WORK"
  trap 'cleanup_job' EXIT
  # The pods' settings (a Job's env): fast deadlines, 1 rank per worker, results on the
  # "PVC" (a directory the test reads).
  export COMMSWEEP_BIN=$commsweep COMMSWEEP_GPUS_PER_NODE=1 COMMSWEEP_WAIT_WORKERS_S=30
  export COMMSWEEP_RESULTS_DIR="$E2E_WORK/results" COMMSWEEP_TEST_ID="e2e-$name"
  export COMMSWEEP_ARGS=$SHORT_SWEEP COMMSWEEP_SIGKILL_TIMEOUT_S=2
  local start=$SECONDS
  "case_$name"
  log "case $name took $((SECONDS - start)) s"
  if [ "${#FAILURES[@]}" -gt 0 ]; then
    show_logs
    log "FAILED: ${#FAILURES[@]} check(s): ${FAILURES[*]}"
    exit 1
  fi
  log "PASSED: $name"
}

main "$@"
