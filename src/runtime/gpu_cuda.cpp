#include <sys/stat.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cctype>
#include <fstream>
#include <sstream>
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

// Why cudaGetDeviceCount found none, in the words of a machine's owner: without an NVIDIA
// driver CUDA says "driver version is insufficient", which reads as broken; it is no GPU.
static std::string why_no_gpu(cudaError_t rc) {
  struct stat st {};
  const bool driver = stat("/proc/driver/nvidia/version", &st) == 0;
  if (!driver && (rc == cudaErrorInsufficientDriver || rc == cudaErrorNoDevice)) {
    return "no GPU on this machine (no NVIDIA driver loaded)";
  }
  if (rc == cudaErrorNoDevice) return "no GPU on this machine (the NVIDIA driver sees none)";
  return std::string("no usable GPU: ") + cudaGetErrorString(rc);
}

int visible_gpu_count(std::string* why_none) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    if (why_none) *why_none = why_no_gpu(rc);
    return 0;
  }
  if (count == 0 && why_none) *why_none = "no GPU visible (CUDA_VISIBLE_DEVICES?)";
  return count;
}

std::string planned_gpu_bus_id(int local_rank) {
  int count = 0;
  CS_CUDA(cudaGetDeviceCount(&count));
  std::array<char, 32> bus{};
  CS_CUDA(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), local_rank % count));
  return bus.data();
}

GpuChoice choose_gpu(int local_rank) {
  int count = 0;
  CS_CUDA(cudaGetDeviceCount(&count));
  CS_CUDA(cudaSetDevice(local_rank % count));
  return current_gpu();
}

GpuChoice current_gpu() {
  GpuChoice choice;
  CS_CUDA(cudaGetDevice(&choice.device));
  cudaDeviceProp prop{};
  CS_CUDA(cudaGetDeviceProperties(&prop, choice.device));
  choice.name = prop.name;
  std::array<char, 32> bus{};
  CS_CUDA(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), choice.device));
  choice.pci_bus_id = bus.data();
  return choice;
}

// The kernel module's version (what nvidia-smi calls the driver version), then the CUDA
// version the driver supports: "580.159.04 (CUDA 13.0)".
std::string gpu_driver_version() {
  std::string module;
  std::ifstream proc("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(proc, line)) {
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) &&
          word.find('.') != std::string::npos) {
        module = word;
        break;
      }
    }
  }
  int v = 0;
  const bool cuda = cudaDriverGetVersion(&v) == cudaSuccess && v != 0;
  if (module.empty()) return cuda ? "CUDA " + version_text(v) : "none";
  return cuda ? module + " (CUDA " + version_text(v) + ")" : module;
}

std::string cuda_runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "unknown";
  return version_text(v);
}

}  // namespace commsweep
