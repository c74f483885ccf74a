// The GPU state of the measured windows (issue 45 part 2): the window arithmetic from NVML's
// cumulative counters, the recorded-NVML replay the tests plant it with, and the findings joined
// to the rows: a throttle, a clock drift and a power drift, each named alone.
#include <gtest/gtest.h>

#include "health/nvml_recording.hpp"
#include "report/gpu_findings.hpp"
#include "report/gpu_window.hpp"
#include "report/json.hpp"
#include "run/gpu_sampler.hpp"
#include "run/gpu_window_observer.hpp"

#include <chrono>
#include <cmath>
#include <thread>

namespace commsweep::report {
namespace {

std::string fixture(const std::string& name) { return std::string(COMMSWEEP_GPU_STATE_FIXTURES) + "/" + name; }

// One window of GPU on a recording: its start read, then its end (two statements: the order of a
// call's arguments is the compiler's).
GpuWindow recorded_window(health::NvmlApi& nvml, unsigned gpu) {
  const GpuSample start = read_gpu_sample(nvml, gpu, WindowEnd::Start);
  return window_between(start, read_gpu_sample(nvml, gpu, WindowEnd::End));
}

GpuSample at(std::uint64_t reference_us, std::uint64_t energy_mj, std::uint64_t power_ns) {
  GpuSample s;
  s.sm_mhz = 1980, s.mem_mhz = 3201, s.max_sm_mhz = 1980, s.temperature_c = 40;
  s.power_mw = 123000, s.power_limit_mw = 700000;
  s.energy_mj = energy_mj;
  s.violation_ns = {power_ns, 0, 0, 0};
  s.reference_us = reference_us;
  s.event_reasons = 0;
  return s;
}

TEST(GpuWindow, MeanPowerAndThrottleShareFromTheCountersAtTheTwoEnds) {
  GpuSample end = at(1'200'000, 60'000, 174'000'000);
  end.event_reasons = 0x4 | 0x8;  // SwPowerCap, HwSlowdown at the window's end
  const GpuWindow w = window_between(at(1'000'000, 0, 0), end);
  EXPECT_DOUBLE_EQ(w.window_us, 200'000);        // NVML's clock, not the host's
  EXPECT_DOUBLE_EQ(*w.power_w, 300);              // 60 J over 0.2 s
  EXPECT_EQ(w.power_from, "energy");
  EXPECT_DOUBLE_EQ(*w.power_limit_w, 700);
  ASSERT_NE(throttle_in(w, Throttle::PowerCap), nullptr);
  EXPECT_DOUBLE_EQ(*throttle_in(w, Throttle::PowerCap)->share, 0.87);
  ASSERT_NE(throttle_in(w, Throttle::HwSlowdown), nullptr);  // a bit alone: active, no share
  EXPECT_FALSE(throttle_in(w, Throttle::HwSlowdown)->share);
  EXPECT_EQ(throttle_in(w, Throttle::Thermal), nullptr);
  // A window shorter than the energy counter's steps keeps the end's power reading.
  const GpuWindow short_one = window_between(at(1'000'000, 0, 0), at(1'000'100, 0, 0));
  EXPECT_EQ(short_one.power_from, "sample");
  EXPECT_DOUBLE_EQ(*short_one.power_w, 123);
  EXPECT_TRUE(short_one.throttles.empty());
  // The gather's numbers and the JSON give the window back.
  GpuWindow back = window_from_numbers(window_numbers(w), 3);
  EXPECT_EQ(back.rank, 3);
  back.rank = -1;
  EXPECT_EQ(gpu_window_json(back), gpu_window_json(w));
  EXPECT_EQ(gpu_window_json(gpu_window_from(gpu_window_json(w))), gpu_window_json(w));
}

TEST(GpuWindow, TheRecordingReplaysNvmlsAnswersWindowAfterWindow) {
  auto nvml = health::replay_nvml(fixture("throttle-rank1.json"), "COMMSWEEP_NVML_RECORDING=x");
  for (int window = 0; window < 3; ++window) {  // past the two samples: the last step again
    const GpuWindow w = recorded_window(*nvml, 1);
    EXPECT_DOUBLE_EQ(w.window_us, 100'000) << window;
    EXPECT_NEAR(*w.power_w, 340, 1e-9) << window;
    ASSERT_NE(throttle_in(w, Throttle::PowerCap), nullptr) << window;
    EXPECT_NEAR(*throttle_in(w, Throttle::PowerCap)->share, 0.87, 1e-9);
    EXPECT_DOUBLE_EQ(*w.sm_mhz_end, 1830);
  }
  const GpuWindow healthy = recorded_window(*nvml, 0);
  EXPECT_TRUE(healthy.throttles.empty());
  EXPECT_THROW(health::replay_nvml(fixture("README.md"), "COMMSWEEP_NVML_RECORDING=README.md"), std::runtime_error);
}

// The live reads' sampler (run/gpu_sampler.hpp) on the recording: one read when made, then one
// a period on its thread; each read is the next window end of the recording, so that the last two
// samples span the recording's 100 ms step and make a whole window of it, throttle and all.
TEST(GpuSampler, ReadsOnItsOwnThreadEveryPeriodAndStopsWhenDestroyed) {
  auto nvml = health::replay_nvml(fixture("throttle-rank1.json"), "COMMSWEEP_NVML_RECORDING=x");
  const auto made = std::chrono::steady_clock::now();
  {
    GpuSampler sampler(*nvml, 1, std::chrono::milliseconds(2));
    EXPECT_GE(sampler.reads(), 2);  // the first two are the constructor's
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (sampler.reads() < 4 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_GE(sampler.reads(), 4);
    const GpuSample before = sampler.before_latest(), last = sampler.latest();
    EXPECT_LT(before.reference_us, last.reference_us);
    const GpuWindow w = window_between(before, last);
    // One step of the recording, or more where a read came between the two calls: each 100 ms.
    EXPECT_GE(w.window_us, 100'000);
    EXPECT_DOUBLE_EQ(std::fmod(w.window_us, 100'000), 0);
    ASSERT_NE(throttle_in(w, Throttle::PowerCap), nullptr);
    EXPECT_NEAR(*throttle_in(w, Throttle::PowerCap)->share, 0.87, 1e-9);
    EXPECT_GT(sampler.read_us(), 0);
  }  // joins its thread: a sampler that did not stop would hang here, and ctest's timeout fail it
  EXPECT_LT(std::chrono::steady_clock::now() - made, std::chrono::seconds(10));
}

// A sweep of four sizes on 2 ranks of one host whose windows come from a recording.
std::vector<ResultRow> rows_from(const std::string& recording) {
  auto nvml = health::replay_nvml(fixture(recording), "COMMSWEEP_NVML_RECORDING=x");
  std::vector<ResultRow> rows;
  for (std::uint64_t bytes = 1 << 20; bytes <= 8u << 20; bytes *= 2) {
    ResultRow row{"all_reduce", bytes, bytes / 4, "float", "sum", -1, {}, {}};
    for (Timing* t : {&row.out_of_place, &row.in_place})
      for (int rank = 0; rank < 2; ++rank) {
        GpuWindow w = recorded_window(*nvml, rank);
        w.rank = rank;
        t->gpu_state.push_back(w);
      }
    rows.push_back(row);
  }
  return rows;
}

const std::vector<std::string> kHosts = {"node-a", "node-a"};

TEST(GpuFindings, AThrottleIsNamedAloneWithItsRowsGrouped) {
  const auto found = gpu_state_findings(rows_from("throttle-rank1.json"), kHosts);
  ASSERT_EQ(found.size(), 1u) << testing::PrintToString(found);
  EXPECT_EQ(found[0],
            "GPU throttled: rank 1 (host node-a, GPU 1) was held by power cap (up to 87% of the window) during "
            "the 1 MiB-8 MiB all_reduce float sum rows: the likely cause of their times, before the fabric");
  EXPECT_EQ(throttle_during(rows_from("throttle-rank1.json"), 1), "power cap in 8 of its 8 windows, up to 87% of a window");
  EXPECT_EQ(throttle_during(rows_from("throttle-rank1.json"), 0), "");
}

TEST(GpuFindings, AClockDriftIsNamedAlone) {
  const auto found = gpu_state_findings(rows_from("clock-drift-rank1.json"), kHosts);
  ASSERT_EQ(found.size(), 1u) << testing::PrintToString(found);
  EXPECT_EQ(found[0],
            "GPU clock drift: rank 1 (host node-a, GPU 1) ran its SM clock at 1200 MHz, 25% below its node's mean "
            "of 1590 MHz (limit 10%, DCGM 4.5's rule), during the 1 MiB-8 MiB all_reduce float sum rows");
}

TEST(GpuFindings, APowerDriftIsNamedAlone) {
  const auto found = gpu_state_findings(rows_from("power-drift-rank1.json"), kHosts);
  ASSERT_EQ(found.size(), 1u) << testing::PrintToString(found);
  EXPECT_EQ(found[0],
            "GPU power drift: rank 1 (host node-a, GPU 1) drew 500 W, 25% above its node's mean of 400 W (limit "
            "20%, DCGM 4.5's rule), during the 1 MiB-8 MiB all_reduce float sum rows");
  // Sampled windows (each rank's own, up to a period apart) are not held to the drift rules; a
  // throttle is still named.
  EXPECT_TRUE(gpu_state_findings(rows_from("power-drift-rank1.json"), kHosts, /*drift=*/false).empty());
  EXPECT_TRUE(gpu_state_findings(rows_from("clock-drift-rank1.json"), kHosts, /*drift=*/false).empty());
  EXPECT_EQ(gpu_state_findings(rows_from("throttle-rank1.json"), kHosts, /*drift=*/false).size(), 1u);
}

TEST(GpuFindings, EpCasesAreGroupedByTokens) {
  auto nvml = health::replay_nvml(fixture("throttle-rank1.json"), "COMMSWEEP_NVML_RECORDING=x");
  std::vector<EpRow> rows;
  for (int tokens : {128, 256}) {
    EpRow row;
    row.routing = "uniform", row.tokens = tokens, row.hidden = 7168, row.topk = 8, row.experts = 256, row.dtype = "bf16";
    for (int rank = 0; rank < 2; ++rank) {
      GpuWindow w = recorded_window(*nvml, rank);
      w.rank = rank;
      row.gpu_state.push_back(w);
    }
    rows.push_back(row);
  }
  const auto found = gpu_state_findings(rows, kHosts);
  ASSERT_EQ(found.size(), 1u) << testing::PrintToString(found);
  EXPECT_EQ(found[0],
            "GPU throttled: rank 1 (host node-a, GPU 1) was held by power cap (up to 87% of the window) during "
            "the 128-256 tokens ep alltoallv bf16 uniform (hidden 7168, top-8 of 256) rows: the likely cause of "
            "their times, before the fabric");
}

TEST(GpuFindings, AHealthyNodeAndGpusOfDifferentHostsSayNothing) {
  EXPECT_TRUE(gpu_state_findings(rows_from("healthy.json"), kHosts).empty());
  // The drifted GPU alone on its host has no node mean to drift from.
  EXPECT_TRUE(gpu_state_findings(rows_from("clock-drift-rank1.json"), {"node-a", "node-b"}).empty());
}

TEST(GpuFindings, TheJsonKeepsTheWindowsAndOlderFilesHaveNone) {
  Results results;
  results.rows = rows_from("throttle-rank1.json");
  nlohmann::json doc = to_json(results);
  const nlohmann::json& half = doc["rows"][0]["out_of_place"];
  ASSERT_TRUE(half.contains("gpu_state"));
  EXPECT_EQ(half["gpu_state"][1]["throttles"][0]["reason"], "power cap");
  EXPECT_EQ(to_json(results_from_json(doc)), doc);
  for (auto& row : doc["rows"]) row["out_of_place"].erase("gpu_state"), row["in_place"].erase("gpu_state");
  EXPECT_TRUE(results_from_json(doc).rows[0].out_of_place.gpu_state.empty());
}

}  // namespace
}  // namespace commsweep::report
