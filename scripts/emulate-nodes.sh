#!/usr/bin/env bash
# Runs a command as a rank of an emulated node: NCCL_HOSTID=node<K>, K = world rank / R, so that
# one machine's ranks form several nodes for NCCL (which then uses its network transport
# between them) and for commsweep's node grouping alike. R is COMMSWEEP_RANKS_PER_NODE (2).
#   mpirun -np 4 scripts/emulate-nodes.sh build/commsweep all_reduce --backend nccl
set -euo pipefail

world_rank() {
  # Open MPI, then MPICH / Intel MPI (Hydra), then Slurm.
  local r="${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-}}}"
  if [ -z "$r" ]; then
    echo "emulate-nodes: no world rank in the environment (OMPI_COMM_WORLD_RANK): start it" \
         "with mpirun" >&2
    exit 3
  fi
  echo "$r"
}

main() {
  local per_node="${COMMSWEEP_RANKS_PER_NODE:-2}"
  if ! [[ "$per_node" =~ ^[1-9][0-9]*$ ]]; then
    echo "emulate-nodes: COMMSWEEP_RANKS_PER_NODE='$per_node' is not a positive integer" >&2
    exit 2
  fi
  local rank
  rank=$(world_rank)
  export NCCL_HOSTID="node$((rank / per_node))"
  exec "$@"
}

main "$@"
