#include "sweep/slices.hpp"

#include <algorithm>

namespace commsweep {

const char* name_of(Buffers buffers) { return buffers == Buffers::Warm ? "warm" : "cold"; }

std::size_t align_up(std::size_t bytes, std::size_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

BufferSlices plan_slices(std::size_t capacity, std::size_t extent, Buffers buffers) {
  BufferSlices slices;
  if (buffers == Buffers::Warm || extent == 0 || capacity < extent) return slices;
  slices.stride = align_up(extent, kSliceAlignment);
  // Slice k spans [k * stride, k * stride + extent): the last one needs its extent, not a
  // whole stride, so a buffer of exactly one message holds one slice.
  slices.count = (capacity - extent) / slices.stride + 1;
  if (slices.count == 1) slices.stride = 0;
  return slices;
}

BufferBytes buffer_bytes(std::size_t largest_send, std::size_t largest_recv, Buffers buffers) {
  // In place, the receive buffer holds both sides (reduce_scatter's input, all_gather's output).
  const std::size_t larger = std::max(largest_send, largest_recv);
  return {buffers == Buffers::Cold ? larger : largest_send, larger};
}

}  // namespace commsweep
