// GPU discovery and choice. The device is the local rank modulo the devices this process
// sees, so CUDA_VISIBLE_DEVICES is honoured (a rank that sees one GPU uses it).
#pragma once

#include <string>

namespace commsweep {

struct GpuChoice {
  int device = -1;
  std::string name;
  std::string pci_bus_id;
};

// The GPUs this process sees; 0 with the reason when there are none (no driver, no device,
// or a build without CUDA). A toolkit without a driver answers cudaErrorInsufficientDriver:
// that is "no GPU", not a failure.
int visible_gpu_count(std::string* why_none);
GpuChoice choose_gpu(int local_rank);
// The GPU this thread uses now (cudaGetDevice): its device, name and PCI bus id.
GpuChoice current_gpu();
// The PCI bus id of the GPU choose_gpu(LOCAL_RANK) would take, without taking it (no
// cudaSetDevice): what tells two ranks of a host that would share one (runtime/gpu_sharing.hpp).
std::string planned_gpu_bus_id(int local_rank);
std::string gpu_driver_version();
std::string cuda_runtime_version();

}  // namespace commsweep
