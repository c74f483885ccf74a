// GPU / NIC locality from hwloc: which NICs are nearest each GPU, the NUMA node and CPU set of
// each, a matrix like `nvidia-smi topo -m`, and binding a rank to its GPU's NUMA node.
#pragma once

#include <string>
#include <vector>

#include "fabric/check.hpp"
#include "fabric/nccl_env.hpp"

namespace commsweep::fabric {

// nvidia-smi topo -m's vocabulary, nearest first.
enum class PathType { Self, PIX, PXB, PHB, NODE, SYS };
std::string to_string(PathType path);

struct Endpoint {
  std::string name;    // GPU0 / mlx5_0 / eth0
  std::string pci;     // bus id, "" where the device is not on PCI
  int numa_node = -1;
  std::string cpuset;  // "0-23,48-71"
};

struct LocalityMap {
  std::vector<Endpoint> gpus;  // NVIDIA display / 3D controllers, in PCI order
  std::vector<Endpoint> nics;  // RDMA devices, then network interfaces
  std::vector<std::vector<PathType>> gpu_gpu;  // [i][j]
  std::vector<std::vector<PathType>> gpu_nic;  // [gpu][nic]
  int numa_nodes = 0;
};

// The live machine's topology (hwloc with I/O devices). Throws std::runtime_error naming
// the hwloc call that failed.
LocalityMap read_locality();

// The NICs at the nearest path type from the GPU (empty where there are none).
std::vector<std::string> nearest_nics(const LocalityMap& map, size_t gpu);
// The matrix as text, GPUs as rows, GPUs then NICs as columns, with a legend.
std::string render_matrix(const LocalityMap& map);
// A WARN where NCCL_IB_HCA's first device is not among a GPU's nearest NICs.
std::vector<Check> check_hca_order(const LocalityMap& map, const HcaList& hcas);
// PASS rows, one per GPU (or per NIC without GPUs): nearest NICs, NUMA node, CPU set.
std::vector<Check> describe_locality(const LocalityMap& map);

// Binds the calling process to the CPUs of NUMA node `node` (hwloc_set_cpubind); returns the
// CPU set it is bound to now. Throws std::runtime_error with the reason.
std::string bind_to_numa_node(int node);
// The calling process's current CPU binding ("0-3").
std::string current_cpu_binding();

}  // namespace commsweep::fabric
