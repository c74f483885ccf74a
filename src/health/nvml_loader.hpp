// The real NvmlApi: libnvidia-ml.so.1 (the library the GPU driver ships) opened with dlopen at
// run time, each function looked up by name, so that a machine without a driver, or a driver
// older than a function, still runs (unavailable() says why; a missing function answers
// kFunctionNotFound). Built without nvml.h, it is always unavailable and says so.
#pragma once

#include <memory>

#include "health/nvml_api.hpp"

namespace commsweep::health {

// Loads and initialises NVML now (nvmlInit_v2); shut down when the object goes.
std::unique_ptr<NvmlApi> load_nvml();
// Whether this build had nvml.h (false: NVML is never read, and `commsweep health` says so).
bool built_with_nvml();

}  // namespace commsweep::health
