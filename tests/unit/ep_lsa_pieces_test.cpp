// The lsa kernels' piece sizes (kernels/ep_lsa.hpp), which host and device code both compute:
// the dispatch's payload pieces, and the combine's, whose size follows the warps that store them.
#include <gtest/gtest.h>

#include "ep_lsa.hpp"

namespace commsweep::ep::kernels {
namespace {

TEST(EpLsaPieces, SegmentsRoundUp) {
  EXPECT_EQ(lsa_segments(7168, 1024), 7u);
  EXPECT_EQ(lsa_segments(7169, 1024), 8u);
  EXPECT_EQ(lsa_segments(1, 512), 1u);
}

// bf16 at hidden 7168 (14336 bytes): 7 pieces of 2048, none left over; fp8 with its scales
// (7392 bytes): 3 of 2560 leave 288 bytes unused, 4 of 2048 would leave 800.
TEST(EpLsaPieces, DispatchPiecesLeaveTheLastOneFullest) {
  EXPECT_EQ(lsa_segment_bytes(14336), 2048u);
  EXPECT_EQ(lsa_segment_bytes(7392), 2560u);
}

// 4 ranks, hidden 7168, 264 blocks of 14 storing warps (3696): pieces of 1024 number
// 4 x tokens x 7, so up to 264 tokens give at most two a warp.
TEST(EpLsaPieces, CombinePiecesHalveWhileWarpsHaveAtMostTwo) {
  const long long warps = 264 * 14;
  EXPECT_EQ(lsa_combine_piece(4 * 128, 7168, warps), 512u);
  EXPECT_EQ(lsa_combine_piece(4 * 264, 7168, warps), 512u);
  EXPECT_EQ(lsa_combine_piece(4 * 265, 7168, warps), 1024u);
  EXPECT_EQ(lsa_combine_piece(4 * 4096, 7168, warps), 1024u);
}

// One block (--lsa-blocks 1): 14 storing warps take two pieces each at one token, not at two.
TEST(EpLsaPieces, CombinePiecesOnOneBlock) {
  EXPECT_EQ(lsa_combine_piece(4 * 1, 7168, 14), 512u);
  EXPECT_EQ(lsa_combine_piece(4 * 2, 7168, 14), 1024u);
}

}  // namespace
}  // namespace commsweep::ep::kernels
