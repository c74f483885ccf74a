// Bandwidth figures: algbw = bytes / time (GB/s = 1e9 B/s), busbw = algbw x the collective's
// factor from nccl-tests' PERFORMANCE.md, and the per-rank times combined as -a says.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collectives/collective_test.hpp"
#include "report/result.hpp"
#include "sweep/sweep.hpp"

namespace commsweep {
namespace {

double expected_factor(const std::string& test, int n) {
  if (test == "all_reduce") return 2.0 * (n - 1) / n;  // reduce-scatter then all-gather
  if (test == "all_gather" || test == "reduce_scatter" || test == "alltoall") {
    return static_cast<double>(n - 1) / n;  // each rank lacks (n-1)/n of the data
  }
  return 1.0;  // broadcast, reduce, sendrecv: the whole buffer crosses one link
}

// The first seven, once more (a new collective's factor is checked by its own oracle,
// tests/collectives/<name>.py, against the rows it prints).
TEST(BusFactor, TheFirstSevenCollectivesForOneToEightRanks) {
  for (const char* name : {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                           "reduce", "sendrecv"}) {
    const CollectiveTest* test = find_collective_test(name);
    ASSERT_NE(test, nullptr) << name;
    for (int n = 1; n <= 8; ++n) {
      EXPECT_DOUBLE_EQ(test->bus_factor(n), expected_factor(std::string(test->name), n))
          << test->name << " on " << n << " ranks";
    }
  }
}

TEST(BusFactor, KnownValues) {
  EXPECT_DOUBLE_EQ(all_reduce_test().bus_factor(1), 0.0);
  EXPECT_DOUBLE_EQ(all_reduce_test().bus_factor(2), 1.0);
  EXPECT_DOUBLE_EQ(all_reduce_test().bus_factor(8), 1.75);
  EXPECT_DOUBLE_EQ(all_gather_test().bus_factor(4), 0.75);
  EXPECT_DOUBLE_EQ(reduce_scatter_test().bus_factor(8), 0.875);
  EXPECT_DOUBLE_EQ(alltoall_test().bus_factor(2), 0.5);
  EXPECT_DOUBLE_EQ(broadcast_test().bus_factor(8), 1.0);
  EXPECT_DOUBLE_EQ(reduce_test().bus_factor(8), 1.0);
  EXPECT_DOUBLE_EQ(sendrecv_test().bus_factor(8), 1.0);
}

TEST(Registry, FindsByNameAndAlias) {
  EXPECT_EQ(find_collective_test("all_reduce"), &all_reduce_test());
  EXPECT_EQ(find_collective_test("allreduce"), &all_reduce_test());
  EXPECT_EQ(find_collective_test("reduce-scatter"), &reduce_scatter_test());
  EXPECT_EQ(find_collective_test("sendrecv_perf"), &sendrecv_test());
  EXPECT_EQ(find_collective_test("reduce"), &reduce_test());
  EXPECT_EQ(find_collective_test("no_such_collective"), nullptr);
  EXPECT_EQ(find_collective_test(""), nullptr);
}

TEST(Registry, WhatEachTestTakes) {
  EXPECT_TRUE(all_reduce_test().reduces);
  EXPECT_TRUE(reduce_scatter_test().reduces);
  EXPECT_TRUE(reduce_test().reduces);
  EXPECT_FALSE(all_gather_test().reduces);
  EXPECT_TRUE(broadcast_test().rooted);
  EXPECT_TRUE(reduce_test().rooted);
  EXPECT_FALSE(all_reduce_test().rooted);
  // In place, alltoall and sendrecv receive into blocks still being sent: #wrong is N/A.
  for (const CollectiveTest* t : {&all_reduce_test(), &all_gather_test(), &reduce_scatter_test(),
                                  &alltoall_test(), &broadcast_test(), &reduce_test(), &sendrecv_test()}) {
    EXPECT_EQ(t->in_place_checked, t != &alltoall_test() && t != &sendrecv_test()) << t->name;
  }
  EXPECT_TRUE(reduce_test().output_checked(2, 2));
  EXPECT_FALSE(reduce_test().output_checked(1, 2));
  EXPECT_TRUE(broadcast_test().output_checked(1, 2));
}

TEST(CombineTiming, AlgbwIsBytesOverTimeInDecimalGigabytes) {
  // 1e9 bytes in 1 s: 1 GB/s, not 0.93 (GiB).
  const report::Timing t = combine_timing({1e6}, Average::Mean, 1000000000, 1.0);
  EXPECT_DOUBLE_EQ(t.time_us, 1e6);
  EXPECT_DOUBLE_EQ(t.algbw_gbps, 1.0);
  EXPECT_DOUBLE_EQ(t.busbw_gbps, 1.0);
}

TEST(CombineTiming, BusbwAppliesTheFactor) {
  // nccl-tests' second golden row: 8 GiB all_reduce in 35288.5 us on 4 ranks.
  const report::Timing t = combine_timing({35288.5}, Average::Mean, 8589934592ull,
                                          all_reduce_test().bus_factor(4));
  EXPECT_NEAR(t.algbw_gbps, 243.42, 0.005);
  EXPECT_NEAR(t.busbw_gbps, 365.13, 0.005);
  EXPECT_DOUBLE_EQ(t.busbw_gbps, t.algbw_gbps * 1.5);
}

TEST(CombineTiming, AverageModes) {
  const std::vector<double> times{40, 10, 70, 20};
  EXPECT_DOUBLE_EQ(combine_timing(times, Average::Rank0, 1000, 1).time_us, 40);
  EXPECT_DOUBLE_EQ(combine_timing(times, Average::Mean, 1000, 1).time_us, 35);
  EXPECT_DOUBLE_EQ(combine_timing(times, Average::Min, 1000, 1).time_us, 10);
  EXPECT_DOUBLE_EQ(combine_timing(times, Average::Max, 1000, 1).time_us, 70);
  // The bandwidth follows the time that is shown.
  EXPECT_DOUBLE_EQ(combine_timing(times, Average::Min, 1000, 1).algbw_gbps, 0.1);
  EXPECT_DOUBLE_EQ(combine_timing(times, Average::Max, 1000, 1).algbw_gbps, 1000.0 / 70 / 1e3);
}

TEST(CombineTiming, NamesTheSlowestRankWhateverTheMode) {
  const std::vector<double> times{40, 10, 70, 20};
  for (Average a : {Average::Rank0, Average::Mean, Average::Min, Average::Max}) {
    const report::Timing t = combine_timing(times, a, 1000, 1);
    EXPECT_EQ(t.slowest_rank, 2);
    EXPECT_DOUBLE_EQ(t.slowest_time_us, 70);
    EXPECT_EQ(t.rank_time_us, times);
  }
  // Ties go to the lowest rank.
  EXPECT_EQ(combine_timing({5, 9, 9}, Average::Mean, 8, 1).slowest_rank, 1);
}

TEST(CombineTiming, NoTimeGivesNoBandwidth) {
  const report::Timing zero = combine_timing({0, 0}, Average::Mean, 1000, 2);
  EXPECT_EQ(zero.algbw_gbps, 0.0);
  EXPECT_EQ(zero.busbw_gbps, 0.0);
  const report::Timing none = combine_timing({}, Average::Mean, 1000, 2);
  EXPECT_EQ(none.time_us, 0.0);
  EXPECT_EQ(none.algbw_gbps, 0.0);
  EXPECT_TRUE(none.rank_time_us.empty());
}

TEST(AverageBusbw, MeanOverBothHalvesOfEveryRow) {
  std::vector<report::ResultRow> rows(2);
  rows[0].out_of_place.busbw_gbps = 100;
  rows[0].in_place.busbw_gbps = 200;
  rows[1].out_of_place.busbw_gbps = 300;
  rows[1].in_place.busbw_gbps = 400;
  EXPECT_DOUBLE_EQ(report::average_busbw(rows), 250);
  EXPECT_EQ(report::average_busbw({}), 0.0);
}

}  // namespace
}  // namespace commsweep
