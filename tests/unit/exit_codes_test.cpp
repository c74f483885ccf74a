// The exit codes (core/exit_codes.hpp): one table for every command, one order when several
// outcomes meet, and the records that carry a health FAIL to its code (issue 43). The table
// against docs/failures.md: tests/docs/check_exit_codes.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/error.hpp"
#include "core/exit_codes.hpp"
#include "health/report.hpp"
#include "nvlink/judge.hpp"
#include "report/json.hpp"
#include "report/result.hpp"
#include "run/run_setup.hpp"

namespace commsweep {
namespace {

namespace x = exit_code;

TEST(ExitCodes, OneRowPerCodeFromZeroToTwelveEachNamedOnce) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < kExitCodes.size(); ++i) {
    EXPECT_EQ(kExitCodes[i].code, static_cast<int>(i));
    EXPECT_FALSE(kExitCodes[i].name.empty());
    EXPECT_FALSE(kExitCodes[i].meaning.empty());
    EXPECT_TRUE(names.insert(kExitCodes[i].name).second) << kExitCodes[i].name;
  }
  EXPECT_EQ(exit_code_name(x::kWrongData), "wrong data");
  EXPECT_EQ(exit_code_name(x::kNoisy), "noisy");
  EXPECT_EQ(exit_code_name(13), "?");
}

TEST(ExitCodes, ThePrecedenceOrdersEveryCodeButOkAndMpirunOnce) {
  std::vector<int> ordered(kExitPrecedence.begin(), kExitPrecedence.end());
  std::sort(ordered.begin(), ordered.end());
  EXPECT_EQ(ordered, (std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  // issue 43's order, first wins; 12 (noisy: no verdict) last.
  EXPECT_EQ(std::vector<int>(kExitPrecedence.begin(), kExitPrecedence.end()),
            (std::vector<int>{2, 3, 4, 7, 8, 5, 11, 6, 9, 10, 12}));
}

TEST(ExitCodes, CombinedTakesTheFirstInTheOrderWhicheverComesFirst) {
  for (std::size_t i = 0; i < kExitPrecedence.size(); ++i) {
    EXPECT_EQ(combined_exit(x::kOk, kExitPrecedence[i]), kExitPrecedence[i]);
    EXPECT_EQ(combined_exit(kExitPrecedence[i], x::kOk), kExitPrecedence[i]);
    for (std::size_t j = i; j < kExitPrecedence.size(); ++j) {
      EXPECT_EQ(combined_exit(kExitPrecedence[i], kExitPrecedence[j]), kExitPrecedence[i]);
      EXPECT_EQ(combined_exit(kExitPrecedence[j], kExitPrecedence[i]), kExitPrecedence[i]);
    }
  }
  EXPECT_EQ(combined_exit({x::kSlow, x::kHealthFail, x::kInterrupted, x::kWrongData}), x::kWrongData);
  EXPECT_EQ(combined_exit({x::kOk, x::kOk}), x::kOk);
  EXPECT_EQ(combined_exit(x::kMpirun, x::kSlow), x::kSlow);  // mpirun's 1 is never commsweep's verdict
}

TEST(ExitCodes, EachErrorKindEndsWithItsRow) {
  const auto code = [](ErrorKind k) { return Error(k, "x").exit_code(); };
  EXPECT_EQ(code(ErrorKind::Usage), x::kUsage);
  for (ErrorKind k : {ErrorKind::Cuda, ErrorKind::Nccl, ErrorKind::Mpi, ErrorKind::Runtime}) EXPECT_EQ(code(k), x::kRuntime);
  EXPECT_EQ(code(ErrorKind::Timeout), x::kTimeout);
  EXPECT_EQ(code(ErrorKind::OutOfMemory), x::kOutOfMemory);
  EXPECT_EQ(code(ErrorKind::WrongResults), x::kWrongData);
  EXPECT_EQ(code(ErrorKind::Output), x::kOutputFailed);
}

TEST(ExitCodes, HelpListsTheCodesFirstThatAppliesFirstAndOkLast) {
  EXPECT_EQ(exit_codes_help({x::kOk, x::kUsage, x::kWrongData, x::kRegression}),
            "Exit codes (docs/failures.md), the first that applies: 2 bad input, 8 wrong data, 9 regression;\n"
            "else 0 ok.\n");
  const std::string all = exit_codes_help({0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  std::size_t start = 0;
  for (std::size_t end; (end = all.find('\n', start)) != std::string::npos; start = end + 1)
    EXPECT_LE(end - start, 100u) << all;
}

// A health FAIL around a run: not ok, named in the summary, exit 6 below wrong elements and an
// interruption; a WARN is none (health/report.hpp, fail_lines).
TEST(ExitCodes, AHealthFailMakesARunNotOkAndExitSix) {
  health::HealthReport report;
  health::Finding fail;
  fail.severity = health::Severity::Fail;
  fail.host = "node1";
  fail.component = "mlx5_1 port 1";
  fail.counter = "link_downed";
  fail.detail = "+1";
  fail.persistent = true;  // already so before the run: still a FAIL, as `commsweep health` says
  health::Finding warn = fail;
  warn.severity = health::Severity::Warn;
  warn.counter = "symbol_error";
  report.findings = {fail, warn};
  const std::vector<std::string> lines = health::fail_lines(report);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("node1 mlx5_1 port 1: link_downed +1", 0), 0u) << lines[0];

  report::Results results;
  EXPECT_EQ(judge::exit_code_of(outcomes_of(results)), x::kOk);
  results.health_fail = lines;
  EXPECT_EQ(judge::exit_code_of(outcomes_of(results)), x::kHealthFail);
  const nlohmann::json summary = report::to_json(results).at("summary");
  EXPECT_FALSE(summary.at("ok").get<bool>());
  EXPECT_EQ(summary.at("health_fail"), nlohmann::json(lines));
  EXPECT_EQ(report::results_from_json(report::to_json(results)).health_fail, lines);
  results.complete = false;
  EXPECT_EQ(judge::exit_code_of(outcomes_of(results)), x::kInterrupted);
  results.wrong_total = 1;
  EXPECT_EQ(judge::exit_code_of(outcomes_of(results)), x::kWrongData);

  nvlink::NvlinkRun run;
  run.complete = true;
  const nvlink::Analysis none;
  EXPECT_EQ(judge::exit_code_of(nvlink::outcomes_of(run, none)), x::kOk);
  run.health_fail = lines;
  EXPECT_EQ(judge::exit_code_of(nvlink::outcomes_of(run, none)), x::kHealthFail);
}

}  // namespace
}  // namespace commsweep
