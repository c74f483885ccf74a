// The build without CUDA (-DCOMMSWEEP_CUDA=OFF or no toolkit): there are no GPUs to use.
#include "runtime/gpu.hpp"

#include "core/error.hpp"

namespace commsweep {

int visible_gpu_count(std::string* why_none) {
  if (why_none) *why_none = "built without CUDA (COMMSWEEP_CUDA=OFF or no CUDA toolkit)";
  return 0;
}

GpuChoice choose_gpu(int) {
  throw Error(ErrorKind::Runtime, "this commsweep was built without CUDA: no GPU can be chosen");
}

GpuChoice current_gpu() {
  throw Error(ErrorKind::Runtime, "this commsweep was built without CUDA: no GPU is in use");
}

std::string planned_gpu_bus_id(int) {
  throw Error(ErrorKind::Runtime, "this commsweep was built without CUDA: no GPU can be chosen");
}

std::string gpu_driver_version() { return "none"; }
std::string cuda_runtime_version() { return "none"; }

}  // namespace commsweep
