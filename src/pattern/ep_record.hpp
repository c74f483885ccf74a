// One dispatched token on the wire: its hidden vector (bf16, or e4m3 plus one fp32 scale per
// 128 elements), then its top-k expert indices (int32) and weights (fp32), padded to 16
// bytes so that every record starts aligned for 16-byte copies.
#pragma once

#include <cstdint>

namespace commsweep::ep {

struct RecordFormat {
  std::uint32_t hidden;
  std::uint32_t topk;
  std::uint32_t fp8;            // 0: bf16 payload, 1: e4m3 payload + scales
  std::uint32_t payload_bytes;  // hidden vector (and scales)
  std::uint32_t payload_stride; // payload_bytes rounded up to 16: a payload's room in buffers
  std::uint32_t scales_offset;  // fp8: where the scales start
  std::uint32_t idx_offset;
  std::uint32_t weight_offset;
  std::uint32_t bytes;          // whole record, a multiple of 16
};

inline RecordFormat record_format(std::uint32_t hidden, std::uint32_t topk, bool fp8) {
  RecordFormat f{};
  f.hidden = hidden;
  f.topk = topk;
  f.fp8 = fp8 ? 1u : 0u;
  f.scales_offset = fp8 ? hidden : 0u;
  f.payload_bytes = fp8 ? hidden + 4u * (hidden / 128u) : 2u * hidden;
  f.payload_stride = (f.payload_bytes + 15u) / 16u * 16u;
  f.idx_offset = f.payload_stride;
  f.weight_offset = f.idx_offset + 4u * topk;
  f.bytes = (f.weight_offset + 4u * topk + 15u) / 16u * 16u;
  return f;
}

}  // namespace commsweep::ep
