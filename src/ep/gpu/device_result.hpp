// The GPU exchanges' host <-> device steps they share: this rank's case onto the device, and
// what an exchange left in device memory back into an EpResult, for verification.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "ep/exchange.hpp"
#include "ep/routing.hpp"
#include "pattern/ep_record.hpp"

namespace commsweep::ep {

struct EpDeviceView {
  std::vector<int> recv_counts;             // per source rank (host)
  const std::uint8_t* records = nullptr;    // device: the received records, sources ascending
  int records_room = 0;                     // 0: back to back; else source s's from s x records_room
  RecordFormat format{};
  // device: per local expert (expert_base null: its segments back to back, local experts in
  // order), or per (local expert l, source s) at l x expert_sources + s, with where each starts.
  const int* expert_counts = nullptr;
  const int* expert_base = nullptr;
  int expert_sources = 1;
  int local_experts = 0;
  const std::uint8_t* expert_payload = nullptr;  // device: expert-grouped payloads
  std::size_t expert_payload_bytes = 0;     // its room
  const std::uint16_t* combined = nullptr;  // device: tokens x hidden (bf16)
  int tokens = 0;
};

EpResult read_device_result(const EpDeviceView& view);

// This rank's tokens (the data pattern, in format f) and routing into device buffers of room
// enough; waits for the copies (the routing vectors are pageable host memory).
void upload_case(std::uint8_t* input, std::int32_t* idx, float* weights, int tokens,
                 const RecordFormat& f, const Routing& mine, std::uint64_t seed, int rank,
                 cudaStream_t stream);

}  // namespace commsweep::ep
