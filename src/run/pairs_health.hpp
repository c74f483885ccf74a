// The slow pairs of `commsweep pairs` as the traffic the health counters are joined with:
// "round 2 (N1-N2 slow 0.06 GB/s)" carried by N1 and N2.
#pragma once

#include <vector>

#include "health/join.hpp"
#include "pairs/record.hpp"

namespace commsweep {

std::vector<health::TrafficEvidence> slow_pair_evidence(const pairs::PairsRun& run);

}  // namespace commsweep
