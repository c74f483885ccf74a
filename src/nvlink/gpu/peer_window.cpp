#include "nvlink/gpu/peer_window.hpp"

#include <cuda_runtime_api.h>

#include "runtime/cuda_check.hpp"

namespace commsweep::p2p {

PeerWindow::PeerWindow(NodeGroup& group, std::size_t bytes, const Phase& phase)
    : bytes_(bytes), me_(group.rank()), bases_(static_cast<std::size_t>(group.size()), nullptr),
      errors_(static_cast<std::size_t>(group.size())) {
  const std::size_t total = kHeaderBytes + bytes * (1 + static_cast<std::size_t>(group.size()));
  void* p = nullptr;
  const cudaError_t rc = cudaMalloc(&p, total);
  if (rc == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw Error(ErrorKind::OutOfMemory, "nvlink: cannot allocate " + std::to_string(total) +
                                            " B on this GPU (its data and a slot per GPU of the node): try a smaller -s");
  }
  CS_CUDA(rc);
  local_ = static_cast<char*>(p);
  CS_CUDA(cudaMemset(local_, 0, kHeaderBytes));
  bases_[static_cast<std::size_t>(me_)] = local_;
  cudaIpcMemHandle_t mine{};
  CS_CUDA(cudaIpcGetMemHandle(&mine, local_));
  const std::vector<cudaIpcMemHandle_t> handles = group.all_gather(mine, phase);
  for (int k = 0; k < group.size(); ++k) {
    if (k == me_) continue;
    void* peer = nullptr;
    const cudaError_t open = cudaIpcOpenMemHandle(&peer, handles[static_cast<std::size_t>(k)],
                                                  cudaIpcMemLazyEnablePeerAccess);
    if (open == cudaSuccess) {
      bases_[static_cast<std::size_t>(k)] = static_cast<char*>(peer);
    } else {
      cudaGetLastError();
      errors_[static_cast<std::size_t>(k)] = std::string("cudaIpcOpenMemHandle: ") + cudaGetErrorString(open);
    }
  }
}

PeerWindow::~PeerWindow() {
  for (std::size_t k = 0; k < bases_.size(); ++k) {
    if (bases_[k] != nullptr && bases_[k] != local_) cudaIpcCloseMemHandle(bases_[k]);
  }
  if (local_ != nullptr) cudaFree(local_);
}

}  // namespace commsweep::p2p
