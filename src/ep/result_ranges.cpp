#include "ep/result_ranges.hpp"

#include <algorithm>

namespace commsweep::ep {

std::vector<ByteRange> record_ranges(const std::vector<int>& recv_counts, int room, std::size_t record_bytes) {
  std::vector<ByteRange> ranges;
  std::size_t back_to_back = 0;
  for (std::size_t s = 0; s < recv_counts.size(); ++s) {
    std::size_t count = static_cast<std::size_t>(std::max(recv_counts[s], 0));
    if (room > 0) count = std::min(count, static_cast<std::size_t>(room));
    const std::size_t from = room > 0 ? s * static_cast<std::size_t>(room) : back_to_back;
    ranges.push_back({from * record_bytes, count * record_bytes});
    back_to_back += count;
  }
  return ranges;
}

EntryRanges entry_ranges(const std::vector<int>& counts, const std::vector<int>& bases, int sources,
                         std::size_t entry_bytes, std::size_t room) {
  const std::size_t per = static_cast<std::size_t>(std::max(sources, 1));
  EntryRanges r;
  r.per_expert.assign((counts.size() + per - 1) / per, 0);
  std::size_t next = 0;  // back to back: where the next segment starts
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const std::size_t count = static_cast<std::size_t>(std::max(counts[k], 0));
    const std::size_t base = bases.empty() ? next : static_cast<std::size_t>(std::max(bases[k], 0));
    r.per_expert[k / per] += counts[k];
    next = base + count;
    const std::size_t kept = base < room ? std::min(count, room - base) : 0;
    r.ranges.push_back({base * entry_bytes, kept * entry_bytes});
  }
  return r;
}

}  // namespace commsweep::ep
