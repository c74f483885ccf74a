// The random numbers of the routing generators, the same bits on every machine: counter-based
// (pattern::hash of seed, rank and a counter), integer arithmetic and exact double operations
// only. No std:: distributions (their output differs between standard libraries) and no
// log/cos (Box-Muller): libms differ in the last bit, and a last-bit difference in a weight
// changes its float rounding now and then.
#pragma once

#include <cmath>
#include <cstdint>

#include "pattern/pattern.hpp"

namespace commsweep::ep {

// One token's stream: draw i is hash(seed, rank, token << 32 | i), so a token's routing does
// not depend on how many tokens the case has.
class TokenStream {
 public:
  TokenStream(std::uint64_t seed, std::int32_t rank, std::uint32_t token)
      : seed_(seed), rank_(rank), base_(static_cast<std::uint64_t>(token) << 32) {}

  std::uint64_t next_u64() { return pattern::hash(seed_, rank_, base_ | counter_++); }

  // [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1p-53; }

  // [0, n), n > 0. The modulo bias, n / 2^64, is far below anything a sweep can see.
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next_u64() % n); }

  // Standard normal, approximately: Irwin-Hall, the sum of 12 uniforms minus 6 (mean 0,
  // variance 1, tails cut at 6 sigma). Every step is exact in double: the uniforms are
  // (k + 1/2) / 2^32 for 32-bit k, their sum has at most 36 significant bits (so a compiler
  // that fuses the last multiply and subtract into an fma gives the same bits).
  double randn() {
    std::uint64_t sum = 0;
    for (int i = 0; i < 6; ++i) {
      const std::uint64_t h = next_u64();
      sum += (h & 0xFFFFFFFFull) + (h >> 32);
    }
    return static_cast<double>(sum + 6) * 0x1p-32 - 6.0;
  }

 private:
  std::uint64_t seed_;
  std::int32_t rank_;
  std::uint64_t base_;
  std::uint32_t counter_ = 0;
};

// Separate streams for a token's expert choice and its weights, so that the weights do not
// depend on how many draws the choice took.
inline constexpr std::uint64_t kChoiceSalt = 0x524f5554494e4731ull;  // "ROUTING1"
inline constexpr std::uint64_t kWeightSalt = 0x5745494748545331ull;  // "WEIGHTS1"

inline TokenStream choice_stream(std::uint64_t seed, int rank, int token) {
  return TokenStream(seed ^ kChoiceSalt, rank, static_cast<std::uint32_t>(token));
}
inline TokenStream weight_stream(std::uint64_t seed, int rank, int token) {
  return TokenStream(seed ^ kWeightSalt, rank, static_cast<std::uint32_t>(token));
}

// Weights are |randn|, at least this (a weight must be > 0).
inline constexpr float kMinWeight = 0x1p-20f;

inline float routing_weight(TokenStream& s) {
  const float w = static_cast<float>(std::fabs(s.randn()));
  return w < kMinWeight ? kMinWeight : w;
}

}  // namespace commsweep::ep
