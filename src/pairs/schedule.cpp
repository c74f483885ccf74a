#include "pairs/schedule.hpp"

#include <algorithm>
#include <utility>

namespace commsweep::pairs {

std::vector<Round> round_robin(int nodes) {
  std::vector<Round> rounds;
  if (nodes < 2) return rounds;
  const int bye = nodes;  // a phantom node for odd counts
  const int seats = nodes % 2 == 0 ? nodes : nodes + 1;
  // seat[0] is fixed; seats 1..seats-1 rotate. Seat i faces seat seats-1-i.
  std::vector<int> seat(seats);
  for (int i = 0; i < seats; ++i) seat[i] = i;
  for (int r = 0; r < seats - 1; ++r) {
    Round round;
    for (int i = 0; i < seats / 2; ++i) {
      int a = seat[i], b = seat[seats - 1 - i];
      if (a == bye || b == bye) {
        round.sits_out = a == bye ? b : a;
        continue;
      }
      if (a > b) std::swap(a, b);
      round.pairs.push_back({a, b});
    }
    std::sort(round.pairs.begin(), round.pairs.end(),
              [](const NodePair& x, const NodePair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
    rounds.push_back(std::move(round));
    std::rotate(seat.begin() + 1, seat.end() - 1, seat.end());
  }
  return rounds;
}

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
