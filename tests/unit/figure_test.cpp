// The one result model (report/figure.hpp, issue 43): the collectives' and EP rows, the nvlink
// capture (tests/fixtures/nvlink) and the pairs capture (tests/fixtures/pairs) as figures, a
// results file read with its documents' sheets, and the CSV printed over them (report/csv.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "nvlink/figures.hpp"
#include "nvlink/nvlink_json.hpp"
#include "pairs/figures.hpp"
#include "pairs/pairs_json.hpp"
#include "report/csv.hpp"
#include "report/figure.hpp"
#include "report/sheet_html.hpp"
#include "report/sheet_prometheus.hpp"

namespace commsweep::report {
namespace {

using nlohmann::json;

json read_figure_fixture(const char* path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in);
}

SheetReaders figure_test_readers() {
  return {{"pairs", pairs::kPairsSchema, pairs::sheet_from_json}, {"nvlink", nvlink::kSchema, nvlink::sheet_from_json}};
}

ResultRow figure_test_row(std::uint64_t size, double oop_us, double ip_us) {
  ResultRow row{"all_reduce", size, size / 4, "float", "sum", -1, {}, {}};
  row.out_of_place.time_us = oop_us;
  row.out_of_place.busbw_gbps = 2;
  row.out_of_place.algbw_gbps = 1;
  row.out_of_place.wrong = 0;
  row.out_of_place.rank_time_us = {oop_us, oop_us * 0.5};
  row.in_place.time_us = ip_us;
  return row;
}

const std::string* part_of(const Figure& f, const std::string& name) {
  for (const auto& p : f.parts)
    if (p.name == name) return &p.value;
  return nullptr;
}

TEST(Figure, ACollectiveRowIsSixFiguresTimeJudgedWithBusbw) {
  const auto figures = figures_of(std::vector<ResultRow>{figure_test_row(1024, 10, 12)}, {"a", "b", "a"});
  ASSERT_EQ(figures.size(), 6u);
  const Figure& time = figures[0];
  EXPECT_EQ(time.workload, "collective");
  EXPECT_EQ(time.metric, "time");
  EXPECT_EQ(time.unit, "us");
  EXPECT_EQ(time.better, Better::Lower);
  EXPECT_EQ(time.role, Role::Time);
  EXPECT_EQ(*part_of(time, "size"), "1024");
  EXPECT_EQ(*part_of(time, "place"), "out_of_place");
  EXPECT_EQ(time.series.place, "out_of_place");
  EXPECT_EQ(time.series.config, "");
  EXPECT_EQ(time.wrong, std::optional<std::uint64_t>(0));
  EXPECT_EQ(time.where.ranks, 2);
  EXPECT_EQ(time.where.nodes, (std::vector<std::string>{"a", "b"}));
  EXPECT_NEAR(time.spread.halves_pct, 20.0, 1e-9);  // 10 us and 12 us apart
  EXPECT_NEAR(*time.spread.rank_spread_pct, 50.0, 1e-9);
  EXPECT_EQ(figures[1].metric, "algbw");
  EXPECT_EQ(figures[1].role, Role::Shown);
  EXPECT_EQ(figures[2].metric, "busbw");
  EXPECT_EQ(figures[2].role, Role::Bandwidth);
  EXPECT_EQ(figures[3].series.place, "in_place");
  EXPECT_FALSE(figures[3].wrong.has_value());  // not checked
}

TEST(Figure, AnEpRowIsThreeFiguresPerPhaseUnderItsKey) {
  EpRow row;
  row.routing = "uniform";
  row.tokens = 128;
  row.hidden = 7168;
  row.topk = 8;
  row.experts = 64;
  row.dtype = "bf16";
  row.impl = "lsa";
  row.dispatch.time_us = 100;
  row.dispatch.bandwidth_gbps = 5;
  const auto figures = figures_of(std::vector<EpRow>{row});
  ASSERT_EQ(figures.size(), 6u);
  EXPECT_EQ(figures[0].series.config, "lsa uniform h7168 k8 e64");
  EXPECT_EQ(figures[0].series.size, 128u);
  EXPECT_EQ(*part_of(figures[0], "phase"), "dispatch");
  EXPECT_EQ(figures[1].metric, "bandwidth");
  EXPECT_EQ(figures[2].metric, "fabric_bandwidth");
  EXPECT_EQ(figures[5].series.place, "combine");
}

TEST(Figure, NvlinkCaptureIsEveryPairTestLatencyAndTarget) {
  const Sheet sheet = nvlink::sheet_from_json(read_figure_fixture(COMMSWEEP_NVLINK_FIXTURE));
  // 12 ordered pairs x (6 copy tests + the latency), 4 GPUs x (all-to-one, one-to-all).
  EXPECT_EQ(sheet.figures.size(), 12u * 7 + 4u * 2);
  EXPECT_EQ(sheet.nodes, std::vector<std::string>{"vm"});
  EXPECT_EQ(sheet.bytes, 256u << 20);
  EXPECT_TRUE(sheet.complete);
  std::size_t checked = 0;
  for (const auto& f : sheet.figures) {
    checked += f.wrong ? 1 : 0;
    if (f.metric == "bandwidth" && part_of(f, "src") && *part_of(f, "src") == "1" && *part_of(f, "dst") == "2" &&
        *part_of(f, "test") == "ce_write") {
      EXPECT_NEAR(f.value, 395.43, 0.01);
      EXPECT_EQ(f.where.gpus, (std::vector<std::string>{"GPU 1 (0000:00:07.0)", "GPU 2 (0000:00:08.0)"}));
      EXPECT_EQ(f.series.config, "vm GPU 1 (0000:00:07.0) -> GPU 2 (0000:00:08.0)");
      EXPECT_EQ(f.bytes, static_cast<double>(256u << 20));
    }
  }
  EXPECT_EQ(checked, 12u + 4u);  // each pair's ce_write, each target's all_to_one
}

TEST(Figure, PairsCaptureIsEveryNodePairsBandwidthAndTime) {
  const Sheet sheet = pairs::sheet_from_json(read_figure_fixture(COMMSWEEP_PAIRS_FIXTURE));
  ASSERT_EQ(sheet.figures.size(), 3u * 2);  // 3 nodes: 3 pairs
  EXPECT_EQ(sheet.figures[0].metric, "bandwidth");
  EXPECT_EQ(sheet.figures[1].metric, "time");
  EXPECT_EQ(sheet.figures[0].series.config, sheet.figures[1].series.config);
  EXPECT_EQ(sheet.figures[0].series.place, "sendrecv");
  EXPECT_EQ(sheet.nodes.size(), 3u);
}

// The printers written once over a sheet (report/sheet_html, sheet_prometheus) on a capture:
// pairs' verdicts and leaves come with its figures; a pair given twice (a follow-up round) is one
// Prometheus sample, the last; a time (better lower) has no heatmap; text is escaped.
TEST(SheetPrinters, PairsCaptureWithItsVerdictsGroupsAndOneSamplePerCase) {
  Sheet sheet = pairs::sheet_from_json(read_figure_fixture(COMMSWEEP_PAIRS_FIXTURE));
  ASSERT_TRUE(sheet.figures[0].slow.has_value()) << "the document's verdict on the pair";
  EXPECT_FALSE(sheet.groups.empty()) << "each node's leaf";
  EXPECT_GT(sheet.slow_fraction, 0);
  Figure again = sheet.figures[0];
  again.value = 1.25;
  again.slow = true;
  sheet.figures.push_back(again);
  sheet.findings.push_back("slow pair: <a> & b");
  const std::string prom = render_sheet_prometheus(sheet, 10);
  const std::string series = "commsweep_pairs_bandwidth_gbps{node_a=\"" + *part_of(again, "node_a") + "\",node_b=\"" +
                             *part_of(again, "node_b") + "\"} ";
  EXPECT_EQ(prom.find(series), prom.rfind(series)) << prom;
  EXPECT_NE(prom.find(series + "1.25\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("commsweep_pairs_slow{node_a=\"" + *part_of(again, "node_a") + "\",node_b=\"" +
                      *part_of(again, "node_b") + "\",metric=\"bandwidth\"} 1\n"),
            std::string::npos);
  EXPECT_NE(prom.find("# TYPE commsweep_pairs_time_us gauge"), std::string::npos);
  EXPECT_NE(prom.find("commsweep_pairs_exit_code{} 10\n"), std::string::npos);
  const std::string html = render_sheet_html(sheet);
  EXPECT_NE(html.find("<h2>bandwidth</h2>"), std::string::npos);
  EXPECT_EQ(html.find("<h2>time"), std::string::npos);
  EXPECT_NE(html.find("<li>slow pair: &lt;a&gt; &amp; b</li>"), std::string::npos);
  EXPECT_NE(html.find("<td>slow</td>"), std::string::npos);
}

TEST(Figure, AMalformedDocumentNamesItsField) {
  json doc = read_figure_fixture(COMMSWEEP_PAIRS_FIXTURE);
  doc["pairs"][1].erase("node_b");
  try {
    results_with_figures(doc, figure_test_readers());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "malformed commsweep.pairs/2 document: field \"pairs[1].node_b\" missing");
  }
  doc["schema"] = "commsweep.pairs/9";
  EXPECT_THROW(results_with_figures(doc, figure_test_readers()), std::runtime_error);
}

TEST(Figure, ADocumentReadAloneCarriesItsEndingAndOneSheet) {
  const Results r = results_with_figures(read_figure_fixture(COMMSWEEP_NVLINK_FIXTURE), figure_test_readers());
  EXPECT_EQ(r.schema, nvlink::kSchema);
  ASSERT_EQ(r.sheets.size(), 1u);
  EXPECT_EQ(r.sheets[0]->workload, "nvlink");
  EXPECT_TRUE(r.rows.empty());
  std::size_t n = 0;
  for_each_figure(r, [&](const Figure&) { ++n; });
  EXPECT_EQ(n, 92u);
}

TEST(FigureCsv, FieldsAreQuotedAsRfc4180Says) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(FigureCsv, OneRowPerFigureUnderOneHeader) {
  Results r;
  r.rows = {figure_test_row(8, 3, 4), figure_test_row(16, 5, 6)};
  r.sheets.push_back(std::make_shared<Sheet>(pairs::sheet_from_json(read_figure_fixture(COMMSWEEP_PAIRS_FIXTURE))));
  std::ostringstream out;
  write_csv(out, {{"run,1.json", &r}});
  const std::string text = out.str();
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = text.find("\r\n", at)) != std::string::npos; at += 2) ++lines;
  EXPECT_EQ(lines, 1u + 2 * 6 + 6);
  EXPECT_EQ(text.substr(0, text.find("\r\n")),
            "file,workload,case,test,type,redop,root,size,place,node_a,node_b,metric,value,unit,better,wrong,ranks,"
            "nodes,gpus,link,iterations,cv_pct,p50_us,p95_us,p99_us,min_us,max_us,rank_spread_pct");
  EXPECT_NE(text.find("\r\n\"run,1.json\",collective,test=all_reduce type=float redop=sum root=-1 size=8 "
                      "place=out_of_place,all_reduce,float,sum,-1,8,out_of_place,,,time,3.0,us,lower,0,2,,,,,,,,,,,50.0\r\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace commsweep::report
