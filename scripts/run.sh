#!/usr/bin/env bash
# Builds commsweep (installing what is missing) and runs an all_reduce sweep on this machine:
# one rank per local GPU on the nccl backend, or, with no GPU, 4 ranks on the mpi backend.
# Extra arguments go to commsweep, e.g.
#   scripts/run.sh -b 8 -e 8G -f 2
#   scripts/run.sh all -d float,bf16 --json results.json
# Settings (build directory, CUDA architectures, ...): see scripts/common.sh.
set -euo pipefail

readonly COMMSWEEP_SCRIPT=run
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

readonly CPU_RANKS=4  # enough ranks for every collective's multi-rank paths, on any laptop

# The tests the arguments name (they lead, as in nccl-tests' order), else commsweep's default.
tests_named() {
  if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    echo "$1"
  else
    echo "all_reduce"
  fi
}

has_backend_flag() {
  local arg
  for arg in "$@"; do
    case "$arg" in --backend | --backend=*) return 0 ;; esac
  done
  return 1
}

main() {
  install_deps
  build_commsweep
  local gpus ranks what
  local -a backend=()
  gpus=$(gpu_count)
  what=$(tests_named "$@")
  if [ "$gpus" -gt 0 ] && [ -n "$(find_nvcc)" ]; then
    ranks=$gpus
    has_backend_flag "$@" || backend=(--backend nccl)
    say "$gpus GPU(s) found: running $what on $ranks ranks of the nccl backend, one per GPU"
  else
    ranks=$CPU_RANKS
    has_backend_flag "$@" || backend=(--backend mpi)
    if [ "$gpus" -gt 0 ]; then
      say "$gpus GPU(s) found but no CUDA toolkit to build the nccl backend:" \
          "running $what on $ranks MPI ranks of the mpi backend"
    else
      say "no GPU found: running $what on $ranks MPI ranks of the mpi backend"
    fi
  fi
  local -a launch
  mapfile -t launch < <(mpirun_command "$ranks")
  local -a cmd=("${launch[@]}" "$COMMSWEEP_BUILD/commsweep" "${backend[@]}" "$@")
  say "${cmd[*]}"
  "${cmd[@]}"
}

main "$@"
