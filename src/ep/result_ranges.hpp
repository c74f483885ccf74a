// Where an exchange's result lies in its buffers: the byte ranges to read back, in the order
// EpResult holds them (src/ep/exchange.hpp). Host-only arithmetic; src/ep/gpu/device_result.cpp
// copies the ranges out of device memory.
#pragma once

#include <cstddef>
#include <vector>

namespace commsweep::ep {

struct ByteRange {
  std::size_t at = 0, bytes = 0;
};
inline bool operator==(const ByteRange& a, const ByteRange& b) { return a.at == b.at && a.bytes == b.bytes; }

// The received records, sources ascending: source s's recv_counts[s] records of record_bytes,
// back to back (room 0) or from s x room records, never past its room.
std::vector<ByteRange> record_ranges(const std::vector<int>& recv_counts, int room, std::size_t record_bytes);

// The expert-grouped entries, local experts in order, each expert's `sources` segments in
// order: segment l x sources + k holds counts[...] entries from bases[...] (bases empty: the
// segments back to back), never past `room` entries. per_expert: each local expert's entries.
struct EntryRanges {
  std::vector<ByteRange> ranges;
  std::vector<int> per_expert;
};
EntryRanges entry_ranges(const std::vector<int>& counts, const std::vector<int>& bases, int sources,
                         std::size_t entry_bytes, std::size_t room);

}  // namespace commsweep::ep
