// The EP routing file (ep/routing.cpp, --routing-file): any content is read or rejected with
// std::runtime_error naming the file and line; what is read obeys the documented invariants.
// Input: three bytes choosing the case (ranks 1-4, tokens 0-7, topk 1-4; experts 4 per rank),
// then the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "ep/routing.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const int nranks = 1 + data[0] % 4;
  commsweep::ep::EpCase c;
  c.tokens = data[1] % 8;
  c.topk = 1 + data[2] % 4;
  c.experts = 4 * nranks;
  c.hidden = 128;
  const commsweep::fuzz::MemoryFile file(data + 3, size - 3);
  std::vector<commsweep::ep::Routing> routings;
  try {
    routings = commsweep::ep::read_routing_file(file.path(), c, nranks);
  } catch (const std::runtime_error&) {
    return 0;
  }
  // Accepted: every slot names a valid expert, distinct within its token, weight > 0.
  if (routings.size() != static_cast<std::size_t>(nranks)) std::abort();
  for (const auto& r : routings) {
    for (int t = 0; t < c.tokens; ++t) {
      for (int j = 0; j < c.topk; ++j) {
        const std::size_t slot = static_cast<std::size_t>(t) * c.topk + j;
        if (r.experts[slot] < 0 || r.experts[slot] >= c.experts) std::abort();
        if (!(r.weights[slot] > 0)) std::abort();
        for (int i = 0; i < j; ++i) {
          if (r.experts[static_cast<std::size_t>(t) * c.topk + i] == r.experts[slot]) std::abort();
        }
      }
    }
  }
  return 0;
}
