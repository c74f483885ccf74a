#include "ep/gpu/device_result.hpp"

#include <algorithm>

#include "ep/result_ranges.hpp"
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

// The device bytes of `range` appended to `host`.
void append_from_device(std::vector<std::uint8_t>& host, const std::uint8_t* device, const ByteRange& range) {
  if (range.bytes == 0) return;
  const std::size_t end = host.size();
  host.resize(end + range.bytes);
  CS_CUDA(cudaMemcpy(host.data() + end, device + range.at, range.bytes, cudaMemcpyDeviceToHost));
}

}  // namespace

EpResult read_device_result(const EpDeviceView& v) {
  const RecordFormat& f = v.format;
  EpResult r;
  r.recv_counts = v.recv_counts;
  std::vector<std::uint8_t> bytes;
  std::size_t records = 0;
  for (const ByteRange& range : record_ranges(v.recv_counts, v.records_room, f.bytes)) {
    append_from_device(bytes, v.records, range);
    records += range.bytes / f.bytes;
  }
  read_routes(bytes.data(), static_cast<int>(records), f, r);
  const std::size_t segments = static_cast<std::size_t>(v.local_experts) * std::max(v.expert_sources, 1);
  const std::vector<int> counts = from_device(v.expert_counts, segments);
  const std::vector<int> bases = v.expert_base != nullptr ? from_device(v.expert_base, segments) : std::vector<int>{};
  EntryRanges entries = entry_ranges(counts, bases, v.expert_sources, f.payload_stride,
                                     v.expert_payload_bytes / f.payload_stride);
  r.payload_bytes = f.payload_stride;
  r.per_expert_counts = std::move(entries.per_expert);
  for (const ByteRange& range : entries.ranges) append_from_device(r.expert_payload, v.expert_payload, range);
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
