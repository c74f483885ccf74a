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
  EXPECT_DOUBLE_EQ(*w.power_end_w, 123);          // the end's reading, kept beside the mean
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
  // An older file's window has no end reading.
  nlohmann::json older = gpu_window_json(w);
  older.erase("power_end_w");
  EXPECT_FALSE(gpu_window_from(older).power_end_w.has_value());
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

// The slots a window takes (run/gpu_sampler.hpp): the last read whole before each of its ends,
// or the two before it where it starts and ends in one slot.
TEST(GpuSampler, AWindowTakesTheLastSlotsReadBeforeItsEnds) {
  EXPECT_EQ(slot_at(250'000, std::chrono::milliseconds(100)), 2);
  EXPECT_EQ(slot_at(299'999.5, std::chrono::milliseconds(100)), 2);
  EXPECT_EQ(slot_at(300'000, std::chrono::milliseconds(100)), 3);
  const SlotSpan within = window_slots(5, 5), next = window_slots(5, 6), longer = window_slots(5, 9);
  EXPECT_EQ(within.start, 3);
  EXPECT_EQ(within.end, 4);
  EXPECT_EQ(next.start, 4);
  EXPECT_EQ(next.end, 5);
  EXPECT_EQ(longer.start, 4);
  EXPECT_EQ(longer.end, 8);
}

// Two ranks' samplers on the recording (each its own replay, as each rank opens its own): they
// read at the host's slots, and a window marked and ended at the same moments on both takes the
// same slots' samples on both, so that their GPUs can be compared (the drift rules). Each read
// is the recording's next window end, so the samples of two slots make a window of it, throttle
// and all.
TEST(GpuSampler, TwoRanksReadAtTheHostsSlotsAndTakeTheSameOnes) {
  const std::chrono::milliseconds period(50);
  const double period_us = 50'000;
  auto nvml_a = health::replay_nvml(fixture("throttle-rank1.json"), "COMMSWEEP_NVML_RECORDING=x");
  auto nvml_b = health::replay_nvml(fixture("throttle-rank1.json"), "COMMSWEEP_NVML_RECORDING=x");
  const auto made = std::chrono::steady_clock::now();
  {
    GpuSampler a(*nvml_a, 1, period), b(*nvml_b, 0, period);
    EXPECT_GE(a.reads(), 2);  // the first two are the constructor's
    // A window before the thread's first read spans those two, never one sample twice.
    const auto [first_start, first_end] = a.window(a.mark());
    EXPECT_LT(first_start.sample.host_us, first_end.sample.host_us);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((a.reads() < 4 || b.reads() < 4) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_GE(a.reads(), 4);
    ASSERT_GE(b.reads(), 4);
    // A window of several slots, then one within a slot (marked and ended at once).
    const SamplerMark ma = a.mark(), mb = b.mark();
    std::this_thread::sleep_for(3 * period);
    const auto [a_start, a_end] = a.window(ma);
    const auto [b_start, b_end] = b.window(mb);
    EXPECT_EQ(a_start.slot, ma.slot - 1);
    EXPECT_GE(a_end.slot, ma.slot + 2);
    EXPECT_EQ(b_start.slot, a_start.slot);
    EXPECT_EQ(b_end.slot, a_end.slot);
    for (const SlotSample* s : {&a_start, &a_end, &b_start, &b_end})
      EXPECT_GE(s->sample.host_us, static_cast<double>(s->slot) * period_us) << "read before its slot began";
    const SamplerMark short_mark = a.mark();
    const auto [s_start, s_end] = a.window(short_mark);
    EXPECT_EQ(s_end.slot, short_mark.slot - 1);
    EXPECT_LT(s_start.slot, s_end.slot);

    const GpuWindow w = window_between(a_start.sample, a_end.sample);
    // Whole steps of the recording, each 100 ms: one per read between the two samples.
    EXPECT_GE(w.window_us, 200'000);
    EXPECT_DOUBLE_EQ(std::fmod(w.window_us, 100'000), 0);
    ASSERT_NE(throttle_in(w, Throttle::PowerCap), nullptr);
    EXPECT_NEAR(*throttle_in(w, Throttle::PowerCap)->share, 0.87, 1e-9);
    EXPECT_TRUE(window_between(b_start.sample, b_end.sample).throttles.empty());
    EXPECT_GT(a.read_us(), 0);
  }  // joins their threads: a sampler that did not stop would hang here, and ctest's timeout fail it
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
}

// A window read off the schedule (one rank's sample came late, so its window is longer than the
// node's others) spans other moments: it is left out of the drift rules, and a throttle in it is
// still named.
TEST(GpuFindings, AWindowOfAnotherLengthIsNotHeldToTheDriftRules) {
  auto late = [](std::vector<ResultRow> rows, double factor) {
    for (ResultRow& row : rows)
      for (Timing* t : {&row.out_of_place, &row.in_place}) t->gpu_state[1].window_us *= factor;
    return rows;
  };
  // The recording's windows are 100 ms: 134 ms is off by more than 10% (and 10 ms) of the
  // median, 108 ms is within it.
  EXPECT_TRUE(gpu_state_findings(late(rows_from("power-drift-rank1.json"), 1.34), kHosts).empty());
  EXPECT_TRUE(gpu_state_findings(late(rows_from("clock-drift-rank1.json"), 1.34), kHosts).empty());
  EXPECT_EQ(gpu_state_findings(late(rows_from("power-drift-rank1.json"), 1.08), kHosts).size(), 1u);
  EXPECT_EQ(gpu_state_findings(late(rows_from("throttle-rank1.json"), 1.34), kHosts).size(), 1u);
  // Power is judged by the readings at the windows' ends, not by the means over them (the
  // energy counter's steps: two healthy H200s' means over one window differed twofold).
  std::vector<ResultRow> stepped = rows_from("healthy.json");
  for (ResultRow& row : stepped)
    for (Timing* t : {&row.out_of_place, &row.in_place}) *t->gpu_state[1].power_w *= 2;
  EXPECT_TRUE(gpu_state_findings(stepped, kHosts).empty());
  std::vector<ResultRow> drawn = rows_from("healthy.json");
  for (ResultRow& row : drawn)
    for (Timing* t : {&row.out_of_place, &row.in_place}) *t->gpu_state[1].power_end_w *= 2;
  EXPECT_EQ(gpu_state_findings(drawn, kHosts).size(), 1u);
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
