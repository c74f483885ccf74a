// The outlier rule of `commsweep pairs` on synthetic measurements: the median over every rail,
// a pair slow below the fraction of it (its slowest rail), the node common to several slow
// pairs named with the rail and GPU, and the cases where no node can be named.
#include <gtest/gtest.h>

#include "pairs/outliers.hpp"
#include "pairs/pairs_json.hpp"
#include "pairs/render.hpp"

namespace commsweep::pairs {
namespace {

// n nodes of `rails` ranks each (rank = node * rails + k), every pair measured at `gbps` on
// every rail, except where `slow` says: (node, local rank) pairs whose rails run at slow_gbps.
PairsRun cluster(int n, int rails, double gbps, std::vector<std::pair<int, int>> slow = {}, double slow_gbps = 10) {
  PairsRun run;
  run.settings.bytes = 1 << 20;
  run.settings.check = 1;
  for (int i = 0; i < n; ++i) {
    Node node;
    node.name = "host" + std::to_string(i);
    for (int k = 0; k < rails; ++k) {
      node.ranks.push_back(i * rails + k);
      node.pci_bus_ids.push_back("0000:" + std::to_string(10 + k) + ":00.0");
    }
    run.nodes.push_back(node);
  }
  run.rounds = round_robin(n);
  for (std::size_t r = 0; r < run.rounds.size(); ++r) {
    for (const auto& p : run.rounds[r].pairs) {
      PairMeasurement m{static_cast<int>(r), p.a, p.b, {}};
      for (int k = 0; k < rails; ++k) {
        Rail rail;
        rail.local_rank = k;
        rail.rank_a = p.a * rails + k;
        rail.rank_b = p.b * rails + k;
        rail.gbps = gbps + 0.01 * (p.a + p.b + k);  // a little spread, as measurements have
        for (const auto& [node, local] : slow) {
          if ((node == p.a || node == p.b) && local == k) rail.gbps = slow_gbps;
        }
        rail.wrong = 0;
        m.rails.push_back(rail);
      }
      run.pairs.push_back(m);
    }
  }
  return run;
}

TEST(PairsOutliers, HealthyClusterHasNoSlowPairAndNoSuspect) {
  const PairsRun run = cluster(6, 4, 100);
  const Analysis a = analyse(run);
  EXPECT_EQ(a.rails, 15u * 4u);
  EXPECT_NEAR(a.median_gbps, 100.1, 0.1);
  EXPECT_NEAR(a.slow_below_gbps, 0.8 * a.median_gbps, 1e-9);
  EXPECT_TRUE(a.slow.empty());
  EXPECT_TRUE(a.suspects.empty());
  EXPECT_NE(render_report(run, a).find("# no slow pair"), std::string::npos);
}

TEST(PairsOutliers, OneSlowRailNamesItsNodeRankAndGpu) {
  // Node 2's local rank 1 (rank 5 of 3 nodes x 2) is a slow rail: pairs 0-2 and 1-2 slow.
  const PairsRun run = cluster(3, 2, 100, {{2, 1}});
  const Analysis a = analyse(run);
  ASSERT_EQ(a.slow.size(), 2u);
  for (int i : a.slow) {
    EXPECT_TRUE(run.pairs[i].node_a == 2 || run.pairs[i].node_b == 2);
    EXPECT_EQ(a.verdicts[i].slowest_rail, 1);
    EXPECT_DOUBLE_EQ(a.verdicts[i].gbps, 10);
  }
  ASSERT_EQ(a.suspects.size(), 1u);
  EXPECT_EQ(a.suspects[0].node, 2);
  EXPECT_EQ(a.suspects[0].slow_pairs, 2);
  EXPECT_EQ(a.suspects[0].pairs, 2);
  EXPECT_EQ(a.suspects[0].local_rank, 1);
  EXPECT_EQ(a.suspects[0].rank, 5);
  EXPECT_EQ(a.suspects[0].pci_bus_id, "0000:11:00.0");
  const std::string text = render_report(run, a);
  EXPECT_NE(text.find("# LIKELY BAD NODE N2 host2: in 2 slow pairs (of its 2); its slowest rail: local rank 1, "
                      "rank 5, GPU 0000:11:00.0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# SLOW pair N0-N2: 10.00 GB/s"), std::string::npos) << text;
}

// Issue 45: a slow pair whose rank's GPU was throttled during its round is laid at it; a throttle
// during a healthy pair's round is no finding (evidence joined to a slow pair, not a verdict).
TEST(PairsOutliers, ASlowPairsThrottledGpuIsNamedAsItsLikelyCause) {
  PairsRun run = cluster(3, 2, 100, {{2, 1}});
  for (auto& p : run.pairs) {
    for (const Rail& rail : p.rails)
      for (const int rank : {rail.rank_a, rail.rank_b}) {
        report::GpuWindow w;
        w.rank = rank;
        w.gpu = rail.local_rank;
        if (rank == 5 || (rank == 1 && p.node_b == 1)) w.throttles.push_back({"power cap", 0.87});
        p.gpu_state.push_back(w);
      }
  }
  const Analysis a = analyse(run);
  ASSERT_EQ(a.slow.size(), 2u);
  const std::vector<std::string> found = gpu_state_findings(run, a);
  ASSERT_EQ(found.size(), 2u) << ::testing::PrintToString(found);
  for (std::size_t k = 0; k < found.size(); ++k) {
    const PairMeasurement& p = run.pairs[a.slow[k]];
    EXPECT_EQ(found[k], "GPU throttled: rank 5 (host2, GPU 0000:11:00.0) was held by power cap (87% of the window) "
                        "during the N" + std::to_string(p.node_a) + "-N2 pair's exchange in round " +
                            std::to_string(p.round + 1) + ": the likely cause of its slowness, before the fabric");
  }
  const std::string text = render_report(run, a);
  EXPECT_NE(text.find("\n# " + found[0] + "\n"), std::string::npos) << text;
  // The JSON: the findings in the summary, each pair's windows (4: its two rails' two ranks).
  const nlohmann::json doc = to_json(run, a);
  EXPECT_EQ(doc["summary"]["gpu_state_findings"], nlohmann::json(found));
  ASSERT_EQ(doc["pairs"][0]["gpu_state"].size(), 4u);
  EXPECT_EQ(doc["pairs"][0]["gpu_state"][0]["rank"], run.pairs[0].rails[0].rank_a);
  // A healthy run's throttle names nothing.
  PairsRun healthy = cluster(3, 2, 100);
  healthy.pairs[0].gpu_state.push_back(run.pairs[0].gpu_state.front());
  healthy.pairs[0].gpu_state.back().throttles.push_back({"thermal", std::nullopt});
  EXPECT_TRUE(gpu_state_findings(healthy, analyse(healthy)).empty());
}

TEST(PairsOutliers, AWholeBadNodeIsFoundFromFiveNodes) {
  // Every rail of node 3 is slow: its 4 pairs of 10 are 40% of the rails, below half.
  const PairsRun run = cluster(5, 1, 100, {{3, 0}}, 60);
  const Analysis a = analyse(run);
  EXPECT_EQ(a.slow.size(), 4u);
  ASSERT_EQ(a.suspects.size(), 1u);
  EXPECT_EQ(a.suspects[0].node, 3);
  EXPECT_EQ(a.suspects[0].slow_pairs, 4);
}

TEST(PairsOutliers, AtTheThresholdIsNotSlow) {
  PairsRun run = cluster(2, 2, 100);
  run.pairs[0].rails[0].gbps = 80;
  run.pairs[0].rails[1].gbps = 100;
  Analysis a = analyse(run);  // median 90, threshold 72
  EXPECT_TRUE(a.slow.empty());
  run.settings.slow_fraction = 0.9;  // threshold 81: the 80 GB/s rail makes the pair slow
  a = analyse(run);
  ASSERT_EQ(a.slow.size(), 1u);
  EXPECT_EQ(a.verdicts[0].slowest_rail, 0);
  EXPECT_NEAR(a.verdicts[0].ratio, 80.0 / 90.0, 1e-12);
}

TEST(PairsOutliers, OneSlowPairNamesNoNode) {
  // Two nodes: one pair; its slow rail cannot say which end is at fault.
  PairsRun run = cluster(2, 4, 100, {{1, 3}});
  Analysis a = analyse(run);
  ASSERT_EQ(a.slow.size(), 1u);
  EXPECT_TRUE(a.suspects.empty());
  EXPECT_NE(render_report(run, a).find("with 2 nodes, add a third node to tell which"), std::string::npos);
  // Four nodes, only the 0-1 link slow: two nodes in one slow pair each, no suspect.
  run = cluster(4, 1, 100);
  for (auto& p : run.pairs) {
    if (p.node_a == 0 && p.node_b == 1) p.rails[0].gbps = 20;
  }
  a = analyse(run);
  EXPECT_EQ(a.slow.size(), 1u);
  EXPECT_TRUE(a.suspects.empty());
}

TEST(PairsOutliers, EveryPairSlowNamesNoNode) {
  // Three nodes, each pair slow on another rail (noise, or the whole fabric): no node stands out.
  PairsRun run = cluster(3, 2, 100);
  for (auto& p : run.pairs) p.rails[p.node_a == 0 ? 0 : 1].gbps = 30;
  const Analysis a = analyse(run);
  EXPECT_EQ(a.slow.size(), 3u);
  EXPECT_TRUE(a.suspects.empty());
  EXPECT_NE(render_report(run, a).find("# no node stands out: every node is in 2 slow pairs"), std::string::npos);
}

TEST(PairsOutliers, TwoBadNodesAreBothNamed) {
  const PairsRun run = cluster(8, 1, 100, {{1, 0}, {6, 0}});
  const Analysis a = analyse(run);
  EXPECT_EQ(a.slow.size(), 13u);  // 7 + 7 - the pair 1-6 counted once
  ASSERT_EQ(a.suspects.size(), 2u);
  EXPECT_EQ(a.suspects[0].node, 1);
  EXPECT_EQ(a.suspects[1].node, 6);
}

// The case: 3 nodes of 1 rank, node 1 slow on its only rail. Its 2 pairs are 2 of the 3
// rails, so the median is a slow rail's (0.04 GB/s) and the median rule alone sees "no slow
// pair"; the top-third pair (of 3: the fastest, N0-N2, healthy) judges the spread and the node
// both slow pairs share
// is named.
TEST(PairsOutliers, ThreeNodesWithOneSlowNodeTheFastestPairJudgesTheSpread) {
  PairsRun run = cluster(3, 1, 3.91);
  for (auto& p : run.pairs) {
    if (p.node_a == 1 || p.node_b == 1) p.rails[0].gbps = p.node_a == 0 ? 0.034 : 0.04;
  }
  const Analysis a = analyse(run);
  EXPECT_NEAR(a.median_gbps, 0.04, 1e-12);
  EXPECT_TRUE(median_unreliable(a));
  EXPECT_EQ(a.rails_of_busiest_node, 2u);
  EXPECT_NEAR(a.top_third_gbps, 3.93, 1e-9);  // N0-N2: 3.91 + 0.01 x (0 + 2)
  ASSERT_EQ(a.slow.size(), 2u);
  for (int i : a.slow) {
    EXPECT_TRUE(a.verdicts[i].below_top_third);
    EXPECT_GT(a.verdicts[i].ratio, run.settings.slow_fraction);  // the median's rule alone: not slow
    EXPECT_TRUE(run.pairs[i].node_a == 1 || run.pairs[i].node_b == 1);
  }
  ASSERT_EQ(a.suspects.size(), 1u);
  EXPECT_EQ(a.suspects[0].node, 1);
  const std::string text = render_report(run, a);
  EXPECT_EQ(text.find("# no slow pair"), std::string::npos) << text;
  EXPECT_NE(text.find("# median rail 0.04 GB/s over 3 rails of 3 pairs; a pair is slow below 0.80 x median = 0.03 GB/s, "
                      "or below 0.10 x the top-third pair (the slowest of the fastest third: N0-N2 3.93 GB/s) = 0.39 GB/s\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# few nodes: a node's pairs hold up to 2 of the 3 rails (2 of 3 pairs), half or more, so one bad "
                      "node's rails can be the median; the top-third pair judges the spread: below 0.10 x it is slow "
                      "whatever the median\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# SLOW pair N0-N1: 0.03 GB/s, 0.85 x median, 0.01 x the top-third pair; slowest rail local rank 0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# LIKELY BAD NODE N1 host1: in 2 slow pairs (of its 2)"), std::string::npos) << text;
}

// Healthy rails a few times apart (busy shared cores, judged with --slow-below 0.25 as the CI
// tests are) are not 10x apart: nothing slow, and the few-nodes caveat is said all the same.
TEST(PairsOutliers, AHealthySpreadOfFewNodesIsNotSlow) {
  PairsRun run = cluster(3, 1, 100);
  run.settings.slow_fraction = 0.25;
  run.pairs[0].rails[0].gbps = 30;  // 0.3 x the top-third pair
  const Analysis a = analyse(run);
  EXPECT_TRUE(a.slow.empty());
  const std::string text = render_report(run, a);
  EXPECT_NE(text.find(", is at 0.30 x median, 0.30 x the top-third pair)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# few nodes: "), std::string::npos) << text;
}

// One pair: its rails judge each other; a node slow on every rail cannot show, and that is said.
TEST(PairsOutliers, OnePairSaysWhatItCannotSee) {
  const PairsRun run = cluster(2, 4, 100, {{1, 0}, {1, 1}, {1, 2}, {1, 3}});
  const Analysis a = analyse(run);
  EXPECT_TRUE(a.slow.empty());
  EXPECT_NE(render_report(run, a).find("# one pair: a node slow on every rail cannot show against the median of its "
                                       "own rails; the top-third pair judges the spread"),
            std::string::npos);
}

// Many nodes: the median is a healthy rail's, no caveat, and one bad rail is found by the
// median's rule with no other pair made slow by the top-third pair's.
TEST(PairsOutliers, ManyNodesWithOneBadRailKeepTheirVerdicts) {
  const PairsRun run = cluster(64, 8, 100, {{17, 3}}, 40);
  const Analysis a = analyse(run);
  EXPECT_FALSE(median_unreliable(a));
  EXPECT_EQ(a.slow.size(), 63u);
  for (int i : a.slow) EXPECT_FALSE(a.verdicts[i].below_top_third);  // 0.4 x: the median's rule
  ASSERT_EQ(a.suspects.size(), 1u);
  EXPECT_EQ(a.suspects[0].node, 17);
  EXPECT_EQ(a.suspects[0].local_rank, 3);
  EXPECT_EQ(render_report(run, a).find("# few nodes"), std::string::npos);
  // A whole node 20x slow on 64 nodes: both rules agree.
  const Analysis node = analyse(cluster(64, 1, 100, {{5, 0}}, 5));
  EXPECT_EQ(node.slow.size(), 63u);
  for (int i : node.slow) EXPECT_TRUE(node.verdicts[i].below_top_third);
}

// A pair measured fast by a fluke (busy cores: 8x the median on 16 emulated nodes) must not
// make healthy pairs a few times slower than the median slow: the top third's slowest pair, not
// the fastest, is the reference.
TEST(PairsOutliers, AFlukeFastPairMakesNoHealthyPairSlow) {
  PairsRun run = cluster(16, 1, 100);
  run.settings.slow_fraction = 0.1;  // as mpi.pairs.np16.*
  run.pairs[0].rails[0].gbps = 900;
  for (std::size_t i = 1; i < run.pairs.size(); i += 10) run.pairs[i].rails[0].gbps = 25;  // 0.25 x
  const Analysis a = analyse(run);
  EXPECT_TRUE(a.slow.empty());
  EXPECT_NEAR(a.top_third_gbps, 100, 1);
  EXPECT_NE(a.top_third, 0);
}

TEST(PairsOutliers, WrongElementsAreCounted) {
  PairsRun run = cluster(3, 2, 100);
  run.pairs[1].rails[1].wrong = 7;
  const Analysis a = analyse(run);
  EXPECT_EQ(a.wrong_total, 7u);
  EXPECT_NE(render_report(run, a).find("# Out of bounds values : 7 FAILED"), std::string::npos);
}

TEST(PairsOutliers, MatrixIsSymmetricWithTheSlowestRail) {
  const PairsRun run = cluster(3, 2, 100, {{0, 0}}, 12.5);
  const std::string text = render_report(run, analyse(run));
  // Row N0: itself, then N1 and N2 at the slow rail's 12.50; row N1: N0's 12.50, itself, N2.
  EXPECT_NE(text.find("      N0       -   12.50   12.50\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      N1   12.50       -  100.03\n"), std::string::npos) << text;
}

TEST(PairsOutliers, MedianOfEvenAndOdd) {
  EXPECT_DOUBLE_EQ(median({}), 0);
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace commsweep::pairs
