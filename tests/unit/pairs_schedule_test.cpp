// The schedule of `commsweep pairs`: every pair of nodes exactly once, the pairs of a round
// disjoint, the round count of a round-robin tournament, each node sitting out once for odd
// counts; and which rank meets which (local rank k with local rank k, common ranks only).
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "pairs/schedule.hpp"

namespace commsweep::pairs {
namespace {

TEST(PairsSchedule, EveryPairExactlyOnceAndRoundsDisjoint) {
  for (int n = 2; n <= 17; ++n) {
    const auto rounds = round_robin(n);
    EXPECT_EQ(static_cast<int>(rounds.size()), n % 2 == 0 ? n - 1 : n) << n << " nodes";
    std::set<std::pair<int, int>> seen;
    std::multiset<int> sat_out;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (const auto& p : round.pairs) {
        ASSERT_LT(p.a, p.b);
        ASSERT_GE(p.a, 0);
        ASSERT_LT(p.b, n);
        EXPECT_TRUE(busy.insert(p.a).second) << "node " << p.a << " twice in a round of " << n;
        EXPECT_TRUE(busy.insert(p.b).second) << "node " << p.b << " twice in a round of " << n;
        EXPECT_TRUE(seen.insert({p.a, p.b}).second) << p.a << "-" << p.b << " measured twice, " << n << " nodes";
      }
      EXPECT_EQ(static_cast<int>(round.pairs.size()), n / 2) << "a round of " << n << " nodes";
      if (n % 2 == 1) {
        ASSERT_GE(round.sits_out, 0);
        EXPECT_EQ(busy.count(round.sits_out), 0u);
        sat_out.insert(round.sits_out);
      } else {
        EXPECT_EQ(round.sits_out, -1);
      }
    }
    EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2) << n << " nodes";
    if (n % 2 == 1) {
      for (int node = 0; node < n; ++node) EXPECT_EQ(sat_out.count(node), 1u) << "node " << node << " of " << n;
    }
  }
}

TEST(PairsSchedule, FewerThanTwoNodesHaveNoRounds) {
  EXPECT_TRUE(round_robin(0).empty());
  EXPECT_TRUE(round_robin(1).empty());
  const auto two = round_robin(2);
  ASSERT_EQ(two.size(), 1u);
  ASSERT_EQ(two[0].pairs.size(), 1u);
  EXPECT_EQ(two[0].pairs[0].a, 0);
  EXPECT_EQ(two[0].pairs[0].b, 1);
}

TEST(PairsSchedule, LocalRankKMeetsLocalRankK) {
  // Node 0: ranks 0 2; node 1: ranks 1 3 (interleaved, as a round-robin mapping gives).
  const std::vector<int> node_of{0, 1, 0, 1};
  const auto nodes = ranks_by_node(node_of);
  ASSERT_EQ(nodes, (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  const Round round{{{0, 1}}, -1, ""};
  EXPECT_EQ(partner_of(0, round, nodes, node_of), 1);
  EXPECT_EQ(partner_of(1, round, nodes, node_of), 0);
  EXPECT_EQ(partner_of(2, round, nodes, node_of), 3);
  EXPECT_EQ(partner_of(3, round, nodes, node_of), 2);
}

TEST(PairsSchedule, UnevenNodesPairTheirCommonRanksAndTheSittingNodeIsIdle) {
  // Node 0: 0 1 2; node 1: 3 4; node 2: 5.
  const std::vector<int> node_of{0, 0, 0, 1, 1, 2};
  const auto nodes = ranks_by_node(node_of);
  const Round round{{{0, 1}}, 2, ""};
  EXPECT_EQ(partner_of(0, round, nodes, node_of), 3);
  EXPECT_EQ(partner_of(1, round, nodes, node_of), 4);
  EXPECT_EQ(partner_of(2, round, nodes, node_of), -1) << "node 1 has no local rank 2";
  EXPECT_EQ(partner_of(4, round, nodes, node_of), 1);
  EXPECT_EQ(partner_of(5, round, nodes, node_of), -1) << "node 2 sits out";
}

}  // namespace
}  // namespace commsweep::pairs
