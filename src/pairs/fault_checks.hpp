// The testing-only faults of `commsweep pairs` (--fault slow-rank:R, slow-leaf:LEAF,
// hang:R@ROUND; pairs/settings.hpp), checked against the job. A slow rank or leaf acts through
// faults/pairs_faults.hpp; the hang is planted by the rounds (pairs/rounds.cpp).
#pragma once

#include "pairs/settings.hpp"
#include "topology/network/topology.hpp"
#include "runtime/world.hpp"

namespace commsweep::pairs {

// The faults name ranks of this job, a leaf of its topology, and a hang a round it has (usage
// Errors).
void require_planted_faults_fit(const World& world, const PairsSettings& s, int rounds, const plan::Topology& topology);

}  // namespace commsweep::pairs
