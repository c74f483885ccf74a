// Device memory for the GPU exchanges: a buffer that grows (contents lost) and frees itself.
// (The lsa exchange's symmetric window, allocated and registered by every rank together, is
// its own: src/ep/lsa_exchange.cpp.)
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>

#include "runtime/cuda_check.hpp"

namespace commsweep::ep {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Room for `count` elements of T (at least 16 bytes); what it held is lost when it grows.
  template <typename T>
  T* grow(std::size_t count) {
    const std::size_t want = std::max<std::size_t>(count * sizeof(T), 16);
    if (bytes_ < want) {
      release();
      CS_CUDA(cudaMalloc(&ptr_, want));
      bytes_ = want;
    }
    return static_cast<T*>(ptr_);
  }
  template <typename T = void>
  T* get() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }
  void release() {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace commsweep::ep
