// The one judge (src/judge/): the verdict words, the rules against a reference that pairs,
// nvlink and compare's stragglers share, and the outcomes combined into one exit code.
#include <gtest/gtest.h>

#include <vector>

#include "core/exit_codes.hpp"
#include "judge/outcomes.hpp"
#include "judge/reference.hpp"
#include "judge/verdict.hpp"

namespace commsweep::judge {
namespace {

TEST(JudgeVerdict, WordsAndLevelsAreTheReportsOnes) {
  EXPECT_STREQ(name_of(Verdict::NotJudged), "NOT_JUDGED");
  EXPECT_STREQ(name_of(Verdict::Same), "SAME");
  EXPECT_STREQ(name_of(Verdict::Pass), "PASS");
  EXPECT_STREQ(name_of(Verdict::Warn), "WARN");
  EXPECT_STREQ(name_of(Verdict::Noisy), "NOISY");
  EXPECT_STREQ(name_of(Verdict::Fail), "FAIL");
  EXPECT_EQ(level_of(Verdict::Same), 0);
  EXPECT_EQ(level_of(Verdict::Fail), 3);
  EXPECT_EQ(level_of(Verdict::NotJudged), -1);
  EXPECT_EQ(level_of(Verdict::Noisy), -2);
  // Ordered by severity: a group's verdict is its worst member's.
  EXPECT_LT(Verdict::Warn, Verdict::Noisy);
  EXPECT_LT(Verdict::Noisy, Verdict::Fail);
}

TEST(JudgeReference, BelowAFractionIsSlowAndTheThresholdItselfIsNot) {
  const Against slow = below(70, 100, 0.8);
  EXPECT_TRUE(slow.slow);
  EXPECT_DOUBLE_EQ(slow.ratio, 0.7);
  EXPECT_FALSE(below(80, 100, 0.8).slow);  // at the threshold: not below it
  EXPECT_FALSE(below(99, 100, 0.8).slow);
  EXPECT_FALSE(below(120, 100, 0.8).slow);
}

TEST(JudgeReference, NoReferenceJudgesNothing) {
  for (const double none : {0.0, -1.0}) {
    EXPECT_FALSE(below(0, none, 0.8).slow);
    EXPECT_DOUBLE_EQ(below(5, none, 0.8).ratio, 0);
    EXPECT_FALSE(above(1e9, none, 2).slow);
  }
}

TEST(JudgeReference, AboveAMultipleIsSlowForALatency) {
  const Against slow = above(25, 10, 2);
  EXPECT_TRUE(slow.slow);
  EXPECT_DOUBLE_EQ(slow.ratio, 2.5);
  EXPECT_FALSE(above(20, 10, 2).slow);  // at the multiple: not above it
  EXPECT_FALSE(above(5, 10, 2).slow);
}

TEST(JudgeReference, TopThirdIsTheSlowestOfTheFastestThird) {
  EXPECT_FALSE(top_third({}).has_value());
  EXPECT_EQ(top_third({{50, 0}})->index, 0);
  // Two: ceil(2 / 3) = 1, the fastest.
  EXPECT_EQ(top_third({{50, 0}, {90, 1}})->index, 1);
  // Seven: ceil(7 / 3) = 3, the third fastest, whatever the order given.
  const auto top = top_third({{10, 0}, {70, 1}, {30, 2}, {90, 3}, {50, 4}, {80, 5}, {1, 6}});
  ASSERT_TRUE(top.has_value());
  EXPECT_DOUBLE_EQ(top->value, 70);
  EXPECT_EQ(top->index, 1);
  // One fast fluke cannot lift it: the healthy pairs' figure, not 8x the rest.
  EXPECT_DOUBLE_EQ(top_third({{800, 0}, {100, 1}, {100, 2}, {5, 3}, {100, 4}, {100, 5}})->value, 100);
}

TEST(JudgeReference, TopThirdAmongEqualFiguresIsTheFirstMeasured) {
  EXPECT_EQ(top_third({{100, 4}, {100, 2}, {100, 7}})->index, 2);
}

TEST(JudgeReference, OutliersAboveTheMedianAndItsMad) {
  const auto out = outliers_above({100, 101, 130, 99}, 5, 10);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first, 2);
  EXPECT_NEAR(out[0].second, 29.5 / 100.5 * 100, 1e-9);  // above the median, 100.5
  // Far outside the MAD, but only 5% above the median: not an outlier.
  EXPECT_TRUE(outliers_above({100, 101, 105.5, 100}, 5, 10).empty());
  // Two values have no majority to be an outlier from; a median of 0 is no reference.
  EXPECT_TRUE(outliers_above({100, 200}, 5, 10).empty());
  EXPECT_TRUE(outliers_above({0, 0, 0, 5}, 5, 10).empty());
  // Faster than the rest is never an outlier of this rule (a time: lower is better).
  EXPECT_TRUE(outliers_above({100, 101, 50, 99}, 5, 10).empty());
}

TEST(JudgeReference, MostNamedIsTheSuspectWhenOneStandsOut) {
  // One node in three slow pairs, each of its partners in one: it alone is named.
  EXPECT_EQ(most_named({1, 3, 1, 1}), (std::vector<std::size_t>{1}));
  // Two nodes tied for the most: both named, in order.
  EXPECT_EQ(most_named({2, 0, 2, 1}), (std::vector<std::size_t>{0, 2}));
  // One slow pair cannot tell which of its two nodes is at fault.
  EXPECT_TRUE(most_named({1, 1, 0, 0}).empty());
  // Every node in as many slow pairs: none stands out (a fabric-wide slowdown, or noise).
  EXPECT_TRUE(most_named({3, 3, 3}).empty());
  EXPECT_TRUE(most_named({}).empty());
}

TEST(JudgeOutcomes, NoneIsOkAndEachAloneIsItsCode) {
  EXPECT_EQ(exit_code_of(Outcomes{}), exit_code::kOk);
  const auto alone = [](bool Outcomes::*field) {
    Outcomes o;
    o.*field = true;
    return exit_code_of(o);
  };
  EXPECT_EQ(alone(&Outcomes::wrong_data), exit_code::kWrongData);
  EXPECT_EQ(alone(&Outcomes::interrupted), exit_code::kInterrupted);
  EXPECT_EQ(alone(&Outcomes::output_failed), exit_code::kOutputFailed);
  EXPECT_EQ(alone(&Outcomes::health_fail), exit_code::kHealthFail);
  EXPECT_EQ(alone(&Outcomes::regression), exit_code::kRegression);
  EXPECT_EQ(alone(&Outcomes::slow), exit_code::kSlow);
  EXPECT_EQ(alone(&Outcomes::noisy), exit_code::kNoisy);
}

TEST(JudgeOutcomes, TheTablesPrecedenceDecidesBetweenThem) {
  // 8, 5, 11, 6, 9, 10, 12 (docs/failures.md): each outranks those after it.
  Outcomes o;
  o.noisy = true;
  EXPECT_EQ(exit_code_of(o), exit_code::kNoisy);
  o.slow = true;
  EXPECT_EQ(exit_code_of(o), exit_code::kSlow);
  o.regression = true;
  EXPECT_EQ(exit_code_of(o), exit_code::kRegression);
  o.health_fail = true;
  EXPECT_EQ(exit_code_of(o), exit_code::kHealthFail);
  o.output_failed = true;
  EXPECT_EQ(exit_code_of(o), exit_code::kOutputFailed);
  o.interrupted = true;
  EXPECT_EQ(exit_code_of(o), exit_code::kInterrupted);
  o.wrong_data = true;
  EXPECT_EQ(exit_code_of(o), exit_code::kWrongData);
}

TEST(JudgeOutcomes, ARunsEndingIsItsWrongElementsCompletionAndHealth) {
  EXPECT_EQ(exit_code_of(run_ending(0, true, false)), exit_code::kOk);
  EXPECT_EQ(exit_code_of(run_ending(0, true, true)), exit_code::kHealthFail);
  EXPECT_EQ(exit_code_of(run_ending(0, false, true)), exit_code::kInterrupted);
  EXPECT_EQ(exit_code_of(run_ending(3, false, true)), exit_code::kWrongData);
  Outcomes slow = run_ending(0, true, false);
  slow.slow = true;
  EXPECT_EQ(exit_code_of(slow), exit_code::kSlow);
}

}  // namespace
}  // namespace commsweep::judge
