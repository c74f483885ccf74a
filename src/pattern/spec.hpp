// Builds the pattern parameters (src/pattern/pattern.hpp) for an element type, operator and
// world size, and fills / verifies host buffers with them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/types.hpp"
#include "pattern/pattern.hpp"

namespace commsweep {

pattern::Format format_of(DataType t);
pattern::Spec make_spec(DataType t, RedOp op, int nranks, std::uint64_t seed);

struct Mismatch {
  std::uint64_t wrong = 0;        // elements that differ from the expected bits
  std::uint64_t first_index = 0;  // the first of them, when wrong > 0
  std::uint64_t expected = 0;
  std::uint64_t got = 0;
};

// Host-buffer counterparts of kernels/pattern.cu.
void fill_host(void* buffer, std::size_t count, const pattern::Spec& spec, int rank);
void poison_host(void* buffer, std::size_t count, const pattern::Expect& expect);
Mismatch verify_host(const void* buffer, std::size_t count, const pattern::Expect& expect);

}  // namespace commsweep
