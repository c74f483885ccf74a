// The testing-only faults of `commsweep pairs` (--fault slow-rank:R, slow-leaf:LEAF,
// hang:R@ROUND; pairs/settings.hpp): checked against the job, and a slow rank or leaf planted
// as a SlowedBackend. The hang is planted by the rounds (pairs/rounds.cpp).
#pragma once

#include <memory>

#include "comm/backend.hpp"
#include "pairs/settings.hpp"
#include "plan/topology.hpp"
#include "runtime/world.hpp"

namespace commsweep::pairs {

// The faults name ranks of this job, a leaf of its topology, and a hang a round it has (usage
// Errors).
void require_planted_faults_fit(const World& world, const PairsSettings& s, int rounds, const plan::Topology& topology);

// This rank's backend slowed where a fault names it (--fault slow-rank:R: every exchange;
// slow-leaf:LEAF: every exchange with a rank of another leaf, a bad uplink of this leaf); null
// where none does. `backend` outlives it.
std::unique_ptr<Backend> planted_slow_backend(World& world, Backend& backend, const PairsSettings& s,
                                              const plan::Topology& topology);

}  // namespace commsweep::pairs
