// The NOISY verdict (issue 43): a change beyond the fail band that the run's own noise (or the
// baseline's runs' spread) could explain is "NOISY: not judged", exit 12; the same change in a
// quiet run FAILs; floors, wrong elements and missing rows FAIL whatever the noise.
#include <gtest/gtest.h>

#include "core/exit_codes.hpp"
#include "regress/baseline_json.hpp"
#include "regress/compare.hpp"
#include "regress/render.hpp"
#include "report/iteration_stats.hpp"
#include "regress_fixtures.hpp"

namespace commsweep::regress {
namespace {

using testing::baseline_of;
using testing::run_at;

// Three nights within 1% of each other, without iterations (the tail rule does not judge).
Baseline noisy_test_steady_baseline() {
  return baseline_of({run_at(400, 0.99), run_at(400, 1.0), run_at(400, 1.01)});
}

const Judgement& noisy_test_at(const Comparison& c, std::uint64_t size, const std::string& place = "out_of_place") {
  for (const auto& j : c.judgements) {
    if (j.key.size == size && j.key.place == place) return j;
  }
  throw std::runtime_error("no judgement at " + std::to_string(size));
}

// Every half of every row with 20 iterations around its time: `spread` x the time for 4 of them
// (p95 over p50 = spread - 1), the others at the time.
report::Results noisy_test_iterations(report::Results run, double spread) {
  for (auto& row : run.rows) {
    for (report::Timing* t : {&row.out_of_place, &row.in_place}) {
      std::vector<double> times(20, t->time_us);
      for (std::size_t i = 0; i < 4; ++i) times[3 + 4 * i] = t->time_us * spread;
      t->per_iter = report::iteration_stats({times, times});
    }
  }
  return run;
}

TEST(RegressNoisy, AChangeInsideTheRunsOwnIterationNoiseIsNoisyAndExits12) {
  // 4M both halves 40% lower (time +67%), and the run's iterations 2.5x apart (p95 150% over p50).
  report::Results run = run_at(400);
  run.rows[2] = testing::all_reduce_row(4 << 20, 400 * 0.6);
  const Comparison c = compare(noisy_test_iterations(run, 2.5), noisy_test_steady_baseline());
  const Judgement& j = noisy_test_at(c, 4 << 20);
  EXPECT_EQ(j.verdict, Verdict::Noisy) << j.reason;
  EXPECT_EQ(noisy_test_at(c, 4 << 20, "in_place").verdict, Verdict::Noisy);
  EXPECT_NEAR(j.noise.p95, 150.0, 1e-6);
  EXPECT_LT(j.noisy_band_pct, 100.0);  // a bandwidth's band is a drop
  EXPECT_EQ(j.reason.rfind("busbw 40.0% lower, inside the noise band of ", 0), 0u) << j.reason;
  EXPECT_NE(j.reason.find("this run's own: p95 150.0% over p50"), std::string::npos) << j.reason;
  EXPECT_NE(j.reason.find("the baseline's runs 2.0% apart): not judged"), std::string::npos) << j.reason;
  EXPECT_EQ(verdict_count(c, Verdict::Noisy), 2);
  EXPECT_EQ(verdict_count(c, Verdict::Fail), 0);
  EXPECT_EQ(c.exit_code, exit_code::kNoisy);
  EXPECT_NE(render_verdict(c).find("0 FAIL, 0 WARN, 2 NOISY, "), std::string::npos) << render_verdict(c);
  EXPECT_NE(render_verdict(c).find("exit 12: noisy"), std::string::npos) << render_verdict(c);
}

TEST(RegressNoisy, TheSameChangeInAQuietRunFails) {
  report::Results run = run_at(400);
  run.rows[2] = testing::all_reduce_row(4 << 20, 400 * 0.6);
  const Comparison c = compare(noisy_test_iterations(run, 1.0), noisy_test_steady_baseline());
  EXPECT_EQ(noisy_test_at(c, 4 << 20).verdict, Verdict::Fail) << noisy_test_at(c, 4 << 20).reason;
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
  // Without iterations at all: the same.
  EXPECT_EQ(compare(run, noisy_test_steady_baseline()).exit_code, exit_code::kRegression);
}

TEST(RegressNoisy, ABandwidthDropToZeroIsNeverNoisy) {
  // 99% lower, in a run whose iterations are 20x apart (p95 1900% over p50): the band, a drop,
  // stays below 100% (95%), so the collapse FAILs.
  report::Results run = run_at(400);
  run.rows[2] = testing::all_reduce_row(4 << 20, 400 * 0.01);
  const Comparison c = compare(noisy_test_iterations(run, 20.0), noisy_test_steady_baseline());
  const Judgement& j = noisy_test_at(c, 4 << 20);
  EXPECT_EQ(j.verdict, Verdict::Fail) << j.reason;
  EXPECT_LT(j.noisy_band_pct, 96.0);
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
}

TEST(RegressNoisy, FloorsWrongElementsAndMissingRowsFailWhateverTheNoise) {
  Baseline floored = noisy_test_steady_baseline();
  floored.rules.floors.push_back({"all_reduce", "", 4 << 20, 300});
  report::Results run = run_at(400);
  run.rows[2] = testing::all_reduce_row(4 << 20, 400 * 0.6);  // 240 GB/s: below the floor, and noisy
  const Comparison below = compare(noisy_test_iterations(run, 2.5), floored);
  EXPECT_EQ(noisy_test_at(below, 4 << 20).verdict, Verdict::Fail) << noisy_test_at(below, 4 << 20).reason;
  EXPECT_EQ(below.exit_code, exit_code::kRegression);

  report::Results wrong = noisy_test_iterations(run, 2.5);
  wrong.rows[2].in_place.wrong = 2;
  wrong.wrong_total = 2;
  const Comparison w = compare(wrong, noisy_test_steady_baseline());
  EXPECT_EQ(noisy_test_at(w, 4 << 20, "in_place").verdict, Verdict::Fail);
  EXPECT_EQ(w.exit_code, exit_code::kWrongData);

  report::Results short_run = noisy_test_iterations(run_at(400, 1.0, {1 << 20, 2 << 20, 8 << 20}), 2.5);
  const Comparison m = compare(short_run, noisy_test_steady_baseline());
  EXPECT_EQ(noisy_test_at(m, 4 << 20).verdict, Verdict::Fail);
  EXPECT_EQ(m.exit_code, exit_code::kRegression);
}

// One wild run in the baseline: its spread stays capped for SAME (max_noise_pct), so the change
// is not hidden, but uncapped it makes the change NOISY rather than a regression.
TEST(RegressNoisy, AWildBaselineRunMakesAChangeNoisyNeverSame) {
  const Baseline wild = baseline_of({run_at(400), run_at(400), run_at(200)});  // times 100% apart
  const Comparison c = compare(run_at(400, 0.6), wild);
  const Judgement& j = noisy_test_at(c, 4 << 20);
  EXPECT_EQ(j.verdict, Verdict::Noisy) << j.reason;
  EXPECT_NEAR(j.noise.baseline, 100.0, 1e-6);
  EXPECT_NEAR(j.noisy_band_pct, 50.0, 1e-6);  // 2x apart: a drop of 50%
  EXPECT_NE(j.reason.find("this run's own: none measured; the baseline's runs 100.0% apart"), std::string::npos)
      << j.reason;
  // Past the band (2.5x slower) it FAILs.
  EXPECT_EQ(noisy_test_at(compare(run_at(400, 0.4), wild), 4 << 20).verdict, Verdict::Fail);
}

// A row's halves are timed moments apart: one FAIL and the other NOISY rest on one half alone
// (both NOISY); one NOISY half beside a quiet one is a lone half (WARN, as a lone FAIL).
TEST(RegressNoisy, AFailBesideANoisyHalfIsNoisyALoneNoisyHalfAWarn) {
  report::Results run = noisy_test_iterations(run_at(400), 1.0);
  const report::Results slow = noisy_test_iterations(run_at(240), 1.0);
  const report::Results noisy = noisy_test_iterations(run_at(240), 2.5);
  run.rows[2].out_of_place = slow.rows[2].out_of_place;
  run.rows[2].in_place = noisy.rows[2].in_place;
  const Comparison c = compare(run, noisy_test_steady_baseline());
  EXPECT_EQ(noisy_test_at(c, 4 << 20, "in_place").verdict, Verdict::Noisy);
  const Judgement& j = noisy_test_at(c, 4 << 20);
  EXPECT_EQ(j.verdict, Verdict::Noisy) << j.reason;
  EXPECT_NE(j.reason.find("the in_place half NOISY ("), std::string::npos) << j.reason;
  EXPECT_EQ(c.exit_code, exit_code::kNoisy);

  report::Results lone = noisy_test_iterations(run_at(400), 1.0);
  lone.rows[2].in_place = noisy.rows[2].in_place;
  const Comparison l = compare(lone, noisy_test_steady_baseline());
  EXPECT_EQ(noisy_test_at(l, 4 << 20, "in_place").verdict, Verdict::Warn) << noisy_test_at(l, 4 << 20, "in_place").reason;
  EXPECT_EQ(l.exit_code, exit_code::kOk);
}

// A FAIL elsewhere outranks a NOISY: exit 9; 12 comes after every other code.
TEST(RegressNoisy, AFailAndANoisyExitNineTwelveIsLast) {
  report::Results run = noisy_test_iterations(run_at(400), 1.0);
  const report::Results noisy = noisy_test_iterations(run_at(240), 2.5);
  run.rows[2] = noisy.rows[2];                               // 4M NOISY
  run.rows[3] = testing::all_reduce_row(8 << 20, 240);       // 8M FAIL (no iterations: quiet)
  const Comparison c = compare(run, noisy_test_steady_baseline());
  EXPECT_EQ(noisy_test_at(c, 4 << 20).verdict, Verdict::Noisy);
  EXPECT_EQ(noisy_test_at(c, 8 << 20).verdict, Verdict::Fail);
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
  namespace x = exit_code;
  EXPECT_EQ(kExitPrecedence.back(), x::kNoisy);
  EXPECT_EQ(combined_exit(x::kNoisy, x::kOk), x::kNoisy);
  for (int code : kExitPrecedence) {
    if (code != x::kNoisy) EXPECT_EQ(combined_exit(x::kNoisy, code), code) << code;
  }
  EXPECT_EQ(exit_code_name(x::kNoisy), "noisy");
  EXPECT_EQ(level_of(Verdict::Noisy), -2);
}

// The tail rule's NOISY: a p99 rise the baseline's own p99s showed run to run (uncapped).
TEST(RegressNoisy, ATailRiseInsideTheBaselinesP99SpreadIsNoisy) {
  const auto tailed = [](report::Results run, double tail) {
    for (auto& row : run.rows) {
      for (report::Timing* t : {&row.out_of_place, &row.in_place}) {
        std::vector<double> times(20, t->time_us);
        times[5] = t->time_us * tail;  // one slow iteration: the p99 of 20 is their max
        t->per_iter = report::iteration_stats({times, times});
      }
    }
    return run;
  };
  const Baseline b = baseline_of({tailed(run_at(400), 1.2), tailed(run_at(400), 1.2), tailed(run_at(400), 4.0)});
  EXPECT_GT(b.entries[0].p99_spread_pct, 200.0);  // (4.0 - 1.2) / 1.2
  const Comparison c = compare(tailed(run_at(400), 3.0), b);  // p99 +150%: beyond 50% + the median's noise
  const Judgement& j = noisy_test_at(c, 4 << 20);
  EXPECT_EQ(j.verdict, Verdict::Noisy) << j.reason;
  EXPECT_NE(j.reason.find("inside the tail rule's 50.0% + its noise of "), std::string::npos) << j.reason;
  // A baseline whose p99s agree: the same rise FAILs.
  const Baseline quiet = baseline_of({tailed(run_at(400), 1.2), tailed(run_at(400), 1.2), tailed(run_at(400), 1.2)});
  EXPECT_EQ(noisy_test_at(compare(tailed(run_at(400), 3.0), quiet), 4 << 20).verdict, Verdict::Fail);
}

// The baseline keeps its p99s' spread; a file written before it (no p99_spread_pct) reads as 0.
TEST(RegressNoisy, TheBaselineFileKeepsTheP99SpreadAndOlderFilesRead) {
  Baseline b = noisy_test_steady_baseline();
  b.entries[0].p99_us = 10;
  b.entries[0].p99_spread_pct = 42;
  nlohmann::json doc = to_json(b);
  EXPECT_DOUBLE_EQ(doc.at("entries").at(0).at("p99_spread_pct").get<double>(), 42);
  EXPECT_DOUBLE_EQ(baseline_from_json(doc).entries[0].p99_spread_pct, 42);
  doc["entries"][0].erase("p99_spread_pct");
  EXPECT_DOUBLE_EQ(baseline_from_json(doc).entries[0].p99_spread_pct, 0);
  EXPECT_DOUBLE_EQ(baseline_from_json(doc).entries[0].p99_us, 10);
}

}  // namespace
}  // namespace commsweep::regress
