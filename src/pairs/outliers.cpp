#include "pairs/outliers.hpp"

#include <algorithm>
#include <map>

#include "judge/reference.hpp"

namespace commsweep::pairs {

// nth_element, not a sort: 67 million rails at 4,096 nodes x 8.

namespace {

// A pair's figure: its slowest rail, and that against the median rail.
PairVerdict slowest_rail_of(const PairMeasurement& p, double median_gbps) {
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

// The slowest of the fastest third of the reference pairs: the one judge's top-third reference
// (judge/reference.hpp), a healthy pair's while one node is bad among 3 or more (outliers.hpp).
void top_third_pair(const PairsRun& run, const std::vector<bool>& ref, Analysis& a) {
  std::vector<judge::Candidate> pairs;
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    if (ref[i] && !run.pairs[i].rails.empty()) pairs.push_back({a.verdicts[i].gbps, static_cast<int>(i)});
  }
  if (const auto top = judge::top_third(std::move(pairs))) {
    a.top_third_gbps = top->value;
    a.top_third = top->index;
  }
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

// Nodes in the most slow pairs, when the one judge names them (judge::most_named: in more than
// one, and more than some other node is in), each with the rail slowest most often in its slow pairs.
std::vector<Suspect> suspects(const PairsRun& run, const Analysis& a) {
  // Counted in vectors: a map lookup per pair end is 17 M lookups at 4,096 nodes.
  std::vector<int> pairs_of(run.nodes.size(), 0), slow_pairs_of(run.nodes.size(), 0);
  for (const auto& p : run.pairs) ++pairs_of[p.node_a], ++pairs_of[p.node_b];
  std::map<int, std::map<int, int>> slowest_rail_counts;  // node -> local rank -> times slowest
  for (int i : a.slow) {
    const auto& p = run.pairs[i];
    for (int node : {p.node_a, p.node_b}) {
      ++slow_pairs_of[node];
      ++slowest_rail_counts[node][a.verdicts[i].slowest_rail];
    }
  }
  // The nodes judged: those in a pair.
  std::vector<int> nodes, counts;
  for (std::size_t n = 0; n < pairs_of.size(); ++n) {
    if (pairs_of[n] == 0) continue;
    nodes.push_back(static_cast<int>(n));
    counts.push_back(slow_pairs_of[n]);
  }
  std::vector<Suspect> out;
  for (const std::size_t at : judge::most_named(counts)) {
    Suspect s;
    s.node = nodes[at];
    s.pairs = pairs_of[s.node];
    s.slow_pairs = counts[at];
    int best = -1;
    for (const auto& [rail, count] : slowest_rail_counts[s.node]) {
      if (count > best) best = count, s.local_rank = rail;  // ties: the lowest local rank
    }
    const Node& n = run.nodes[s.node];
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
  for (const auto& p : run.pairs) a.verdicts.push_back(slowest_rail_of(p, a.median_gbps));
  top_third_pair(run, ref, a);
  a.slow_below_top_third_gbps = run.settings.slow_fraction_of_top_third * a.top_third_gbps;
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    PairVerdict& v = a.verdicts[i];
    if (run.pairs[i].rails.empty()) continue;
    const judge::Against to_top_third = judge::below(v.gbps, a.top_third_gbps, run.settings.slow_fraction_of_top_third);
    v.ratio_to_top_third = to_top_third.ratio;
    v.below_top_third = to_top_third.slow;
    v.slow = judge::below(v.gbps, a.median_gbps, run.settings.slow_fraction).slow || v.below_top_third;
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
