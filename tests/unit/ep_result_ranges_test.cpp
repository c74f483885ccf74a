// What an exchange's result is read back from (src/ep/result_ranges.hpp): the records and the
// expert-grouped entries, back to back (the alltoallv path) and at fixed places per source (the
// lsa kernels' window, kernels/ep_lsa.hpp), on cases small enough to check by hand.
#include <gtest/gtest.h>

#include <ostream>
#include <vector>

#include "ep/result_ranges.hpp"

namespace commsweep::ep {

void PrintTo(const ByteRange& r, std::ostream* out) { *out << "{at " << r.at << ", " << r.bytes << " bytes}"; }

namespace {

TEST(EpResultRanges, RecordsBackToBack) {
  const std::vector<ByteRange> want{{0, 32}, {32, 0}, {32, 48}};
  EXPECT_EQ(record_ranges({2, 0, 3}, 0, 16), want);
}

// Room for 4 records a source: source s's from 4 s.
TEST(EpResultRanges, RecordsAtEachSourcesPlace) {
  const std::vector<ByteRange> want{{0, 32}, {64, 0}, {128, 48}};
  EXPECT_EQ(record_ranges({2, 0, 3}, 4, 16), want);
}

// A count past its source's room (a corrupt count) is read no further than the room.
TEST(EpResultRanges, RecordsNeverPastTheirRoom) {
  const std::vector<ByteRange> want{{0, 16}, {32, 32}};
  EXPECT_EQ(record_ranges({1, 7}, 2, 16), want);
}

TEST(EpResultRanges, EntriesBackToBack) {
  const EntryRanges r = entry_ranges({2, 3}, {}, 1, 10, 100);
  const std::vector<ByteRange> want{{0, 20}, {20, 30}};
  EXPECT_EQ(r.ranges, want);
  EXPECT_EQ(r.per_expert, (std::vector<int>{2, 3}));
}

// The lsa window: 3 sources, 2 local experts, 4 tokens, top-2, so room for 8 entries a source
// (source s's region from 8 s, its entries to local expert 0, then to expert 1).
//   source 0: 1 entry to expert 0, 2 to expert 1  -> expert 0 at 0, expert 1 at 1
//   source 1: none to expert 0, 1 to expert 1     -> expert 1 at 8
//   source 2: 2 to expert 0, none to expert 1     -> expert 0 at 16, expert 1 at 18
// Read back expert by expert, sources in order: what the alltoallv path's layout holds.
TEST(EpResultRanges, EntriesAtEachSourcesPlaceExpertByExpert) {
  const std::vector<int> counts{1, 0, 2, 2, 1, 0};  // [expert][source]
  const std::vector<int> bases{0, 8, 16, 1, 8, 18};
  const EntryRanges r = entry_ranges(counts, bases, 3, 10, 24);
  const std::vector<ByteRange> want{{0, 10}, {80, 0}, {160, 20}, {10, 20}, {80, 10}, {180, 0}};
  EXPECT_EQ(r.ranges, want);
  EXPECT_EQ(r.per_expert, (std::vector<int>{3, 3}));
}

// Entries past the buffer's room are not read; the counts still say how many there were.
TEST(EpResultRanges, EntriesNeverPastTheRoom) {
  const EntryRanges r = entry_ranges({1, 5, 2}, {0, 22, 30}, 1, 10, 24);
  const std::vector<ByteRange> want{{0, 10}, {220, 20}, {300, 0}};
  EXPECT_EQ(r.ranges, want);
  EXPECT_EQ(r.per_expert, (std::vector<int>{1, 5, 2}));
}

}  // namespace
}  // namespace commsweep::ep
