// The pairs rounds without MPI (pairs/rounds.hpp, pairs/job.hpp): the rounds' broadcast form,
// rank 0 turning every rank's "time wrong" into rails, and the run's exit code.
#include "pairs/rounds.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pairs/job.hpp"
#include "core/error.hpp"

namespace commsweep::pairs {
namespace {

TEST(PairsRounds, EncodedRoundsDecodeToTheSamePairsUnderTheLabel) {
  std::vector<Round> rounds(2);
  rounds[0].pairs = {{0, 1}, {2, 3}};
  rounds[1].pairs = {{0, 2}};
  const std::vector<int> encoded = encode_rounds(rounds);
  EXPECT_EQ(encoded, (std::vector<int>{2, 0, 1, 2, 3, 1, 0, 2}));
  const std::vector<Round> decoded = decode_rounds(encoded, "follow-up 1");
  ASSERT_EQ(decoded.size(), 2u);
  ASSERT_EQ(decoded[0].pairs.size(), 2u);
  EXPECT_EQ(decoded[0].pairs[1].a, 2);
  EXPECT_EQ(decoded[0].pairs[1].b, 3);
  EXPECT_EQ(decoded[1].pairs[0].b, 2);
  EXPECT_EQ(decoded[1].label, "follow-up 1");
  EXPECT_TRUE(decode_rounds({}, "x").empty());
}

// Two nodes of two ranks: rail k joins local rank k of each; the slower side's time counts.
PairsRun two_nodes() {
  PairsRun run;
  run.settings.bytes = 1000000;
  run.nodes = {{"a", {0, 1}, {}}, {"b", {2, 3}, {}}};
  run.rounds.resize(1);
  run.rounds[0].pairs = {{0, 1}};
  return run;
}

TEST(PairsRounds, AddRoundMakesARailPerLocalRank) {
  PairsRun run = two_nodes();
  add_round(run, 0, {"100 0", "200 1", "50 0", "400 2"}, /*checked=*/true);
  ASSERT_EQ(run.pairs.size(), 1u);
  const auto& rails = run.pairs[0].rails;
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_EQ(rails[0].rank_a, 0);
  EXPECT_EQ(rails[0].rank_b, 2);
  EXPECT_DOUBLE_EQ(rails[0].time_us, 100);
  EXPECT_DOUBLE_EQ(rails[0].gbps, 10);  // 1e6 B in 100 us
  EXPECT_EQ(rails[0].wrong, std::optional<std::uint64_t>{0});
  EXPECT_DOUBLE_EQ(rails[1].time_us, 400);
  EXPECT_EQ(rails[1].wrong, std::optional<std::uint64_t>{3});
}

// A rank's GPU window over a round, held by the power cap for SHARE of it where SHARE > 0.
report::GpuWindow round_window(int rank, double share) {
  report::GpuWindow w;
  w.rank = rank;
  w.gpu = rank % 2;
  w.window_us = 100'000;
  if (share > 0) w.throttles.push_back({"power cap", share});
  return w;
}

// Each pair keeps the windows of its rails' ranks (a rank sitting out keeps none); above
// kWindowsKeptNodes nodes only the throttled ones.
TEST(PairsRounds, AddRoundGivesEachPairItsRanksGpuWindows) {
  PairsRun run = two_nodes();
  const std::vector<report::GpuWindow> windows = {round_window(0, 0), round_window(1, 0), round_window(2, 0),
                                                  round_window(3, 0.87), round_window(4, 0.5)};
  add_round(run, 0, {"100 0", "100 0", "100 0", "100 0"}, true, windows);
  ASSERT_EQ(run.pairs[0].gpu_state.size(), 4u);  // rank 4 is in no rail of the pair
  std::vector<int> ranks;
  for (const auto& w : run.pairs[0].gpu_state) ranks.push_back(w.rank);
  EXPECT_EQ(ranks, (std::vector<int>{0, 2, 1, 3}));  // rail by rail
  PairsRun many = two_nodes();
  many.nodes.resize(kWindowsKeptNodes + 1, Node{"idle", {}, {}});
  add_round(many, 0, {"100 0", "100 0", "100 0", "100 0"}, true, windows);
  ASSERT_EQ(many.pairs[0].gpu_state.size(), 1u);
  EXPECT_EQ(many.pairs[0].gpu_state[0].rank, 3);
  PairsRun none = two_nodes();
  add_round(none, 0, {"100 0", "100 0", "100 0", "100 0"}, true);
  EXPECT_TRUE(none.pairs[0].gpu_state.empty());
}

TEST(PairsRounds, UncheckedRoundsLeaveWrongElementsUnknown) {
  PairsRun run = two_nodes();
  add_round(run, 0, {"100 5", "100 5", "100 5", "100 5"}, /*checked=*/false);
  EXPECT_FALSE(run.pairs[0].rails[0].wrong.has_value());  // null in the JSON, not 0
}

TEST(PairsRounds, ExitCodeWrongOutranksIncompleteWhichOutranksHealthWhichOutranksSlow) {
  PairsRun run;
  Analysis a;
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kOk);
  a.slow = {0};
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kSlow);
  run.health_fail = {"node1 mlx5_1 port 1: link_downed +1"};
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kHealthFail);
  run.complete = false;
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kInterrupted);
  a.wrong_total = 1;
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kWrongData);
}

}  // namespace
}  // namespace commsweep::pairs
