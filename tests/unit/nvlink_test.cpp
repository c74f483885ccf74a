// `commsweep nvlink`'s pure layer (src/nvlink/): the expectation from NVML's links, the verdicts,
// the table, HTML, Prometheus and JSON, on a matrix in the exact format the command writes
// (tests/fixtures/nvlink: 4 x H100 captures, README there), and a planted slow pair, a slow
// node, a GPU with a link down, wrong bytes made from it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "health_nvml_double.hpp"
#include "nvlink/expectation.hpp"
#include "nvlink/gpu_links.hpp"
#include "nvlink/judge.hpp"
#include "nvlink/nvlink_json.hpp"
#include "nvlink/render.hpp"
#include "nvlink/figures.hpp"
#include "nvlink/settings.hpp"
#include "health/nvml_recording.hpp"
#include "report/sheet_html.hpp"
#include "report/sheet_prometheus.hpp"
#include "run/gpu_window_observer.hpp"
#include "usage_error.hpp"

namespace commsweep::nvlink {
namespace {

NvlinkRun read_capture(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return run_from_json(nlohmann::json::parse(in));
}

NvlinkRun captured() { return read_capture(COMMSWEEP_NVLINK_FIXTURE); }

// Every test of the pair (A, B) and (B, A) at FACTOR of its captured rate.
void slow_down(NvlinkRun& run, int a, int b, double factor) {
  for (auto& p : run.nodes[0].pairs) {
    if (!((p.src == a && p.dst == b) || (p.src == b && p.dst == a))) continue;
    for (auto& g : p.gbps)
      if (g) *g *= factor;
  }
}

TEST(NvlinkExpectation, RatePerLinkFromNvmlVersion) {
  EXPECT_EQ(link_gbps(6), 25);  // NVML_NVLINK_VERSION_4_0: H100, H200
  EXPECT_EQ(link_gbps(7), 50);  // 5.0: B200
  EXPECT_EQ(version_text(6), "4.0");
  EXPECT_FALSE(link_gbps(0));
  EXPECT_FALSE(link_gbps(99));
  Gpu a, b;
  a.nvlinks_active = 18, a.nvlink_version = 6;
  b.nvlinks_active = 17, b.nvlink_version = 6;
  EXPECT_EQ(*expected_gbps(a, a), 450);
  EXPECT_EQ(*expected_gbps(a, b), 425);  // the fewer links of the two
  EXPECT_EQ(*expected_gbps(a, a, Metric::CeBidir), 900);
  b.nvml_note = "NVML not loaded", b.nvlinks_active = 0;
  EXPECT_FALSE(expected_gbps(a, b));
}

TEST(NvlinkLinks, ReadByBusIdFromNvml) {
  health::testing::RecordedNvml nvml(8);
  nvml.gpus[2].links[5].active = false;
  nvml.gpus[2].links[7].replay = 12;
  EXPECT_TRUE(same_bus_id("0000:38:00.0", "00000000:38:00.0"));
  EXPECT_FALSE(same_bus_id("0000:38:00.0", "00000000:48:00.0"));
  const LinkReading r = read_gpu_links(nvml, "0000:38:00.0");  // NVML's GPU 2
  EXPECT_EQ(r.note, "");
  EXPECT_EQ(r.links.size(), 18u);
  EXPECT_EQ(r.active, 17);
  EXPECT_EQ(r.version, 6);
  EXPECT_EQ(*r.links[7].replay, 12u);
  EXPECT_EQ(read_gpu_links(nvml, "0000:99:00.0").note, "NVML has no GPU 0000:99:00.0");
  nvml.why_unavailable = "NVML not loaded (no GPU driver here?)";
  EXPECT_EQ(read_gpu_links(nvml, "0000:38:00.0").note, "NVML not loaded (no GPU driver here?)");
}

TEST(NvlinkJudge, CapturedNodePassesQuietly) {
  const NvlinkRun run = captured();
  ASSERT_EQ(run.nodes.size(), 1u);
  ASSERT_EQ(run.nodes[0].gpus.size(), 4u);
  const Analysis a = analyse(run);
  EXPECT_EQ(a.pairs, 12);
  EXPECT_EQ(a.slow_pairs, 0);
  EXPECT_EQ(a.slow_targets, 0);
  EXPECT_EQ(a.gpu_findings, 0);
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kOk);
  EXPECT_EQ(*a.nodes[0].expected_gbps, 450);
  const std::string text = render_report(run, a);
  EXPECT_NE(text.find("# ce_write GB/s, rows src, columns dst"), std::string::npos) << text;
  EXPECT_NE(text.find("# sm_write GB/s"), std::string::npos);
  EXPECT_NE(text.find("x the topology's 450.00 GB/s a direction"), std::string::npos);
  EXPECT_NE(text.find("no slow pair"), std::string::npos);
  EXPECT_EQ(text.find("SLOW"), std::string::npos);
}

// The run of `--fault slow-pair:1,2` on the same 4 x H100 (every copy of that pair made 4 times),
// as the command wrote it: judged again, that pair alone is slow, in both directions.
TEST(NvlinkJudge, CapturedPlantedSlowPairIsNamedAlone) {
  const NvlinkRun run = read_capture(COMMSWEEP_NVLINK_PLANTED_FIXTURE);
  const Analysis a = analyse(run);
  EXPECT_EQ(a.slow_pairs, 2);
  for (std::size_t i = 0; i < run.nodes[0].pairs.size(); ++i) {
    const auto& p = run.nodes[0].pairs[i];
    EXPECT_EQ(a.nodes[0].pairs[i].slow, (p.src == 1 && p.dst == 2) || (p.src == 2 && p.dst == 1)) << p.src << "->" << p.dst;
  }
  EXPECT_EQ(a.slow_targets, 0);
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kSlow);
}

TEST(NvlinkJudge, PlantedSlowPairIsNamedAlone) {
  NvlinkRun run = captured();
  slow_down(run, 1, 2, 0.25);  // what --fault slow-pair:1,2 --fault-slowdown 4 does
  const Analysis a = analyse(run);
  EXPECT_EQ(a.slow_pairs, 2);  // 1 -> 2 and 2 -> 1, nothing else
  for (std::size_t i = 0; i < run.nodes[0].pairs.size(); ++i) {
    const auto& p = run.nodes[0].pairs[i];
    EXPECT_EQ(a.nodes[0].pairs[i].slow, (p.src == 1 && p.dst == 2) || (p.src == 2 && p.dst == 1));
  }
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kSlow);
  const std::string text = render_report(run, a);
  const std::string& bus1 = run.nodes[0].gpus[1].pci_bus_id;
  const std::string& bus2 = run.nodes[0].gpus[2].pci_bus_id;
  EXPECT_NE(text.find("# SLOW pair on " + run.nodes[0].host + ": GPU 1 (rank 1, " + bus1 + ") -> GPU 2 (rank 2, " + bus2 + "): ce_write"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("x the node median"), std::string::npos);
  EXPECT_NE(text.find("#   NVLink counters over the run: GPU 1 +0 replay, +0 recovery, +0 CRC flit, +"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2 slow pairs"), std::string::npos);
}

TEST(NvlinkJudge, WholeSlowNodeFailsTheTopologyFloor) {
  NvlinkRun run = captured();
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) slow_down(run, a, b, 0.6);  // every pair: the median is slow too
  const Analysis a = analyse(run);
  EXPECT_EQ(a.slow_pairs, 12);
  const auto& why = a.nodes[0].pairs[0].why;
  ASSERT_FALSE(why.empty());
  EXPECT_NE(why[0].find("x the topology's 450.00 GB/s"), std::string::npos) << why[0];
}

TEST(NvlinkJudge, GpuWithALinkDownIsNamed) {
  NvlinkRun run = captured();
  EXPECT_NE(render_report(run, analyse(run)).find("NVIDIA H100 80GB HBM3  18 of 18 links at NVLink 4.0, 25 GB/s each\n"),
            std::string::npos);
  run.nodes[0].gpus[3].nvlinks_active = 17;  // planted: one link trained down
  const Analysis a = analyse(run);
  ASSERT_EQ(a.gpu_findings, 1);
  EXPECT_EQ(a.nodes[0].gpu_findings[0], "GPU 3 (rank 3, " + run.nodes[0].gpus[3].pci_bus_id +
                                            "): NVLink reduced: 17 of 18 links active (H100 SXM has 18 at NVLink 4.0)");
  EXPECT_NE(render_report(run, a).find("reduced: 17 of 18 links active"), std::string::npos);
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kSlow);
  // A model the table lacks is held to its node's other GPUs only.
  for (auto& g : run.nodes[0].gpus) g.name = "NVIDIA H20";
  const Analysis unknown = analyse(run);
  ASSERT_EQ(unknown.gpu_findings, 1);
  EXPECT_NE(unknown.nodes[0].gpu_findings[0].find("17 active NVLinks, 18 on another GPU"), std::string::npos)
      << unknown.nodes[0].gpu_findings[0];
}

TEST(NvlinkJudge, TheModeTravelsInTheJsonAndFilesWithoutItStillRead) {
  NvlinkRun run = captured();
  run.nodes[0].gpus[1].nvlinks_active = 12;  // planted
  run.nodes[0].gpus[1].nvlink_speed_mbps = 25000;  // planted (no NVLink speed was measured)
  const nlohmann::json j = to_json(run, analyse(run));
  const auto& g = j.at("nodes")[0].at("gpus")[1];
  EXPECT_EQ(g.at("nvlink_mode"), "reduced: 12 of 18 links active (H100 SXM has 18 at NVLink 4.0)");
  EXPECT_TRUE(g.at("nvlink_reduced").get<bool>());
  EXPECT_EQ(g.at("nvlink_speed_mbps"), 25000);
  EXPECT_FALSE(j.at("nodes")[0].at("gpus")[0].at("nvlink_reduced").get<bool>());
  const NvlinkRun back = run_from_json(j);
  EXPECT_EQ(*back.nodes[0].gpus[1].nvlink_speed_mbps, 25000u);
}

TEST(NvlinkJudge, WrongBytesOutrankSlowness) {
  NvlinkRun run = captured();
  run.nodes[0].pairs[3].wrong = 5;
  slow_down(run, 0, 1, 0.1);
  const Analysis a = analyse(run);
  EXPECT_EQ(a.wrong_total, 5u);
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kWrongData);
  EXPECT_NE(render_report(run, a).find("# WRONG pair"), std::string::npos);
}

TEST(NvlinkJudge, LatencyFarAboveTheMedianIsSlow) {
  NvlinkRun run = captured();
  run.nodes[0].pairs[4].latency_us = *run.nodes[0].pairs[4].latency_us * 3;
  const Analysis a = analyse(run);
  EXPECT_EQ(a.slow_pairs, 1);
  EXPECT_TRUE(a.nodes[0].pairs[4].slow);
}

// Issue 45: each pair's src and dst GPU over its tests, replayed from a recording whose GPU 1 is
// held by its power cap (tests/fixtures/gpu_state/throttle-rank1.json; the node's other GPUs read
// the recording's healthy GPU 0), as p2p/node_tests.cpp reads them on a GPU.
void replay_pair_windows(NvlinkRun& run) {
  auto nvml = health::replay_nvml(std::string(COMMSWEEP_GPU_STATE_FIXTURES) + "/throttle-rank1.json",
                                  "COMMSWEEP_NVML_RECORDING=x");
  for (auto& p : run.nodes[0].pairs)
    for (const int g : {p.src, p.dst}) {
      const unsigned recorded = g == 1 ? 1 : 0;
      const report::GpuSample start = read_gpu_sample(*nvml, recorded, WindowEnd::Start);
      report::GpuWindow w = report::window_between(start, read_gpu_sample(*nvml, recorded, WindowEnd::End));
      w.rank = run.nodes[0].gpus[g].rank;
      p.gpu_state.push_back(w);
    }
}

// A slow pair through the throttled GPU names the throttle as its likely cause, once per slow
// pair; the healthy pairs through it name nothing (the windows are evidence for a slow pair, not a
// verdict); the windows and findings travel in the JSON and read back.
TEST(NvlinkJudge, ASlowPairsThrottledGpuIsNamedAsItsLikelyCause) {
  NvlinkRun run = captured();
  slow_down(run, 1, 2, 0.25);
  replay_pair_windows(run);
  const Analysis a = analyse(run);
  EXPECT_EQ(a.slow_pairs, 2);
  const std::string host = run.nodes[0].host;
  const std::string gpu1 = "GPU 1 (rank 1, " + run.nodes[0].gpus[1].pci_bus_id + ") on " + host;
  ASSERT_EQ(a.nodes[0].gpu_state_findings.size(), 2u) << ::testing::PrintToString(a.nodes[0].gpu_state_findings);
  EXPECT_EQ(a.nodes[0].gpu_state_findings[0],
            "GPU throttled: " + gpu1 + " was held by power cap (87% of the window) during the GPU 1 -> GPU 2 pair's "
            "tests: the likely cause of its slowness, before the fabric");
  EXPECT_NE(a.nodes[0].gpu_state_findings[1].find("during the GPU 2 -> GPU 1 pair's tests"), std::string::npos);
  EXPECT_EQ(judge::exit_code_of(outcomes_of(run, a)), exit_code::kSlow);  // the slow pairs' verdict, unchanged
  EXPECT_NE(render_report(run, a).find("\n# " + a.nodes[0].gpu_state_findings[0] + "\n"), std::string::npos);
  const nlohmann::json doc = to_json(run, a);
  EXPECT_EQ(doc["nodes"][0]["gpu_state_findings"].size(), 2u);
  const auto& windows = doc["nodes"][0]["pairs"][0]["gpu_state"];  // 0 -> 1
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[1]["rank"], 1);
  EXPECT_EQ(windows[1]["throttles"][0]["reason"], "power cap");
  const NvlinkRun again = run_from_json(doc);
  EXPECT_EQ(to_json(again, analyse(again)), doc);
  // The same windows on the healthy node: no finding.
  NvlinkRun healthy = captured();
  replay_pair_windows(healthy);
  EXPECT_TRUE(analyse(healthy).nodes[0].gpu_state_findings.empty());
}

TEST(NvlinkJson, TheCommandsFormatRoundTrips) {
  const NvlinkRun run = captured();
  const nlohmann::json doc = to_json(run, analyse(run));
  EXPECT_EQ(doc.at("schema"), "commsweep.nvlink/1");
  const NvlinkRun again = run_from_json(doc);
  EXPECT_EQ(to_json(again, analyse(again)), doc);
  // The matrices: src rows, dst columns, null on the diagonal.
  const auto& m = doc.at("nodes")[0].at("matrices").at("ce_write");
  EXPECT_TRUE(m[1][1].is_null());
  EXPECT_EQ(m[1][2].get<double>(), *run.nodes[0].pairs[4].gbps[0]);  // pairs src-major: 1 -> 2 is the 5th
  EXPECT_EQ(doc.at("summary").at("exit_code"), 0);
}

TEST(NvlinkJson, ANonNvlinkDocumentIsRefusedByName) {
  try {
    run_from_json(nlohmann::json{{"schema", "commsweep.results/2"}});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a commsweep.nvlink/1 document"), std::string::npos);
  }
}

// Its HTML and Prometheus come from the printers written once over its figures (issue 43):
// the planted pair is named in both, with its verdict from the document.
TEST(NvlinkReports, PrometheusAndHtmlNameThePlantedPair) {
  NvlinkRun run = captured();
  slow_down(run, 1, 2, 0.25);
  const Analysis a = analyse(run);
  const report::Sheet sheet = sheet_from_json(to_json(run, a));
  const std::string prom = report::render_sheet_prometheus(sheet, judge::exit_code_of(outcomes_of(run, a)));
  const std::string& host = run.nodes[0].host;
  EXPECT_NE(prom.find("# TYPE commsweep_nvlink_bandwidth_gbps gauge"), std::string::npos);
  // Labels: the case parts of the family's figures (pairs: host, src, dst, test; GPUs: gpu).
  EXPECT_NE(prom.find("commsweep_nvlink_bandwidth_gbps{host=\"" + host + "\",src=\"1\",dst=\"2\",test=\"ce_write\",gpu=\"\"} "),
            std::string::npos)
      << prom;
  EXPECT_NE(prom.find("commsweep_nvlink_slow{host=\"" + host +
                      "\",src=\"1\",dst=\"2\",test=\"ce_write\",gpu=\"\",metric=\"bandwidth\"} 1"),
            std::string::npos)
      << prom;
  EXPECT_NE(prom.find("commsweep_nvlink_slow{host=\"" + host +
                      "\",src=\"0\",dst=\"1\",test=\"ce_write\",gpu=\"\",metric=\"bandwidth\"} 0"),
            std::string::npos);
  EXPECT_NE(prom.find("# TYPE commsweep_nvlink_latency_us gauge"), std::string::npos);
  EXPECT_NE(prom.find("commsweep_nvlink_exit_code{} 10"), std::string::npos);
  EXPECT_NE(prom.find("commsweep_nvlink_complete{} 1"), std::string::npos);

  const std::string html = report::render_sheet_html(sheet);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // A heatmap per node and test (better higher), each with its colour scale above it.
  for (const char* test : {"ce_write", "sm_write"}) {
    EXPECT_NE(html.find("<h2>bandwidth host=" + host + " test=" + test + "</h2>"), std::string::npos) << test;
  }
  EXPECT_EQ(html.find("<h2>latency"), std::string::npos) << "a time (better lower) has no heatmap";
  EXPECT_NE(html.find("GB/s and up</text>"), std::string::npos);
  EXPECT_NE(html.find("<li>slow pair " + host + " GPU 1 ("), std::string::npos) << html.substr(0, 3000);
  // The GPUs named by index and bus id in the rows, the columns and each cell's title.
  EXPECT_NE(html.find("GPU 1 (" + run.nodes[0].gpus[1].pci_bus_id + ") -&gt; GPU 2"), std::string::npos);
  EXPECT_NE(html.find("<td>slow</td>"), std::string::npos);
}

TEST(NvlinkSettings, FaultAndSizeAreChecked) {
  NvlinkSettings s;
  settings::Flags flags;
  flags["fault"] = settings::Given{"--fault", settings::Given::From::CommandLine, "slow-pair:1,2", ""};
  settings::apply(nvlink_settings(), s, flags);
  EXPECT_EQ(s.slow_pair_a, 1);
  EXPECT_EQ(s.slow_pair_b, 2);
  for (const char* bad : {"slow-pair:1", "slow-pair:1,1", "slow-pair:a,2", "slow-rank:1"}) {
    NvlinkSettings t;
    flags["fault"].value = bad;
    EXPECT_TRUE(commsweep::testing::throws_usage([&] { settings::apply(nvlink_settings(), t, flags); }, {"--fault", "slow-pair:RANK,RANK"}));
  }
  NvlinkSettings t;
  settings::Flags size{{"size", settings::Given{"-s/--size", settings::Given::From::CommandLine, "100", ""}}};
  EXPECT_TRUE(commsweep::testing::throws_usage([&] { settings::apply(nvlink_settings(), t, size); }, {"100 B is not a positive multiple of 16 B"}));
}

}  // namespace
}  // namespace commsweep::nvlink
