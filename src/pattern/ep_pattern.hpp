// The MoE exchange's data and arithmetic, shared bit for bit by the host reference, the mpi
// backend and the CUDA kernels (kernels/ep_kernels.cu). Plain C++ so both compilers take it.
//
// - Token values: bf16 numbers +-(1 + m/128) * 2^e, e in [-4, 3]: exact, no overflow when
//   scaled by an expert factor.
// - The "expert" of the exchange multiplies by factor(e) = 2^((e % 7) - 3): exact in bf16.
// - fp8 dispatch (DeepEP's per-token cast): per block of 128 elements, scale = max(amax, 1e-4)
//   / 448 in fp32, q = e4m3(x / scale) rounded to nearest even and saturated, x' = q * scale.
// - Combine at the expert's rank: partial = fmaf chain over the token's top-k slots in slot
//   order, restricted to that rank's experts, from 0; sent back as bf16 (round to nearest
//   even). At the source: acc = sum of the partials in ascending rank order, in fp32; the
//   output is bf16(acc). Every step is an IEEE operation in a fixed order, so host and device
//   agree bit for bit.
#pragma once

#include <cstdint>
#include <cstring>

#include "pattern/pattern.hpp"

namespace commsweep::ep {

inline constexpr int kFp8BlockElements = 128;  // elements per fp32 scale (DeepEP)
inline constexpr float kFp8E4M3Max = 448.0f;

CS_HD float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t b = static_cast<std::uint32_t>(bits) << 16;
  float f;
  ::memcpy(&f, &b, 4);
  return f;
}

// Round to nearest even; values here are finite.
CS_HD std::uint16_t float_to_bf16(float f) {
  std::uint32_t b;
  ::memcpy(&b, &f, 4);
  const std::uint32_t rounding = 0x7FFFu + ((b >> 16) & 1u);
  return static_cast<std::uint16_t>((b + rounding) >> 16);
}

CS_HD std::uint16_t token_value_bits(std::uint64_t seed, std::int32_t rank, std::uint32_t token,
                                     std::uint32_t element, std::uint32_t hidden) {
  const std::uint64_t h = pattern::hash(seed ^ 0x45505f544f4b454eull, rank,
                                        static_cast<std::uint64_t>(token) * hidden + element);
  const std::uint32_t mantissa = static_cast<std::uint32_t>(h & 0x7F);         // 7 bits
  const std::uint32_t exponent = 127u - 4u + static_cast<std::uint32_t>((h >> 7) % 8);  // 2^-4..2^3
  const std::uint32_t sign = static_cast<std::uint32_t>((h >> 12) & 1u);
  return static_cast<std::uint16_t>((sign << 15) | (exponent << 7) | mantissa);
}

CS_HD float expert_factor(std::int32_t expert) {
  const int shift = expert % 7 - 3;
  return shift >= 0 ? static_cast<float>(1u << shift) : 1.0f / static_cast<float>(1u << -shift);
}

CS_HD float fp8_block_scale(float amax) {
  return (amax > 1e-4f ? amax : 1e-4f) / kFp8E4M3Max;
}

// e4m3 bits of x / scale, rounded to nearest even and saturated at +-448.
CS_HD std::uint8_t quantize_e4m3(float x, float scale) {
  float v = x / scale;
  if (v > kFp8E4M3Max) v = kFp8E4M3Max;
  if (v < -kFp8E4M3Max) v = -kFp8E4M3Max;
  const pattern::Format e4m3{1, pattern::kFloat, 4, 3};
  return static_cast<std::uint8_t>(pattern::encode_small_float(static_cast<double>(v), e4m3));
}

CS_HD float dequantize_e4m3(std::uint8_t q, float scale) {
  const pattern::Format e4m3{1, pattern::kFloat, 4, 3};
  return static_cast<float>(pattern::decode_small_float(q, e4m3)) * scale;
}

// The expert's output for one element: the (dequantised) input times the expert's factor.
CS_HD std::uint16_t expert_output_bits(float input, std::int32_t expert) {
  return float_to_bf16(input * expert_factor(expert));
}

}  // namespace commsweep::ep
