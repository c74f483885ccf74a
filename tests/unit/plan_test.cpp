// Sizes after rounding: whole elements, and for the collectives that split the buffer over
// ranks, whole equal blocks per rank. The size column shows the bytes actually moved.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "collectives/collective_test.hpp"
#include "sweep/sweep.hpp"

namespace commsweep {
namespace {

PlannedSize plan_one(const CollectiveTest& test, std::uint64_t bytes, DataType type, int nranks) {
  const auto planned = plan_sizes(test, {bytes}, type, nranks);
  EXPECT_EQ(planned.size(), 1u);
  return planned.at(0);
}

TEST(Counts, AllGatherOfOddBytesOnThreeRanks) {
  // 1000 B of float = 250 elements; 250 / 3 = 83 per rank, trimmed to a multiple of 16 bytes
  // (4 floats) as nccl-tests 2.19 does: 80 per rank, 240 elements gathered.
  const PlannedSize p = plan_one(all_gather_test(), 1000, DataType::Float32, 3);
  EXPECT_EQ(p.requested_bytes, 1000u);
  EXPECT_EQ(p.counts.param_count, 80u);
  EXPECT_EQ(p.counts.send_count, 80u);
  EXPECT_EQ(p.counts.recv_count, 240u);
  EXPECT_EQ(p.bytes, 960u);
  // In place, each rank's block sits at its own offset of the gathered buffer.
  EXPECT_EQ(p.counts.send_inplace_offset, 80u);
  EXPECT_EQ(p.counts.recv_inplace_offset, 0u);
}

TEST(Counts, ReduceScatterIsAllGatherMirrored) {
  const PlannedSize p = plan_one(reduce_scatter_test(), 1000, DataType::Float32, 3);
  EXPECT_EQ(p.counts.param_count, 80u);
  EXPECT_EQ(p.counts.send_count, 240u);
  EXPECT_EQ(p.counts.recv_count, 80u);
  EXPECT_EQ(p.bytes, 960u);
  EXPECT_EQ(p.counts.send_inplace_offset, 0u);
  EXPECT_EQ(p.counts.recv_inplace_offset, 80u);
}

TEST(Counts, PerRankBlocksAreWholeSixteenByteUnits) {
  // int8: 100 / 3 = 33 per rank -> 32 (16 B units); double: 125 / 3 = 41 -> 40 (2 doubles).
  const PlannedSize bytes = plan_one(alltoall_test(), 100, DataType::Int8, 3);
  EXPECT_EQ(bytes.counts.param_count, 32u);
  EXPECT_EQ(bytes.bytes, 96u);
  const PlannedSize doubles = plan_one(all_gather_test(), 1000, DataType::Float64, 3);
  EXPECT_EQ(doubles.counts.param_count, 40u);
  EXPECT_EQ(doubles.bytes, 960u);
  // Below 16 B per rank nothing is left.
  EXPECT_EQ(plan_one(all_gather_test(), 45, DataType::Int8, 3).counts.param_count, 0u);
}

TEST(Counts, AlltoallCountsPerPeer) {
  // 1 MiB of float on 4 ranks: 65536 elements to each peer (nccl-tests' count column).
  const PlannedSize p = plan_one(alltoall_test(), 1 << 20, DataType::Float32, 4);
  EXPECT_EQ(p.counts.param_count, 65536u);
  EXPECT_EQ(p.counts.send_count, 262144u);
  EXPECT_EQ(p.counts.recv_count, 262144u);
  EXPECT_EQ(p.bytes, 1u << 20);
}

TEST(Counts, WholeBufferCollectivesRoundToWholeElementsOnly) {
  for (const CollectiveTest* t : {&all_reduce_test(), &broadcast_test(), &reduce_test(),
                                  &sendrecv_test()}) {
    const PlannedSize p = plan_one(*t, 1001, DataType::Float64, 3);
    EXPECT_EQ(p.counts.param_count, 125u) << t->name;
    EXPECT_EQ(p.counts.send_count, 125u) << t->name;
    EXPECT_EQ(p.counts.recv_count, 125u) << t->name;
    EXPECT_EQ(p.bytes, 1000u) << t->name;
  }
}

TEST(Counts, OneByteTypesNeedNoRounding) {
  const PlannedSize p = plan_one(all_reduce_test(), 999, DataType::Int8, 7);
  EXPECT_EQ(p.counts.param_count, 999u);
  EXPECT_EQ(p.bytes, 999u);
}

// Below one element per rank the size moves nothing: kept with count 0, for the sweep to
// skip and say so.
TEST(Counts, SizesBelowOneElementPerRankRoundToZero) {
  const PlannedSize gather = plan_one(all_gather_test(), 8, DataType::Float32, 3);
  EXPECT_EQ(gather.counts.param_count, 0u);
  EXPECT_EQ(gather.bytes, 0u);
  const PlannedSize reduce = plan_one(all_reduce_test(), 2, DataType::Float32, 3);
  EXPECT_EQ(reduce.counts.param_count, 0u);
  EXPECT_EQ(reduce.bytes, 0u);
}

TEST(PlanSizes, MergesConsecutiveSizesThatRoundToTheSameBytes) {
  // float on 3 ranks: 8 -> 0 B, 12 -> 12 B, 16 -> 12 B (merged), 24 -> 24 B.
  // Float on 3 ranks moves whole blocks of 4 floats per rank: 48 B steps.
  const auto planned = plan_sizes(all_gather_test(), {8, 24, 48, 60, 96}, DataType::Float32, 3);
  ASSERT_EQ(planned.size(), 3u);
  EXPECT_EQ(planned[0].requested_bytes, 8u);
  EXPECT_EQ(planned[0].bytes, 0u);
  EXPECT_EQ(planned[1].requested_bytes, 48u);  // the first size that rounds onto 48 B stays
  EXPECT_EQ(planned[1].bytes, 48u);
  EXPECT_EQ(planned[2].requested_bytes, 96u);
  EXPECT_EQ(planned[2].bytes, 96u);
}

TEST(PlanSizes, KeepsEverySizeThatMovesDistinctBytes) {
  const std::vector<std::uint64_t> sizes{8, 16, 32, 64, 128};
  const auto planned = plan_sizes(all_reduce_test(), sizes, DataType::Float32, 8);
  ASSERT_EQ(planned.size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(planned[i].bytes, sizes[i]);
    EXPECT_EQ(planned[i].counts.param_count, sizes[i] / 4);
  }
}

TEST(PlanSizes, ZeroSizesCollapseIntoOne) {
  const auto planned = plan_sizes(alltoall_test(), {1, 2, 4, 8, 16, 32, 64}, DataType::Float64, 4);
  // Up to 32 B there is less than one 16-byte block (2 doubles) per peer: one zero entry;
  // 64 B is one block per peer.
  ASSERT_EQ(planned.size(), 2u);
  EXPECT_EQ(planned[0].bytes, 0u);
  EXPECT_EQ(planned[0].requested_bytes, 1u);
  EXPECT_EQ(planned[1].bytes, 64u);
  EXPECT_EQ(planned[1].counts.param_count, 2u);
}

}  // namespace
}  // namespace commsweep
