// Reading what a GPU exchange left in device memory into an EpResult, for verification.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ep/exchange.hpp"
#include "ep_record.hpp"

namespace commsweep::ep {

struct EpDeviceView {
  std::vector<int> recv_counts;             // per source rank (host)
  const std::uint8_t* records = nullptr;    // device: the received records, sources ascending
  RecordFormat format{};
  const int* expert_counts = nullptr;       // device: per local expert
  int local_experts = 0;
  const std::uint8_t* expert_payload = nullptr;  // device: expert-grouped payloads
  std::size_t expert_payload_bytes = 0;     // its room
  const std::uint16_t* combined = nullptr;  // device: tokens x hidden (bf16)
  int tokens = 0;
};

EpResult read_device_result(const EpDeviceView& view);

}  // namespace commsweep::ep
