// The testing-only faults of `commsweep pairs` (pairs/faults.hpp).
#include "pairs/faults.hpp"

#include <algorithm>
#include <string>

#include "comm/slowed_backend.hpp"
#include "core/strings.hpp"
#include "core/error.hpp"

namespace commsweep::pairs {

void require_planted_faults_fit(const World& world, const PairsSettings& s, int rounds, const plan::Topology& topology) {
  if (!s.slow_leaf.empty() &&
      std::find(topology.leaf_names.begin(), topology.leaf_names.end(), s.slow_leaf) == topology.leaf_names.end()) {
    throw_usage("pairs: --fault slow-leaf:" + s.slow_leaf + " is not a leaf of " + topology.source);
  }
  if (s.slow_rank >= world.size()) {
    throw_usage("pairs: --fault slow-rank:" + std::to_string(s.slow_rank) + " is not a rank of this job");
  }
  if (s.hang_rank >= world.size()) {
    throw_usage("pairs: --fault hang:" + std::to_string(s.hang_rank) + "@" + std::to_string(s.hang_round) +
                " is not a rank of this job");
  }
  if (s.hang_rank >= 0 && s.hang_round > rounds) {
    throw_usage("pairs: --fault hang:" + std::to_string(s.hang_rank) + "@" + std::to_string(s.hang_round) +
                ": this job has " + count_of(static_cast<std::size_t>(rounds), "round"));
  }
}

std::unique_ptr<Backend> planted_slow_backend(World& world, Backend& backend, const PairsSettings& s,
                                              const plan::Topology& topo) {
  std::unique_ptr<Backend> slowed;
  if (s.slow_rank == world.rank()) slowed = std::make_unique<SlowedBackend>(backend, s.fault_slowdown);
  if (!s.slow_leaf.empty() && topo.leaf_names[topo.leaf_of[world.node_of(world.rank())]] == s.slow_leaf) {
    // Every exchange with a rank of another leaf is slow: a bad uplink of this leaf.
    const int my_leaf = topo.leaf_of[world.node_of(world.rank())];
    slowed = std::make_unique<SlowedBackend>(backend, s.fault_slowdown, /*spin=*/false, [&world, leaf_of = topo.leaf_of, my_leaf](int peer) {
      return peer >= 0 && leaf_of[world.node_of(peer)] != my_leaf;
    });
  }
  return slowed;
}

}  // namespace commsweep::pairs
