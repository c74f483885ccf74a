#include "run/nvml_recording_env.hpp"

#include <cstdlib>
#include <stdexcept>

#include "core/error.hpp"
#include "health/nvml_recording.hpp"

namespace commsweep {

NvmlRecording nvml_recording() {
  NvmlRecording r;
  const char* file = std::getenv("COMMSWEEP_NVML_RECORDING");
  if (!file || !*file) return r;
  r.named = std::string("COMMSWEEP_NVML_RECORDING=") + file;
  try {
    r.nvml = health::replay_nvml(file, r.named);
  } catch (const std::runtime_error& e) {
    throw_usage(e.what());
  }
  return r;
}

}  // namespace commsweep
