// --bind auto: each rank bound to the CPUs of its GPU's NUMA node (hwloc), before NCCL starts
// its threads and allocates host memory. The GPU is the one the rank will use (local rank
// modulo the GPUs it sees, runtime/gpu.hpp), found in hwloc's tree by its PCI bus id, so that
// a CUDA_VISIBLE_DEVICES per rank is honoured.
#pragma once

#include <string>
#include <vector>

#include "run/fabric_run_options.hpp"

namespace commsweep {

class World;

// Binds this process; returns what was done for the world table ("GPU 0000:19:00.0: NUMA 0,
// CPUs 0-47"), or why nothing was ("not bound: ..."); "" for --bind none. hwloc failures are
// reported, not thrown: a binding is an optimisation, not a reason to stop the run.
std::string bind_rank(BindMode mode, int local_rank);

// Rank 0: one '#' line per host, "# Binding (--bind auto), host vm: rank 0 NUMA 0 (CPUs 0-63), ...";
// empty for --bind none. Collective: every rank calls it.
std::vector<std::string> gather_binding_lines(World& world, BindMode mode, const std::string& mine,
                                              double timeout_s);

}  // namespace commsweep
