#!/usr/bin/env bash
# The plain Kubernetes CronJob's runner (for Volcano older than 1.13, which has no CronJob):
# applies job.yaml (the nightly Volcano Job and its ConfigMaps), waits for it to finish, prints the master's
# verdict table and results JSON lines (for log collectors) and exits 0 only when the Job completed. The Job has
# one fixed name, so last night's is deleted first; the results stay on the PVC.
set -euo pipefail

readonly JOB_FILE=${COMMSWEEP_NIGHTLY_JOB_FILE:-/etc/commsweep-nightly/job.yaml}
readonly JOB=${COMMSWEEP_NIGHTLY_JOB:-commsweep}
# The Job's own pods stop at activeDeadlineSeconds; this bounds the wait for scheduling as well.
readonly WAIT_S=${COMMSWEEP_NIGHTLY_WAIT_S:-3600}
readonly POLL_S=15

say() { echo "run-nightly: $*"; }

phase_of_job() {
  kubectl get "jobs.batch.volcano.sh/$JOB" -o jsonpath='{.status.state.phase}' 2>/dev/null || true
}

wait_for_end() {
  local waited=0 phase
  while [ "$waited" -lt "$WAIT_S" ]; do
    phase=$(phase_of_job)
    case "$phase" in
      Completed|Failed|Terminated|Aborted) echo "$phase"; return 0 ;;
    esac
    sleep "$POLL_S"
    waited=$((waited + POLL_S))
  done
  echo "timeout"
}

main() {
  kubectl delete "jobs.batch.volcano.sh/$JOB" --ignore-not-found --wait=true
  kubectl apply -f "$JOB_FILE"
  say "created Volcano Job $JOB; waiting up to ${WAIT_S} s"
  local phase
  phase=$(wait_for_end)
  say "Job $JOB ended: $phase"
  # The master's verdict table (commsweep compare) and its results as JSON lines.
  kubectl logs "$JOB-mpimaster-0" 2>/dev/null |
    sed -n '/^# commsweep compare:/,/^exit [0-9]/p; /^{"commsweep":/p' || true
  [ "$phase" = Completed ]
}

main "$@"
