// The dispatch layout and byte accounting (src/ep/layout.hpp) on cases small enough to check by
// hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "ep/layout.hpp"
#include "ep/routing.hpp"

namespace commsweep::ep {
namespace {

Routing routing_of(int topk, const std::vector<std::int32_t>& experts) {
  Routing r;
  r.topk = topk;
  r.tokens = static_cast<int>(experts.size()) / topk;
  r.experts = experts;
  r.weights.assign(experts.size(), 1.0f);
  return r;
}

// 2 ranks, 4 experts: experts 0, 1 on rank 0, experts 2, 3 on rank 1.
//   token 0: 0 1  -> rank 0 only, once although two of its experts are there
//   token 1: 2 0  -> ranks 1 and 0
//   token 2: 3 2  -> rank 1 only
//   token 3: 1 3  -> ranks 0 and 1
//   token 4: 1 0  -> rank 0 only
TEST(EpLayout, TwoRanksByHand) {
  const Routing r = routing_of(2, {0, 1, 2, 0, 3, 2, 1, 3, 1, 0});
  const DispatchLayout l = compute_layout(r, 4, 2);
  EXPECT_EQ(l.nranks, 2);
  EXPECT_EQ(l.tokens, 5);
  EXPECT_EQ(l.send_counts, (std::vector<int>{4, 3}));
  EXPECT_EQ(l.send_offsets, (std::vector<int>{0, 4}));
  EXPECT_EQ(l.slot, (std::vector<int>{
                        0, -1,   // token 0
                        1, 0,    // token 1
                        -1, 1,   // token 2
                        2, 2,    // token 3
                        3, -1,   // token 4
                    }));
  EXPECT_EQ(l.tokens_per_expert, (std::vector<int>{3, 3, 2, 2}));
}

// 4 ranks, 8 experts (2 a rank), top-3.
//   token 0: 7 6 0 -> ranks 3, 0
//   token 1: 2 4 5 -> ranks 1, 2
//   token 2: 6 3 1 -> ranks 3, 1, 0
TEST(EpLayout, FourRanksOffsetsAndSlots) {
  const Routing r = routing_of(3, {7, 6, 0, 2, 4, 5, 6, 3, 1});
  const DispatchLayout l = compute_layout(r, 8, 4);
  EXPECT_EQ(l.send_counts, (std::vector<int>{2, 2, 1, 2}));
  EXPECT_EQ(l.send_offsets, (std::vector<int>{0, 2, 4, 5}));
  EXPECT_EQ(l.slot, (std::vector<int>{
                        0, -1, -1, 0,   // token 0
                        -1, 0, 0, -1,   // token 1
                        1, 1, -1, 1,    // token 2
                    }));
  EXPECT_EQ(l.tokens_per_expert, (std::vector<int>{1, 1, 1, 1, 1, 1, 2, 1}));
}

TEST(EpLayout, NoTokensSendNothing) {
  const DispatchLayout l = compute_layout(routing_of(2, {}), 4, 2);
  EXPECT_EQ(l.send_counts, (std::vector<int>{0, 0}));
  EXPECT_EQ(l.send_offsets, (std::vector<int>{0, 0}));
  EXPECT_TRUE(l.slot.empty());
  EXPECT_EQ(l.tokens_per_expert, (std::vector<int>{0, 0, 0, 0}));
}

TEST(EpLayout, RejectsExpertsOutOfRange) {
  EXPECT_THROW(compute_layout(routing_of(2, {0, 4}), 4, 2), std::invalid_argument);
  EXPECT_THROW(compute_layout(routing_of(2, {0, 1}), 5, 2), std::invalid_argument);
}

TEST(EpLayout, ExpertToRank) {
  EXPECT_EQ(experts_per_rank(256, 8), 32);
  EXPECT_EQ(rank_of_expert(0, 256, 8), 0);
  EXPECT_EQ(rank_of_expert(31, 256, 8), 0);
  EXPECT_EQ(rank_of_expert(32, 256, 8), 1);
  EXPECT_EQ(rank_of_expert(255, 256, 8), 7);
}

TEST(EpBytes, TokenBytes) {
  EXPECT_EQ(dispatch_token_bytes(7168, EpDtype::Bf16), 14336u);
  EXPECT_EQ(dispatch_token_bytes(7168, EpDtype::Fp8), 7168u + 4 * 56);  // 56 scales
  EXPECT_EQ(dispatch_token_bytes(128, EpDtype::Fp8), 132u);
  EXPECT_EQ(dispatch_token_bytes(8, EpDtype::Bf16), 16u);
  EXPECT_EQ(combine_token_bytes(7168), 14336u);
  EXPECT_EQ(combine_token_bytes(4096), 8192u);
}

TEST(EpBytes, DeepepCountsOwnTokensFabricDoesNot) {
  const EpBytes b = received_bytes({3, 0, 5, 2}, 2, 100);
  EXPECT_EQ(b.deepep, 1000u);
  EXPECT_EQ(b.fabric, 500u);
  const EpBytes first = received_bytes({3, 0, 5, 2}, 0, 100);
  EXPECT_EQ(first.deepep, 1000u);
  EXPECT_EQ(first.fabric, 700u);
  const EpBytes alone = received_bytes({7}, 0, 14336);
  EXPECT_EQ(alone.deepep, 7u * 14336);
  EXPECT_EQ(alone.fabric, 0u);
  // No overflow in 32 bits: 4096 tokens x 8 ranks x 14336 bytes > 2^32.
  const EpBytes big = received_bytes(std::vector<int>(8, 4096 * 8), 0, 14336);
  EXPECT_EQ(big.deepep, 8ull * 4096 * 8 * 14336);
  EXPECT_EQ(big.fabric, 7ull * 4096 * 8 * 14336);
}

}  // namespace
}  // namespace commsweep::ep
