#include "ep/layout.hpp"

#include <stdexcept>
#include <string>

#include "pattern/ep_pattern.hpp"  // kFp8BlockElements

namespace commsweep::ep {

DispatchLayout compute_layout(const Routing& routing, int experts, int nranks) {
  if (nranks < 1 || experts < 1 || experts % nranks != 0) {
    throw std::invalid_argument("compute_layout: " + std::to_string(experts) +
                                " experts do not spread evenly over " + std::to_string(nranks) +
                                " ranks");
  }
  DispatchLayout layout;
  layout.nranks = nranks;
  layout.tokens = routing.tokens;
  layout.send_counts.assign(nranks, 0);
  layout.send_offsets.assign(nranks, 0);
  layout.slot.assign(static_cast<std::size_t>(routing.tokens) * nranks, -1);
  layout.tokens_per_expert.assign(experts, 0);
  for (int t = 0; t < routing.tokens; ++t) {
    int* slot = layout.slot.data() + static_cast<std::size_t>(t) * nranks;
    for (int j = 0; j < routing.topk; ++j) {
      const int e = routing.experts[static_cast<std::size_t>(t) * routing.topk + j];
      if (e < 0 || e >= experts) {
        throw std::invalid_argument("compute_layout: token " + std::to_string(t) +
                                    " goes to expert " + std::to_string(e) + ", not in [0, " +
                                    std::to_string(experts) + ")");
      }
      ++layout.tokens_per_expert[e];
      const int d = rank_of_expert(e, experts, nranks);
      if (slot[d] < 0) slot[d] = layout.send_counts[d]++;  // once per destination rank
    }
  }
  for (int d = 1; d < nranks; ++d) {
    layout.send_offsets[d] = layout.send_offsets[d - 1] + layout.send_counts[d - 1];
  }
  return layout;
}

std::uint64_t dispatch_token_bytes(int hidden, EpDtype dtype) {
  const auto h = static_cast<std::uint64_t>(hidden);
  if (dtype == EpDtype::Fp8) return h + sizeof(float) * (h / kFp8BlockElements);
  return 2 * h;
}

std::uint64_t combine_token_bytes(int hidden) { return 2 * static_cast<std::uint64_t>(hidden); }

EpBytes received_bytes(const std::vector<int>& recv_counts, int rank, std::uint64_t token_bytes) {
  EpBytes bytes;
  for (std::size_t s = 0; s < recv_counts.size(); ++s) {
    const std::uint64_t b = static_cast<std::uint64_t>(recv_counts[s]) * token_bytes;
    bytes.deepep += b;
    if (static_cast<int>(s) != rank) bytes.fabric += b;
  }
  return bytes;
}

}  // namespace commsweep::ep
