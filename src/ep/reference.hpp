// The host reference: what each rank must hold after dispatch and after combine, computed
// directly from every rank's routing and the data pattern (src/pattern/ep_pattern.hpp), without
// any exchange. Both backends are checked against it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ep/ep_config.hpp"
#include "ep/routing.hpp"

namespace commsweep::ep {

// After dispatch, rank `rank` holds its local experts' inputs grouped by local expert: for
// local expert l (global expert rank * experts_per_rank + l), the (source rank, token) pairs
// routed to it, sources ascending, tokens ascending within a source.
struct ExpectedDispatch {
  std::vector<int> per_expert_counts;                          // local experts
  std::vector<std::vector<std::pair<int, int>>> entries;       // local expert -> (src, token)
  std::vector<int> recv_counts;                                 // per source rank: tokens received
};
ExpectedDispatch expected_dispatch(const std::vector<Routing>& all, int rank, int experts,
                                   int nranks);

// One token's input as the sender holds it: bf16 bits, or (fp8) e4m3 bits and per-128-element
// scales, and its dequantised value as the expert sees it.
struct TokenInput {
  std::vector<std::uint16_t> bf16;   // bf16 dtype: hidden
  std::vector<std::uint8_t> fp8;     // fp8 dtype: hidden
  std::vector<float> scales;         // fp8 dtype: hidden / 128
  std::vector<float> value;          // hidden: what the expert multiplies
};
TokenInput token_input(const EpCase& c, std::uint64_t seed, int rank, int token);

// After combine, rank `rank`'s output for its tokens: tokens x hidden bf16 bits, with the
// arithmetic src/pattern/ep_pattern.hpp describes.
std::vector<std::uint16_t> expected_combine(const EpCase& c, const Routing& mine, std::uint64_t seed,
                                            int rank, int nranks);

}  // namespace commsweep::ep
