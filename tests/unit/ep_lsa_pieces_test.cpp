// The lsa kernels' piece sizes (kernels/ep_lsa.hpp), which host and device code both compute:
// the dispatch's payload pieces, and the combine's, whose size follows the warps that store them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ep_lsa.hpp"
#include "pattern/ep_pattern.hpp"

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

// Marked partials (lsa_combine_marked): only the smaller pieces on one node.
TEST(EpLsaPieces, OnlySmallPiecesOnOneNodeAreMarked) {
  EXPECT_TRUE(lsa_combine_marked(kLsaCombinePieceMin, true));
  EXPECT_FALSE(lsa_combine_marked(kLsaCombinePieceMax, true));
  EXPECT_FALSE(lsa_combine_marked(kLsaCombinePieceMin, false));
}

// A word of two bf16 elements has landed once neither half is the unset 0xFFFF, so a store
// seen half written still reads as not landed.
TEST(EpLsaPieces, PartialWordLandsWhenBothHalvesAreWritten) {
  EXPECT_FALSE(lsa_partial_landed(kLsaUnset));
  EXPECT_FALSE(lsa_partial_landed(0x3F80FFFFu));  // low half still unset
  EXPECT_FALSE(lsa_partial_landed(0xFFFF3F80u));  // high half still unset
  EXPECT_TRUE(lsa_partial_landed(0x3F80BF80u));   // 1.0, -1.0
  EXPECT_TRUE(lsa_partial_landed(0x00008000u));   // +0, -0
  EXPECT_TRUE(lsa_partial_landed(0x7F80FF80u));   // +inf, -inf
  EXPECT_TRUE(lsa_partial_landed(0xFFFEFFFEu));   // the NaNs next to the unset pattern
}

// A partial is float_to_bf16 of a finite fmaf sum: no finite float may round to the unset
// half, else its reader would wait for it forever. Every upper half of a float, with low
// halves at the rounding's edges (0x7FFF, 0x8000 and 0x8001 round differently with an odd or
// an even upper half).
TEST(EpLsaPieces, NoFiniteFloatRoundsToTheUnsetPattern) {
  int finite = 0;
  for (std::uint32_t high = 0; high <= 0xFFFFu; ++high) {
    for (const std::uint32_t low : {0x0000u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu}) {
      const std::uint32_t bits = (high << 16) | low;
      float f;
      std::memcpy(&f, &bits, sizeof f);
      if (!std::isfinite(f)) continue;
      ++finite;
      ASSERT_NE(float_to_bf16(f), 0xFFFFu) << std::hex << "float bits 0x" << bits;
    }
  }
  EXPECT_EQ(finite, 5 * (0x10000 - 2 * 0x80));  // every upper half but the 256 of the infinities and NaNs
}

// A marked dispatch (lsa_dispatch_marked) follows the combine's rule, on one node only.
TEST(EpLsaPieces, TheDispatchIsMarkedWhereTheCombineIs) {
  const long long warps = 264 * 14;
  EXPECT_TRUE(lsa_dispatch_marked(4 * 128, 7168, warps, true));
  EXPECT_TRUE(lsa_dispatch_marked(4 * 264, 7168, warps, true));
  EXPECT_FALSE(lsa_dispatch_marked(4 * 265, 7168, warps, true));
  EXPECT_FALSE(lsa_dispatch_marked(4 * 128, 7168, warps, false));
}

// A marked record's word has landed once it is not all ones; the header's "no place here" is
// negative (every reader tests place >= 0) and never the unset word.
TEST(EpLsaPieces, RecordWordLandsUnlessAllOnes) {
  EXPECT_FALSE(lsa_word_landed(kLsaUnset));
  EXPECT_TRUE(lsa_word_landed(0u));
  EXPECT_TRUE(lsa_word_landed(0xFFFFFFFEu));
  EXPECT_TRUE(lsa_word_landed(0x7FFFFFFFu));
  std::uint32_t no_place;
  std::memcpy(&no_place, &kLsaNoPlace, sizeof no_place);
  EXPECT_LT(kLsaNoPlace, 0);
  EXPECT_TRUE(lsa_word_landed(no_place));
}

// Every e4m3 byte the fp8 payload can hold: quantize_e4m3 clamps to +-448, so it never makes
// 0xFF (a NaN), and a payload word of four e4m3 bytes is never the unset word.
TEST(EpLsaPieces, NoQuantizedValueIsAllOnes) {
  for (const float scale : {1.0f / 64, 1.0f, 0.5f, 3.0f}) {
    for (float x = -4096.0f; x <= 4096.0f; x += 0.37f) ASSERT_NE(quantize_e4m3(x, scale), 0xFFu) << x;
  }
  EXPECT_NE(quantize_e4m3(1e30f, 1.0f), 0xFFu);
  EXPECT_NE(quantize_e4m3(-1e30f, 1.0f), 0xFFu);
}

}  // namespace
}  // namespace commsweep::ep::kernels
