// Where a rank's tokens go in the dispatch, and what the exchange moves (host side).
#pragma once

#include <cstdint>
#include <vector>

#include "ep/ep_config.hpp"
#include "ep/routing.hpp"

namespace commsweep::ep {

inline int experts_per_rank(int experts, int nranks) { return experts / nranks; }
inline int rank_of_expert(int expert, int experts, int nranks) {
  return expert / experts_per_rank(experts, nranks);
}

// A token goes once to each distinct rank that holds one of its experts (not once per expert).
// Within a destination's segment, tokens keep their order.
struct DispatchLayout {
  int nranks = 0;
  int tokens = 0;
  std::vector<int> send_counts;        // per destination rank
  std::vector<int> send_offsets;       // exclusive prefix sum of send_counts
  std::vector<int> slot;               // tokens x nranks: index within the destination's segment, or -1
  std::vector<int> tokens_per_expert;  // per global expert: this rank's tokens routed there
};
DispatchLayout compute_layout(const Routing& routing, int experts, int nranks);

// Bytes a token carries in the dispatch: the hidden vector (bf16: 2 bytes an element; fp8:
// 1 byte an element plus one fp32 scale per 128 elements). The combine returns bf16.
std::uint64_t dispatch_token_bytes(int hidden, EpDtype dtype);
std::uint64_t combine_token_bytes(int hidden);

// Byte accounting of one rank's dispatch receive side (the combine's send side mirrors it):
// deepep counts one copy per (token, destination rank) including the rank's own tokens, as
// DeepEP and UCCL-EP report; fabric leaves out what the rank sends to itself.
struct EpBytes {
  std::uint64_t deepep = 0;
  std::uint64_t fabric = 0;
};
// recv_counts[s] = tokens this rank receives from rank s.
EpBytes received_bytes(const std::vector<int>& recv_counts, int rank, std::uint64_t token_bytes);

}  // namespace commsweep::ep
