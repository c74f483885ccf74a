#include "faults/pairs_faults.hpp"

#include <cstdio>

#include "faults/slowed_backend.hpp"
#include "runtime/termination.hpp"

namespace commsweep::faults {

std::unique_ptr<Backend> planted_slow_backend(World& world, Backend& backend, int slow_rank, const std::string& slow_leaf,
                                              double slowdown, const plan::Topology& topo) {
  std::unique_ptr<Backend> slowed;
  if (slow_rank == world.rank()) slowed = std::make_unique<SlowedBackend>(backend, slowdown);
  if (!slow_leaf.empty() && topo.leaf_names[topo.leaf_of[world.node_of(world.rank())]] == slow_leaf) {
    // Every exchange with a rank of another leaf is slow: a bad uplink of this leaf.
    const int my_leaf = topo.leaf_of[world.node_of(world.rank())];
    slowed = std::make_unique<SlowedBackend>(backend, slowdown, /*spin=*/false, [&world, leaf_of = topo.leaf_of, my_leaf](int peer) {
      return peer >= 0 && leaf_of[world.node_of(peer)] != my_leaf;
    });
  }
  return slowed;
}

void PairsFaults::before_round(int round) {
  if (!hangs_ || round + 1 < from_) return;
  // The line the tests read.
  std::fprintf(stderr, "commsweep: rank %d: fault injection: hanging in pairs round %d\n", rank_, round + 1);
  std::fflush(stderr);
  stay_until_the_end();
}

}  // namespace commsweep::faults
