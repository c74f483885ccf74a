// Stragglers: a rank slow in most samples is named with its host and GPU; jitter is not.
#include <gtest/gtest.h>

#include "regress/compare.hpp"
#include "regress/stragglers.hpp"
#include "regress_fixtures.hpp"

namespace commsweep::regress {
namespace {

TEST(RegressStragglers, OneSlowRankAmongFourIsAnOutlier) {
  const auto out = outlier_ranks({100, 101, 130, 99}, StragglerRules{});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first, 2);
  EXPECT_NEAR(out[0].second, 29.5 / 100.5 * 100, 1e-9);  // above the median, 100.5
}

TEST(RegressStragglers, JitterBelowTheSlowerThresholdIsNot) {
  // Rank 2 is far outside the MAD (0.5) but only 5% slower than the median.
  EXPECT_TRUE(outlier_ranks({100, 101, 105.5, 100}, StragglerRules{}).empty());
}

TEST(RegressStragglers, TwoRanksHaveNoMajority) {
  EXPECT_TRUE(outlier_ranks({100, 200}, StragglerRules{}).empty());
}

TEST(RegressStragglers, TheReportNamesTheRankItsHostAndGpu) {
  report::Results run = testing::run_at(400);
  for (auto& row : run.rows) {
    for (auto* t : {&row.out_of_place, &row.in_place}) t->rank_time_us[3] *= 1.4;
  }
  const Comparison c = compare(run, testing::baseline_of({testing::run_at(400)}));
  ASSERT_EQ(c.stragglers.size(), 1u);
  EXPECT_EQ(c.stragglers[0].rank, 3);
  EXPECT_EQ(c.stragglers[0].host, "node-b");
  EXPECT_EQ(c.stragglers[0].gpu, "00000000:13:00.0");
  EXPECT_EQ(c.stragglers[0].outlier_samples, 8);
  EXPECT_EQ(c.stragglers[0].samples, 8);
  EXPECT_NEAR(c.stragglers[0].worst_slower_pct, 40, 1e-6);
}

TEST(RegressStragglers, ARankLateInOneSampleOfEightIsNotNamed) {
  report::Results run = testing::run_at(400);
  run.rows[0].out_of_place.rank_time_us[1] *= 1.5;
  const Comparison c = compare(run, testing::baseline_of({testing::run_at(400)}));
  EXPECT_TRUE(c.stragglers.empty());  // 1 of 8 samples < rules.stragglers.min_samples_pct (25%)
}

}  // namespace
}  // namespace commsweep::regress
