#!/usr/bin/env bash
# Runs a command with one GPU visible: the one at this rank's local rank, as a pod with one
# GPU per rank sees it. With CUDA_VISIBLE_DEVICES already set, picks from that list.
#   mpirun -np 4 tests/gpu/one_gpu_per_rank.sh build/commsweep all --backend nccl
set -euo pipefail

local_rank() {
  # Open MPI, then MPICH / Intel MPI (Hydra), then Slurm.
  local r="${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-}}}"
  if [ -z "$r" ]; then
    echo "one_gpu_per_rank: no local rank in the environment (OMPI_COMM_WORLD_LOCAL_RANK):" \
         "start it with mpirun" >&2
    exit 3
  fi
  echo "$r"
}

main() {
  local rank
  rank=$(local_rank)
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    local -a visible
    IFS=',' read -r -a visible <<<"$CUDA_VISIBLE_DEVICES"
    if [ "$rank" -ge "${#visible[@]}" ]; then
      echo "one_gpu_per_rank: local rank $rank, but CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES" \
           "lists ${#visible[@]} GPUs" >&2
      exit 3
    fi
    export CUDA_VISIBLE_DEVICES="${visible[$rank]}"
  else
    export CUDA_VISIBLE_DEVICES="$rank"
  fi
  exec "$@"
}

main "$@"
