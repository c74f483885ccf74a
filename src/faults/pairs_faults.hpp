// The planted slow rank or leaf of `commsweep pairs` (--fault slow-rank:R, slow-leaf:LEAF;
// testing only; pairs/fault_checks.hpp checks them against the job first).
#pragma once

#include <memory>
#include <string>

#include "comm/backend.hpp"
#include "plan/topology.hpp"
#include "runtime/world.hpp"

namespace commsweep::faults {

// This rank's backend slowed SLOWDOWN times where a fault names it: SLOW_RANK (every exchange),
// or SLOW_LEAF, a leaf of TOPOLOGY holding this rank (every exchange with a rank of another
// leaf: a bad uplink of this leaf); null where none does. BACKEND outlives it.
std::unique_ptr<Backend> planted_slow_backend(World& world, Backend& backend, int slow_rank, const std::string& slow_leaf,
                                              double slowdown, const plan::Topology& topology);

}  // namespace commsweep::faults
