// The rules of a baseline on synthetic histories: bands, noise, floors, missing sizes, wrong
// results, the time rule for small messages, and the exit codes they lead to.
#include <gtest/gtest.h>

#include "regress/compare.hpp"
#include "regress/render.hpp"
#include "report/iteration_stats.hpp"
#include "regress_fixtures.hpp"

namespace commsweep::regress {
namespace {

using testing::baseline_of;
using testing::run_at;

// Three nights within 1% of each other (spread 2%): the history a baseline is made from.
Baseline steady_baseline() { return baseline_of({run_at(400, 0.99), run_at(400, 1.0), run_at(400, 1.01)}); }

const Judgement& at(const Comparison& c, std::uint64_t size, const std::string& place = "out_of_place") {
  for (const auto& j : c.judgements) {
    if (j.key.size == size && j.key.place == place) return j;
  }
  throw std::runtime_error("no judgement at " + std::to_string(size));
}

TEST(RegressRules, BaselineIsTheMedianAndTheSpreadOfTheRuns) {
  const Baseline b = steady_baseline();
  ASSERT_EQ(b.entries.size(), 8u);  // 4 sizes x 2 halves
  EXPECT_DOUBLE_EQ(b.entries[0].bandwidth_gbps, 400);
  EXPECT_NEAR(b.entries[0].bandwidth_spread_pct, 2.0, 1e-9);  // (404 - 396) / 400
  EXPECT_EQ(b.entries[0].samples, 3);
}

TEST(RegressRules, ATwelvePercentDropFails) {
  report::Results run = run_at(400);
  run.rows[2] = testing::all_reduce_row(4 << 20, 400 * 0.88);
  const Comparison c = compare(run, steady_baseline());
  EXPECT_EQ(at(c, 4 << 20).verdict, Verdict::Fail);
  EXPECT_NEAR(at(c, 4 << 20).change_pct, -12.0, 1e-6);
  EXPECT_NE(at(c, 4 << 20).reason.find("busbw 12.0% lower"), std::string::npos) << at(c, 4 << 20).reason;
  EXPECT_EQ(at(c, 1 << 20).verdict, Verdict::Same);
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
}

TEST(RegressRules, ASevenPercentDropWarnsAndStillPasses) {
  const Comparison c = compare(run_at(400, 0.93), steady_baseline());
  EXPECT_EQ(at(c, 8 << 20).verdict, Verdict::Warn);
  EXPECT_EQ(c.exit_code, exit_code::kOk);
}

TEST(RegressRules, AThreePercentChangeInsideTheNoiseIsSame) {
  // Noisy nights: spread 8% (384 .. 416); tonight 3% lower is inside it.
  const Baseline noisy = baseline_of({run_at(400, 0.96), run_at(400, 1.0), run_at(400, 1.04)});
  const Comparison c = compare(run_at(400, 0.97), noisy);
  for (const auto& j : c.judgements) EXPECT_EQ(j.verdict, Verdict::Same) << describe(j.key) << ": " << j.reason;
  EXPECT_EQ(c.exit_code, exit_code::kOk);
}

TEST(RegressRules, AWarnSizedDropInsideTheNoiseIsSameButOutsideItWarns) {
  const Baseline noisy = baseline_of({run_at(400, 0.92), run_at(400, 1.0), run_at(400, 1.08)});  // 16%
  EXPECT_EQ(at(compare(run_at(400, 0.93), noisy), 1 << 20).verdict, Verdict::Same);
  EXPECT_EQ(at(compare(run_at(400, 0.93), steady_baseline()), 1 << 20).verdict, Verdict::Warn);
}

TEST(RegressRules, TheRunsOwnCyclesCountAsNoise) {
  // Tonight ran two cycles, 392 and 376 GB/s: its own spread (4.2%) covers its 4% drop.
  report::Results run = run_at(400, 0.98);
  const report::Results second = run_at(400, 0.94);
  run.rows.insert(run.rows.end(), second.rows.begin(), second.rows.end());
  const Comparison c = compare(run, steady_baseline());
  EXPECT_EQ(at(c, 1 << 20).verdict, Verdict::Same) << at(c, 1 << 20).reason;
}

TEST(RegressRules, AnImprovementPasses) {
  const Comparison c = compare(run_at(400, 1.2), steady_baseline());
  EXPECT_EQ(at(c, 1 << 20).verdict, Verdict::Pass);
  EXPECT_NE(at(c, 1 << 20).reason.find("higher"), std::string::npos);
}

TEST(RegressRules, AMissingSizeFails) {
  const Comparison c = compare(run_at(400, 1.0, {1 << 20, 2 << 20, 8 << 20}), steady_baseline());
  const Judgement& j = at(c, 4 << 20);
  EXPECT_EQ(j.verdict, Verdict::Fail);
  EXPECT_TRUE(j.missing);
  EXPECT_NE(j.reason.find("missing"), std::string::npos);
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
}

TEST(RegressRules, AMissingTestFails) {
  Baseline b = steady_baseline();
  report::Results with_gather = run_at(400);
  const auto reduce_rows = with_gather.rows;
  for (auto row : reduce_rows) {
    row.test = "all_gather";
    row.redop = "none";
    with_gather.rows.push_back(row);
  }
  b.entries = baseline_entries({with_gather});
  const Comparison c = compare(run_at(400), b);
  EXPECT_GT(c.counts[static_cast<int>(Verdict::Fail)], 0);
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
}

TEST(RegressRules, AWrongResultFailsWithItsOwnExitCode) {
  report::Results run = run_at(400);
  run.rows[1].in_place.wrong = 3;
  run.wrong_total = 3;
  const Comparison c = compare(run, steady_baseline());
  EXPECT_EQ(at(c, 2 << 20, "in_place").verdict, Verdict::Fail);
  EXPECT_NE(at(c, 2 << 20, "in_place").reason.find("3 wrong elements"), std::string::npos);
  EXPECT_EQ(c.wrong_total, 3u);
  EXPECT_EQ(c.exit_code, exit_code::kWrongData);
}

TEST(RegressRules, ABusbwBelowTheFloorFailsEvenWhenTheBaselineIsAsLow) {
  Baseline b = baseline_of({run_at(300)});
  b.rules.floors.push_back({"all_reduce", "", 4 << 20, 330});
  const Comparison c = compare(run_at(300), b);
  EXPECT_EQ(at(c, 2 << 20).verdict, Verdict::Same);  // below the floor's size
  EXPECT_EQ(at(c, 4 << 20).verdict, Verdict::Fail);
  EXPECT_NE(at(c, 4 << 20).reason.find("below the floor of 330.00 GB/s"), std::string::npos);
}

TEST(RegressRules, SmallMessagesAreJudgedOnTime) {
  Baseline b = baseline_of({run_at(10, 1.0, {1024, 1 << 20})});
  b.rules.small_message_bytes = 65536;
  b.rules.latency_noise_floor_pct = 0;  // the floor is its own test below
  // 1 KiB 12% slower (busbw / 1.12), 1 MiB unchanged.
  report::Results run = run_at(10, 1.0, {1024, 1 << 20});
  run.rows[0] = testing::all_reduce_row(1024, 10 / 1.12);
  const Comparison c = compare(run, b);
  EXPECT_EQ(at(c, 1024).metric, Metric::Time);
  EXPECT_EQ(at(c, 1024).verdict, Verdict::Fail);
  EXPECT_NE(at(c, 1024).reason.find("time 12.0% slower"), std::string::npos) << at(c, 1024).reason;
  EXPECT_EQ(at(c, 1 << 20).metric, Metric::Busbw);
}

// A latency of microseconds moves by tens of percent with the scheduler: below the small-message
// size a time is judged no finer than the floor (30%), yet a 2x slowdown still fails.
TEST(RegressRules, LatenciesHaveANoiseFloorThatA2xSlowdownClears) {
  Baseline b = baseline_of({run_at(10, 1.0, {1024, 1 << 20})});
  report::Results jitter = run_at(10, 1.0, {1024, 1 << 20});
  jitter.rows[0] = testing::all_reduce_row(1024, 10 / 1.25);  // 25% slower
  EXPECT_EQ(at(compare(jitter, b), 1024).verdict, Verdict::Same) << at(compare(jitter, b), 1024).reason;
  report::Results slowed = run_at(10, 1.0, {1024, 1 << 20});
  slowed.rows[0] = testing::all_reduce_row(1024, 10 / 2.0);  // twice as slow
  EXPECT_EQ(at(compare(slowed, b), 1024).verdict, Verdict::Fail) << at(compare(slowed, b), 1024).reason;
}

// One run carries a spread: its two halves (out-of-place, in-place) timed moments apart.
// A baseline's halves noise is how far their relation moved between its samples, not its size: a
// difference the halves always have (one rank: in-place moves nothing) is no noise. One run knows
// neither; the judged run's halves moved from the baseline's relation are its own noise.
TEST(RegressRules, ABaselineKeepsHowTheHalvesRelationMovedNotItsSize) {
  report::Results one = run_at(400, 1.0, {1 << 20});
  one.rows[0].in_place.time_us = one.rows[0].out_of_place.time_us * 1.2;  // 20% apart
  const Baseline b = baseline_of({one});
  ASSERT_EQ(b.entries.size(), 2u);
  EXPECT_NEAR(b.entries[0].bandwidth_spread_pct, 0.0, 1e-6);
  EXPECT_NEAR(b.entries[0].time_spread_pct, 0.0, 1e-6);
  // A rerun whose halves agree moved their relation by 1.2 / 1 - 1 = 20% (as a bandwidth's drop
  // 1 - 1/1.2 = 16.7%): 13% lower is inside it (NOISY, not judged); 2x lower is a regression.
  EXPECT_EQ(at(compare(run_at(400, 0.87, {1 << 20}), b), 1 << 20).verdict, Verdict::Noisy);
  EXPECT_EQ(at(compare(run_at(400, 0.5, {1 << 20}), b), 1 << 20).verdict, Verdict::Fail);
  // Ten times apart in every run (one rank's halves) is no noise at all.
  report::Results r1 = run_at(400, 1.0, {1 << 20}), r2 = run_at(400, 1.0, {1 << 20});
  r1.rows[0].in_place.time_us = r1.rows[0].out_of_place.time_us * 10;
  r2.rows[0].in_place.time_us = r2.rows[0].out_of_place.time_us * 10;
  const Baseline tenfold = baseline_of({r1, r2});
  EXPECT_NEAR(tenfold.entries[0].time_spread_pct, 0.0, 1e-6);
}

// A row is timed twice (out-of-place, in-place) moments apart: one half alone 60% slower is a
// moment's noise (WARN, saying so); both halves slower is a regression (FAIL).
TEST(RegressRules, OneHalfAloneIsNoiseBothHalvesARegression) {
  report::Results spike = run_at(400, 1.0, {1 << 20});
  spike.rows[0].out_of_place = testing::all_reduce_row(1 << 20, 250).out_of_place;
  const Comparison lone = compare(spike, steady_baseline());
  EXPECT_EQ(at(lone, 1 << 20).verdict, Verdict::Warn) << at(lone, 1 << 20).reason;
  EXPECT_NE(at(lone, 1 << 20).reason.find("only this half"), std::string::npos) << at(lone, 1 << 20).reason;
  EXPECT_EQ(at(lone, 1 << 20, "in_place").verdict, Verdict::Same);
  const Comparison both = compare(run_at(250, 1.0, {1 << 20}), steady_baseline());
  EXPECT_EQ(at(both, 1 << 20).verdict, Verdict::Fail) << at(both, 1 << 20).reason;
  EXPECT_EQ(at(both, 1 << 20, "in_place").verdict, Verdict::Fail);
}

// A measurement the baseline lacks has nothing to be judged against: NOT_JUDGED, counted apart,
// never a PASS and never a regression by itself; a wrong element or a floor still FAILs it.
TEST(RegressRules, ASizeNotInTheBaselineIsNotJudged) {
  const Comparison c = compare(run_at(400, 1.0, {1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20}), steady_baseline());
  EXPECT_EQ(at(c, 16 << 20).verdict, Verdict::NotJudged);
  EXPECT_EQ(at(c, 16 << 20, "in_place").verdict, Verdict::NotJudged);
  EXPECT_EQ(at(c, 16 << 20).reason, "not judged: not in the baseline");
  EXPECT_EQ(verdict_count(c, Verdict::NotJudged), 2);
  EXPECT_EQ(verdict_count(c, Verdict::Pass), 0);
  EXPECT_EQ(verdict_count(c, Verdict::Same), 8);
  EXPECT_EQ(c.exit_code, exit_code::kOk);

  report::Results wrong = run_at(400, 1.0, {1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20});
  wrong.rows[4].out_of_place.wrong = 3;
  EXPECT_EQ(at(compare(wrong, steady_baseline()), 16 << 20).verdict, Verdict::Fail);
  Baseline floored = steady_baseline();
  floored.rules.floors.push_back({"all_reduce", "", 16 << 20, 500});
  const Comparison below = compare(run_at(400, 1.0, {1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20}), floored);
  EXPECT_EQ(at(below, 16 << 20).verdict, Verdict::Fail) << at(below, 16 << 20).reason;
  EXPECT_EQ(below.exit_code, exit_code::kRegression);
}

// Every row not in the baseline (a baseline of another test): nothing judged, nothing passed.
TEST(RegressRules, NothingInTheBaselineJudgesNothing) {
  const Baseline other = baseline_of({run_at(400, 1.0, {64 << 20})});
  const Comparison c = compare(run_at(400), other);
  EXPECT_EQ(verdict_count(c, Verdict::Pass), 0);
  EXPECT_EQ(verdict_count(c, Verdict::NotJudged), 8);
  EXPECT_EQ(verdict_count(c, Verdict::Fail), 2);  // the baseline's 64M, missing from the run
}

}  // namespace
}  // namespace commsweep::regress

namespace commsweep::regress {
namespace {

// Every half of every row with 20 iterations whose times are its median time, but for `slow`
// iterations at TAIL times the median (a flapping link: the median does not move).
report::Results with_iterations(report::Results run, int slow, double tail) {
  for (auto& row : run.rows) {
    for (report::Timing* t : {&row.out_of_place, &row.in_place}) {
      std::vector<double> times(20, t->time_us);
      for (int i = 0; i < slow; ++i) times[static_cast<std::size_t>(5 + i)] = t->time_us * tail;
      t->per_iter = report::iteration_stats({times, times});
    }
  }
  return run;
}

Baseline tail_baseline() {
  return testing::baseline_of({with_iterations(run_at(400, 0.99), 1, 1.2), with_iterations(run_at(400, 1.0), 1, 1.2),
                               with_iterations(run_at(400, 1.01), 1, 1.2)});
}

TEST(RegressTailRule, TheBaselineKeepsTheMedianP99) {
  const Baseline b = tail_baseline();
  EXPECT_NEAR(b.entries[0].p99_us, 1.2 * b.entries[0].time_us, 1e-6 * b.entries[0].time_us);
  EXPECT_DOUBLE_EQ(b.rules.tail_fail_pct, 50);
}

TEST(RegressTailRule, APlantedP99RiseFailsWhileTheMedianIsSame) {
  // Tonight: the same median, but 3 iterations in 20 at 3x: the p99 rose 150%.
  const Comparison c = compare(with_iterations(run_at(400), 3, 3.0), tail_baseline());
  const Judgement& j = at(c, 4 << 20);
  EXPECT_EQ(j.verdict, Verdict::Fail);
  EXPECT_TRUE(j.tail_judged);
  EXPECT_NEAR(j.tail_change_pct, 150, 1e-6);
  EXPECT_EQ(j.reason.rfind("p99 150.0% slower (", 0), 0u) << j.reason;
  EXPECT_NE(j.reason.find("tail rule 50.0% + the noise of 2.0%); the median: busbw unchanged, inside the noise"),
            std::string::npos)
      << j.reason;
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
}

TEST(RegressTailRule, TheHtmlReportShowsTheSpreadPerSize) {
  const Baseline b = tail_baseline();
  const std::string html = render_html(compare(with_iterations(run_at(400), 3, 3.0), b), b, {});
  EXPECT_NE(html.find("<h2>Spread over the iterations</h2>"), std::string::npos);
  // 4M out-of-place: 20 iterations, three of them at 3x: p50 the median time, p99 and max 3x it.
  const double t = run_at(400).rows[2].out_of_place.time_us;
  const std::string row = "<td>all_reduce float sum 4M out_of_place</td><td class='n'>20</td><td class='n'>" +
                          fixed(t, 2) + "</td><td class='n'>" + fixed(t, 2) + "</td><td class='n'>" + fixed(3 * t, 2) +
                          "</td><td class='n'>" + fixed(3 * t, 2) + "</td><td class='n'>" + fixed(3 * t, 2);
  EXPECT_NE(html.find(row), std::string::npos) << row;
  EXPECT_NE(html.find("+150.0%"), std::string::npos);
  // Runs without iterations: no such table.
  EXPECT_EQ(render_html(compare(run_at(400), steady_baseline()), steady_baseline(), {}).find("Spread over"),
            std::string::npos);
}

TEST(RegressTailRule, ATailInsideTheRuleOrWithoutIterationsPasses) {
  EXPECT_EQ(compare(with_iterations(run_at(400), 1, 1.6), tail_baseline()).exit_code, exit_code::kOk);  // +33%
  const Comparison none = compare(run_at(400), tail_baseline());  // --per-iteration off: not judged
  EXPECT_EQ(none.exit_code, exit_code::kOk);
  EXPECT_FALSE(at(none, 4 << 20).tail_judged);
}

TEST(RegressTailRule, FewerIterationsThanTheRuleWantsAreNotJudged) {
  Baseline b = tail_baseline();
  b.rules.tail_min_iterations = 21;  // the runs hold 20
  const Comparison c = compare(with_iterations(run_at(400), 3, 3.0), b);
  EXPECT_FALSE(at(c, 4 << 20).tail_judged);
  EXPECT_EQ(c.exit_code, exit_code::kOk);
}

TEST(RegressTailRule, OneHalfAloneIsAWarn) {
  report::Results run = with_iterations(run_at(400), 1, 1.2);
  const report::Results tailed = with_iterations(run_at(400), 3, 3.0);
  run.rows[2].in_place = tailed.rows[2].in_place;  // the in-place half alone: a moment's noise
  const Comparison c = compare(run, tail_baseline());
  EXPECT_EQ(at(c, 4 << 20, "in_place").verdict, Verdict::Warn);
  EXPECT_EQ(c.exit_code, exit_code::kOk);
}

}  // namespace
}  // namespace commsweep::regress
