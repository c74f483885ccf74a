// The matrices a baseline judges (issue 43), read through the one result model (report/figure.hpp,
// the readers of nvlink/figures.hpp and pairs/figures.hpp): commsweep nvlink's GPU pairs on
// its 4 x H100 capture (tests/fixtures/nvlink) and commsweep pairs' node pairs on a capture of 3
// emulated nodes (tests/fixtures/pairs), each doctored in memory where a change is needed.
#include <gtest/gtest.h>

#include <fstream>

#include "nvlink/figures.hpp"
#include "nvlink/nvlink_json.hpp"
#include "pairs/figures.hpp"
#include "pairs/pairs_json.hpp"
#include "regress/baseline_json.hpp"
#include "regress/compare.hpp"
#include "regress/measured_setup.hpp"
#include "regress/render.hpp"
#include "regress/run_file.hpp"
#include "regress_fixtures.hpp"

namespace commsweep::regress {
namespace {

using nlohmann::json;

// What run/workload.hpp's sheet_readers gives the commands (the unit tests link no registry).
report::Results run_from_json(const json& doc) {
  return regress::run_from_json(doc, {{"pairs", pairs::kPairsSchema, pairs::sheet_from_json},
                                      {"nvlink", nvlink::kSchema, nvlink::sheet_from_json}});
}

json read_matrix_fixture(const char* path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in);
}

json nvlink_capture() { return read_matrix_fixture(COMMSWEEP_NVLINK_FIXTURE); }
json pairs_capture() { return read_matrix_fixture(COMMSWEEP_PAIRS_FIXTURE); }
json pairs_planted_capture() { return read_matrix_fixture(COMMSWEEP_PAIRS_PLANTED_FIXTURE); }

// The node pair (A, B) at FACTOR of its captured rate: its GB/s and its rails' times.
json pairs_doctored(std::uint64_t a, std::uint64_t b, double factor) {
  json doc = pairs_capture();
  for (auto& p : doc["pairs"]) {
    if (!((p["node_a"] == a && p["node_b"] == b) || (p["node_a"] == b && p["node_b"] == a))) continue;
    p["gbps"] = p["gbps"].get<double>() * factor;
    for (auto& r : p["rails"]) {
      r["gbps"] = r["gbps"].get<double>() * factor;
      for (const char* t : {"time_us", "time_us_a", "time_us_b"}) r[t] = r[t].get<double>() / factor;
    }
  }
  return doc;
}

// The nvlink pair SRC -> DST's TEST at FACTOR of its captured rate (the latency: times FACTOR).
json nvlink_doctored(int src, int dst, const std::string& test, double factor) {
  json doc = nvlink_capture();
  for (auto& p : doc["nodes"][0]["pairs"]) {
    if (p["src"] != src || p["dst"] != dst) continue;
    auto& value = test == kLatencyPlace ? p["latency_us"] : p["gbps"][test];
    value = value.get<double>() * factor;
  }
  return doc;
}

Baseline baseline_of_docs(const std::vector<json>& docs) {
  std::vector<report::Results> runs;
  for (const auto& d : docs) runs.push_back(run_from_json(d));
  Baseline b = testing::baseline_of(runs);
  for (const auto& r : runs) b.provenance.sources.push_back({"run.json", "", r.provenance.backend, "", r.provenance.hosts, measured_setup(r)});
  return b;
}

const Judgement* judgement_of(const Comparison& c, const std::string& description) {
  for (const auto& j : c.judgements)
    if (describe(j.key) == description) return &j;
  return nullptr;
}

std::vector<const Judgement*> failures_of(const Comparison& c) {
  std::vector<const Judgement*> out;
  for (const auto& j : c.judgements)
    if (j.verdict == Verdict::Fail) out.push_back(&j);
  return out;
}

constexpr const char* kPair12CeWrite = "nvlink vm GPU 1 (0000:00:07.0) -> GPU 2 (0000:00:08.0) 256M ce_write";

TEST(RegressMatrices, NvlinkKeysNameTheHostTheGpuPairAndTheTest) {
  const report::Results run = run_from_json(nvlink_capture());
  ASSERT_EQ(run.sheets.size(), 1u);
  EXPECT_EQ(run.sheets[0]->workload, "nvlink");
  EXPECT_EQ(run.provenance.hosts.size(), 4u);
  EXPECT_TRUE(run.complete);
  const auto observed = observe(run);
  // 12 ordered pairs x (6 copy tests + the latency), 4 GPUs x (all-to-one, one-to-all).
  EXPECT_EQ(observed.size(), 12u * 7 + 4u * 2);
  std::set<std::string> names;
  for (const auto& [key, o] : observed) names.insert(describe(key));
  EXPECT_TRUE(names.count(kPair12CeWrite));
  EXPECT_TRUE(names.count("nvlink vm GPU 2 (0000:00:08.0) -> GPU 1 (0000:00:07.0) 256M latency"));
  EXPECT_TRUE(names.count("nvlink vm GPU 3 (0000:00:09.0) 256M all_to_one"));
  const Key ce_write{"nvlink", "-", "none", -1, "vm GPU 1 (0000:00:07.0) -> GPU 2 (0000:00:08.0)", 256 << 20, "ce_write"};
  ASSERT_TRUE(observed.count(ce_write));
  EXPECT_NEAR(observed.at(ce_write).bandwidth_gbps.at(0), 395.43, 0.01);  // the capture's matrix
  EXPECT_TRUE(ce_write.judged_alone());
}

TEST(RegressMatrices, IdenticalNvlinkRunsPass) {
  const json doc = nvlink_capture();
  const Baseline b = baseline_of_docs({doc, doc, doc});
  ASSERT_EQ(b.entries.size(), 92u);
  const Comparison c = compare(run_from_json(doc), b);
  EXPECT_EQ(c.exit_code, exit_code::kOk);
  EXPECT_EQ(verdict_count(c, Verdict::Same), 92);
}

TEST(RegressMatrices, OnePairTwelvePercentLowerFailsNamedAlone) {
  const Baseline b = baseline_of_docs({nvlink_capture(), nvlink_capture(), nvlink_capture()});
  const Comparison c = compare(run_from_json(nvlink_doctored(1, 2, "ce_write", 0.88)), b);
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
  const auto failed = failures_of(c);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(describe(failed[0]->key), kPair12CeWrite);
  EXPECT_EQ(failed[0]->metric, Metric::Bandwidth);
  // No halves to agree: the FAIL stands alone (require_both_halves leaves it).
  EXPECT_EQ(failed[0]->reason, "bandwidth 12.0% lower (fail band 10.0%, beyond the noise of 0.0%)");
  // The table's line of the pair: its worst test, the FAIL.
  const std::string table = render_table(c);
  EXPECT_NE(table.find("FAIL     nvlink vm GPU 1 (0000:00:07.0) -> GPU 2 (0000:00:08.0)  -     none  -     256M  ce_write    "
                       "bandwidth  395.43 GB/s  347.98 GB/s  -12.0%"),
            std::string::npos)
      << table;
  EXPECT_NE(render_markdown(c).find(std::string("| FAIL | ") + kPair12CeWrite), std::string::npos);
  EXPECT_NE(render_prometheus(c).find("place=\"ce_write\""), std::string::npos);
}

TEST(RegressMatrices, SevenPercentWarnsAndTheReversePairIsItsOwn) {
  const Baseline b = baseline_of_docs({nvlink_capture()});
  const Comparison c = compare(run_from_json(nvlink_doctored(2, 1, "sm_read", 0.93)), b);
  EXPECT_EQ(c.exit_code, exit_code::kOk);
  EXPECT_EQ(verdict_count(c, Verdict::Warn), 1);
  EXPECT_EQ(judgement_of(c, kPair12CeWrite)->verdict, Verdict::Same);
}

TEST(RegressMatrices, TheLatencyIsATimeWithTheLatencyFloor) {
  const Baseline b = baseline_of_docs({nvlink_capture()});
  const std::string latency = "nvlink vm GPU 0 (0000:00:06.0) -> GPU 3 (0000:00:09.0) 256M latency";
  const Comparison slower = compare(run_from_json(nvlink_doctored(0, 3, kLatencyPlace, 1.2)), b);
  EXPECT_EQ(judgement_of(slower, latency)->metric, Metric::Time);
  EXPECT_EQ(judgement_of(slower, latency)->verdict, Verdict::Same);  // inside the 30% floor
  const Comparison twice = compare(run_from_json(nvlink_doctored(0, 3, kLatencyPlace, 2.0)), b);
  EXPECT_EQ(judgement_of(twice, latency)->verdict, Verdict::Fail);
  EXPECT_EQ(twice.exit_code, exit_code::kRegression);
  // A latency has no bandwidth: none exported as one.
  EXPECT_EQ(render_prometheus(twice).find("commsweep_busbw_gbps{config=\"vm GPU 0 (0000:00:06.0) -> GPU 3 (0000:00:09.0)\",dtype=\"-\",place=\"latency\""),
            std::string::npos);
}

TEST(RegressMatrices, WrongWordsAndAMissingPairFail) {
  const Baseline b = baseline_of_docs({nvlink_capture()});
  json wrong = nvlink_capture();
  wrong["nodes"][0]["pairs"][4]["wrong"] = 5;
  wrong["summary"]["wrong"] = 5;
  const Comparison w = compare(run_from_json(wrong), b);
  EXPECT_EQ(w.exit_code, exit_code::kWrongData);
  EXPECT_EQ(w.wrong_total, 5u);  // counted once, at the pair's ce_write
  json gone = nvlink_capture();
  gone["nodes"][0]["pairs"][4]["gbps"]["ce_read"] = nullptr;  // not measured
  const Comparison g = compare(run_from_json(gone), b);
  ASSERT_EQ(failures_of(g).size(), 1u);
  EXPECT_TRUE(failures_of(g)[0]->missing);
  EXPECT_EQ(failures_of(g)[0]->key.place, "ce_read");
}

TEST(RegressMatrices, ABaselineWithMatricesRoundTripsAndFollowsTheKeys) {
  const Baseline b = baseline_of_docs({nvlink_capture()});
  const json j = to_json(b);
  const json& entry = j["entries"][0];
  EXPECT_EQ(entry["test"], "nvlink");
  EXPECT_TRUE(entry.contains("config") && entry.contains("size_bytes") && entry.contains("bandwidth_gbps"));
  EXPECT_FALSE(entry.contains("redop") || entry.contains("busbw_gbps"));
  EXPECT_EQ(j["provenance"]["sources"][0]["matrix_hosts"], "vm");
  EXPECT_EQ(j["provenance"]["sources"][0]["matrix_bytes"], "nvlink:256M");
  const Baseline back = baseline_from_json(j);
  ASSERT_EQ(back.entries.size(), b.entries.size());
  for (std::size_t i = 0; i < b.entries.size(); ++i) {
    EXPECT_EQ(back.entries[i].key, b.entries[i].key);
    EXPECT_DOUBLE_EQ(back.entries[i].bandwidth_gbps, b.entries[i].bandwidth_gbps);
  }
  EXPECT_EQ(back.provenance.sources[0].setup.matrix_hosts, "vm");
}

TEST(RegressMatrices, TheSetupCheckNamesOtherHostsAndBytes) {
  const report::Results base = run_from_json(nvlink_capture());
  json other = nvlink_capture();
  other["nodes"][0]["host"] = "node9";
  other["settings"]["bytes"] = 64 << 20;
  const SetupCheck check = check_setup({measured_setup(run_from_json(other))}, {measured_setup(base)}, "", "default");
  ASSERT_EQ(check.differences.size(), 2u);
  EXPECT_EQ(describe(check.differences[0]), "hosts: run node9 (not in the baseline), baseline vm");
  EXPECT_EQ(describe(check.differences[1]), "bytes: run nvlink:64M (not in the baseline), baseline nvlink:256M");
  // A collectives run against it: the matrices' properties do not apply.
  for (const auto& d : check_setup({measured_setup(testing::run_at(400))}, {measured_setup(base)}, "", "default").differences) {
    EXPECT_TRUE(d.property != "hosts" && d.property != "bytes") << describe(d);
  }
  // Fewer hosts than the baseline pass the check (their pairs are then missing).
  EXPECT_TRUE(check_setup({measured_setup(base)}, {measured_setup(base), measured_setup(run_from_json(other))}, "", "default")
                  .differences.empty());
}

TEST(RegressMatrices, AMalformedDocumentIsNamedByField) {
  json doc = nvlink_capture();
  doc["nodes"][0]["pairs"][2].erase("src");
  try {
    run_from_json(doc);
    FAIL() << "a pair without src was read";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "malformed commsweep.nvlink/1 document: field \"nodes[0].pairs[2].src\" missing");
  }
  doc = nvlink_capture();
  doc["schema"] = "commsweep.nvlink/2";
  EXPECT_THROW(run_from_json(doc), std::runtime_error);
}

TEST(RegressMatrices, MergedWithACollectivesRunOfOtherHosts) {
  report::Results collectives = testing::run_at(400);  // node-a and node-b
  const report::Results merged = merge_runs({run_from_json(nvlink_capture()), collectives}, {"nvlink.json", "all.json"});
  EXPECT_EQ(merged.provenance.hosts, collectives.provenance.hosts);  // the per-rank times' hosts
  EXPECT_EQ(merged.sheets.size(), 1u);
  EXPECT_EQ(observe(merged).size(), 92u + 8);  // 4 sizes x 2 halves beside the pairs
}

TEST(RegressMatrices, PairsKeysNameTheNodePair) {
  const report::Results run = run_from_json(pairs_capture());
  ASSERT_EQ(run.sheets.size(), 1u);
  EXPECT_EQ(run.sheets[0]->workload, "pairs");
  std::vector<std::string> names;
  for (const auto& [key, o] : observe(run)) {
    names.push_back(describe(key));
    EXPECT_EQ(o.wrong, std::optional<std::uint64_t>(0));  // checked (-c 1), nothing wrong
    EXPECT_GT(o.time_us.at(0), 0);                        // the slowest rail's exchange
  }
  EXPECT_EQ(names, (std::vector<std::string>{"pairs vm/node0 <-> vm/node1 1M sendrecv",
                                             "pairs vm/node0 <-> vm/node2 1M sendrecv",
                                             "pairs vm/node1 <-> vm/node2 1M sendrecv"}));
  EXPECT_EQ(measured_setup(run).matrix_hosts, "vm/node0 vm/node1 vm/node2");
  EXPECT_EQ(measured_setup(run).matrix_bytes, "pairs:1M");
}

TEST(RegressMatrices, IdenticalPairsRunsPassAndOnePairTwelvePercentLowerFails) {
  const Baseline b = baseline_of_docs({pairs_capture(), pairs_capture(), pairs_capture()});
  const Comparison same = compare(run_from_json(pairs_capture()), b);
  EXPECT_EQ(same.exit_code, exit_code::kOk);
  EXPECT_EQ(verdict_count(same, Verdict::Same), 3);
  const Comparison c = compare(run_from_json(pairs_doctored(2, 0, 0.88)), b);
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
  const auto failed = failures_of(c);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(describe(failed[0]->key), "pairs vm/node0 <-> vm/node2 1M sendrecv");
  EXPECT_EQ(failed[0]->reason, "bandwidth 12.0% lower (fail band 10.0%, beyond the noise of 0.0%)");
}

TEST(RegressMatrices, ThePlantedSlowNodeFailsItsPairsAlone) {
  const Comparison c = compare(run_from_json(pairs_planted_capture()), baseline_of_docs({pairs_capture()}));
  EXPECT_EQ(c.exit_code, exit_code::kRegression);
  std::vector<std::string> failed;
  for (const auto* j : failures_of(c)) failed.push_back(j->key.config);
  EXPECT_EQ(failed, (std::vector<std::string>{"vm/node0 <-> vm/node1", "vm/node1 <-> vm/node2"}));
}

TEST(RegressMatrices, ASparsePairsDocumentIsJudgedPerNode) {
  json sparse = pairs_capture();
  sparse["detail"] = "sparse";  // as above 64 nodes: the slow pairs only
  sparse["pairs"] = json::array();
  std::vector<std::string> names;
  for (const auto& [key, o] : observe(run_from_json(sparse))) names.push_back(describe(key));
  ASSERT_EQ(names.size(), 6u);
  EXPECT_EQ(names[0], "pairs vm/node0 1M node_median");
  EXPECT_EQ(names[1], "pairs vm/node0 1M node_min");
}

// Another workload's matrix (a sheet of figures, as tests/workloads/grid.cpp's reader makes):
// observed, judged alone, and kept by a baseline with no line of it in regress/.
TEST(RegressMatrices, AnyWorkloadsMatrixIsObservedAndKept) {
  report::Sheet sheet;
  sheet.workload = "grid";
  sheet.bytes = 1 << 20;
  sheet.nodes = {"vm"};
  report::Figure f;
  f.workload = "grid";
  f.metric = "bandwidth";
  f.value = 10;
  f.unit = "GB/s";
  f.role = report::Role::Bandwidth;
  f.bytes = 1 << 20;
  f.series = {"grid", "-", "none", -1, "rank 0 -> rank 1", 1 << 20, "exchange"};
  sheet.figures = {f, f};  // the same key twice in a row: two samples (two cycles)
  report::Results run;
  run.sheets.push_back(std::make_shared<report::Sheet>(sheet));
  const auto observed = observe(run);
  ASSERT_EQ(observed.size(), 1u);
  const Observation& o = observed.begin()->second;
  EXPECT_TRUE(o.key.is_matrix() && o.key.judged_alone());
  EXPECT_EQ(describe(o.key), "grid rank 0 -> rank 1 1M exchange");
  ASSERT_EQ(o.time_us.size(), 2u);
  EXPECT_DOUBLE_EQ(o.time_us[0], (1 << 20) / (10 * 1e3));  // its bytes at its GB/s
  EXPECT_TRUE(o.rank_time_us[0].empty());
  EXPECT_EQ(measured_setup(run).matrix_bytes, "grid:1M");
  const Baseline b = testing::baseline_of({run});
  const Baseline back = baseline_from_json(to_json(b));
  ASSERT_EQ(back.entries.size(), 1u);
  EXPECT_EQ(back.entries[0].key, b.entries[0].key);
}

}  // namespace
}  // namespace commsweep::regress
