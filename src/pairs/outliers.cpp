#include "pairs/outliers.hpp"

#include <algorithm>
#include <map>

namespace commsweep::pairs {

// nth_element, not a sort: 67 million rails at 4,096 nodes x 8.

namespace {

PairVerdict judge(const PairMeasurement& p, double median_gbps) {
  PairVerdict v;
  if (p.rails.empty()) return v;
  const auto slowest = std::min_element(p.rails.begin(), p.rails.end(),
                                        [](const Rail& x, const Rail& y) { return x.gbps < y.gbps; });
  v.gbps = slowest->gbps;
  v.slowest_rail = slowest->local_rank;
  v.ratio = median_gbps > 0 ? v.gbps / median_gbps : 0;
  return v;
}

// The pairs the references are taken over: the pattern's rounds. --adaptive's follow-ups
// measure the suspects again and again, and their slow rails would drag a median down. A run
// with no pair in them (one built by hand) takes every pair.
std::vector<bool> reference_pairs(const PairsRun& run) {
  std::vector<bool> ref(run.pairs.size(), true);
  if (run.planned_rounds >= static_cast<int>(run.rounds.size())) return ref;
  bool any = false;
  for (std::size_t i = 0; i < run.pairs.size(); ++i) any |= (ref[i] = run.pairs[i].round < run.planned_rounds);
  if (!any) ref.assign(run.pairs.size(), true);
  return ref;
}

// The slowest of the fastest third of the reference pairs (the ceil(n / 3)-th fastest): a
// healthy pair's while one node is bad among 3 or more (outliers.hpp). nth_element: O(pairs).
void top_third_pair(const PairsRun& run, const std::vector<bool>& ref, Analysis& a) {
  std::vector<std::pair<double, int>> pairs;  // figure, index; fastest first after the partition
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    if (ref[i] && !run.pairs[i].rails.empty()) pairs.emplace_back(a.verdicts[i].gbps, static_cast<int>(i));
  }
  if (pairs.empty()) return;
  const auto nth = pairs.begin() + static_cast<long>((pairs.size() + 2) / 3 - 1);
  // Faster first; among equal figures the pair measured first, so that the choice is stable.
  std::nth_element(pairs.begin(), nth, pairs.end(), [](const auto& x, const auto& y) {
    return x.first > y.first || (x.first == y.first && x.second < y.second);
  });
  a.top_third_gbps = nth->first;
  a.top_third = nth->second;
}

// The node whose pairs hold the most of the reference rails: with half or more, one bad node
// would be the median (2 to 4 nodes of all-pairs; 2 nodes always).
void busiest_node(const PairsRun& run, const std::vector<bool>& ref, Analysis& a) {
  std::vector<std::size_t> rails(run.nodes.size(), 0);
  std::vector<int> pairs(run.nodes.size(), 0);
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    if (!ref[i]) continue;
    for (int n : {run.pairs[i].node_a, run.pairs[i].node_b}) rails[n] += run.pairs[i].rails.size(), ++pairs[n];
  }
  for (std::size_t n = 0; n < rails.size(); ++n) {
    if (rails[n] > a.rails_of_busiest_node) a.rails_of_busiest_node = rails[n], a.pairs_of_busiest_node = pairs[n];
  }
}

// Nodes in the most slow pairs, when that is more than one and more than some other node is
// in: one slow pair alone cannot tell which of its two nodes is at fault.
std::vector<Suspect> suspects(const PairsRun& run, const Analysis& a) {
  std::map<int, Suspect> by_node;
  std::map<int, std::map<int, int>> slowest_rail_counts;  // node -> local rank -> times slowest
  {
    // Counted in a vector first: a map lookup per pair end is 17 M lookups at 4,096 nodes.
    std::vector<int> pairs_of(run.nodes.size(), 0);
    for (const auto& p : run.pairs) ++pairs_of[p.node_a], ++pairs_of[p.node_b];
    for (std::size_t n = 0; n < pairs_of.size(); ++n) {
      if (pairs_of[n] > 0) by_node[static_cast<int>(n)].pairs = pairs_of[n];
    }
  }
  for (int i : a.slow) {
    const auto& p = run.pairs[i];
    for (int node : {p.node_a, p.node_b}) {
      ++by_node[node].slow_pairs;
      ++slowest_rail_counts[node][a.verdicts[i].slowest_rail];
    }
  }
  int most = 0, fewest = static_cast<int>(run.pairs.size());
  for (const auto& [node, s] : by_node) {
    most = std::max(most, s.slow_pairs);
    fewest = std::min(fewest, s.slow_pairs);
  }
  std::vector<Suspect> out;
  // Every node in as many slow pairs as the others: none stands out (a fabric-wide slowdown,
  // or noise), and naming them all would say nothing.
  if (most < 2 || fewest == most) return out;
  for (auto& [node, s] : by_node) {
    if (s.slow_pairs != most) continue;
    s.node = node;
    int best = -1;
    for (const auto& [rail, count] : slowest_rail_counts[node]) {
      if (count > best) best = count, s.local_rank = rail;  // ties: the lowest local rank
    }
    const Node& n = run.nodes[node];
    s.rank = n.ranks[s.local_rank];
    s.pci_bus_id = s.local_rank < static_cast<int>(n.pci_bus_ids.size()) ? n.pci_bus_ids[s.local_rank] : "-";
    out.push_back(s);
  }
  return out;
}

}  // namespace

Analysis analyse(const PairsRun& run) {
  Analysis a;
  const std::vector<bool> ref = reference_pairs(run);
  std::vector<double> reference;
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    for (const auto& r : run.pairs[i].rails) {
      ++a.rails;
      if (ref[i]) reference.push_back(r.gbps);
      a.wrong_total += r.wrong.value_or(0);
    }
  }
  a.median_rails = reference.size();
  a.median_gbps = median(std::move(reference));
  a.slow_below_gbps = run.settings.slow_fraction * a.median_gbps;
  for (const auto& p : run.pairs) a.verdicts.push_back(judge(p, a.median_gbps));
  top_third_pair(run, ref, a);
  a.slow_below_top_third_gbps = run.settings.slow_fraction_of_top_third * a.top_third_gbps;
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    PairVerdict& v = a.verdicts[i];
    if (run.pairs[i].rails.empty()) continue;
    v.ratio_to_top_third = a.top_third_gbps > 0 ? v.gbps / a.top_third_gbps : 0;
    v.below_top_third = v.gbps < a.slow_below_top_third_gbps;
    v.slow = v.gbps < a.slow_below_gbps || v.below_top_third;
    if (v.slow) a.slow.push_back(static_cast<int>(i));
  }
  std::stable_sort(a.slow.begin(), a.slow.end(),
                   [&](int x, int y) { return a.verdicts[x].gbps < a.verdicts[y].gbps; });
  busiest_node(run, ref, a);
  a.suspects = suspects(run, a);
  return a;
}

std::vector<plan::Observation> evidence_of(const PairsRun& run, const Analysis& a) {
  std::vector<plan::Observation> out;
  out.reserve(run.pairs.size());
  for (std::size_t i = 0; i < run.pairs.size(); ++i) out.push_back({run.pairs[i].node_a, run.pairs[i].node_b, a.verdicts[i].slow});
  return out;
}

}  // namespace commsweep::pairs
