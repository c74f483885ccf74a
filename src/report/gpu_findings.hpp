// What the GPU state of the windows (report/gpu_window.hpp) says about a sweep: the throttling
// that was active while rows were timed, and GPUs whose clocks or power drift from their node's
// mean. Each finding names the rank, its host and GPU, and the rows, consecutive sizes of one
// test grouped ("the 64 MiB-1 GiB all_reduce float sum rows"), so that a slow row is laid at its
// likely cause before the fabric is blamed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report/result.hpp"

namespace commsweep::report {

// Drift from the node's mean, as DCGM 4.5's diagnostic judges it (its clocks_tolerance_pcnt and
// power_tolerance_pcnt: "a clock speed outside the percentage threshold relative to the system
// mean", DCGM release notes 4.5.0). DCGM leaves the tolerance to the user; ours:
// - clocks: 10% below the mean. The GPUs of a node run one collective, so their SM clocks under
//   it agree within a few boost bins (15 MHz each); a power-capped or hot H100/H200 drops by
//   hundreds of MHz (the reported case: 570-690 MHz against 1980).
// - power: 20% above the mean. Power follows the work, which the ranks of a collective share;
//   a GPU drawing far more for the same work leaks or runs hot. One drawing less is the clock
//   rule's or a throttle reason's to name, so each side is judged once and a node of two GPUs
//   names one GPU, not both.
inline constexpr double kClockDriftPct = 10;
inline constexpr double kPowerDriftPct = 20;
// The drift rules compare a node's GPUs over the same moments, so a window whose length differs
// from the median of its node's by more than 10% and 10 ms is left out of them: one of its reads
// came off the schedule (a late sample). On 2 x H200 (2026-11-29, 29 healthy sampled runs, 9,982
// pairs of windows: docs/gpu-state.md#drift) the windows' mean powers lay up to 13% above the
// pair's mean where the lengths matched (9,919 pairs), and up to 29% where not.
// Power is compared by NVML's reading at the window's end (GpuWindow::power_end_w), not by the
// window's mean from the energy counter: the counter advances in steps, and read at the ends on
// 2 x H200 two GPUs' means over the same 155 ms of a 1 GiB row were 187 and 385 W in each of
// three runs. The end readings lay at most 4.6% above the pair's mean in 778 pairs of windows
// of the final build's healthy runs, sampled or read at the ends.
inline constexpr double kWindowMatchPct = 10;
inline constexpr double kWindowMatchUs = 10'000;

// The findings over ROWS (in the order measured); HOSTS_BY_RANK names the hosts (the node of a
// GPU is its host). Empty where no window was read or nothing is wrong. The drift rules compare
// the GPUs of a node in one window, so its ranks' windows must span the same moments: read at
// the window's ends, or sampled on one schedule for the host (run/gpu_sampler.hpp).
std::vector<std::string> gpu_state_findings(const std::vector<ResultRow>& rows,
                                            const std::vector<std::string>& hosts_by_rank);
// The same over EP rows (one window per case: its fresh-entry timed iterations), the cases of one
// implementation, type, routing and shape grouped by tokens.
std::vector<std::string> gpu_state_findings(const std::vector<EpRow>& rows,
                                            const std::vector<std::string>& hosts_by_rank);

// The throttling in one measured window of a workload without rows (a pair's tests of `nvlink`, a
// round of `pairs`): WINDOWS are the GPUs timed in it, NAME names one ("GPU 1 (rank 1, ...)"),
// DURING says what was timed ("GPU 0 -> GPU 1's tests"). One finding per throttled GPU:
// "GPU throttled: GPU 1 (...) was held by power cap (87% of the window) during GPU 0 -> GPU 1's
// tests: the likely cause of its slowness, before the fabric". Empty where none was throttled.
std::vector<std::string> throttle_findings(const std::vector<GpuWindow>& windows,
                                           const std::function<std::string(const GpuWindow&)>& name,
                                           const std::string& during);

// RANK's throttling over ROWS, to join to a finding about that rank ("power cap in 12 of its 16
// windows, up to 87% of a window"); "" when none was active.
std::string throttle_during(const std::vector<ResultRow>& rows, int rank);

}  // namespace commsweep::report
