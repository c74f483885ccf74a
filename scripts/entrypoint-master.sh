#!/usr/bin/env bash
# The mpimaster pod's entrypoint (a Volcano Job's mpimaster, an MPIJob's launcher): waits for
# the workers, runs commsweep on them with mpirun, stores the results. See --help.
set -euo pipefail

readonly LAUNCH_NAME=commsweep-master
# shellcheck source=scripts/launch-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-common.sh"

usage() {
  cat <<EOF
Usage: entrypoint-master.sh [COMMSWEEP ARGUMENTS...]

The entrypoint of a commsweep Volcano Job's mpimaster pod, or of an MPIJob's launcher pod
(mpi-operator v2; no GPU). In order:
  1. reads the workers from COMMSWEEP_HOSTFILE (Volcano's svc plugin writes one pod name a
     line, without a newline after the last; mpi-operator one pod FQDN a line with
     slots=<slotsPerWorker>, which must then equal COMMSWEEP_GPUS_PER_NODE where that is set);
  2. waits until every worker's name resolves and its sshd answers, for at most
     COMMSWEEP_WAIT_WORKERS_S seconds; then names the missing workers and exits 4;
  3. logs in once to each worker with the job's key (Volcano's ssh plugin's, or mpi-operator's
     Secret at the MPIJob's sshAuthMountPath; a failure is named, exit 3);
  4. runs mpirun: ranks = workers x GPUs per node, --map-by ppr:G:node, ssh on
     COMMSWEEP_SSH_PORT, every NCCL_* and UCX_* variable of this pod passed to the ranks (-x);
     SIGTERM (Kubernetes at activeDeadlineSeconds) is passed on to mpirun, and commsweep writes
     what it measured;
  5. copies rank 0's results to COMMSWEEP_RESULTS_DIR/<UTC time>-<test id>.json (never
     overwriting a file), prints them as JSON lines (one per row, then a summary) for log
     collectors, and exits with commsweep's exit code (docs/failures.md, one table for every
     command), so that the Job's policy gives the job its phase: 0 ok, 2 bad input, 3 a call
     failed, 4 hang, 5 interrupted (also a signalled mpirun, which itself exits 1), 6 a health
     FAIL, 7 out of memory, 8 wrong data, 11 an output not written. Other codes are mpirun's own
     (1 when a rank died without a word, 205 when it lost a worker's daemon).
  6. the nightly, with COMMSWEEP_BASELINE set: instead of 5, when the run measured to its end
     (exit 0, 6 a health FAIL or 8 wrong data), judges it with \`commsweep compare RESULTS
     --baseline \$COMMSWEEP_BASELINE --history HISTORY --record\` (and --mode
     \$COMMSWEEP_FABRIC_MODE where it is set) and prints the verdict table; the run is kept in
     HISTORY (COMMSWEEP_HISTORY_DIR, else COMMSWEEP_RESULTS_DIR/history) as
     <UTC start>-<tests>.json, never overwritten, with the reports beside it: .md (markdown
     summary), .html (plots), .prom (Prometheus text), .verdicts.json; and the exit code is the
     run's and compare's combined, the first of 2 8 11 6 9 12 (docs/failures.md): 0 pass (warnings
     allowed), 9 regression, 12 noisy (a change the run's own noise could explain: not judged;
     rerun, or raise -n), 2 bad input (e.g. no baseline file yet, or one that measured
     something else: the run is then kept in COMMSWEEP_RESULTS_DIR as in 5; make the baseline
     from good nights' files with \`commsweep baseline RUN... -o FILE\`), 8 wrong data, 6 the
     run's health FAIL. A run that failed, hung or was interrupted is not judged and exits with
     its own code (3, 4, 5, 7).

What commsweep runs, first match:
  the arguments of this script (the Job's container args), e.g. all_reduce -b 1M -e 8G
  COMMSWEEP_ARGS           the same in one variable, split at spaces
  COMMSWEEP_SUITE          a suite file: runs \`commsweep suite \$COMMSWEEP_SUITE\`
  (default)                all (every collective \`commsweep list\` names)
                           -b 8 -e \$COMMSWEEP_MAX_BYTES (default 8G)
--json is added by this script (do not give it).

Settings (environment):
  COMMSWEEP_HOSTFILE         workers (default /etc/volcano/mpiworker.host, else /etc/mpi/hostfile
                             where only that exists)
  COMMSWEEP_WAIT_WORKERS_S   deadline for the workers' sshd (default $DEFAULT_WAIT_WORKERS_S s: less than
                             the Job's activeDeadlineSeconds, so that a missing worker is named)
  COMMSWEEP_SSH_PORT         the workers' sshd port (default 22)
  COMMSWEEP_SSH_DIR          the ssh plugin's files, or the MPIJob's sshAuthMountPath (default
                             \$HOME/.ssh); without a config file there, host keys are not checked
                             (the workers make theirs at start)
  COMMSWEEP_GPUS_PER_NODE    ranks per worker (default auto: the hostfile's slots=, else
                             nvidia-smi -L on the first worker)
  COMMSWEEP_RESULTS_DIR      where results are stored (default /results, the PVC)
  COMMSWEEP_TEST_ID          names the results file (default commsweep)
  COMMSWEEP_SIGKILL_TIMEOUT_S  Open MPI's odls_base_sigkill_timeout (default 10 s)
  COMMSWEEP_MPIRUN_ARGS      more mpirun arguments, split at spaces
  COMMSWEEP_REMOTE_TMP       where rank 0 writes the results on its host (default /tmp)
  COMMSWEEP_BIN              the commsweep binary (default: on PATH, else <repo>/build/commsweep)
  COMMSWEEP_BASELINE         the nightly's baseline file: judge the run against it (step 6)
  COMMSWEEP_HISTORY_DIR      the results history (default COMMSWEEP_RESULTS_DIR/history)
  COMMSWEEP_PROMETHEUS_FILE  also copy the metrics here (node-exporter's textfile collector)
  COMMSWEEP_HEALTH           0: no hardware health snapshots around the run (passed to the
                             ranks; by default each worker's first rank reads its pod's /sys
                             and NVML, and says what it could not read)
  COMMSWEEP_HEALTH_THRESHOLDS  the health rules' limits file (passed to the ranks; compare reads
                             it too): volcano/components/health-thresholds mounts one
EOF
}

main() {
  case "${1:-}" in -h | --help) usage; return 0 ;; esac
  # Until mpirun runs, a signal ends the wait (as PID 1 it would otherwise be ignored).
  trap 'die "$EXIT_INTERRUPTED" "interrupted before the run started"' TERM INT
  local hostfile
  hostfile=$(default_hostfile)
  local deadline
  deadline=$(wait_deadline) || exit $?
  require_number COMMSWEEP_SSH_PORT "${COMMSWEEP_SSH_PORT:-22}" 1
  local text slots
  local -a workers args
  text=$(read_hostfile "$hostfile") || exit $?
  mapfile -t workers <<<"$text"
  slots=$(hostfile_slots "$hostfile") || exit $?
  check_gpus_setting "$slots" "$hostfile"
  text=$(commsweep_arguments "$@") || exit $?
  mapfile -t args <<<"$text"
  say "${#workers[@]} worker(s) in $hostfile: ${workers[*]}"
  wait_for_sshd "$deadline" "${workers[@]}"
  check_ssh_logins "${workers[@]}"
  local gpus
  gpus=$(gpus_per_node "${workers[0]}" "$slots") || exit $?
  launch_sweep "$gpus" "${workers[@]}" -- "${args[@]}"
}

main "$@"
