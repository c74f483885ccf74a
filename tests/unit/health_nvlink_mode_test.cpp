// The NVLink mode of each GPU against its model's own (health/nvlink_mode.hpp), through the
// recorded NVML double: a healthy H100 SXM node, one GPU planted trained down (fewer links, an
// older version, a slower speed: named alone, by its own rule), a bridged board with fewer
// links by design, a model the table lacks (said once), and the lent H200's recorded answer
// (a pass-through VM: no NVLink at all); the same planted through a recording
// (health/nvml_recording.hpp), as the MPI test plants it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/text_file.hpp"
#include "health/findings.hpp"
#include "health/gpu_reader.hpp"
#include "health/nvml_recording.hpp"
#include "health/nvlink_mode.hpp"
#include "health/report.hpp"
#include "health_nvml_double.hpp"

namespace commsweep::health {
namespace {

Snapshot gpus_of(NvmlApi& nvml) {
  Snapshot s;
  s.host = "n0";
  s.gpus = read_gpus(nvml);
  return s;
}

// "SEVERITY component: counter detail (limit)", one per finding.
std::vector<std::string> finding_lines(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(to_string(f.severity) + " " + f.component + ": " + describe(f));
  return out;
}

TEST(NvLinkMode, AHealthyH100NodeSaysItsModeAndFindsNothing) {
  testing::RecordedNvml nvml(8);
  const Snapshot s = gpus_of(nvml);
  EXPECT_EQ(finding_lines(judge_state(s)), std::vector<std::string>{});
  EXPECT_EQ(nvlink_mode(s.gpus[0]).text(), "18 of 18 links at NVLink 4.0, 25 GB/s each");
  const HealthReport r = build_report({NodeHealth{"n0", std::nullopt, s}});
  EXPECT_NE(render_block(r).find("144/144 NVLinks active (18 of 18 links at NVLink 4.0, 25 GB/s each)"), std::string::npos)
      << render_block(r);
  EXPECT_NE(render_inventory(r).find("NVLink 18 of 18 links at NVLink 4.0, 25 GB/s each"), std::string::npos);
}

TEST(NvLinkMode, ATrainedDownGpuIsNamedAloneByItsOwnRule) {
  testing::RecordedNvml nvml(8);
  for (int link = 12; link < 18; ++link) nvml.gpus[3].links[link].active = false;  // planted: 12 of 18
  const Snapshot s = gpus_of(nvml);
  EXPECT_EQ(finding_lines(judge_state(s)),
            std::vector<std::string>{"WARN GPU 3 NVLinks: mode reduced: 12 of 18 links active (H100 SXM has 18 at "
                                     "NVLink 4.0); inactive: 12-17 (NVIDIA)"});
  const HealthReport r = build_report({NodeHealth{"n0", std::nullopt, s}});
  EXPECT_NE(render_block(r).find("(7 GPUs 18 of 18 links at NVLink 4.0, 25 GB/s each; 1 GPU reduced: 12 of 18 links "
                                 "active (H100 SXM has 18 at NVLink 4.0))"),
            std::string::npos)
      << render_block(r);
  // The rule has its own name: a thresholds file tunes it alone.
  RuleBook strict;
  for (auto& rule : strict.rows())
    if (rule.name == "nvlink_reduced") rule.severity = Severity::Fail;
  ASSERT_EQ(judge_state(s, strict).size(), 1u);
  EXPECT_EQ(judge_state(s, strict)[0].severity, Severity::Fail);
  EXPECT_EQ(judge_state(s, strict)[0].rule, "nvlink_reduced");
}

TEST(NvLinkMode, AnOlderVersionOrASlowerSpeedIsReducedToo) {
  testing::RecordedNvml nvml(8);
  nvml.gpus[5].link_version = 4;  // planted: NVLink 3.0 on a Hopper
  // Planted speeds, not measured ones (the lent H200 has no NVLink to read): GPU 6 at half rate.
  for (auto& g : nvml.gpus) g.fields[nvml_field::kNvLinkSpeedMbpsCommon] = 25000;
  nvml.gpus[6].fields[nvml_field::kNvLinkSpeedMbpsCommon] = 12500;
  EXPECT_EQ(finding_lines(judge_state(gpus_of(nvml))),
            (std::vector<std::string>{
                "WARN GPU 5 NVLinks: mode reduced: links at NVLink 3.0 (H100 SXM has 18 at NVLink 4.0) (NVIDIA)",
                "WARN GPU 6 NVLinks: mode reduced: links at 12.5 GB/s each (H100 SXM: 25) (NVIDIA)"}));
}

TEST(NvLinkMode, FewerLinksByDesignAreNoFindingAndAnUnknownModelIsSaidOnce) {
  testing::RecordedNvml bridged(2);
  for (auto& g : bridged.gpus) {
    g.name = "NVIDIA H100 PCIe";
    g.links.resize(12);
    for (int link = 4; link < 12; ++link) g.links[link].active = false;  // one bridge of three fitted
  }
  const Snapshot b = gpus_of(bridged);
  EXPECT_EQ(finding_lines(judge_state(b)), std::vector<std::string>{});
  EXPECT_EQ(nvlink_mode(b.gpus[0]).text(), "4 of up to 12 links at NVLink 4.0, 25 GB/s each (bridged: as many as are fitted)");

  testing::RecordedNvml unknown(4);
  for (auto& g : unknown.gpus) g.name = "NVIDIA H20";
  EXPECT_EQ(finding_lines(judge_state(gpus_of(unknown))),
            std::vector<std::string>{"INFO GPU 0 NVLinks: mode 18 of 18 links active at NVLink 4.0 (no NVLink table entry "
                                     "for NVIDIA H20): not judged against a model's links (commsweep)"});
}

// The lent H200 answered NOT_SUPPORTED on every link and on fields 90 and 91 (recorded): no
// NVLink, so no mode to judge and no finding; the unread line says why.
TEST(NvLinkMode, TheLentH200VmsRecordedAnswerIsNoNvlinkNotAReducedOne) {
  const auto recorded = nlohmann::json::parse(
      read_bounded_file(std::string(COMMSWEEP_SOURCE_DIR) + "/tests/fixtures/nvml/h200-vm-nvlink.json"));
  testing::RecordedNvml nvml(1);
  nvml.gpus[0].name = recorded.at("name").get<std::string>();
  for (const auto& link : recorded.at("nvlink")) ASSERT_EQ(link.at(1).get<int>(), nvml_rc::kNotSupported);
  for (const auto& field : recorded.at("fields")) ASSERT_EQ(field.at(1).get<int>(), nvml_rc::kNotSupported);
  nvml.gpus[0].links.clear();  // the double answers NOT_SUPPORTED for a GPU without links
  const Snapshot s = gpus_of(nvml);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_TRUE(s.gpus[0].nvlinks.empty());
  EXPECT_FALSE(s.gpus[0].nvlink_speed_mbps);
  EXPECT_EQ(s.gpus[0].unread, std::vector<std::string>{"NVLink: none (Not Supported)"});
  EXPECT_EQ(finding_lines(judge_state(s)), std::vector<std::string>{});
  EXPECT_EQ(nvlink_mode(s.gpus[0]).text(), "no NVLink");
  EXPECT_EQ(nvlink_model_of("NVIDIA H200")->links, 18);
}

std::string gpu_state_fixture(const std::string& name) {
  return std::string(COMMSWEEP_SOURCE_DIR) + "/tests/fixtures/gpu_state/" + name;
}

// The recording the MPI test plants with (COMMSWEEP_NVML_RECORDING): its NVLink keys answer the
// reader's calls, GPU 1's 12 of 18 links named alone; a recording without them is no NVLink.
TEST(NvLinkMode, ARecordingPlantsATrainedDownLinkOnGpu1Alone) {
  auto nvml = replay_nvml(gpu_state_fixture("nvlink-trained-down-rank1.json"), "COMMSWEEP_NVML_RECORDING=x");
  const Snapshot s = gpus_of(*nvml);
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].nvlinks.size(), 18u);
  EXPECT_EQ(s.gpus[0].nvlink_speed_mbps, 25000u);
  EXPECT_EQ(s.gpus[0].nvlink_link_count, 18u);
  EXPECT_EQ(nvlink_mode(s.gpus[0]).text(), "18 of 18 links at NVLink 4.0, 25 GB/s each");
  EXPECT_EQ(finding_lines(judge_state(s)),
            std::vector<std::string>{"WARN GPU 1 NVLinks: mode reduced: 12 of 18 links active (H200 SXM has 18 at "
                                     "NVLink 4.0); inactive: 12-17 (NVIDIA)"});
  // Reading the links, 18 per GPU, moved no sample: a counter still reads the first one.
  std::uint64_t mj = 0;
  ASSERT_EQ(nvml->total_energy(1, &mj), nvml_rc::kSuccess);
  EXPECT_EQ(mj, 9'000'000'000u);
  // The after snapshot of a run: a recording gives no PCI bus ids, so each GPU is matched with
  // itself by its index, never GPU 1's inactive links taken for GPU 0's gone down.
  const HealthReport r = build_report({NodeHealth{"n0", s, gpus_of(*nvml)}});
  EXPECT_EQ(finding_lines(r.findings),
            std::vector<std::string>{"WARN GPU 1 NVLinks: mode reduced: 12 of 18 links active (H200 SXM has 18 at "
                                     "NVLink 4.0); inactive: 12-17 (NVIDIA) (so before the run too)"});

  auto without = replay_nvml(gpu_state_fixture("healthy.json"), "COMMSWEEP_NVML_RECORDING=x");
  const Snapshot h = gpus_of(*without);
  ASSERT_EQ(h.gpus.size(), 2u);
  EXPECT_TRUE(h.gpus[1].nvlinks.empty());
  EXPECT_EQ(h.gpus[1].unread, std::vector<std::string>{"NVLink: none (Not Supported (not in the recording))"});
  EXPECT_EQ(finding_lines(judge_state(h)), std::vector<std::string>{});
}

// A wrong NVLink key is refused with the variable, the GPU and the key, as a wrong sample key is.
TEST(NvLinkMode, AWrongNvlinkKeyInARecordingIsNamed) {
  const std::string file = ::testing::TempDir() + "/nvlink-recording.json";
  const auto refused = [&](const std::string& gpu) {
    std::ofstream(file) << R"({"format": "commsweep.nvml-recording/1", "gpus": [{"samples": [{}]}, )" << gpu << "]}";
    try {
      replay_nvml(file, "COMMSWEEP_NVML_RECORDING=f");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused(R"({"samples": [{}], "nvlink_states": [1]})"),
            "COMMSWEEP_NVML_RECORDING=f: gpus[1].nvlink_states: unknown key");
  EXPECT_EQ(refused(R"({"samples": [{}], "nvlink_state": [1, 2]})"),
            "COMMSWEEP_NVML_RECORDING=f: gpus[1].nvlink_state[1]: above 1 (NVML's enum)");
  EXPECT_EQ(refused(R"({"samples": [{}], "nvlink_state": [1, 1], "nvlink_version": [6]})"),
            "COMMSWEEP_NVML_RECORDING=f: gpus[1].nvlink_version: not one per link of nvlink_state");
  EXPECT_EQ(refused(R"({"samples": [{}], "nvlink_speed_mbps": -1})"),
            "COMMSWEEP_NVML_RECORDING=f: gpus[1].nvlink_speed_mbps: not a whole number >= 0 (NVML's unit)");
  EXPECT_EQ(refused(R"({"samples": [{}], "nvlink_state": [1], "nvlink_link_count": 1})"), "accepted");
}

TEST(NvLinkMode, TheTableNamesEachModelAsNvmlDoes) {
  EXPECT_STREQ(nvlink_model_of("NVIDIA H100 80GB HBM3")->model, "H100 SXM");
  EXPECT_STREQ(nvlink_model_of("NVIDIA H100 NVL")->model, "H100 NVL");
  EXPECT_STREQ(nvlink_model_of("NVIDIA H200 NVL")->model, "H200 NVL");
  EXPECT_STREQ(nvlink_model_of("NVIDIA GH200 480GB")->model, "GH200");
  EXPECT_STREQ(nvlink_model_of("NVIDIA A100-SXM4-80GB")->model, "A100 SXM4");
  EXPECT_EQ(nvlink_model_of("NVIDIA A100-SXM4-80GB")->links, 12);
  EXPECT_STREQ(nvlink_model_of("NVIDIA B200")->model, "B200");
  EXPECT_EQ(nvlink_model_of("NVIDIA B200")->nvml_version, 7);
  EXPECT_EQ(nvlink_model_of("NVIDIA H20"), nullptr);
  EXPECT_EQ(nvlink_model_of("NVIDIA L40S"), nullptr);
}

}  // namespace
}  // namespace commsweep::health
