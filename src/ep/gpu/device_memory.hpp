// The CUDA resources of the GPU exchanges, each in an owner that frees it (move-only, never
// copied): device memory and pinned host memory that grow (contents lost), an event, and an
// instantiated graph. (The lsa exchange's symmetric window, allocated and registered by every
// rank together, and its communicators are its own: src/ep/gpu/lsa_exchange.cpp.)
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <utility>

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

// Pinned host memory, for copies that the host reads as soon as an event says they landed.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { release(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  // Room for `count` elements of T; what it held is lost when it grows.
  template <typename T>
  T* grow(std::size_t count) {
    const std::size_t want = std::max<std::size_t>(count * sizeof(T), 16);
    if (bytes_ < want) {
      release();
      CS_CUDA(cudaMallocHost(&ptr_, want));
      bytes_ = want;
    }
    return static_cast<T*>(ptr_);
  }
  template <typename T = void>
  T* get() const { return static_cast<T*>(ptr_); }
  void release() {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// A CUDA event that only orders and signals (no timing).
class Event {
 public:
  Event() { CS_CUDA(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// A CUDA graph, instantiated, or none.
class GraphExec {
 public:
  GraphExec() = default;
  ~GraphExec() { reset(); }
  GraphExec(GraphExec&& other) noexcept : exec_(std::exchange(other.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& other) noexcept {
    if (this != &other) {
      reset();
      exec_ = std::exchange(other.exec_, nullptr);
    }
    return *this;
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  // What STREAM's work between `begin` and `end` of a capture becomes: LAUNCH's (which
  // enqueues on STREAM and answers its error). False, and no graph, where the capture, the
  // launch or the instantiation failed (the stream's capture ended either way).
  template <typename Launch>
  bool capture(cudaStream_t stream, Launch&& launch) {
    reset();
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return false;
    const cudaError_t launched = launch();
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    const bool ok = launched == cudaSuccess && ended == cudaSuccess && cudaGraphInstantiate(&exec_, graph, 0) == cudaSuccess;
    if (graph != nullptr) cudaGraphDestroy(graph);  // the instance keeps what it needs
    if (!ok) reset();
    return ok;
  }
  cudaGraphExec_t get() const { return exec_; }
  void reset() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace commsweep::ep
