// The outlier rule of `commsweep pairs` on synthetic measurements: the median over every rail,
// a pair slow below the fraction of it (its slowest rail), the node common to several slow
// pairs named with the rail and GPU, and the cases where no node can be named.
#include <gtest/gtest.h>

#include "pairs/outliers.hpp"
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
