// The testing-only faults of `commsweep pairs`, checked against the job (pairs/fault_checks.hpp).
#include "pairs/fault_checks.hpp"

#include <algorithm>
#include <string>

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

}  // namespace commsweep::pairs
