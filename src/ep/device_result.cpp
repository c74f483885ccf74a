#include "ep/device_result.hpp"

#include <algorithm>

#include "ep_kernels.hpp"
#include "runtime/cuda_check.hpp"

namespace commsweep::ep {

namespace {

template <class T>
std::vector<T> from_device(const T* device, std::size_t count) {
  std::vector<T> host(count);
  if (count > 0) CS_CUDA(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Device bytes [at, at + bytes) of `device` appended to `host`.
void append_from_device(std::vector<std::uint8_t>& host, const std::uint8_t* device, std::size_t at,
                        std::size_t bytes) {
  if (bytes == 0) return;
  const std::size_t end = host.size();
  host.resize(end + bytes);
  CS_CUDA(cudaMemcpy(host.data() + end, device + at, bytes, cudaMemcpyDeviceToHost));
}

}  // namespace

EpResult read_device_result(const EpDeviceView& v) {
  const RecordFormat& f = v.format;
  EpResult r;
  r.recv_counts = v.recv_counts;
  // The received records, sources ascending, back to back.
  std::vector<std::uint8_t> bytes;
  std::size_t records = 0, back_to_back = 0;
  for (std::size_t s = 0; s < v.recv_counts.size(); ++s) {
    std::size_t count = static_cast<std::size_t>(std::max(v.recv_counts[s], 0));
    if (v.records_room > 0) count = std::min(count, static_cast<std::size_t>(v.records_room));  // never past its region
    const std::size_t from = v.records_room > 0 ? s * static_cast<std::size_t>(v.records_room) : back_to_back;
    append_from_device(bytes, v.records, from * f.bytes, count * f.bytes);
    back_to_back += count;
    records += count;
  }
  read_routes(bytes.data(), static_cast<int>(records), f, r);
  // The expert-grouped entries, local experts in order, each expert's segments in order.
  r.payload_bytes = f.payload_stride;
  const std::size_t segments = static_cast<std::size_t>(v.local_experts) * std::max(v.expert_sources, 1);
  const std::vector<int> counts = from_device(v.expert_counts, segments);
  const std::vector<int> bases = v.expert_base != nullptr ? from_device(v.expert_base, segments) : std::vector<int>{};
  const std::size_t room = v.expert_payload_bytes / f.payload_stride;
  r.per_expert_counts.assign(v.local_experts, 0);
  std::size_t next = 0;  // back to back: where the next segment starts
  for (std::size_t k = 0; k < segments; ++k) {
    const std::size_t count = static_cast<std::size_t>(std::max(counts[k], 0));
    const std::size_t base = bases.empty() ? next : static_cast<std::size_t>(std::max(bases[k], 0));
    r.per_expert_counts[k / std::max(v.expert_sources, 1)] += counts[k];
    next = base + count;
    const std::size_t kept = base < room ? std::min(count, room - base) : 0;  // never past the room
    append_from_device(r.expert_payload, v.expert_payload, base * f.payload_stride, kept * f.payload_stride);
  }
  r.combined = from_device(v.combined, static_cast<std::size_t>(v.tokens) * f.hidden);
  return r;
}

void upload_case(std::uint8_t* input, std::int32_t* idx, float* weights, int tokens,
                 const RecordFormat& f, const Routing& mine, std::uint64_t seed, int rank,
                 cudaStream_t stream) {
  CS_CUDA(kernels::prepare_input(input, tokens, f, seed, rank, stream));
  if (tokens > 0) {
    CS_CUDA(cudaMemcpyAsync(idx, mine.experts.data(), mine.experts.size() * 4,
                            cudaMemcpyHostToDevice, stream));
    CS_CUDA(cudaMemcpyAsync(weights, mine.weights.data(), mine.weights.size() * 4,
                            cudaMemcpyHostToDevice, stream));
  }
  CS_CUDA(cudaStreamSynchronize(stream));
}

}  // namespace commsweep::ep
