#include "sweep/size_notes.hpp"

#include <algorithm>

#include "core/strings.hpp"

namespace commsweep {
namespace {

// No rounding rule (whole elements, nccl-tests' 16-byte blocks per rank) needs more per rank.
constexpr std::uint64_t kSearchBytesPerRank = 64 * 1024;

// "8, 16 and 32 B"; the first kListed of more, then "...".
std::string listed_sizes(const std::vector<std::uint64_t>& sizes) {
  constexpr std::size_t kListed = 5;
  std::string out;
  for (std::size_t i = 0; i < sizes.size() && i < kListed; ++i) {
    const bool last = i + 1 == sizes.size();
    out += (i == 0 ? "" : last ? " and " : ", ") + std::to_string(sizes[i]);
  }
  if (sizes.size() > kListed) out += ", ...";
  return out + " B";
}

// Why a size below SMALLEST bytes is no message of TEST: the element, the element per rank, or
// the per-rank block of nccl-tests' split (collectives/collective_test.hpp: per_rank_block).
std::string cause(const CollectiveTest& test, DataType type, int nranks, std::uint64_t smallest) {
  const std::uint64_t elem = element_size(type);
  const std::string type_name(name_of(type));
  if (smallest == elem) return "smaller than one " + type_name + " element (" + std::to_string(elem) + " B)";
  const auto n = static_cast<std::uint64_t>(nranks);
  if (smallest == n * elem) {
    return "smaller than one " + type_name + " element per rank (" + count_of(n, "rank") + " x " +
           std::to_string(elem) + " B)";
  }
  std::string why = "below " + std::to_string(smallest) + " B, the smallest " + std::string(test.name) + " of " +
                    type_name + " on " + count_of(n, "rank");
  if (smallest % n == 0 && smallest / n > elem) {
    why += ": each rank's block is a multiple of " + std::to_string(smallest / n) +
           " B (nccl-tests' split of a buffer among ranks)";
  }
  return why;
}

}  // namespace

std::uint64_t smallest_message(const CollectiveTest& test, DataType type, int nranks) {
  const std::uint64_t elem = element_size(type);
  const std::uint64_t most = kSearchBytesPerRank * static_cast<std::uint64_t>(std::max(1, nranks)) / elem;
  for (std::uint64_t count = 1; count <= most; ++count) {
    if (test.counts(count, elem, nranks).param_count > 0) return count * elem;
  }
  return 0;
}

std::vector<std::string> size_notes(const CollectiveTest& test, const std::vector<std::uint64_t>& sizes, DataType type,
                                    int nranks) {
  const std::uint64_t elem = element_size(type);
  std::size_t rounded = 0, into_blocks = 0;
  std::vector<std::uint64_t> skipped;
  for (const std::uint64_t requested : sizes) {
    const Counts c = test.counts(requested / elem, elem, nranks);
    if (c.param_count == 0) {
      skipped.push_back(requested);
      continue;
    }
    const std::uint64_t bytes = std::max(c.send_count, c.recv_count) * elem;
    if (bytes != requested) ++rounded;
    if (bytes != requested / elem * elem) ++into_blocks;
  }
  std::vector<std::string> notes;
  if (rounded > 0) {
    notes.push_back(std::to_string(rounded) + " of " + count_of(sizes.size(), "size") +
                    " rounded down (as nccl-tests does) to whole " + std::string(name_of(type)) + " elements" +
                    (into_blocks > 0 ? ", divisible among " + std::to_string(nranks) + " ranks" : "") +
                    "; the size column shows the bytes moved");
  }
  if (!skipped.empty()) {
    const std::uint64_t smallest = smallest_message(test, type, nranks);
    notes.push_back(count_of(skipped.size(), "size") + " skipped (" + listed_sizes(skipped) + "): " +
                    (smallest > 0 ? cause(test, type, nranks, smallest) : "no message of " + std::string(test.name)));
  }
  return notes;
}

}  // namespace commsweep
