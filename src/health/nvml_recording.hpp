// A replaying NvmlApi: NVML's answers recorded as per-GPU sample sequences in a JSON file, in
// NVML's own units, so that tests plant throttling, clock drift or power drift on a machine
// without a GPU (the mpi backend) and never by changing a GPU's settings. The measuring
// commands use it in place of the loaded library for the per-window GPU state when
// COMMSWEEP_NVML_RECORDING=FILE (docs/gpu-state.md). The format:
//   {"format": "commsweep.nvml-recording/1",
//    "gpus": [{"name": "NVIDIA H200", "samples": [
//      {"sm_mhz": 1980, "mem_mhz": 3201, "max_sm_mhz": 1980, "temperature_c": 41,
//       "power_mw": 310000, "power_limit_mw": 700000, "energy_mj": 5000000,
//       "violation_ns": {"power": 0, "thermal": 0, "sync_boost": 0, "board_limit": 0},
//       "reference_us": 1000000, "clock_event_reasons": 0}, ...]}, ...]}
// A sample answers each call once; a call asked again moves its GPU to the next sample (one
// window end reads each call once). Past the last sample the gauges keep its values and the
// cumulative counters (energy_mj, violation_ns, reference_us) go on rising by the last two
// samples' difference: two samples are a steady state. A key left out answers Not Supported.
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
