// The arithmetic of --buffers cold: which slice of the sweep's buffers each iteration uses.
#pragma once

#include <cstddef>

#include "comm/backend.hpp"
#include "core/sweep_config.hpp"

namespace commsweep {

// Slices start at multiples of this many bytes from the buffer's start. cudaMalloc returns
// 256-byte aligned memory and NCCL picks its vectorised (16-byte) load and store paths by the
// pointers' alignment: a slice aligned as the buffer itself keeps every iteration on the same
// code path, so only the addresses change, not the kernels; 256 is also a multiple of every
// element size (1 to 8 bytes), which MPI's typed reductions on host memory need.
inline constexpr std::size_t kSliceAlignment = 256;

// `bytes` rounded up to a multiple of `alignment` (> 0).
std::size_t align_up(std::size_t bytes, std::size_t alignment);

// Slices of `extent` bytes (one message: the larger of its send and receive sides, in-place
// offsets included) in buffers of `capacity` bytes each, `kSliceAlignment`-aligned apart. As
// many as fit whole; the next after the last wraps to the first. Warm, an empty message, or
// buffers that hold one slice only: a single slice at offset 0 (the same bytes every time).
BufferSlices plan_slices(std::size_t capacity, std::size_t extent, Buffers buffers);

// Buffers for messages of up to `largest` bytes: cold gives both buffers the same capacity
// (each slice moves both pointers by the same stride), warm keeps the smaller send buffer.
struct BufferBytes {
  std::size_t send = 0;
  std::size_t recv = 0;
};
BufferBytes buffer_bytes(std::size_t largest_send, std::size_t largest_recv, Buffers buffers);

}  // namespace commsweep
