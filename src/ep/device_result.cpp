#include "ep/device_result.hpp"

#include <algorithm>

#include "ep_kernels.hpp"
#include "runtime/cuda_check.hpp"

namespace commsweep::ep {

EpResult read_device_result(const EpDeviceView& v) {
  const RecordFormat& f = v.format;
  EpResult r;
  r.recv_counts = v.recv_counts;
  r.per_expert_counts.resize(v.local_experts);
  if (v.local_experts > 0) {
    CS_CUDA(cudaMemcpy(r.per_expert_counts.data(), v.expert_counts, v.local_experts * sizeof(int),
                       cudaMemcpyDeviceToHost));
  }
  std::size_t records = 0;
  for (int c : v.recv_counts) records += static_cast<std::size_t>(std::max(c, 0));
  std::vector<std::uint8_t> bytes(records * f.bytes);
  if (!bytes.empty()) CS_CUDA(cudaMemcpy(bytes.data(), v.records, bytes.size(), cudaMemcpyDeviceToHost));
  read_routes(bytes.data(), static_cast<int>(records), f, r);
  std::size_t entries = 0;
  for (int c : r.per_expert_counts) entries += static_cast<std::size_t>(std::max(c, 0));
  entries = std::min(entries, v.expert_payload_bytes / f.payload_stride);
  r.payload_bytes = f.payload_stride;
  r.expert_payload.resize(entries * f.payload_stride);
  if (!r.expert_payload.empty()) {
    CS_CUDA(cudaMemcpy(r.expert_payload.data(), v.expert_payload, r.expert_payload.size(),
                       cudaMemcpyDeviceToHost));
  }
  r.combined.resize(static_cast<std::size_t>(v.tokens) * f.hidden);
  if (!r.combined.empty()) {
    CS_CUDA(cudaMemcpy(r.combined.data(), v.combined, r.combined.size() * 2, cudaMemcpyDeviceToHost));
  }
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
