// The output of `commsweep pairs` at scale: the JSON full up to 64 nodes and sparse above (slow
// pairs only, summaries by node and leaf, the distribution), a round of many pairs summarised,
// the HTML heatmap grouped by leaf and the Prometheus metrics (the printers written once over its
// figures, report/sheet_html and sheet_prometheus, which the lifecycle writes for --html and
// --prometheus).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "judge/outcomes.hpp"
#include "pairs/figures.hpp"
#include "pairs/job.hpp"
#include "pairs/outliers.hpp"
#include "pairs/pairs_json.hpp"
#include "pairs/render.hpp"
#include "report/sheet_html.hpp"
#include "report/sheet_prometheus.hpp"

namespace commsweep::pairs {
namespace {

// All pairs of n one-rail nodes in leaves of 4, node `bad` at a tenth of the rest.
PairsRun run_of(int n, int bad) {
  PairsRun run;
  run.settings.bytes = 1 << 20;
  run.settings.check = 1;
  run.topology = plan::synthetic_topology(n, 4, 2);
  for (int i = 0; i < n; ++i) run.nodes.push_back({"host<" + std::to_string(i) + ">", {i}, {"-"}});
  run.rounds = round_robin(n);
  run.planned_rounds = static_cast<int>(run.rounds.size());
  for (std::size_t r = 0; r < run.rounds.size(); ++r) {
    for (const auto& p : run.rounds[r].pairs) {
      Rail rail;
      rail.rank_a = p.a, rail.rank_b = p.b;
      rail.gbps = (p.a == bad || p.b == bad) ? 4 : 40;
      rail.time_us = rail.time_us_a = rail.time_us_b = (1 << 20) / rail.gbps / 1e3;
      rail.wrong = 0;
      run.pairs.push_back({static_cast<int>(r), p.a, p.b, {rail}});
    }
  }
  return run;
}

TEST(PairsOutput, JsonIsFullUpTo64NodesAndSparseAbove) {
  const PairsRun small = run_of(64, 3);
  const nlohmann::json full = to_json(small, analyse(small));
  EXPECT_EQ(full["schema"], "commsweep.pairs/2");
  EXPECT_EQ(full["detail"], "full");
  EXPECT_EQ(full["pairs"].size(), 64u * 63 / 2);
  EXPECT_TRUE(full.contains("matrix_gbps"));
  EXPECT_EQ(full["rounds"][0]["pairs"].size(), 32u);

  const PairsRun big = run_of(200, 3);
  const Analysis a = analyse(big);
  const nlohmann::json sparse = to_json(big, a);
  EXPECT_EQ(sparse["detail"], "sparse");
  EXPECT_EQ(sparse["pairs"].size(), 199u) << "the slow pairs only: node 3's";
  EXPECT_EQ(sparse["pairs_measured"], 200u * 199 / 2);
  EXPECT_FALSE(sparse.contains("matrix_gbps"));
  EXPECT_FALSE(sparse["rounds"][0].contains("pairs"));
  EXPECT_EQ(sparse["rounds"][0]["pair_count"], 100u);
  EXPECT_EQ(sparse["node_summary"][3]["slow_pairs"], 199);
  EXPECT_EQ(sparse["node_summary"][4]["slow_pairs"], 1);
  EXPECT_EQ(sparse["leaf_summary"].size(), 50u);
  EXPECT_EQ(sparse["leaf_summary"][0]["pairs_within"], 6);
  EXPECT_EQ(sparse["leaf_matrix_gbps"].size(), 50u);
  EXPECT_DOUBLE_EQ(sparse["leaf_matrix_gbps"][1][2].get<double>(), 40);
  // Node 3's pairs at 0.1 x median in bin 1, the rest at 1.0 x in bin 10.
  EXPECT_EQ(sparse["distribution"]["pairs"][1], 199u);
  EXPECT_EQ(sparse["distribution"]["pairs"][10], 200u * 199 / 2 - 199);
  EXPECT_LT(sparse.dump().size(), full.dump().size() * 2) << "200 nodes sparse, smaller than 64 nodes full";
}

// Above 64 nodes the document keeps no pair's figure: its HTML still draws the leaf x leaf
// heatmap, from the leaf medians read as figures shown (never judged by a baseline).
TEST(PairsOutput, ASparseDocumentsLeafMatrixIsItsHeatmap) {
  const PairsRun big = run_of(200, 3);
  const nlohmann::json sparse = to_json(big, analyse(big));
  ASSERT_EQ(sparse["detail"], "sparse");
  const report::Sheet sheet = sheet_from_json(sparse);
  std::size_t leaf_cells = 0, expected_cells = 0;
  for (const report::Figure& f : sheet.figures) {
    if (f.metric != "leaf_median_bandwidth") continue;
    ++leaf_cells;
    EXPECT_EQ(f.role, report::Role::Shown) << "a leaf median is shown, never judged";
  }
  const auto& matrix = sparse["leaf_matrix_gbps"];
  for (std::size_t a = 0; a < matrix.size(); ++a)
    for (std::size_t b = a; b < matrix[a].size(); ++b) expected_cells += matrix[a][b].is_number() ? 1 : 0;
  EXPECT_GT(expected_cells, 0u);
  EXPECT_EQ(leaf_cells, expected_cells) << "one figure per measured leaf pair, either order once";
  const std::string html = report::render_sheet_html(sheet);
  EXPECT_NE(html.find("leaf_median_bandwidth"), std::string::npos) << "the leaf heatmap's title";
  EXPECT_NE(html.find("<svg"), std::string::npos) << "a heatmap is drawn";
}

TEST(PairsOutput, ARoundOfManyPairsIsSummarised) {
  const PairsRun big = run_of(40, 3);
  const std::string line = render_round(big, 0);
  EXPECT_NE(line.find("# round 1 of 39: 20 pairs, median"), std::string::npos) << line;
  std::size_t figures = 0;
  for (std::size_t at = 0; (at = line.find("GB/s", at)) != std::string::npos; ++at) ++figures;
  EXPECT_EQ(figures, 2u) << "the median and the slowest pair, not 20 pairs: " << line;
  const std::string report = render_report(big, analyse(big));
  EXPECT_NE(report.find("the legend and the node x node matrix are left out above 32 nodes"), std::string::npos);
}

// The --html report: its document's figures through the one HTML printer.
std::string render_html(const PairsRun& run, const Analysis& a) {
  return report::render_sheet_html(sheet_from_json(report_json(run, a)));
}

TEST(PairsOutput, HtmlHeatmapGroupedByLeaf) {
  const PairsRun run = run_of(16, 5);
  const std::string html = render_html(run, analyse(run));
  EXPECT_NE(html.find("<h2>bandwidth</h2>"), std::string::npos);
  EXPECT_NE(html.find("<h3>By group: each cell the lowest figure between two groups"), std::string::npos);
  EXPECT_NE(html.find("host&lt;5&gt;"), std::string::npos) << "names escaped";
  EXPECT_EQ(html.find("host<5>"), std::string::npos);
  // 4 leaf outlines in the node heatmap.
  std::size_t outlines = 0;
  for (std::size_t at = 0; (at = html.find("fill='none' stroke='#222'", at)) != std::string::npos; ++at) ++outlines;
  EXPECT_EQ(outlines, 4u);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

// Issue 28: the columns are labelled (the band above the cells holds them), a colour scale
// reads the colours as GB/s, and the slowest-pairs table is filled whether or not a pair is slow.
TEST(PairsOutput, HtmlLabelsColumnsShowsItsScaleAndTheSlowestPairs) {
  const PairsRun run = run_of(6, 5);
  const std::string html = render_html(run, analyse(run));
  // Each node's label twice in the node heatmap: its row and, turned, its column.
  EXPECT_EQ(count(html, "text-anchor='end'>host&lt;2&gt; ("), 1u) << html;
  EXPECT_EQ(count(html, "rotate(-90)'>host&lt;2&gt; ("), 1u);
  EXPECT_EQ(count(html, "rotate(-90)'>host&lt;"), 6u);
  EXPECT_NE(html.find("GB/s and up</text>"), std::string::npos) << "a colour scale";
  EXPECT_NE(html.find(">slow below "), std::string::npos);
  // 5 slow pairs (node 5's) of 15: every slow one, then the slowest healthy ones, to 10 rows.
  EXPECT_NE(html.find("<p>The 10 lowest of 15 figures against their median (5 slow).</p>"), std::string::npos) << html;
  EXPECT_EQ(count(html, "<td>slow</td>"), 5u);
  EXPECT_EQ(count(html, "<td>ok</td>"), 5u);
  EXPECT_NE(html.find("<p>A pair is slow below "), std::string::npos);

  const PairsRun healthy = run_of(2, -1);
  const std::string one = render_html(healthy, analyse(healthy));
  EXPECT_NE(one.find("<p>The 1 lowest of 1 figure against their median (0 slow).</p>"), std::string::npos) << one;
  EXPECT_EQ(count(one, "<td>ok</td>"), 1u);

  PairsRun none = run_of(2, -1);
  none.pairs.clear();
  EXPECT_NE(render_html(none, analyse(none)).find("<h2>Lowest figures</h2>\n<p>No figure was measured.</p>"),
            std::string::npos);
}

// --prometheus: its figures' families named as nvlink's (commsweep_<workload>_<metric>_<unit>), a
// pair's nodes by name in name order, its verdict from the document, the command's exit code.
TEST(PairsOutput, PrometheusNamesEachPairAndItsVerdict) {
  const PairsRun run = run_of(6, 5);
  const Analysis a = analyse(run);
  const std::string prom = report::render_sheet_prometheus(sheet_from_json(report_json(run, a)), judge::exit_code_of(outcomes_of(run, a)));
  EXPECT_NE(prom.find("# TYPE commsweep_pairs_bandwidth_gbps gauge\n"), std::string::npos) << prom;
  EXPECT_EQ(count(prom, "\ncommsweep_pairs_bandwidth_gbps{"), 15u) << "one sample per pair of 6 nodes";
  EXPECT_EQ(count(prom, "\ncommsweep_pairs_time_us{"), 15u);
  EXPECT_NE(prom.find("commsweep_pairs_bandwidth_gbps{node_a=\"host<0>\",node_b=\"host<1>\"} 40\n"), std::string::npos);
  EXPECT_NE(prom.find("commsweep_pairs_bandwidth_gbps{node_a=\"host<2>\",node_b=\"host<5>\"} 4\n"), std::string::npos);
  // Node 5's pairs are slow, the others not.
  EXPECT_NE(prom.find("commsweep_pairs_slow{node_a=\"host<0>\",node_b=\"host<5>\",metric=\"bandwidth\"} 1\n"),
            std::string::npos);
  EXPECT_NE(prom.find("commsweep_pairs_slow{node_a=\"host<0>\",node_b=\"host<1>\",metric=\"bandwidth\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(count(prom, "metric=\"bandwidth\"} 1\n"), 5u);
  EXPECT_NE(prom.find("\ncommsweep_pairs_wrong{} 0\n"), std::string::npos);
  EXPECT_NE(prom.find("\ncommsweep_pairs_complete{} 1\n"), std::string::npos);
  EXPECT_NE(prom.find("\ncommsweep_pairs_exit_code{} 10\n"), std::string::npos) << "a slow pair";
}

}  // namespace
}  // namespace commsweep::pairs
