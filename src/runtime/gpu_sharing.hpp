// More ranks on a host than GPUs: the nccl backend gives each rank the GPU of its local rank
// modulo the GPUs it sees (runtime/gpu.hpp), so two ranks land on one GPU, and NCCL refuses the
// communicator with a "Duplicate GPU detected" warning on every rank and ncclInvalidUsage (exit
// 3). commsweep knows both counts before NCCL starts, and says it once, as a usage error.
#pragma once

#include <string>
#include <vector>

namespace commsweep {

// The GPU one rank would take: its host as NCCL groups ranks (the node name, NCCL_HOSTID
// included: NCCL's own duplicate check is per host hash, which the override changes) and the PCI
// bus id of the device its local rank picks.
struct RankGpu {
  std::string host;
  std::string pci_bus_id;
};

// "" where no two ranks of a host would share a GPU; else the one line rank 0 prints:
// "host vm: 4 ranks, 2 GPUs: the nccl backend needs one rank per GPU (mpirun -np 2), or
// --backend mpi": each crowded host with its ranks and the GPUs they reach, and the launch that
// fits (several hosts: --map-by ppr:G:node where each has G). RANKS: every rank's, in rank order.
std::string ranks_sharing_gpus(const std::vector<RankGpu>& ranks);

}  // namespace commsweep
