// Compares what the exchange left on a rank with the host reference: every received token
// (its payload, top-k indices and weights), every per-expert count, every combined element.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ep/exchange.hpp"

namespace commsweep::ep {

struct EpWrong {
  std::uint64_t dispatch = 0;  // wrong counts, payload elements, scales, indices, weights
  std::uint64_t combine = 0;   // wrong combined elements
  std::string first;           // the first difference, for the message
};

EpWrong verify(const EpResult& got, const EpCase& c, const std::vector<Routing>& all,
               std::uint64_t seed, int rank, int nranks);

}  // namespace commsweep::ep
