// --buffers cold: the slices of the sweep's buffers that successive iterations use. Offsets
// step by the message rounded up to 256 bytes and wrap before a slice would run past the end;
// warm, or buffers of one message, keep every iteration at offset 0.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "collectives/collective_test.hpp"
#include "sweep/slices.hpp"
#include "sweep/sweep.hpp"

namespace commsweep {
namespace {

TEST(Slices, AlignUp) {
  EXPECT_EQ(align_up(0, 256), 0u);
  EXPECT_EQ(align_up(1, 256), 256u);
  EXPECT_EQ(align_up(256, 256), 256u);
  EXPECT_EQ(align_up(257, 256), 512u);
  EXPECT_EQ(align_up(1000, 8), 1000u);
}

TEST(Slices, StepByTheAlignedMessageAndWrap) {
  // 1000-byte messages in 4096-byte buffers: stride 1024; slices at 0, 1024, 2048 and 3072
  // (the last ends at 4072 <= 4096), then back to 0.
  const BufferSlices s = plan_slices(4096, 1000, Buffers::Cold);
  EXPECT_EQ(s.stride, 1024u);
  EXPECT_EQ(s.count, 4u);
  const std::vector<std::size_t> expected{0, 1024, 2048, 3072, 0, 1024};
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(s.at(i), expected[i]) << i;
}

TEST(Slices, TheLastSliceNeedsItsExtentNotAWholeStride) {
  // 1000 + 1024 = 2024 bytes hold two slices of 1000 bytes; 2023 hold one.
  EXPECT_EQ(plan_slices(2024, 1000, Buffers::Cold).count, 2u);
  EXPECT_EQ(plan_slices(2023, 1000, Buffers::Cold).count, 1u);
}

TEST(Slices, OffsetsStayAlignedAndInside) {
  for (std::size_t extent : {4u, 100u, 256u, 4096u, 1000000u}) {
    for (std::size_t capacity : {extent, extent + 255, 3 * extent + 7, std::size_t{1} << 22}) {
      if (capacity < extent) continue;
      const BufferSlices s = plan_slices(capacity, extent, Buffers::Cold);
      ASSERT_GE(s.count, 1u);
      for (std::size_t k = 0; k < s.count + 2; ++k) {
        EXPECT_EQ(s.at(k) % kSliceAlignment, 0u) << extent << " in " << capacity;
        EXPECT_LE(s.at(k) + extent, capacity) << extent << " in " << capacity << " slice " << k;
      }
      // No slice is reused before every slice has been used once.
      std::set<std::size_t> seen;
      for (std::size_t k = 0; k < s.count; ++k) seen.insert(s.at(k));
      EXPECT_EQ(seen.size(), s.count);
      // The next slice would not fit: the count is as large as it can be.
      EXPECT_GT(s.count * align_up(extent, kSliceAlignment) + extent, capacity);
    }
  }
}

TEST(Slices, OneSliceOnlyKeepsOffsetZero) {
  // The largest size of the sweep: its buffers hold one message, as nccl-tests'.
  const BufferSlices s = plan_slices(1 << 20, 1 << 20, Buffers::Cold);
  EXPECT_EQ(s.count, 1u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(s.offset(i), 0u);
}

TEST(Slices, WarmKeepsOffsetZero) {
  const BufferSlices s = plan_slices(1 << 30, 1 << 20, Buffers::Warm);
  EXPECT_EQ(s.count, 1u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(s.offset(i), 0u);
}

TEST(Slices, EmptyMessageIsOneSlice) {
  EXPECT_EQ(plan_slices(4096, 0, Buffers::Cold).count, 1u);
}

TEST(Slices, FirstContinuesTheSequence) {
  // Warm-up takes slices 0..w-1; the timed call starts at w and goes on round the buffers.
  BufferSlices s = plan_slices(4 * 256, 256, Buffers::Cold);
  ASSERT_EQ(s.count, 4u);
  s.first = 3;
  EXPECT_EQ(s.offset(0), 768u);
  EXPECT_EQ(s.offset(1), 0u);
  EXPECT_EQ(s.offset(6), 256u);
}

TEST(Slices, AtOffsetMovesBothPointersAlike) {
  char buffer[64] = {};
  CollectiveArgs args;
  args.recv = buffer;
  args.send = buffer + 8;  // an in-place layout: send inside receive
  const CollectiveArgs moved = at_offset(args, 32);
  EXPECT_EQ(moved.recv, buffer + 32);
  EXPECT_EQ(moved.send, buffer + 40);
  EXPECT_EQ(static_cast<const char*>(moved.send) - static_cast<const char*>(moved.recv), 8);
}

TEST(Slices, ColdBuffersAreEqualWarmKeepTheSmallerSend) {
  // all_gather's largest size on 4 ranks: send 1/4 of the gathered buffer.
  const BufferBytes cold = buffer_bytes(256, 1024, Buffers::Cold);
  EXPECT_EQ(cold.send, 1024u);
  EXPECT_EQ(cold.recv, 1024u);
  const BufferBytes warm = buffer_bytes(256, 1024, Buffers::Warm);
  EXPECT_EQ(warm.send, 256u);
  EXPECT_EQ(warm.recv, 1024u);
  // reduce_scatter: the receive buffer holds the in-place input.
  EXPECT_EQ(buffer_bytes(1024, 256, Buffers::Warm).recv, 1024u);
}

// Every test's every size, both halves: what a slice's call reads and writes (out of place:
// send_count elements from the send slice, recv_count into the receive slice; in place: both
// at nccl-tests' offsets inside the receive slice) lies inside buffers allocated as the sweep
// allocates them, for every slice.
TEST(Slices, EverySliceOfEverySweepFitsItsBuffers) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t b = 8; b <= (std::uint64_t{1} << 20); b *= 2) sizes.push_back(b);
  sizes.push_back(1000);
  sizes.push_back(12345);
  for (const CollectiveTest* test : collective_tests()) {
    for (DataType type : {DataType::Int8, DataType::Float16, DataType::Float32, DataType::Float64}) {
      for (int n : {1, 2, 3, 4, 8}) {
        const std::size_t elem = element_size(type);
        const auto planned = plan_sizes(*test, sizes, type, n);
        const BufferBytes bytes = sweep_buffer_bytes(planned, type, Buffers::Cold);
        for (const auto& p : planned) {
          const Counts& c = p.counts;
          const BufferSlices s = plan_slices(std::min(bytes.send, bytes.recv), p.bytes, Buffers::Cold);
          for (int rank = 0; rank < n; ++rank) {
            const std::size_t in_send = c.send_inplace_offset * rank * elem + c.send_count * elem;
            const std::size_t in_recv = c.recv_inplace_offset * rank * elem + c.recv_count * elem;
            for (std::size_t k = 0; k < s.count; ++k) {
              const std::size_t at = s.at(k);
              ASSERT_LE(at + c.send_count * elem, bytes.send) << test->name << " " << p.bytes;
              ASSERT_LE(at + c.recv_count * elem, bytes.recv) << test->name << " " << p.bytes;
              ASSERT_LE(at + in_send, bytes.recv) << test->name << " in place " << p.bytes;
              ASSERT_LE(at + in_recv, bytes.recv) << test->name << " in place " << p.bytes;
            }
          }
          // Sizes well below the largest rotate: no two consecutive iterations share bytes.
          if (p.bytes > 0 && p.bytes * 4 <= planned.back().bytes) {
            EXPECT_GE(s.count, 2u) << test->name << " " << p.bytes;
          }
        }
      }
    }
  }
}

// The tails' pass: every -n iteration while they fit the budget at the table's time per
// iteration; beyond it as many as fit, never fewer than the minimum (nor more than -n).
TEST(TailsIterations, AllWhileTheyFitTheBudgetThenAsManyAsFitAtLeastTheMinimum) {
  EXPECT_EQ(tails_iterations(20, 10.0), 20);                      // 8 B on a GPU: 200 us in all
  EXPECT_EQ(tails_iterations(20, kTailsBudgetUs / 20), 20);       // exactly the budget
  EXPECT_EQ(tails_iterations(100, 3'260.0), 30);                  // 1 GiB on 2 x H200, -n 100
  EXPECT_EQ(tails_iterations(20, 24'640.0), kTailsMinIterations); // 8 GiB: 4 fit, 10 timed
  EXPECT_EQ(tails_iterations(5, 24'640.0), 5);                    // never more than -n
  EXPECT_EQ(tails_iterations(1, 1e9), 1);
}

}  // namespace
}  // namespace commsweep
