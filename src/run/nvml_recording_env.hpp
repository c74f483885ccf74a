// COMMSWEEP_NVML_RECORDING=FILE: NVML's answers replayed from FILE (health/nvml_recording.hpp)
// in place of the driver's, so that tests plant a GPU's state on a machine without one. Two
// readers open it, each with a replay of its own so that neither moves the other's samples: the
// per-window GPU state (run/gpu_window_observer.hpp; local rank r reads the recording's GPU r)
// and the health snapshots (run/health_gather.hpp; a node's reader reads every GPU of the
// recording as the node's GPUs). docs/gpu-state.md, "Planting a state".
#pragma once

#include <memory>
#include <string>

#include "health/nvml_api.hpp"

namespace commsweep {

struct NvmlRecording {
  std::string named;                   // "COMMSWEEP_NVML_RECORDING=FILE", as messages name it
  std::unique_ptr<health::NvmlApi> nvml;  // the replay; empty where the variable is unset or empty
};

// The recording the variable names, replayed from its first sample. A file that cannot be read,
// or a wrong key, is a usage Error naming the variable, the GPU, the sample and the key.
NvmlRecording nvml_recording();

}  // namespace commsweep
