// The GPU's state in one measured window: its clocks, heat, power and the throttling that was
// active while a half of a row was timed, from NVML read at the window's two ends only (before
// the barrier that starts the clock, after the timed pass returns: nothing is read inside).
// Cumulative counters make two reads enough: the energy counter's delta over the window's
// length is its mean power, each violation counter's delta its throttled time, with no
// sampling inside. Pure arithmetic here; the reads are run/gpu_window_observer.hpp's.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace commsweep::report {

// The reasons told apart, in this order (kThrottleNames): the first four have a violation
// counter (NVML_PERF_POLICY_POWER, THERMAL, SYNC_BOOST, BOARD_LIMIT), the last two only a clocks
// event reason bit.
enum class Throttle { PowerCap = 0, Thermal, SyncBoost, BoardLimit, HwSlowdown, HwPowerBrake };
inline constexpr int kThrottles = 6;
inline constexpr int kViolationCounters = 4;
inline constexpr std::array<const char*, kThrottles> kThrottleNames = {
    "power cap", "thermal", "sync boost", "board limit", "HW slowdown", "HW power brake"};
// nvmlClocksEventReason* bits (nvml.h) that say each reason is active now; 0: none.
inline constexpr std::array<std::uint64_t, kThrottles> kThrottleBits = {
    0x4,          // SwPowerCap
    0x20 | 0x40,  // SwThermalSlowdown | HwThermalSlowdown
    0x10,         // SyncBoost
    0,            // the board limit has no bit
    0x8,          // HwSlowdown
    0x80};        // HwPowerBrakeSlowdown

// NVML's answers at one end of a window, in NVML's units; a value NVML did not give is empty.
struct GpuSample {
  unsigned gpu = 0;  // NVML index
  std::optional<unsigned> sm_mhz, mem_mhz, max_sm_mhz, temperature_c, power_mw, power_limit_mw;
  std::optional<std::uint64_t> energy_mj;
  std::array<std::optional<std::uint64_t>, kViolationCounters> violation_ns;
  std::uint64_t reference_us = 0;  // NVML's CPU timestamp of the violation readings (0: none)
  double host_us = 0;              // the host's steady clock at the read
  std::optional<std::uint64_t> event_reasons;
};

// The energy counter advances in steps (the driver updates it, not every microsecond): over a
// window shorter than this its delta says little, and the power at the window's end is kept
// instead (power_from "sample").
inline constexpr double kEnergyMinWindowUs = 50'000;

struct ThrottleShare {
  std::string reason;           // kThrottleNames
  std::optional<double> share;  // of the window, 0-1, from its violation counter; empty: its
                                // bit was set at the window's end and no counter says how long
};

// One rank's GPU over one window. Readings NVML did not give are empty (null in the JSON).
struct GpuWindow {
  int rank = -1;
  int gpu = -1;                  // NVML index on the rank's host
  double window_us = 0;          // from the violation readings' NVML timestamps, else the host's clock
  std::optional<double> sm_mhz_start, sm_mhz_end, sm_mhz_max, mem_mhz, temperature_c;
  std::optional<double> power_w;  // mean over the window (energy), else the end's reading
  std::string power_from;         // "energy", "sample", or "" when neither
  // NVML's power reading at the window's end (nvmlDeviceGetPowerUsage: on Ampere and later its
  // mean over the last second), what the drift rule compares: read at the same moments on a
  // node's GPUs, where the energy counter's steps make two GPUs' means over one short window
  // differ (report/gpu_findings.hpp).
  std::optional<double> power_end_w;
  std::optional<double> power_limit_w;
  std::vector<ThrottleShare> throttles;  // active during the window (counter rose) or at its end
};

GpuWindow window_between(const GpuSample& start, const GpuSample& end);
// The share of REASON in W, or empty when it was not active; a bit without a counter counts 0
// (throttle_active tells it was active).
const ThrottleShare* throttle_in(const GpuWindow& w, Throttle reason);

// A flat form for the gather of the windows to rank 0 (World gathers numbers): kWindowNumbers.
inline constexpr std::size_t kWindowNumbers = 11 + kThrottles;
std::vector<double> window_numbers(const GpuWindow& w);
GpuWindow window_from_numbers(const std::vector<double>& v, int rank);

nlohmann::json gpu_window_json(const GpuWindow& w);
GpuWindow gpu_window_from(const nlohmann::json& j);

}  // namespace commsweep::report
