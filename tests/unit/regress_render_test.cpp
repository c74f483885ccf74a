// The renderers on one synthetic comparison, against golden files (tests/unit/golden/regress_*).
// A changed layout is a changed golden, reviewed: regenerate with COMMSWEEP_UPDATE_GOLDEN=1.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "regress/compare.hpp"
#include "regress/render.hpp"
#include "regress_fixtures.hpp"

namespace commsweep::regress {
namespace {

// Tonight: 4M 12% lower (FAIL), 2M 7% lower (WARN), 8M missing, 16M not in the baseline (not
// judged), rank 3 (node-b) 40% late; judged with --allow-mismatch against a baseline of
// another timer, the mode not given.
Comparison tonight(Baseline& b, std::vector<HistoryRun>& history) {
  b = testing::baseline_of({testing::run_at(400, 0.99), testing::run_at(400, 1.0), testing::run_at(400, 1.01)});
  b.rules.floors.push_back({"all_reduce", "float", 1 << 20, 200});
  report::Results run = testing::run_at(400, 1.0, {1 << 20, 2 << 20, 4 << 20, 16 << 20});
  run.rows[1] = testing::all_reduce_row(2 << 20, 400 * 0.93);
  run.rows[2] = testing::all_reduce_row(4 << 20, 400 * 0.88);
  for (auto& row : run.rows) {
    for (auto* t : {&row.out_of_place, &row.in_place}) t->rank_time_us[3] *= 1.4;
  }
  history = {{"20261119T031500Z-all_reduce.json", observe(testing::run_at(380))},
             {"20261120T031500Z-all_reduce.json", observe(testing::run_at(390))}};
  Comparison c = compare(run, b);
  c.results_file = "tonight.json";
  c.baseline_file = "h200x4-nvlink.json";
  c.setup = {{{"timer", "device", "host"}},
             {"mode (the results do not record it: give --mode nvlink to check it)"},
             true};
  return c;
}

void expect_golden(const std::string& name, const std::string& text) {
  const std::string path = std::string(COMMSWEEP_GOLDEN_DIR) + "/" + name;
  if (std::getenv("COMMSWEEP_UPDATE_GOLDEN")) std::ofstream(path) << text;
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden file " << path;
  std::ostringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(text, golden.str()) << "differs from " << path;
}

class RegressRender : public ::testing::Test {
 protected:
  void SetUp() override { c_ = tonight(b_, history_); }
  Baseline b_;
  std::vector<HistoryRun> history_;
  Comparison c_;
};

TEST_F(RegressRender, VerdictTable) {
  expect_golden("regress_table.txt", render_table(c_));
  EXPECT_EQ(c_.exit_code, exit_code::kRegression);
}

TEST_F(RegressRender, Markdown) { expect_golden("regress_summary.md", render_markdown(c_)); }

TEST_F(RegressRender, Prometheus) { expect_golden("regress_metrics.prom", render_prometheus(c_)); }

TEST_F(RegressRender, Html) { expect_golden("regress_report.html", render_html(c_, b_, history_)); }

TEST_F(RegressRender, PrometheusFollowsTheTextFormat) {
  const std::string text = render_prometheus(c_);
  const std::regex help(R"(# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .+)");
  const std::regex type(R"(# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (gauge|counter))");
  const std::regex sample(R"([a-zA-Z_:][a-zA-Z0-9_:]*\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\} -?[0-9.e+-]+)");
  std::istringstream in(text);
  int samples = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# HELP", 0) == 0) EXPECT_TRUE(std::regex_match(line, help)) << line;
    else if (line.rfind("# TYPE", 0) == 0) EXPECT_TRUE(std::regex_match(line, type)) << line;
    else {
      EXPECT_TRUE(std::regex_match(line, sample)) << line;
      ++samples;
    }
  }
  EXPECT_GT(samples, 20);
  EXPECT_NE(text.find("host=\"node-b\""), std::string::npos);
}

TEST_F(RegressRender, HtmlIsSelfContained) {
  const std::string html = render_html(c_, b_, history_);
  // Nothing fetched: no script, no stylesheet or image by reference (the SVG namespace is a name).
  for (const char* banned : {"<script", "<link", "src=", "href=", "https://", "@import"}) {
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  }
  EXPECT_NE(html.find("<svg xmlns="), std::string::npos);
  EXPECT_NE(html.find("#1f77b4"), std::string::npos);  // this run's line
  EXPECT_NE(html.find("#ff7f0e"), std::string::npos);  // the baseline's
}

TEST_F(RegressRender, JsonCarriesTheVerdicts) {
  const auto j = comparison_json(c_);
  EXPECT_EQ(j.at("exit_code"), exit_code::kRegression);
  EXPECT_EQ(j.at("schema"), "commsweep.compare/3");
  EXPECT_EQ(j.at("counts").at("FAIL"), 4);  // 4M both halves, 8M both halves (missing)
  EXPECT_EQ(j.at("counts").at("PASS"), 0);
  EXPECT_EQ(j.at("counts").at("NOT_JUDGED"), 2);  // 16M both halves
  EXPECT_EQ(j.at("counts").at("NOISY"), 0);
  EXPECT_TRUE(j.at("judgements").at(0).at("noise").contains("band_pct"));  // since schema 3
  EXPECT_EQ(j.at("setup").at("differs").at(0).at("property"), "timer");
  EXPECT_EQ(j.at("setup").at("allowed"), true);
  EXPECT_EQ(j.at("stragglers").at(0).at("host"), "node-b");
}

// Rows the baseline lacks are counted apart from PASS in every printer, and the setup that
// differs (judged anyway) is said before the verdicts.
TEST_F(RegressRender, NotJudgedAndTheSetupInEveryPrinter) {
  const std::string counts = "4 FAIL, 2 WARN, 0 NOISY, 0 PASS, 2 SAME; 2 not judged (not in the baseline)";
  const std::string differs = "setup differs, judged anyway (--allow-mismatch): timer: run device, baseline host";
  for (const std::string& text : {render_table(c_), render_markdown(c_), render_html(c_, b_, history_)}) {
    EXPECT_NE(text.find(counts), std::string::npos) << text;
    EXPECT_NE(text.find(differs), std::string::npos) << text;
    EXPECT_LT(text.find(differs), text.find(counts)) << text;
  }
  const std::string table = render_table(c_);
  EXPECT_NE(table.find("\nNOT_JUDGED  all_reduce  float  sum  -     16M"), std::string::npos) << table;
  EXPECT_EQ(table.find("PASS  "), std::string::npos) << table;
  const std::string prom = render_prometheus(c_);
  EXPECT_NE(prom.find("verdict=\"NOT_JUDGED\"} 2\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("size=\"16777216\",place=\"out_of_place\"} -1\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("commsweep_compare_setup_differs{shape=\"h200x4\",mode=\"nvlink\",property=\"timer\",run=\"device\",baseline=\"host\"} 1"),
            std::string::npos) << prom;
}

// A run ended early says why in every report: a signal, or the failure the results file names.
TEST(RegressIncomplete, EveryReportSaysWhyTheRunEnded) {
  const Baseline b = testing::baseline_of({testing::run_at(400), testing::run_at(400)});
  report::Results run = testing::run_at(400, 1.0, {1 << 20});
  run.complete = false;
  run.interrupted_by = "timeout";
  run.failure = "rank 0 (node-a): all_reduce 2097152 B did not finish within 5 s (-T); ranks that did not arrive: 2 (node-b)";
  const Comparison c = compare(run, b);
  const std::string why = "ended early by a timeout: " + run.failure;
  EXPECT_EQ(c.ended_by, why);
  EXPECT_NE(render_table(c).find("The run is incomplete (" + why + "): its missing sizes fail."), std::string::npos);
  EXPECT_NE(render_markdown(c).find("- the run is **incomplete** (" + why + ")"), std::string::npos);
  EXPECT_NE(render_html(c, b, {}).find("ranks that did not arrive: 2 (node-b)): its missing sizes fail</li>"),
            std::string::npos);
  EXPECT_EQ(comparison_json(c).at("ended_by"), why);
  EXPECT_EQ(c.exit_code, exit_code::kRegression);  // 2M, 4M and 8M are missing

  run.failure.clear();
  run.interrupted_by = "SIGTERM";
  EXPECT_EQ(compare(run, b).ended_by, "interrupted by SIGTERM");
  run.interrupted_by = "error";
  run.failure = "rank 1 (node-a): watchdog: NCCL asynchronous error";
  EXPECT_EQ(compare(run, b).ended_by, "ended early by an error: rank 1 (node-a): watchdog: NCCL asynchronous error");
  EXPECT_EQ(comparison_json(compare(testing::run_at(400), b)).at("ended_by"), "");
}

// Runs judged together (the collectives' file and the EP file of one night): the first
// incomplete one says why.
TEST(RegressIncomplete, MergedRunsKeepTheFirstEnding) {
  report::Results whole = testing::run_at(400);
  report::Results cut = testing::run_at(400);
  cut.complete = false;
  cut.interrupted_by = "out of memory";
  cut.failure = "rank 0 (node-a): cannot allocate the buffers";
  const report::Results merged = merge_runs({whole, cut}, {"a.json", "b.json"});
  EXPECT_FALSE(merged.complete);
  EXPECT_EQ(merged.interrupted_by, "out of memory");
  EXPECT_EQ(merged.failure, cut.failure);
}

}  // namespace
}  // namespace commsweep::regress
