#!/usr/bin/env bash
# The plain Kubernetes CronJob's runner (volcano/nightly/kubernetes for Volcano older than 1.13,
# which has no CronJob; volcano/kueue/nightly for an MPIJob queued by Kueue): applies job.yaml (the
# nightly Volcano Job or MPIJob, and its ConfigMaps), waits for it to finish, prints the master's
# verdict table and results JSON lines (for log collectors) and exits 0 only when the job
# completed. The job has one fixed name, so last night's is deleted first; the results stay on the
# PVC.
set -euo pipefail

readonly JOB_FILE=${COMMSWEEP_NIGHTLY_JOB_FILE:-/etc/commsweep-nightly/job.yaml}
readonly JOB=${COMMSWEEP_NIGHTLY_JOB:-commsweep}
# The job's own pods stop at activeDeadlineSeconds; this bounds the wait for scheduling (or
# Kueue's admission) as well.
readonly WAIT_S=${COMMSWEEP_NIGHTLY_WAIT_S:-3600}
readonly POLL_S=15
# The master's (launcher's) pod carries the pod template's labels in both wrappers.
readonly MASTER_SELECTOR=app.kubernetes.io/component=mpimaster

say() { echo "run-nightly: $*"; }

# job.yaml's kind: an MPIJob (mpi-operator) or a Volcano Job.
if grep -q '^kind: MPIJob$' "$JOB_FILE"; then
  readonly RESOURCE=mpijobs.kubeflow.org KIND=MPIJob
else
  readonly RESOURCE=jobs.batch.volcano.sh KIND="Volcano Job"
fi

# Volcano's phase as it says it; an MPIJob's from its conditions (Succeeded or Failed True).
phase_of_job() {
  if [ "$KIND" = MPIJob ]; then
    local true_conditions
    true_conditions=$(kubectl get "$RESOURCE/$JOB" \
      -o jsonpath='{.status.conditions[?(@.status=="True")].type}' 2>/dev/null || true)
    case " $true_conditions " in
      *" Succeeded "*) echo Completed ;;
      *" Failed "*) echo Failed ;;
    esac
  else
    kubectl get "$RESOURCE/$JOB" -o jsonpath='{.status.state.phase}' 2>/dev/null || true
  fi
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

master_log() {
  if [ "$KIND" = MPIJob ]; then
    kubectl logs --tail=-1 -l "$MASTER_SELECTOR,training.kubeflow.org/job-name=$JOB"
  else
    kubectl logs "$JOB-mpimaster-0"
  fi
}

main() {
  kubectl delete "$RESOURCE/$JOB" --ignore-not-found --wait=true
  kubectl apply -f "$JOB_FILE"
  say "created $KIND $JOB; waiting up to ${WAIT_S} s"
  local phase
  phase=$(wait_for_end)
  say "$KIND $JOB ended: $phase"
  # The master's verdict table (commsweep compare) and its results as JSON lines.
  master_log 2>/dev/null |
    sed -n '/^# commsweep compare:/,/^exit [0-9]/p; /^{"commsweep":/p' || true
  [ "$phase" = Completed ]
}

main "$@"
