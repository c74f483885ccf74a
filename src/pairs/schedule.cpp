#include "pairs/schedule.hpp"

#include <algorithm>

namespace commsweep::pairs {

std::vector<std::vector<int>> ranks_by_node(const std::vector<int>& node_of_rank) {
  std::vector<std::vector<int>> nodes;
  for (std::size_t r = 0; r < node_of_rank.size(); ++r) {
    const auto node = static_cast<std::size_t>(node_of_rank[r]);
    if (nodes.size() <= node) nodes.resize(node + 1);
    nodes[node].push_back(static_cast<int>(r));
  }
  return nodes;
}

int partner_of(int rank, const Round& round, const std::vector<std::vector<int>>& nodes,
               const std::vector<int>& node_of_rank) {
  const int node = node_of_rank[rank];
  const auto& mine = nodes[node];
  const auto k = static_cast<std::size_t>(std::find(mine.begin(), mine.end(), rank) - mine.begin());
  for (const auto& p : round.pairs) {
    if (p.a != node && p.b != node) continue;
    const auto& other = nodes[p.a == node ? p.b : p.a];
    return k < other.size() ? other[k] : -1;
  }
  return -1;
}

}  // namespace commsweep::pairs
