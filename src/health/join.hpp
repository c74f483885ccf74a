// The joined verdict: what the traffic showed (a slow pair, a sweep slower than its baseline,
// a failed transport check) next to the components on those nodes whose counters moved while
// that traffic ran. One line per suspect component, or one saying that nothing moved there.
#pragma once

#include <string>
#include <vector>

#include "health/findings.hpp"

namespace commsweep::health {

struct TrafficEvidence {
  std::vector<std::string> hosts;  // the nodes that carried the traffic
  std::string what;                // "round 2 (N1-N2 slow 0.06 GB/s)"
};

// "N1 mlx5_3 port 1: symbol_error +412, link_error_recovery +3 during round 2 (N1-N2 slow
// 0.06 GB/s)"; "round 2 (N1-N2 slow 0.06 GB/s): no hardware counter moved on N1, N2 ...".
std::vector<std::string> join_evidence(const std::vector<Finding>& findings,
                                       const std::vector<TrafficEvidence>& evidence);

}  // namespace commsweep::health
