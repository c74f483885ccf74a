#!/usr/bin/env bash
# Runs commsweep on bare-metal nodes (OKE nodes without Kubernetes) over ssh: the same mpirun
# line and the same default sweep as the Volcano master. See --help.
set -euo pipefail

readonly LAUNCH_NAME=run-baremetal
# shellcheck source=scripts/launch-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-common.sh"

usage() {
  cat <<EOF
Usage: run-baremetal.sh [--shape SHAPE] HOSTFILE [COMMSWEEP ARGUMENTS...]

Runs commsweep with mpirun on the nodes of HOSTFILE (one host a line; Open MPI's
\`host slots=N\` lines and # comments are accepted), as the Volcano Job's master does: waits
for each node's sshd (at most COMMSWEEP_WAIT_WORKERS_S, default $DEFAULT_WAIT_WORKERS_S s), logs in
once to each, runs G ranks on every node (G: COMMSWEEP_GPUS_PER_NODE, else the hostfile's
slots, the same on every line, else what nvidia-smi -L lists on the first node), stores the
results in COMMSWEEP_RESULTS_DIR/<UTC time>-<test id>.json (default ./results) and prints
them as JSON lines. Exits with commsweep's exit code; with
COMMSWEEP_BASELINE set, judges the run with \`commsweep compare\`, keeps it in the history
with its reports and exits with compare's code (entrypoint-master.sh --help, step 6).

  --shape SHAPE   apply the shape's NCCL settings from topology/SHAPE.conf when that file
                  exists: NAME=value lines (# comments), no shell expansion; a relative
                  NCCL_TOPO_FILE is taken relative to topology/. Variables already set in
                  the environment win over the file.

Commsweep arguments, settings and exit codes: as for scripts/entrypoint-master.sh --help
(COMMSWEEP_ARGS, COMMSWEEP_SUITE, COMMSWEEP_MAX_BYTES, COMMSWEEP_SSH_PORT, COMMSWEEP_SSH_DIR,
COMMSWEEP_GPUS_PER_NODE, COMMSWEEP_TEST_ID, COMMSWEEP_MPIRUN_ARGS, COMMSWEEP_BIN, ...).
Example:
  scripts/run-baremetal.sh --shape BM.GPU.H100.8 hosts all_reduce -b 1M -e 8G
EOF
}

# Exports the NAME=value lines of a shape's settings file, leaving variables already set.
apply_shape_settings() {
  local file=$1 line n=0 name value dir
  dir=$(dirname "$file")
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%$'\r'}
    [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
    [[ "$line" =~ ^[[:space:]]*(export[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] ||
      die "$EXIT_USAGE" "$file line $n: expected NAME=value: $line"
    name=${BASH_REMATCH[2]}
    value=${BASH_REMATCH[3]}
    value=${value#\"}; value=${value%\"}; value=${value#\'}; value=${value%\'}
    if [ "$name" = NCCL_TOPO_FILE ] && [ "${value#/}" = "$value" ]; then
      value="$dir/$value"
    fi
    if [ -n "${!name+set}" ]; then
      say "$name=${!name} (environment; $file says $value)"
      continue
    fi
    export "$name=$value"
    say "$name=$value ($file)"
  done <"$file"
}

main() {
  local shape=""
  while [ $# -gt 0 ]; do
    case "$1" in
      -h | --help) usage; return 0 ;;
      --shape) [ $# -ge 2 ] || die "$EXIT_USAGE" "--shape needs a shape name"; shape=$2; shift 2 ;;
      --shape=*) shape=${1#--shape=}; shift ;;
      *) break ;;
    esac
  done
  [ $# -ge 1 ] || { usage >&2; die "$EXIT_USAGE" "no HOSTFILE given"; }
  local hostfile=$1
  shift
  trap 'die "$EXIT_INTERRUPTED" "interrupted before the run started"' TERM INT
  if [ -n "$shape" ]; then
    local conf="$LAUNCH_REPO/topology/$shape.conf"
    if [ -f "$conf" ]; then
      apply_shape_settings "$conf"
    else
      say "no $conf: no shape settings applied (NCCL's defaults and this environment)"
    fi
  fi
  local text deadline slots
  deadline=$(wait_deadline) || exit $?
  local -a hosts args
  text=$(read_hostfile "$hostfile") || exit $?
  mapfile -t hosts <<<"$text"
  slots=$(hostfile_slots "$hostfile") || exit $?
  check_gpus_setting "$slots" "$hostfile"
  text=$(commsweep_arguments "$@") || exit $?
  mapfile -t args <<<"$text"
  wait_for_sshd "$deadline" "${hosts[@]}"
  check_ssh_logins "${hosts[@]}"
  local gpus
  gpus=$(gpus_per_node "${hosts[0]}" "$slots") || exit $?
  COMMSWEEP_RESULTS_DIR=${COMMSWEEP_RESULTS_DIR:-$PWD/results} \
    launch_sweep "$gpus" "${hosts[@]}" -- "${args[@]}"
}

main "$@"
