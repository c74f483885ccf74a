// CUDA kernels of the MoE exchange (nccl backend); the host side is src/ep/gpu/nccl_exchange.cpp.
// Launchers return the launch's cudaError_t.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "pattern/ep_record.hpp"

namespace commsweep::ep::kernels {

// This rank's tokens from the data pattern (bf16, or quantised to e4m3 with scales).
cudaError_t prepare_input(std::uint8_t* input, int tokens, RecordFormat f, std::uint64_t seed,
                          int rank, cudaStream_t stream);
// Per destination rank: the slot of each token in its segment (-1: not sent) and the count.
cudaError_t layout(const std::int32_t* idx, int tokens, int topk, int experts, int nranks,
                   int* slot, int* send_counts, int* send_offsets, cudaStream_t stream);
cudaError_t pack(const std::uint8_t* input, const std::int32_t* idx, const float* weights,
                 int tokens, int nranks, const int* slot, const int* send_offsets, RecordFormat f,
                 std::uint8_t* send, cudaStream_t stream);
// entry_pos (records x topk, preset to -1): each record's place in its local experts' segments.
cudaError_t expert_positions(const std::uint8_t* recv, int records, RecordFormat f,
                             int first_expert, int local_experts, int* entry_pos,
                             int* expert_counts, int* expert_base, cudaStream_t stream);
cudaError_t unpack(const std::uint8_t* recv, int records, RecordFormat f, int first_expert,
                   const int* entry_pos, const int* expert_base, std::uint8_t* expert_payload,
                   cudaStream_t stream);
// Each local expert's entries in `sources` segments (1: one segment an expert; the lsa
// exchange: one per source rank), segment k of expert l at expert_counts / expert_base
// [l x sources + k].
cudaError_t run_experts(const std::uint8_t* expert_payload, const int* expert_counts,
                        const int* expert_base, int local_experts, int sources, int first_expert,
                        RecordFormat f, std::uint16_t* expert_output, cudaStream_t stream);
cudaError_t combine_pack(const std::uint8_t* recv, int records, RecordFormat f, int first_expert,
                         const int* entry_pos, const int* expert_base,
                         const std::uint16_t* expert_output, std::uint16_t* combine_send,
                         cudaStream_t stream);
cudaError_t combine_reduce(const std::uint16_t* combine_recv, int tokens, int nranks, int hidden,
                           const int* slot, const int* send_offsets, std::uint16_t* out,
                           cudaStream_t stream);

}  // namespace commsweep::ep::kernels
