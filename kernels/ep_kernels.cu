#include <cub/block/block_scan.cuh>

#include "ep_kernels.hpp"
#include "pattern/ep_pattern.hpp"

namespace commsweep::ep::kernels {
namespace {

constexpr int kScanThreads = 512;
constexpr int kCopyThreads = 256;

// 16-byte copies: every payload has payload_stride (a multiple of 16) bytes of room in every
// buffer and record, so whole strides are copied.
__device__ void copy16(std::uint8_t* dst, const std::uint8_t* src, std::uint32_t bytes) {
  const auto* s = reinterpret_cast<const uint4*>(src);
  auto* d = reinterpret_cast<uint4*>(dst);
  for (std::uint32_t i = threadIdx.x; i < bytes / 16; i += blockDim.x) d[i] = s[i];
}

__global__ void prepare_input_kernel(std::uint8_t* input, RecordFormat f, std::uint64_t seed, int rank) {
  const int token = blockIdx.x;
  std::uint8_t* dst = input + static_cast<std::size_t>(token) * f.payload_stride;
  // The padding to the stride travels with the payload: zeroes, never the buffer's old bytes
  // (an lsa receiver of a marked dispatch polls every word of it: kernels/ep_lsa_sync.cuh).
  for (std::uint32_t b = f.payload_bytes + threadIdx.x; b < f.payload_stride; b += blockDim.x) dst[b] = 0;
  if (!f.fp8) {
    auto* out = reinterpret_cast<std::uint16_t*>(dst);
    for (std::uint32_t e = threadIdx.x; e < f.hidden; e += blockDim.x) {
      out[e] = token_value_bits(seed, rank, token, e, f.hidden);
    }
    return;
  }
  for (std::uint32_t b = threadIdx.x; b < f.hidden / kFp8BlockElements; b += blockDim.x) {
    float amax = 0;
    for (int i = 0; i < kFp8BlockElements; ++i) {
      const float v = bf16_to_float(token_value_bits(seed, rank, token, b * kFp8BlockElements + i, f.hidden));
      amax = fmaxf(amax, fabsf(v));
    }
    const float scale = fp8_block_scale(amax);
    for (int i = 0; i < kFp8BlockElements; ++i) {
      const std::uint32_t e = b * kFp8BlockElements + i;
      dst[e] = quantize_e4m3(bf16_to_float(token_value_bits(seed, rank, token, e, f.hidden)), scale);
    }
    reinterpret_cast<float*>(dst + f.scales_offset)[b] = scale;
  }
}

// One block per destination rank: scan the tokens in order.
__global__ void layout_kernel(const std::int32_t* idx, int tokens, int topk, int per_rank,
                              int nranks, int* slot, int* send_counts) {
  using Scan = cub::BlockScan<int, kScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  const int d = blockIdx.x;
  int running = 0;
  for (int base = 0; base < tokens; base += kScanThreads) {
    const int t = base + threadIdx.x;
    int flag = 0;
    if (t < tokens) {
      for (int j = 0; j < topk; ++j) flag |= idx[static_cast<std::size_t>(t) * topk + j] / per_rank == d;
    }
    int prefix = 0, aggregate = 0;
    Scan(temp).ExclusiveSum(flag, prefix, aggregate);
    if (t < tokens) slot[static_cast<std::size_t>(t) * nranks + d] = flag ? running + prefix : -1;
    running += aggregate;
    __syncthreads();
  }
  if (threadIdx.x == 0) send_counts[d] = running;
}

__global__ void offsets_kernel(const int* counts, int n, int* offsets) {
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    offsets[i] = sum;
    sum += counts[i];
  }
}

__global__ void pack_kernel(const std::uint8_t* input, const std::int32_t* idx, const float* weights,
                            int nranks, const int* slot, const int* send_offsets, RecordFormat f,
                            std::uint8_t* send) {
  const int t = blockIdx.x;
  for (int d = 0; d < nranks; ++d) {
    const int s = slot[static_cast<std::size_t>(t) * nranks + d];
    if (s < 0) continue;
    std::uint8_t* rec = send + static_cast<std::size_t>(send_offsets[d] + s) * f.bytes;
    copy16(rec, input + static_cast<std::size_t>(t) * f.payload_stride, f.payload_stride);
    for (std::uint32_t j = threadIdx.x; j < f.topk; j += blockDim.x) {
      reinterpret_cast<std::int32_t*>(rec + f.idx_offset)[j] = idx[static_cast<std::size_t>(t) * f.topk + j];
      reinterpret_cast<float*>(rec + f.weight_offset)[j] = weights[static_cast<std::size_t>(t) * f.topk + j];
    }
  }
}

// One block per local expert: scan the received records in order.
__global__ void positions_kernel(const std::uint8_t* recv, int records, RecordFormat f,
                                 int first_expert, int* entry_pos, int* expert_counts) {
  using Scan = cub::BlockScan<int, kScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  const int expert = first_expert + blockIdx.x;
  int running = 0;
  for (int base = 0; base < records; base += kScanThreads) {
    const int r = base + threadIdx.x;
    int slot_j = -1;
    if (r < records) {
      const auto* idx = reinterpret_cast<const std::int32_t*>(recv + static_cast<std::size_t>(r) * f.bytes + f.idx_offset);
      for (std::uint32_t j = 0; j < f.topk; ++j) {
        if (idx[j] == expert) slot_j = static_cast<int>(j);
      }
    }
    int prefix = 0, aggregate = 0;
    Scan(temp).ExclusiveSum(slot_j >= 0 ? 1 : 0, prefix, aggregate);
    if (slot_j >= 0) entry_pos[static_cast<std::size_t>(r) * f.topk + slot_j] = running + prefix;
    running += aggregate;
    __syncthreads();
  }
  if (threadIdx.x == 0) expert_counts[blockIdx.x] = running;
}

__global__ void unpack_kernel(const std::uint8_t* recv, RecordFormat f, int first_expert,
                              const int* entry_pos, const int* expert_base, std::uint8_t* expert_payload) {
  const int r = blockIdx.x;
  const std::uint8_t* rec = recv + static_cast<std::size_t>(r) * f.bytes;
  const auto* idx = reinterpret_cast<const std::int32_t*>(rec + f.idx_offset);
  for (std::uint32_t j = 0; j < f.topk; ++j) {
    const int p = entry_pos[static_cast<std::size_t>(r) * f.topk + j];
    if (p < 0) continue;
    const std::size_t entry = static_cast<std::size_t>(expert_base[idx[j] - first_expert] + p);
    copy16(expert_payload + entry * f.payload_stride, rec, f.payload_stride);
  }
}

__device__ float entry_value(const std::uint8_t* payload, RecordFormat f, std::uint32_t e) {
  if (!f.fp8) return bf16_to_float(reinterpret_cast<const std::uint16_t*>(payload)[e]);
  const float scale = reinterpret_cast<const float*>(payload + f.scales_offset)[e / kFp8BlockElements];
  return dequantize_e4m3(payload[e], scale);
}

// blockIdx.y: segment (local expert x sources + k); blocks along x stride over its entries.
__global__ void experts_kernel(const std::uint8_t* expert_payload, const int* expert_counts,
                               const int* expert_base, int sources, int first_expert, RecordFormat f,
                               std::uint16_t* expert_output) {
  const int segment = blockIdx.y, l = segment / sources;
  for (int p = blockIdx.x; p < expert_counts[segment]; p += gridDim.x) {
    const std::size_t entry = static_cast<std::size_t>(expert_base[segment] + p);
    const std::uint8_t* in = expert_payload + entry * f.payload_stride;
    std::uint16_t* out = expert_output + entry * f.hidden;
    for (std::uint32_t e = threadIdx.x; e < f.hidden; e += blockDim.x) {
      out[e] = expert_output_bits(entry_value(in, f, e), first_expert + l);
    }
  }
}

// One block per received record; each thread 8 consecutive elements (16-byte loads).
__global__ void combine_pack_kernel(const std::uint8_t* recv, RecordFormat f, int first_expert,
                                    const int* entry_pos, const int* expert_base,
                                    const std::uint16_t* expert_output, std::uint16_t* combine_send) {
  const int r = blockIdx.x;
  const std::uint8_t* rec = recv + static_cast<std::size_t>(r) * f.bytes;
  const auto* idx = reinterpret_cast<const std::int32_t*>(rec + f.idx_offset);
  const auto* weight = reinterpret_cast<const float*>(rec + f.weight_offset);
  for (std::uint32_t e0 = threadIdx.x * 8; e0 < f.hidden; e0 += blockDim.x * 8) {
    float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (std::uint32_t j = 0; j < f.topk; ++j) {
      const int p = entry_pos[static_cast<std::size_t>(r) * f.topk + j];
      if (p < 0) continue;
      const std::size_t entry = static_cast<std::size_t>(expert_base[idx[j] - first_expert] + p);
      const uint4 v = *reinterpret_cast<const uint4*>(expert_output + entry * f.hidden + e0);
      const auto* y = reinterpret_cast<const std::uint16_t*>(&v);
#pragma unroll
      for (int i = 0; i < 8; ++i) partial[i] = fmaf(weight[j], bf16_to_float(y[i]), partial[i]);
    }
    uint4 packed;
    auto* out = reinterpret_cast<std::uint16_t*>(&packed);
#pragma unroll
    for (int i = 0; i < 8; ++i) out[i] = float_to_bf16(partial[i]);
    *reinterpret_cast<uint4*>(combine_send + static_cast<std::size_t>(r) * f.hidden + e0) = packed;
  }
}

__global__ void combine_reduce_kernel(const std::uint16_t* combine_recv, int nranks, int hidden,
                                      const int* slot, const int* send_offsets, std::uint16_t* out) {
  const int t = blockIdx.x;
  for (int e0 = threadIdx.x * 8; e0 < hidden; e0 += blockDim.x * 8) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int d = 0; d < nranks; ++d) {
      const int s = slot[static_cast<std::size_t>(t) * nranks + d];
      if (s < 0) continue;
      const uint4 v = *reinterpret_cast<const uint4*>(
          combine_recv + static_cast<std::size_t>(send_offsets[d] + s) * hidden + e0);
      const auto* part = reinterpret_cast<const std::uint16_t*>(&v);
#pragma unroll
      for (int i = 0; i < 8; ++i) acc[i] += bf16_to_float(part[i]);
    }
    uint4 packed;
    auto* o = reinterpret_cast<std::uint16_t*>(&packed);
#pragma unroll
    for (int i = 0; i < 8; ++i) o[i] = float_to_bf16(acc[i]);
    *reinterpret_cast<uint4*>(out + static_cast<std::size_t>(t) * hidden + e0) = packed;
  }
}

}  // namespace

cudaError_t prepare_input(std::uint8_t* input, int tokens, RecordFormat f, std::uint64_t seed,
                          int rank, cudaStream_t stream) {
  if (tokens > 0) prepare_input_kernel<<<tokens, kCopyThreads, 0, stream>>>(input, f, seed, rank);
  return cudaGetLastError();
}

cudaError_t layout(const std::int32_t* idx, int tokens, int topk, int experts, int nranks,
                   int* slot, int* send_counts, int* send_offsets, cudaStream_t stream) {
  layout_kernel<<<nranks, kScanThreads, 0, stream>>>(idx, tokens, topk, experts / nranks, nranks,
                                                     slot, send_counts);
  offsets_kernel<<<1, 1, 0, stream>>>(send_counts, nranks, send_offsets);
  return cudaGetLastError();
}

cudaError_t pack(const std::uint8_t* input, const std::int32_t* idx, const float* weights,
                 int tokens, int nranks, const int* slot, const int* send_offsets, RecordFormat f,
                 std::uint8_t* send, cudaStream_t stream) {
  if (tokens > 0) {
    pack_kernel<<<tokens, kCopyThreads, 0, stream>>>(input, idx, weights, nranks, slot,
                                                     send_offsets, f, send);
  }
  return cudaGetLastError();
}

cudaError_t expert_positions(const std::uint8_t* recv, int records, RecordFormat f,
                             int first_expert, int local_experts, int* entry_pos,
                             int* expert_counts, int* expert_base, cudaStream_t stream) {
  positions_kernel<<<local_experts, kScanThreads, 0, stream>>>(recv, records, f, first_expert,
                                                               entry_pos, expert_counts);
  offsets_kernel<<<1, 1, 0, stream>>>(expert_counts, local_experts, expert_base);
  return cudaGetLastError();
}

cudaError_t unpack(const std::uint8_t* recv, int records, RecordFormat f, int first_expert,
                   const int* entry_pos, const int* expert_base, std::uint8_t* expert_payload,
                   cudaStream_t stream) {
  if (records > 0) {
    unpack_kernel<<<records, kCopyThreads, 0, stream>>>(recv, f, first_expert, entry_pos,
                                                        expert_base, expert_payload);
  }
  return cudaGetLastError();
}

cudaError_t run_experts(const std::uint8_t* expert_payload, const int* expert_counts,
                        const int* expert_base, int local_experts, int sources, int first_expert,
                        RecordFormat f, std::uint16_t* expert_output, cudaStream_t stream) {
  if (local_experts * sources == 0) return cudaSuccess;
  const dim3 grid(128, static_cast<unsigned>(local_experts * sources));
  experts_kernel<<<grid, kCopyThreads, 0, stream>>>(expert_payload, expert_counts, expert_base,
                                                    sources, first_expert, f, expert_output);
  return cudaGetLastError();
}

cudaError_t combine_pack(const std::uint8_t* recv, int records, RecordFormat f, int first_expert,
                         const int* entry_pos, const int* expert_base,
                         const std::uint16_t* expert_output, std::uint16_t* combine_send,
                         cudaStream_t stream) {
  if (records > 0) {
    combine_pack_kernel<<<records, kCopyThreads, 0, stream>>>(recv, f, first_expert, entry_pos,
                                                              expert_base, expert_output, combine_send);
  }
  return cudaGetLastError();
}

cudaError_t combine_reduce(const std::uint16_t* combine_recv, int tokens, int nranks, int hidden,
                           const int* slot, const int* send_offsets, std::uint16_t* out,
                           cudaStream_t stream) {
  if (tokens > 0) {
    combine_reduce_kernel<<<tokens, kCopyThreads, 0, stream>>>(combine_recv, nranks, hidden, slot,
                                                               send_offsets, out);
  }
  return cudaGetLastError();
}

}  // namespace commsweep::ep::kernels
