// The joined verdict: what the traffic showed (a slow pair, a sweep slower than its baseline,
// a failed transport check) next to the components on those nodes whose counters rose past
// their limits while that traffic ran. One line per suspect component, or one saying that
// nothing rose past its limit there, or that nothing could be read there.
#pragma once

#include <string>
#include <vector>

#include "health/findings.hpp"

namespace commsweep::health {

struct TrafficEvidence {
  std::vector<std::string> hosts;  // the nodes that carried the traffic
  std::string what;                // "round 2 (N1-N2 slow 0.06 GB/s)"
  // Where to look when no counter of the hosts rose: past the nodes for traffic between them;
  // inside the node for NVLink (`commsweep nvlink`).
  std::string look_next = "look beyond the nodes: switch ports, cables' far ends, congestion";
};

// "N1 mlx5_3 port 1: symbol_error +412, 41/s (limit 0.1/s, IBTA BER) during round 2 (N1-N2 slow
// 0.06 GB/s)"; "round 2 (N1-N2 slow 0.06 GB/s): no hardware counter rose past its limit on N1,
// N2 ..."; "...: nothing could be read on N3 (0 RDMA ports, 0 PCIe links, 0 GPUs) ...". NODES:
// what each host read (a host without a node, or whose node read nothing, could not be looked at).
std::vector<std::string> join_evidence(const std::vector<Finding>& findings,
                                       const std::vector<TrafficEvidence>& evidence,
                                       const std::vector<NodeHealth>& nodes);

}  // namespace commsweep::health
