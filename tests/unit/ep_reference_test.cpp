// The host reference of the MoE exchange (src/ep/reference.hpp): what a rank holds after
// dispatch, a token's input as the sender quantises it, and the combine's bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "ep/layout.hpp"
#include "ep/reference.hpp"
#include "ep/routing.hpp"
#include "pattern/ep_pattern.hpp"

namespace commsweep::ep {
namespace {

constexpr std::uint64_t kReferenceSeed = 77;
using Entries = std::vector<std::pair<int, int>>;

Routing reference_routing(int topk, const std::vector<std::int32_t>& experts,
                   std::vector<float> weights = {}) {
  Routing r;
  r.topk = topk;
  r.tokens = static_cast<int>(experts.size()) / topk;
  r.experts = experts;
  r.weights = weights.empty() ? std::vector<float>(experts.size(), 1.0f) : std::move(weights);
  return r;
}

EpCase case_of(int tokens, int hidden, int topk, int experts, EpDtype dtype = EpDtype::Bf16) {
  EpCase c;
  c.tokens = tokens;
  c.hidden = hidden;
  c.topk = topk;
  c.experts = experts;
  c.dtype = dtype;
  return c;
}

// 2 ranks, 4 experts: 0, 1 on rank 0; 2, 3 on rank 1.
std::vector<Routing> two_rank_routings() {
  return {reference_routing(2, {0, 1, 2, 0, 3, 2, 1, 3, 1, 0}),  // rank 0: 5 tokens
          reference_routing(2, {2, 3, 0, 2, 3, 1})};             // rank 1: 3 tokens
}

TEST(EpExpectedDispatch, TwoRanksByHand) {
  const auto all = two_rank_routings();
  const ExpectedDispatch r0 = expected_dispatch(all, 0, 4, 2);
  EXPECT_EQ(r0.per_expert_counts, (std::vector<int>{4, 4}));
  // Sources ascending, tokens ascending, whatever the slot the expert had in the token.
  EXPECT_EQ(r0.entries.at(0), (Entries{{0, 0}, {0, 1}, {0, 4}, {1, 1}}));
  EXPECT_EQ(r0.entries.at(1), (Entries{{0, 0}, {0, 3}, {0, 4}, {1, 2}}));
  EXPECT_EQ(r0.recv_counts, (std::vector<int>{4, 2}));  // once per token, not per expert

  const ExpectedDispatch r1 = expected_dispatch(all, 1, 4, 2);
  EXPECT_EQ(r1.per_expert_counts, (std::vector<int>{4, 4}));
  EXPECT_EQ(r1.entries.at(0), (Entries{{0, 1}, {0, 2}, {1, 0}, {1, 1}}));  // expert 2
  EXPECT_EQ(r1.entries.at(1), (Entries{{0, 2}, {0, 3}, {1, 0}, {1, 2}}));  // expert 3
  EXPECT_EQ(r1.recv_counts, (std::vector<int>{3, 3}));
}

TEST(EpExpectedDispatch, RecvCountsMatchTheSendersLayouts) {
  const auto all = two_rank_routings();
  for (int rank = 0; rank < 2; ++rank) {
    const ExpectedDispatch d = expected_dispatch(all, rank, 4, 2);
    for (int src = 0; src < 2; ++src) {
      EXPECT_EQ(d.recv_counts[src], compute_layout(all[src], 4, 2).send_counts[rank])
          << "rank " << rank << " from " << src;
    }
  }
}

TEST(EpExpectedDispatch, ARankThatReceivesNothing) {
  // 3 ranks, 3 experts: every token goes to experts 0 and 1, none to rank 2's expert 2.
  const std::vector<Routing> all = {reference_routing(2, {0, 1, 1, 0}), reference_routing(2, {1, 0}),
                                    reference_routing(2, {})};
  const ExpectedDispatch d = expected_dispatch(all, 2, 3, 3);
  EXPECT_EQ(d.per_expert_counts, (std::vector<int>{0}));
  ASSERT_EQ(d.entries.size(), 1u);
  EXPECT_TRUE(d.entries[0].empty());
  EXPECT_EQ(d.recv_counts, (std::vector<int>{0, 0, 0}));
  const ExpectedDispatch d0 = expected_dispatch(all, 0, 3, 3);
  EXPECT_EQ(d0.entries.at(0), (Entries{{0, 0}, {0, 1}, {1, 0}}));
  EXPECT_EQ(d0.recv_counts, (std::vector<int>{2, 1, 0}));
}

TEST(EpExpectedDispatch, RejectsAMismatchedWorld) {
  EXPECT_THROW(expected_dispatch(two_rank_routings(), 0, 4, 4), std::invalid_argument);
  EXPECT_THROW(expected_dispatch(two_rank_routings(), 2, 4, 2), std::invalid_argument);
}

TEST(EpTokenInput, Bf16IsThePattern) {
  const EpCase c = case_of(4, 256, 2, 8);
  const TokenInput in = token_input(c, kReferenceSeed, 3, 2);
  ASSERT_EQ(in.bf16.size(), 256u);
  ASSERT_EQ(in.value.size(), 256u);
  EXPECT_TRUE(in.fp8.empty());
  EXPECT_TRUE(in.scales.empty());
  for (std::uint32_t h = 0; h < 256; ++h) {
    ASSERT_EQ(in.bf16[h], token_value_bits(kReferenceSeed, 3, 2, h, 256)) << h;
    ASSERT_EQ(in.value[h], bf16_to_float(in.bf16[h])) << h;
    const float a = std::fabs(in.value[h]);
    ASSERT_TRUE(a >= 0.0625f && a < 16.0f) << h << ": " << in.value[h];  // +-(1 + m/128) 2^[-4, 3]
  }
  EXPECT_NE(token_input(c, kReferenceSeed, 3, 3).bf16, in.bf16);
  EXPECT_NE(token_input(c, kReferenceSeed, 2, 2).bf16, in.bf16);
}

// e4m3 keeps 3 mantissa bits: a normal value is off by at most half a step, 2^-4 of its
// magnitude (in scaled units); a subnormal (below 2^-6) by half the subnormal step, 2^-10.
// The division by the scale and the multiply back each add an fp32 rounding (2^-24).
TEST(EpTokenInput, Fp8IsWithinTheQuantisationStep) {
  const EpCase c = case_of(4, 512, 2, 8, EpDtype::Fp8);
  for (int token = 0; token < 4; ++token) {
    const TokenInput in = token_input(c, kReferenceSeed, 1, token);
    ASSERT_EQ(in.fp8.size(), 512u);
    ASSERT_EQ(in.scales.size(), 4u);
    EXPECT_TRUE(in.bf16.empty());
    int inexact = 0;
    for (int b = 0; b < 4; ++b) {
      float amax = 0;
      bool saturated = false;
      for (int i = 0; i < 128; ++i) {
        const auto h = static_cast<std::uint32_t>(b * 128 + i);
        amax = std::fmax(amax, std::fabs(bf16_to_float(token_value_bits(kReferenceSeed, 1, token, h, 512))));
      }
      const float scale = in.scales[b];
      ASSERT_EQ(scale, fp8_block_scale(amax));
      for (int i = 0; i < 128; ++i) {
        const auto h = static_cast<std::uint32_t>(b * 128 + i);
        const float x = bf16_to_float(token_value_bits(kReferenceSeed, 1, token, h, 512));
        const float v = in.value[h];
        ASSERT_EQ(v, dequantize_e4m3(in.fp8[h], scale)) << h;
        const double bound =
            (std::ldexp(std::fabs(x), -4) + std::ldexp(scale, -10)) * (1 + 0x1p-20);
        ASSERT_LE(std::fabs(static_cast<double>(v) - x), bound) << "element " << h << ": " << x
                                                                << " became " << v;
        ASSERT_EQ(std::signbit(v), std::signbit(x)) << h;
        inexact += v != x;
        saturated = saturated || (in.fp8[h] & 0x7F) == 0x7E;  // +-448: the block's amax
      }
      EXPECT_TRUE(saturated) << "token " << token << " block " << b;
    }
    EXPECT_GT(inexact, 0) << "fp8 keeps fewer bits than bf16: some element must change";
  }
}

TEST(EpTokenInput, RejectsHiddenThatFp8CannotBlock) {
  EXPECT_THROW(token_input(case_of(1, 136, 1, 1, EpDtype::Fp8), kReferenceSeed, 0, 0),
               std::invalid_argument);
}

// Top-1 with weight 1: the combine returns the expert's output unchanged.
TEST(EpExpectedCombine, TopOneIsTheExpertOutput) {
  for (EpDtype dtype : {EpDtype::Bf16, EpDtype::Fp8}) {
    const EpCase c = case_of(4, 256, 1, 8, dtype);
    const Routing mine = reference_routing(1, {0, 5, 3, 7});  // factors 1/8, 1/2, 1, 8
    const auto out = expected_combine(c, mine, kReferenceSeed, 1, 4);
    ASSERT_EQ(out.size(), 4u * 256);
    for (int t = 0; t < 4; ++t) {
      const TokenInput in = token_input(c, kReferenceSeed, 1, t);
      for (int h = 0; h < 256; ++h) {
        ASSERT_EQ(out[t * 256 + h], expert_output_bits(in.value[h], mine.experts[t]))
            << name_of(dtype) << " token " << t << " element " << h;
      }
    }
  }
}

// Weights that are powers of two and bf16 inputs make every product and sum exact: the
// combine is then the plain sum, whatever the ranks and the order.
TEST(EpExpectedCombine, ExactWeightsGiveThePlainSum) {
  const EpCase c = case_of(3, 64, 2, 8);
  const Routing mine = reference_routing(2, {1, 6, 2, 3, 5, 4}, {0.5f, 0.25f, 2.0f, 1.0f, 0.125f, 4.0f});
  for (int nranks : {1, 2, 4, 8}) {
    const auto out = expected_combine(c, mine, kReferenceSeed, 0, nranks);
    for (int t = 0; t < 3; ++t) {
      const TokenInput in = token_input(c, kReferenceSeed, 0, t);
      for (int h = 0; h < 64; ++h) {
        double sum = 0;
        for (int j = 0; j < 2; ++j) {
          sum += static_cast<double>(mine.weights[t * 2 + j]) * in.value[h] *
                 expert_factor(mine.experts[t * 2 + j]);
        }
        ASSERT_EQ(out[t * 64 + h], float_to_bf16(static_cast<float>(sum)))
            << nranks << " ranks, token " << t << " element " << h;
      }
    }
  }
}

float chain(const TokenInput& in, const Routing& r, int t, int h, int rank_filter, int experts,
            int nranks) {
  float partial = 0.0f;
  for (int j = 0; j < r.topk; ++j) {
    const int e = r.experts[t * r.topk + j];
    if (rank_filter >= 0 && rank_of_expert(e, experts, nranks) != rank_filter) continue;
    const float y = bf16_to_float(expert_output_bits(in.value[h], e));
    partial = std::fmaf(r.weights[t * r.topk + j], y, partial);
  }
  return partial;
}

// All of a token's experts on one rank: a single fmaf chain in slot order, rounded to bf16.
TEST(EpExpectedCombine, OneRankIsASingleFmaChain) {
  for (EpDtype dtype : {EpDtype::Bf16, EpDtype::Fp8}) {
    const EpCase c = case_of(20, 128, 4, 8, dtype);
    RoutingParams p;
    p.seed = kReferenceSeed;
    const Routing mine = make_routing(c, p, 0, 1);
    const auto out = expected_combine(c, mine, kReferenceSeed, 0, 1);
    for (int t = 0; t < c.tokens; ++t) {
      const TokenInput in = token_input(c, kReferenceSeed, 0, t);
      for (int h = 0; h < c.hidden; ++h) {
        ASSERT_EQ(out[t * 128 + h], float_to_bf16(chain(in, mine, t, h, -1, 8, 1)))
            << name_of(dtype) << " token " << t << " element " << h;
      }
    }
  }
}

// Across ranks: each rank's chain rounded to bf16, summed in fp32 in ascending rank order.
// The test also shows that this differs from one chain, so it tells the two apart.
TEST(EpExpectedCombine, PartialsPerRankSummedInRankOrder) {
  const EpCase c = case_of(40, 128, 4, 8);
  const int nranks = 4;
  RoutingParams p;
  p.seed = kReferenceSeed;
  const Routing mine = make_routing(c, p, 2, nranks);
  const auto out = expected_combine(c, mine, kReferenceSeed, 2, nranks);
  int differs_from_one_chain = 0;
  for (int t = 0; t < c.tokens; ++t) {
    const TokenInput in = token_input(c, kReferenceSeed, 2, t);
    for (int h = 0; h < c.hidden; ++h) {
      float acc = 0.0f;
      for (int d = 0; d < nranks; ++d) {
        bool holds = false;
        for (int j = 0; j < c.topk; ++j) {
          holds = holds || rank_of_expert(mine.experts[t * c.topk + j], 8, nranks) == d;
        }
        if (holds) acc += bf16_to_float(float_to_bf16(chain(in, mine, t, h, d, 8, nranks)));
      }
      ASSERT_EQ(out[t * 128 + h], float_to_bf16(acc)) << "token " << t << " element " << h;
      const std::uint16_t one_chain = float_to_bf16(chain(in, mine, t, h, -1, 8, nranks));
      differs_from_one_chain += out[t * 128 + h] != one_chain;
    }
  }
  EXPECT_GT(differs_from_one_chain, 0);
}

TEST(EpExpectedCombine, NoTokensNoOutput) {
  const EpCase c = case_of(0, 128, 2, 8);
  EXPECT_TRUE(expected_combine(c, reference_routing(2, {}), kReferenceSeed, 0, 2).empty());
}

}  // namespace
}  // namespace commsweep::ep
