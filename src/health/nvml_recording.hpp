// A replaying NvmlApi: NVML's answers recorded as per-GPU sample sequences in a JSON file, in
// NVML's own units, so that tests plant throttling, clock or power drift and a trained-down
// NVLink on a machine without a GPU (the mpi backend) and never by changing a GPU's settings.
// The measuring commands use it in place of the loaded library when
// COMMSWEEP_NVML_RECORDING=FILE, for the per-window GPU state (run/gpu_window_observer.hpp) and
// for the health snapshots (run/health_gather.hpp), each with a replay of its own
// (docs/gpu-state.md). The format:
//   {"format": "commsweep.nvml-recording/1",
//    "gpus": [{"name": "NVIDIA H200", "samples": [
//      {"sm_mhz": 1980, "mem_mhz": 3201, "max_sm_mhz": 1980, "temperature_c": 41,
//       "power_mw": 310000, "power_limit_mw": 700000, "energy_mj": 5000000,
//       "violation_ns": {"power": 0, "thermal": 0, "sync_boost": 0, "board_limit": 0},
//       "reference_us": 1000000, "clock_event_reasons": 0}, ...],
//      "nvlink_state": [1, 1, ..., 0], "nvlink_version": [6, 6, ..., 6],
//      "nvlink_speed_mbps": 26562, "nvlink_link_count": 18}, ...]}
// A sample answers each call once; a call asked again moves its GPU to the next sample (one
// window end reads each call once). Past the last sample the gauges keep its values and the
// cumulative counters (energy_mj, violation_ns, reference_us) go on rising by the last two
// samples' difference: two samples are a steady state. The NVLink keys, optional, are the GPU's
// and move no sample: per link its state (nvmlEnableState_t, 1 active; a link past the list is
// one the GPU lacks) and version (nvmlNvlinkVersion_t, one per link of nvlink_state), and the
// fields NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON and NVML_FI_DEV_NVLINK_LINK_COUNT. A key left out
// answers Not Supported (a GPU without nvlink_state has no NVLink, as a pass-through VM's);
// the NVLink error counters and XID events are never recorded.
#pragma once

#include <memory>
#include <string>

#include "health/nvml_api.hpp"

namespace commsweep::health {

inline constexpr const char* kNvmlRecordingFormat = "commsweep.nvml-recording/1";

// Reads FILE; throws std::runtime_error naming NAMED ("COMMSWEEP_NVML_RECORDING=FILE"), the
// GPU, the sample and the key that is wrong.
std::unique_ptr<NvmlApi> replay_nvml(const std::string& file, const std::string& named);

}  // namespace commsweep::health
