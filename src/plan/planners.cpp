#include "plan/planners.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace commsweep::plan {
namespace {

NodePair ordered(int a, int b) { return a < b ? NodePair{a, b} : NodePair{b, a}; }

void sort_pairs(Round& round) {
  std::sort(round.pairs.begin(), round.pairs.end(),
            [](const NodePair& x, const NodePair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
}

// Rounds of several independent plans run side by side: round i is every plan's round i.
void merge_into(std::vector<Round>& into, const std::vector<Round>& rounds, const std::string& label) {
  if (into.size() < rounds.size()) into.resize(rounds.size());
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    into[i].label = label;
    into[i].pairs.insert(into[i].pairs.end(), rounds[i].pairs.begin(), rounds[i].pairs.end());
  }
}

std::vector<Round> intra_leaf(const Topology& t) {
  std::vector<Round> rounds;
  for (const auto& leaf : t.leaves()) merge_into(rounds, round_robin(leaf), "intra-leaf");
  for (auto& r : rounds) sort_pairs(r), r.sits_out = -1;
  return rounds;
}

// Leaf A against leaf B, |A| <= |B|: in shift s, A[i] meets B[(i + s) mod |B|]; over |B| shifts
// every A x B pair once, and within a shift the B nodes differ (i < |A| <= |B|).
std::vector<Round> leaf_against_leaf(const std::vector<int>& x, const std::vector<int>& y) {
  const auto& small = x.size() <= y.size() ? x : y;
  const auto& big = x.size() <= y.size() ? y : x;
  std::vector<Round> rounds(big.size());
  for (std::size_t s = 0; s < big.size(); ++s) {
    for (std::size_t i = 0; i < small.size(); ++i) rounds[s].pairs.push_back(ordered(small[i], big[(i + s) % big.size()]));
  }
  return rounds;
}

// A round robin of the leaves; each meeting of two leaves is a bipartite round robin.
std::vector<Round> cross_leaf(const Topology& t) {
  const auto leaves = t.leaves();
  std::vector<Round> rounds;
  for (const auto& leaf_round : round_robin(t.leaf_count())) {
    std::vector<Round> block;
    for (const auto& lp : leaf_round.pairs) merge_into(block, leaf_against_leaf(leaves[lp.a], leaves[lp.b]), "cross-leaf");
    for (auto& r : block) sort_pairs(r), rounds.push_back(std::move(r));
  }
  return rounds;
}

// A segment of the cluster still to be cut: its groups (leaves, or single nodes inside a leaf).
using Segment = std::vector<std::vector<int>>;

// Where to cut a segment's groups so that both halves hold as many nodes as can be.
std::size_t balanced_cut(const Segment& groups) {
  std::size_t total = 0;
  for (const auto& g : groups) total += g.size();
  std::size_t left = 0, best = 1, best_gap = total;
  for (std::size_t k = 1; k < groups.size(); ++k) {
    left += groups[k - 1].size();
    const std::size_t gap = left * 2 > total ? left * 2 - total : total - left * 2;
    if (gap < best_gap) best_gap = gap, best = k;
  }
  return best;
}

std::string cut_level(const Topology& t, const Segment& left, const Segment& right) {
  const int a = left.front().front(), b = right.front().front();
  if (t.leaf_of[a] == t.leaf_of[b]) return t.flat() ? "nodes" : "nodes of a leaf";
  if (t.block_of_leaf[t.leaf_of[a]] != t.block_of_leaf[t.leaf_of[b]]) return "blocks";
  return "leaves";
}

std::vector<Round> bisection(const Topology& t) {
  std::vector<Segment> segments;
  {
    // Leaves ordered by block, so that the first cuts separate blocks.
    auto leaves = t.leaves();
    std::stable_sort(leaves.begin(), leaves.end(), [&](const std::vector<int>& x, const std::vector<int>& y) {
      return t.block_of_leaf[t.leaf_of[x.front()]] < t.block_of_leaf[t.leaf_of[y.front()]];
    });
    segments.push_back(leaves);
  }
  std::vector<Round> rounds;
  while (!segments.empty()) {
    Round round;
    std::vector<Segment> next;
    std::string level;
    for (Segment seg : segments) {
      if (seg.size() == 1) {
        if (seg.front().size() < 2) continue;
        Segment singles;
        for (int n : seg.front()) singles.push_back({n});
        seg = std::move(singles);
      }
      const std::size_t k = balanced_cut(seg);
      const Segment left(seg.begin(), seg.begin() + static_cast<long>(k));
      const Segment right(seg.begin() + static_cast<long>(k), seg.end());
      std::vector<int> l, r;
      for (const auto& g : left) l.insert(l.end(), g.begin(), g.end());
      for (const auto& g : right) r.insert(r.end(), g.begin(), g.end());
      for (std::size_t i = 0; i < std::min(l.size(), r.size()); ++i) round.pairs.push_back(ordered(l[i], r[i]));
      const std::string this_level = cut_level(t, left, right);
      if (level.find(this_level) == std::string::npos) level += (level.empty() ? "" : " + ") + this_level;
      next.push_back(left);
      next.push_back(right);
    }
    if (!round.pairs.empty()) {
      sort_pairs(round);
      round.label = "cut " + std::to_string(rounds.size() + 1) + ": " + level;
      rounds.push_back(std::move(round));
    }
    segments = std::move(next);
  }
  return rounds;
}

// A reproducible draw (std::shuffle's is the library's own): Fisher-Yates over splitmix64.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::vector<Round> sample(int nodes, int k, std::uint64_t seed) {
  std::vector<Round> rounds;
  std::vector<int> order(static_cast<std::size_t>(nodes));
  for (int i = 0; i < nodes; ++i) order[i] = i;
  std::uint64_t state = seed;
  for (int r = 0; r < k; ++r) {
    for (int i = nodes - 1; i > 0; --i) std::swap(order[i], order[splitmix64(state) % static_cast<std::uint64_t>(i + 1)]);
    Round round;
    for (int i = 0; i + 1 < nodes; i += 2) round.pairs.push_back(ordered(order[i], order[i + 1]));
    if (nodes % 2 == 1) round.sits_out = order[nodes - 1];
    sort_pairs(round);
    round.label = "sample " + std::to_string(r + 1) + " of " + std::to_string(k);
    rounds.push_back(std::move(round));
  }
  return rounds;
}

// Pairs, distinct pairs (one bit per pair: 2 MiB at 4,096 nodes) and the most pairs of one node.
void count_pairs(Plan& plan) {
  const auto n = static_cast<std::size_t>(plan.nodes);
  std::vector<bool> seen(n * n);
  std::vector<int> degree(n, 0);
  for (const auto& r : plan.rounds) {
    for (const auto& p : r.pairs) {
      ++plan.pairs;
      const std::size_t key = static_cast<std::size_t>(p.a) * n + static_cast<std::size_t>(p.b);
      if (seen[key]) continue;
      seen[key] = true;
      ++plan.distinct_pairs;
      ++degree[p.a], ++degree[p.b];
    }
  }
  plan.lower_bound_rounds = degree.empty() ? 0 : *std::max_element(degree.begin(), degree.end());
}

}  // namespace

double Plan::coverage() const {
  const double all = static_cast<double>(nodes) * (nodes - 1) / 2;
  return all > 0 ? static_cast<double>(distinct_pairs) / all : 0;
}

PatternSpec parse_pattern(const std::string& text) {
  PatternSpec s;
  if (text == "all-pairs") return s;
  if (text == "intra-leaf") return s.pattern = Pattern::IntraLeaf, s;
  if (text == "cross-leaf") return s.pattern = Pattern::CrossLeaf, s;
  if (text == "bisection") return s.pattern = Pattern::Bisection, s;
  const std::string prefix = "sample:";
  if (text.rfind(prefix, 0) == 0) {
    const std::string k = text.substr(prefix.size());
    if (!k.empty() && k.size() <= 6 && k.find_first_not_of("0123456789") == std::string::npos && std::stoi(k) >= 1) {
      s.pattern = Pattern::Sample;
      s.samples = std::stoi(k);
      return s;
    }
  }
  throw std::invalid_argument("'" + text + "' is not all-pairs, intra-leaf, cross-leaf, bisection or sample:K (K >= 1)");
}

std::string pattern_name(const PatternSpec& spec) {
  switch (spec.pattern) {
    case Pattern::AllPairs: return "all-pairs";
    case Pattern::IntraLeaf: return "intra-leaf";
    case Pattern::CrossLeaf: return "cross-leaf";
    case Pattern::Bisection: return "bisection";
    case Pattern::Sample: return "sample:" + std::to_string(spec.samples);
  }
  return "?";
}

std::vector<Round> round_robin(const std::vector<int>& members) {
  std::vector<Round> rounds;
  const int n = static_cast<int>(members.size());
  if (n < 2) return rounds;
  const int seats = n % 2 == 0 ? n : n + 1;  // seat n is the phantom partner for odd counts
  std::vector<int> seat(static_cast<std::size_t>(seats));
  for (int i = 0; i < seats; ++i) seat[i] = i;
  for (int r = 0; r < seats - 1; ++r) {
    Round round;
    round.pairs.reserve(static_cast<std::size_t>(seats / 2));
    for (int i = 0; i < seats / 2; ++i) {
      const int a = seat[i], b = seat[seats - 1 - i];
      if (a == n || b == n) {
        round.sits_out = members[a == n ? b : a];
        continue;
      }
      round.pairs.push_back(ordered(members[a], members[b]));
    }
    sort_pairs(round);
    rounds.push_back(std::move(round));
    std::rotate(seat.begin() + 1, seat.end() - 1, seat.end());
  }
  return rounds;
}

std::vector<Round> round_robin(int nodes) {
  std::vector<int> members(static_cast<std::size_t>(std::max(nodes, 0)));
  for (int i = 0; i < nodes; ++i) members[i] = i;
  return round_robin(members);
}

std::vector<Round> pack_rounds(const std::vector<NodePair>& pairs, const std::string& label) {
  std::vector<Round> rounds;
  std::vector<std::unordered_set<int>> busy;
  for (const auto& p : pairs) {
    std::size_t r = 0;
    while (r < rounds.size() && (busy[r].count(p.a) || busy[r].count(p.b))) ++r;
    if (r == rounds.size()) rounds.emplace_back(), busy.emplace_back(), rounds.back().label = label;
    rounds[r].pairs.push_back(ordered(p.a, p.b));
    busy[r].insert(p.a);
    busy[r].insert(p.b);
  }
  for (auto& r : rounds) sort_pairs(r);
  return rounds;
}

Plan make_plan(const PatternSpec& spec, const Topology& t) {
  Plan plan;
  plan.pattern = pattern_name(spec);
  plan.nodes = t.node_count();
  const auto all = static_cast<std::uint64_t>(plan.nodes) * static_cast<std::uint64_t>(std::max(plan.nodes - 1, 0)) / 2;
  switch (spec.pattern) {
    case Pattern::AllPairs:
      plan.rounds = round_robin(plan.nodes);
      plan.promised_pairs = all;
      break;
    case Pattern::IntraLeaf: {
      plan.rounds = intra_leaf(t);
      for (const auto& leaf : t.leaves()) plan.promised_pairs += leaf.size() * (leaf.size() - 1) / 2;
      if (t.flat()) plan.notes.push_back("one flat group: intra-leaf is all-pairs (give --topology to separate leaves)");
      break;
    }
    case Pattern::CrossLeaf: {
      plan.rounds = cross_leaf(t);
      std::uint64_t inside = 0;
      for (const auto& leaf : t.leaves()) inside += leaf.size() * (leaf.size() - 1) / 2;
      plan.promised_pairs = all - inside;
      if (t.flat()) plan.notes.push_back("one flat group: cross-leaf has no pair (give --topology)");
      break;
    }
    case Pattern::Bisection: plan.rounds = bisection(t); break;
    case Pattern::Sample: plan.rounds = sample(plan.nodes, spec.samples, spec.seed); break;
  }
  count_pairs(plan);
  return plan;
}

}  // namespace commsweep::plan
