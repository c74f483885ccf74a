#include <cuda_runtime_api.h>

#include <array>
#include <string>

#include "runtime/cuda_check.hpp"
#include "runtime/gpu.hpp"

namespace commsweep {
namespace detail {

void throw_cuda(cudaError_t code, const char* call, const char* file, int line) {
  throw Error(ErrorKind::Cuda,
              std::string(call) + " failed: " + cudaGetErrorName(code) + " (" +
                  cudaGetErrorString(code) + ")",
              call, file, line);
}

}  // namespace detail

namespace {
std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
}  // namespace

int visible_gpu_count(std::string* why_none) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    if (why_none) *why_none = std::string("no usable GPU: ") + cudaGetErrorString(rc);
    return 0;
  }
  if (count == 0 && why_none) *why_none = "no GPU visible (CUDA_VISIBLE_DEVICES?)";
  return count;
}

GpuChoice choose_gpu(int local_rank) {
  int count = 0;
  CS_CUDA(cudaGetDeviceCount(&count));
  GpuChoice choice;
  choice.device = local_rank % count;
  CS_CUDA(cudaSetDevice(choice.device));
  cudaDeviceProp prop{};
  CS_CUDA(cudaGetDeviceProperties(&prop, choice.device));
  choice.name = prop.name;
  std::array<char, 32> bus{};
  CS_CUDA(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), choice.device));
  choice.pci_bus_id = bus.data();
  return choice;
}

std::string gpu_driver_version() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess || v == 0) return "none";
  return version_text(v);
}

std::string cuda_runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "unknown";
  return version_text(v);
}

}  // namespace commsweep
