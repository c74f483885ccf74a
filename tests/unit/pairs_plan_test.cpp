// The pair planners of `commsweep pairs` (src/plan) for N = 2 .. 4,096 nodes on random
// topologies: no node twice in a round, every promised pair exactly once, the round counts at
// the optimum where the pattern promises one; and the adaptive follow-up on simulated faults.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "plan/adaptive.hpp"
#include "plan/cost_model.hpp"
#include "plan/planners.hpp"

namespace commsweep::plan {
namespace {

// Leaves of random sizes (1 .. max_leaf), blocks of random leaf counts.
Topology random_topology(int n, std::mt19937& rng, int max_leaf) {
  NamedTopology named;
  named.source = "random";
  int leaf = 0, block = 0, leaves_left_in_block = 0;
  for (int i = 0; i < n;) {
    if (leaves_left_in_block == 0) leaves_left_in_block = 1 + static_cast<int>(rng() % 4), ++block;
    const int size = 1 + static_cast<int>(rng() % static_cast<unsigned>(max_leaf));
    for (int k = 0; k < size && i < n; ++k, ++i) {
      named.placements.push_back({"n" + std::to_string(i), "l" + std::to_string(leaf), "b" + std::to_string(block)});
    }
    ++leaf, --leaves_left_in_block;
  }
  return bind_all(named);
}

struct Checked {
  std::vector<bool> seen;  // n x n, a < b
  std::uint64_t pairs = 0;
};

// No node twice in a round, no pair twice in the plan; returns what was seen.
Checked check_rounds(const Plan& plan, int n, const std::string& what) {
  Checked c;
  c.seen.assign(static_cast<std::size_t>(n) * n, false);
  std::vector<int> busy(static_cast<std::size_t>(n), -1);
  for (std::size_t r = 0; r < plan.rounds.size(); ++r) {
    for (const auto& p : plan.rounds[r].pairs) {
      EXPECT_TRUE(p.a >= 0 && p.a < p.b && p.b < n) << what << ": pair " << p.a << "-" << p.b;
      if (!(p.a >= 0 && p.a < p.b && p.b < n)) return c;
      EXPECT_NE(busy[p.a], static_cast<int>(r)) << what << ": node " << p.a << " twice in round " << r;
      EXPECT_NE(busy[p.b], static_cast<int>(r)) << what << ": node " << p.b << " twice in round " << r;
      busy[p.a] = busy[p.b] = static_cast<int>(r);
      auto bit = c.seen[static_cast<std::size_t>(p.a) * n + p.b];
      EXPECT_FALSE(bit) << what << ": pair " << p.a << "-" << p.b << " twice";
      bit = true;
      ++c.pairs;
    }
  }
  return c;
}

int round_robin_rounds(std::size_t k) { return k < 2 ? 0 : static_cast<int>(k % 2 == 0 ? k - 1 : k); }

void check_all_patterns(const Topology& t, std::uint64_t seed) {
  const int n = t.node_count();
  const std::string at = std::to_string(n) + " nodes, " + std::to_string(t.leaf_count()) + " leaves";
  const auto leaves = t.leaves();
  auto mates = [&](int a, int b) { return t.leaf_of[a] == t.leaf_of[b]; };

  // all-pairs: every pair once, N-1 rounds (even) or N (odd): the optimum.
  const Plan all = make_plan(parse_pattern("all-pairs"), t);
  Checked c = check_rounds(all, n, "all-pairs, " + at);
  EXPECT_EQ(c.pairs, static_cast<std::uint64_t>(n) * (n - 1) / 2) << at;
  EXPECT_EQ(static_cast<int>(all.rounds.size()), round_robin_rounds(n)) << at;
  EXPECT_EQ(all.coverage(), 1.0);

  // intra-leaf: every pair of mates once, no other pair, rounds = the largest leaf's optimum.
  const Plan intra = make_plan(parse_pattern("intra-leaf"), t);
  c = check_rounds(intra, n, "intra-leaf, " + at);
  std::uint64_t promised = 0;
  int optimum = 0;
  for (const auto& leaf : leaves) {
    promised += leaf.size() * (leaf.size() - 1) / 2;
    optimum = std::max(optimum, round_robin_rounds(leaf.size()));
    for (std::size_t i = 0; i < leaf.size(); ++i) {
      for (std::size_t j = i + 1; j < leaf.size(); ++j) {
        EXPECT_TRUE(c.seen[static_cast<std::size_t>(leaf[i]) * n + leaf[j]]) << at << ": mates " << leaf[i] << "-" << leaf[j];
      }
    }
  }
  EXPECT_EQ(c.pairs, promised) << at;
  EXPECT_EQ(intra.promised_pairs, promised);
  EXPECT_EQ(static_cast<int>(intra.rounds.size()), optimum) << at;

  // cross-leaf: every pair across leaves once, no mates; at least the lower bound of rounds.
  const Plan cross = make_plan(parse_pattern("cross-leaf"), t);
  c = check_rounds(cross, n, "cross-leaf, " + at);
  EXPECT_EQ(c.pairs, static_cast<std::uint64_t>(n) * (n - 1) / 2 - promised) << at;
  EXPECT_EQ(cross.promised_pairs, c.pairs);
  for (const auto& r : cross.rounds) {
    for (const auto& p : r.pairs) EXPECT_FALSE(mates(p.a, p.b)) << at;
  }
  EXPECT_GE(static_cast<int>(cross.rounds.size()), cross.lower_bound_rounds);

  // bisection: disjoint rounds, every pair at most once, each cut a round; its first round
  // pairs half of the cluster with the other half.
  const Plan bis = make_plan(parse_pattern("bisection"), t);
  check_rounds(bis, n, "bisection, " + at);
  if (n >= 2) {
    ASSERT_FALSE(bis.rounds.empty()) << at;
    if (!t.flat()) {
      for (const auto& p : bis.rounds.front().pairs) EXPECT_FALSE(mates(p.a, p.b)) << at << ": the first cut is between leaves";
    } else {
      EXPECT_EQ(bis.rounds.front().pairs.size(), static_cast<std::size_t>(n / 2)) << at;
    }
  }
  int log_bound = 0;
  while ((1 << log_bound) < n) ++log_bound;
  EXPECT_LE(static_cast<int>(bis.rounds.size()), 2 * log_bound + 2) << at;

  // sample:3: three perfect matchings (floor(n/2) pairs each), coverage as counted.
  PatternSpec s = parse_pattern("sample:3");
  s.seed = seed;
  const Plan sample = make_plan(s, t);
  ASSERT_EQ(sample.rounds.size(), 3u);
  std::set<std::pair<int, int>> distinct;
  for (const auto& r : sample.rounds) {
    EXPECT_EQ(r.pairs.size(), static_cast<std::size_t>(n / 2)) << at;
    std::set<int> busy;
    for (const auto& p : r.pairs) {
      EXPECT_TRUE(busy.insert(p.a).second && busy.insert(p.b).second) << at;
      distinct.insert({p.a, p.b});
    }
  }
  EXPECT_EQ(sample.distinct_pairs, distinct.size());
}

TEST(PairsPlan, EveryPatternOnRandomTopologiesFrom2To4096Nodes) {
  std::mt19937 rng(20261125);
  std::vector<int> sizes;
  for (int n = 2; n <= 48; ++n) sizes.push_back(n);
  for (int i = 0; i < 12; ++i) sizes.push_back(49 + static_cast<int>(rng() % 1000));
  sizes.push_back(1000);
  sizes.push_back(4095);
  sizes.push_back(4096);
  for (int n : sizes) {
    const int max_leaf = 1 + static_cast<int>(rng() % static_cast<unsigned>(std::min(n, 64)));
    check_all_patterns(random_topology(n, rng, max_leaf), rng());
    if (HasFailure()) return;
  }
}

TEST(PairsPlan, CrossLeafIsOptimalForAnEvenNumberOfEqualLeaves) {
  for (int leaves : {2, 4, 8}) {
    for (int per_leaf : {1, 3, 8}) {
      const Topology t = synthetic_topology(leaves * per_leaf, per_leaf, 0);
      const Plan p = make_plan(parse_pattern("cross-leaf"), t);
      EXPECT_EQ(static_cast<int>(p.rounds.size()), t.node_count() - per_leaf) << leaves << " x " << per_leaf;
      EXPECT_EQ(p.lower_bound_rounds, t.node_count() - per_leaf);
    }
  }
}

TEST(PairsPlan, BisectionCutsBlocksThenLeavesThenNodes) {
  const Topology t = synthetic_topology(16, 4, 2);  // 2 blocks of 2 leaves of 4 nodes
  const Plan p = make_plan(parse_pattern("bisection"), t);
  ASSERT_EQ(p.rounds.size(), 4u);
  EXPECT_EQ(p.rounds[0].label, "cut 1: blocks");
  EXPECT_EQ(p.rounds[1].label, "cut 2: leaves");
  EXPECT_EQ(p.rounds[2].label, "cut 3: nodes of a leaf");
  for (const auto& r : p.rounds) EXPECT_EQ(r.pairs.size(), 8u) << r.label << ": every node in every cut";
  for (const auto& pr : p.rounds[0].pairs) EXPECT_NE(t.block_of_leaf[t.leaf_of[pr.a]], t.block_of_leaf[t.leaf_of[pr.b]]);
}

TEST(PairsPlan, PatternNamesAndRefusals) {
  EXPECT_EQ(pattern_name(parse_pattern("sample:12")), "sample:12");
  for (const char* bad : {"sample:0", "sample:", "sample:x", "ring", ""}) {
    EXPECT_THROW(parse_pattern(bad), std::invalid_argument) << bad;
  }
  const Plan flat = make_plan(parse_pattern("cross-leaf"), flat_topology(6));
  EXPECT_TRUE(flat.rounds.empty());
  ASSERT_EQ(flat.notes.size(), 1u);
  EXPECT_NE(flat.notes[0].find("cross-leaf has no pair"), std::string::npos);
}

// --- the adaptive follow-up, on a simulated fabric ---

struct Fault {
  int node = -1;  // slow in every pair
  int leaf = -1;  // slow in every pair across leaves
};

bool slow_pair(const Topology& t, const Fault& f, int a, int b) {
  if (a == f.node || b == f.node) return true;
  const bool across = t.leaf_of[a] != t.leaf_of[b];
  return across && (t.leaf_of[a] == f.leaf || t.leaf_of[b] == f.leaf);
}

std::vector<Finding> run_adaptive(const Topology& t, const Fault& f, const std::string& pattern, int* followups) {
  std::vector<Observation> evidence;
  auto measure = [&](const std::vector<Round>& rounds) {
    for (const auto& r : rounds) {
      for (const auto& p : r.pairs) evidence.push_back({p.a, p.b, slow_pair(t, f, p.a, p.b)});
    }
  };
  measure(make_plan(parse_pattern(pattern), t).rounds);
  std::vector<Finding> findings = localise(t, evidence);
  *followups = 0;
  for (int step = 1; step <= 4; ++step) {
    const auto more = followup(t, evidence, findings, step);
    if (more.empty()) break;
    ++*followups;
    measure(more);
    findings = localise(t, evidence);
  }
  return findings;
}

TEST(PairsAdaptive, NamesTheSlowNode) {
  const Topology t = synthetic_topology(16, 4, 2);
  for (const char* pattern : {"bisection", "all-pairs", "sample:2", "cross-leaf"}) {
    for (int bad : {0, 5, 15}) {
      int steps = 0;
      const auto findings = run_adaptive(t, {bad, -1}, pattern, &steps);
      ASSERT_EQ(findings.size(), 1u) << pattern << ", node " << bad << ": " << (findings.empty() ? "" : findings[0].why);
      EXPECT_EQ(findings[0].kind, FindingKind::Node) << pattern << ": " << findings[0].why;
      EXPECT_EQ(findings[0].node, bad) << pattern;
      EXPECT_GE(steps, 1) << pattern << ": the follow-up re-tests the implicated nodes";
    }
  }
}

TEST(PairsAdaptive, NamesTheSlowLeafUplinks) {
  const Topology t = synthetic_topology(16, 4, 2);
  for (const char* pattern : {"bisection", "all-pairs", "cross-leaf", "sample:2"}) {
    for (int leaf : {0, 3}) {
      int steps = 0;
      const auto findings = run_adaptive(t, {-1, leaf}, pattern, &steps);
      ASSERT_EQ(findings.size(), 1u) << pattern << ", leaf " << leaf << ": " << (findings.empty() ? "" : findings[0].why);
      EXPECT_EQ(findings[0].kind, FindingKind::LeafUplinks) << pattern << ": " << findings[0].why;
      EXPECT_EQ(findings[0].leaf, leaf) << pattern;
    }
  }
}

TEST(PairsAdaptive, RandomTopologiesAndFaults) {
  std::mt19937 rng(7);
  for (int i = 0; i < 40; ++i) {
    const int n = 8 + static_cast<int>(rng() % 200);
    const Topology t = random_topology(n, rng, 2 + static_cast<int>(rng() % 12));
    const auto leaves = t.leaves();
    Fault f;
    if (i % 2 == 0) {
      f.node = static_cast<int>(rng() % static_cast<unsigned>(n));
    } else {
      f.leaf = static_cast<int>(rng() % leaves.size());
      if (leaves[f.leaf].size() < 2 || t.leaf_count() < 3) continue;  // one node: node and uplinks are one finding
    }
    int steps = 0;
    const auto findings = run_adaptive(t, f, "bisection", &steps);
    ASSERT_EQ(findings.size(), 1u) << n << " nodes, fault node " << f.node << " leaf " << f.leaf << ": "
                                   << (findings.empty() ? "none" : findings[0].why + " ...");
    if (f.node >= 0) {
      EXPECT_EQ(findings[0].kind, FindingKind::Node) << findings[0].why;
      EXPECT_EQ(findings[0].node, f.node);
    } else {
      EXPECT_EQ(findings[0].kind, FindingKind::LeafUplinks) << findings[0].why;
      EXPECT_EQ(findings[0].leaf, f.leaf);
    }
  }
}

TEST(PairsAdaptive, HealthyFabricHasNoFindingAndNoFollowUp) {
  const Topology t = synthetic_topology(12, 3, 0);
  int steps = 0;
  EXPECT_TRUE(run_adaptive(t, {}, "bisection", &steps).empty());
  EXPECT_EQ(steps, 0);
}

TEST(PairsAdaptive, APairSlowOnceIsMeasuredAgainAndForgottenWhenFine) {
  const Topology t = synthetic_topology(8, 4, 0);
  std::vector<Observation> evidence;
  for (const auto& r : make_plan(parse_pattern("bisection"), t).rounds) {
    for (const auto& p : r.pairs) evidence.push_back({p.a, p.b, p.a == 1 && p.b == 5});  // chance: 1-5 once
  }
  auto findings = localise(t, evidence);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::Unresolved);
  EXPECT_EQ(findings[0].other, 5);
  const auto again = followup(t, evidence, findings, 1);
  bool remeasured = false;
  for (const auto& r : again) {
    for (const auto& p : r.pairs) remeasured = remeasured || (p.a == 1 && p.b == 5);
  }
  EXPECT_TRUE(remeasured) << "the pair slow once is measured again";
  evidence.push_back({1, 5, false});
  EXPECT_TRUE(localise(t, evidence).empty()) << "fine when measured again: no finding";
  evidence.push_back({1, 5, true});
  evidence.push_back({1, 5, true});
  findings = localise(t, evidence);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::Unresolved) << "slow 2 of 3: " << findings[0].why;
}

TEST(PairsAdaptive, APairSlowEveryTimeBetweenHealthyNodesIsALink) {
  const Topology t = synthetic_topology(8, 4, 0);
  std::vector<Observation> evidence;
  for (const auto& r : make_plan(parse_pattern("all-pairs"), t).rounds) {
    for (const auto& p : r.pairs) evidence.push_back({p.a, p.b, p.a == 2 && p.b == 6});
  }
  evidence.push_back({2, 6, true});
  const auto findings = localise(t, evidence);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::Link) << findings[0].why;
  EXPECT_EQ(findings[0].node, 2);
  EXPECT_EQ(findings[0].other, 6);
}

TEST(PairsCostModel, RoundTimeAndFit) {
  CostModel m;
  m.rail_gbps = 50;
  m.latency_us = 10;
  m.overhead_s = 0.1;
  // 64 MiB at 50 GB/s = 1.342 ms + 10 us; 26 exchanges; + 0.1 s.
  EXPECT_NEAR(round_seconds(m, {64u << 20, 5, 20, 1}), 0.1 + 26 * (10e-6 + 67108864 / 50e9), 1e-12);
  const nlohmann::json doc = {
      {"schema", "commsweep.pairs/2"},
      {"settings", {{"bytes", 1000000}, {"iters", 8}, {"warmup", 1}, {"check", 1}}},
      {"rounds", {{{"wall_s", 1.5}}, {{"wall_s", 2.5}}}},
      {"pairs", {{{"round", 0}, {"rails", {{{"time_us", 100.0}}, {{"time_us", 120.0}}}}},
                 {{"round", 1}, {"rails", {{{"time_us", 100.0}}}}}}}};
  const CostModel fit = fit_cost_model(doc, "f.json");
  // The rounds' slowest rails: 120 and 100 us, median 110; latency a tenth of that at most.
  EXPECT_NEAR(fit.latency_us, 11, 1e-9);
  EXPECT_NEAR(fit.rail_gbps, 1e6 / (99 * 1e3), 1e-9);
  EXPECT_NEAR(fit.overhead_s, (1.5 - 10 * 120e-6 + 2.5 - 10 * 100e-6) / 2, 1e-9);
  EXPECT_THROW(fit_cost_model(nlohmann::json{{"schema", "commsweep.results/1"}}, "x"), std::invalid_argument);
}

}  // namespace
}  // namespace commsweep::plan
