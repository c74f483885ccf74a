// The claim verification rests on: for every type, operator and world size, any reduction
// order done in the element type's own arithmetic gives exactly the bits reduced_bits
// predicts. NCCL's rings and trees, and MPI's algorithms, all pick different orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/types.hpp"
#include "pattern/pattern.hpp"
#include "pattern/spec.hpp"
#include "reference_reduction.hpp"

namespace commsweep {
namespace {

using testing::fold;
using testing::fold_tree;
using testing::premultiplied;
using testing::reduce_in_order;
using testing::round_to;

constexpr std::uint64_t kSeed = 0x636f6d6d73776570ull;

// Every rank's input at `index`, as the element type holds it.
std::vector<double> inputs(const pattern::Spec& spec, int nranks, std::uint64_t index) {
  std::vector<double> v;
  for (int r = 0; r < nranks; ++r) {
    v.push_back(pattern::from_bits(pattern::input_bits(spec, r, index), spec.fmt));
  }
  return v;
}

// The orders tested: rank order, reversed, a tree, and shuffles.
std::vector<std::vector<double>> orders(std::vector<double> v, std::mt19937& rng) {
  std::vector<std::vector<double>> out{v};
  std::reverse(v.begin(), v.end());
  out.push_back(v);
  for (int i = 0; i < 3; ++i) {
    std::shuffle(v.begin(), v.end(), rng);
    out.push_back(v);
  }
  return out;
}

// The reduction in exact arithmetic (double holds every value the pattern uses); avg by the
// 1/n that the type can hold, as NCCL scales.
double exact_result(RedOp op, const std::vector<double>& values, int nranks,
                    const pattern::Format& f) {
  double acc = values.at(0);
  for (std::size_t i = 1; i < values.size(); ++i) {
    const double v = values[i];
    switch (op) {
      case RedOp::Sum: case RedOp::Avg: acc += v; break;
      case RedOp::Prod: acc *= v; break;
      case RedOp::Max: acc = std::max(acc, v); break;
      case RedOp::Min: acc = std::min(acc, v); break;
      case RedOp::None: break;
    }
  }
  if (op != RedOp::Avg) return acc;
  if (f.kind != pattern::kFloat) return std::trunc(acc / nranks);
  return acc * round_to(1.0 / nranks, f);
}

// Every order of `values`, folded in the type's arithmetic, against reduced_bits. Returns the
// number of disagreements (0 when the claim holds).
int disagreements(const pattern::Spec& spec, RedOp op, int nranks, std::uint64_t index,
                  std::mt19937& rng) {
  const std::uint64_t want = pattern::reduced_bits(spec, index);
  const pattern::Format& f = spec.fmt;
  const std::vector<double> values = inputs(spec, nranks, index);
  // The predicted bits must also be the true result: an overflow that every order wraps or
  // saturates alike would otherwise pass.
  int bad = pattern::from_bits(want, f) != exact_result(op, values, nranks, f);
  for (const auto& order : orders(values, rng)) {
    bad += reduce_in_order(op, order, nranks, f) != want;
    double tree = fold_tree(op, order, f);
    if (op == RedOp::Avg) tree = testing::finish_avg(tree, nranks, f);
    bad += pattern::to_bits(tree, f) != want;
    if (op == RedOp::Avg && f.kind == pattern::kFloat) {
      // NCCL's floating avg scales each input by 1/n before the sum.
      bad += pattern::to_bits(fold(RedOp::Sum, premultiplied(order, nranks, f), f), f) != want;
    }
  }
  return bad;
}

std::vector<std::uint64_t> sample_indices() {
  std::vector<std::uint64_t> idx;
  for (std::uint64_t i = 0; i < 1500; ++i) idx.push_back(i);
  // Far into a large buffer, where index arithmetic could overflow or alias.
  for (std::uint64_t i = 0; i < 64; ++i) idx.push_back((std::uint64_t{1} << 40) + i * 977);
  return idx;
}

TEST(Exactness, EveryTypeOperatorAndWorldSizeGivesTheSameBitsInAnyOrder) {
  std::mt19937 rng(5);
  const auto indices = sample_indices();
  for (DataType t : all_data_types()) {
    for (RedOp op : all_red_ops()) {
      for (int n = 1; n <= 9; ++n) {
        const pattern::Spec spec = make_spec(t, op, n, kSeed);
        int bad = 0;
        for (std::uint64_t i : indices) bad += disagreements(spec, op, n, i, rng);
        EXPECT_EQ(bad, 0) << name_of(t) << " " << name_of(op) << " on " << n << " ranks";
      }
    }
  }
}

TEST(Exactness, HoldsForOtherSeedsAndLargerWorlds) {
  std::mt19937 rng(9);
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, ~std::uint64_t{0}}) {
    for (DataType t : {DataType::Float8E5M2, DataType::Float8E4M3, DataType::Bfloat16,
                       DataType::Float16, DataType::Int8, DataType::Uint8}) {
      for (RedOp op : all_red_ops()) {
        for (int n : {16, 72, 300}) {
          const pattern::Spec spec = make_spec(t, op, n, seed);
          int bad = 0;
          for (std::uint64_t i = 0; i < 100; ++i) bad += disagreements(spec, op, n, i, rng);
          EXPECT_EQ(bad, 0) << name_of(t) << " " << name_of(op) << " on " << n << " ranks";
        }
      }
    }
  }
}

// The pattern is not trivial: reductions produce many distinct values, not only zeros or
// the neutral element, so a wrong operator or a dropped rank shows.
TEST(Exactness, ReductionsAreNotTrivial) {
  for (DataType t : all_data_types()) {
    for (RedOp op : all_red_ops()) {
      const pattern::Spec spec = make_spec(t, op, 4, kSeed);
      std::vector<std::uint64_t> seen;
      for (std::uint64_t i = 0; i < 256; ++i) seen.push_back(pattern::reduced_bits(spec, i));
      std::sort(seen.begin(), seen.end());
      const auto distinct = std::unique(seen.begin(), seen.end()) - seen.begin();
      EXPECT_GE(distinct, 2) << name_of(t) << " " << name_of(op);
    }
  }
}

// Every element has a contributing rank, so min and max never return the filler that the
// other ranks hold.
TEST(Exactness, EveryElementHasAContributor) {
  for (DataType t : all_data_types()) {
    for (RedOp op : all_red_ops()) {
      for (int n = 1; n <= 9; ++n) {
        const pattern::Spec spec = make_spec(t, op, n, kSeed);
        ASSERT_GE(spec.period, 1);
        for (std::uint64_t i = 0; i < 64; ++i) {
          int contributors = 0;
          for (int r = 0; r < n; ++r) contributors += pattern::contributes(spec, r, i);
          ASSERT_GE(contributors, 1)
              << name_of(t) << " " << name_of(op) << " n=" << n << " i=" << i;
          if (op == RedOp::Avg) {
            ASSERT_EQ(contributors, 1) << name_of(t) << " n=" << n;
          }
        }
      }
    }
  }
}

// The check above can fail: with values too large for bfloat16, partial sums round and the
// orders disagree. This guards the test itself against passing vacuously.
TEST(Exactness, TheOrderCheckCatchesAnInexactPattern) {
  pattern::Spec spec = make_spec(DataType::Bfloat16, RedOp::Sum, 8, kSeed);
  spec.vmax = 200;  // sums up to 1600, far above bfloat16's 256
  spec.period = 1;  // every rank contributes
  std::mt19937 rng(1);
  int bad = 0;
  for (std::uint64_t i = 0; i < 200; ++i) bad += disagreements(spec, RedOp::Sum, 8, i, rng);
  EXPECT_GT(bad, 0);
}

// Nine factors of 2 overflow fp8 e4m3 (largest finite 448): the true-value check sees it even
// where every order overflows alike.
TEST(Exactness, TheCheckCatchesAnOverflowingProduct) {
  pattern::Spec spec = make_spec(DataType::Float8E4M3, RedOp::Prod, 9, kSeed);
  spec.period = 1;  // all nine ranks contribute
  std::mt19937 rng(1);
  int bad = 0;
  for (std::uint64_t i = 0; i < 5000; ++i) bad += disagreements(spec, RedOp::Prod, 9, i, rng);
  EXPECT_GT(bad, 0);
}

}  // namespace
}  // namespace commsweep
