#include "run/pairs_health.hpp"

#include <cstdio>

#include "pairs/outliers.hpp"

namespace commsweep {

std::vector<health::TrafficEvidence> slow_pair_evidence(const pairs::PairsRun& run) {
  std::vector<health::TrafficEvidence> out;
  if (run.pairs.empty()) return out;
  const pairs::Analysis analysis = pairs::analyse(run);
  for (const int i : analysis.slow) {
    const auto& m = run.pairs[static_cast<std::size_t>(i)];
    const std::string& a = run.nodes[static_cast<std::size_t>(m.node_a)].name;
    const std::string& b = run.nodes[static_cast<std::size_t>(m.node_b)].name;
    char figure[64];
    std::snprintf(figure, sizeof figure, "%.2f GB/s", analysis.verdicts[static_cast<std::size_t>(i)].gbps);
    out.push_back({{a, b}, "pairs round " + std::to_string(m.round + 1) + " (" + a + "-" + b + " slow " + figure + ")"});
  }
  return out;
}

}  // namespace commsweep
