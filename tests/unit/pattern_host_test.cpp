// Host fill / poison / verify (the mpi backend's data path, and the model of the kernels):
// verify must count exactly the elements that differ, and poison must leave no element that
// a collective which never ran could pass with.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "collectives/collective_test.hpp"
#include "core/types.hpp"
#include "pattern/pattern.hpp"
#include "pattern/spec.hpp"

namespace commsweep {
namespace {

constexpr std::uint64_t kHostSeed = 42;

std::vector<unsigned char> buffer_of(DataType t, std::size_t count) {
  return std::vector<unsigned char>(count * element_size(t));
}

void flip_element(std::vector<unsigned char>& buf, std::size_t index, std::size_t bytes) {
  for (std::size_t b = 0; b < bytes; ++b) buf[index * bytes + b] ^= 0xFF;
}

std::uint64_t element_bits(const std::vector<unsigned char>& buf, std::size_t index,
                           std::size_t bytes) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, buf.data() + index * bytes, bytes);
  return bits;
}

TEST(FillHost, WritesEachRanksInputBits) {
  for (DataType t : all_data_types()) {
    const pattern::Spec spec = make_spec(t, RedOp::Sum, 4, kHostSeed);
    auto buf = buffer_of(t, 100);
    fill_host(buf.data(), 100, spec, 3);
    for (std::size_t i = 0; i < 100; ++i) {
      ASSERT_EQ(element_bits(buf, i, element_size(t)), pattern::input_bits(spec, 3, i))
          << name_of(t) << " element " << i;
    }
  }
}

TEST(FillHost, WritesNoFurtherThanCount) {
  const DataType t = DataType::Float16;
  const pattern::Spec spec = make_spec(t, RedOp::None, 2, kHostSeed);
  std::vector<unsigned char> buf(2 * 10 + 6, 0xAB);
  fill_host(buf.data(), 10, spec, 0);
  for (std::size_t b = 20; b < buf.size(); ++b) EXPECT_EQ(buf[b], 0xAB) << b;
}

TEST(VerifyHost, CorrectBufferHasNothingWrong) {
  for (DataType t : all_data_types()) {
    const pattern::Spec spec = make_spec(t, RedOp::None, 3, kHostSeed);
    auto buf = buffer_of(t, 1000);
    fill_host(buf.data(), 1000, spec, 1);
    const Mismatch m = verify_host(buf.data(), 1000, expect::copied_from(spec, 1, 0));
    EXPECT_EQ(m.wrong, 0u) << name_of(t);
  }
}

TEST(VerifyHost, OneFlippedElementIsFoundAndNamed) {
  for (DataType t : all_data_types()) {
    const std::size_t bytes = element_size(t);
    const pattern::Spec spec = make_spec(t, RedOp::None, 3, kHostSeed);
    auto buf = buffer_of(t, 1000);
    fill_host(buf.data(), 1000, spec, 2);
    const std::uint64_t before = element_bits(buf, 537, bytes);
    flip_element(buf, 537, bytes);
    const Mismatch m = verify_host(buf.data(), 1000, expect::copied_from(spec, 2, 0));
    EXPECT_EQ(m.wrong, 1u) << name_of(t);
    EXPECT_EQ(m.first_index, 537u) << name_of(t);
    EXPECT_EQ(m.expected, before) << name_of(t);
    EXPECT_EQ(m.got, element_bits(buf, 537, bytes)) << name_of(t);
  }
}

TEST(VerifyHost, OneBitInTheTopByteCounts) {
  const DataType t = DataType::Uint64;
  const pattern::Spec spec = make_spec(t, RedOp::None, 2, kHostSeed);
  auto buf = buffer_of(t, 16);
  fill_host(buf.data(), 16, spec, 0);
  buf[5 * 8 + 7] ^= 0x80;  // the sign bit of element 5, little-endian
  const Mismatch m = verify_host(buf.data(), 16, expect::copied_from(spec, 0, 0));
  EXPECT_EQ(m.wrong, 1u);
  EXPECT_EQ(m.first_index, 5u);
}

TEST(VerifyHost, CountsEveryWrongElementAndReportsTheFirst) {
  const DataType t = DataType::Int32;
  const pattern::Spec spec = make_spec(t, RedOp::None, 2, kHostSeed);
  auto buf = buffer_of(t, 100);
  fill_host(buf.data(), 100, spec, 1);
  for (std::size_t i : {90u, 17u, 55u}) flip_element(buf, i, 4);
  const Mismatch m = verify_host(buf.data(), 100, expect::copied_from(spec, 1, 0));
  EXPECT_EQ(m.wrong, 3u);
  EXPECT_EQ(m.first_index, 17u);
}

TEST(VerifyHost, AnotherRanksDataIsWrong) {
  const DataType t = DataType::Float32;
  const pattern::Spec spec = make_spec(t, RedOp::None, 4, kHostSeed);
  auto buf = buffer_of(t, 1000);
  fill_host(buf.data(), 1000, spec, 1);
  EXPECT_EQ(verify_host(buf.data(), 1000, expect::copied_from(spec, 2, 0)).wrong, 1000u);
  // The same rank's data one element off is wrong too (a misplaced offset).
  EXPECT_EQ(verify_host(buf.data(), 1000, expect::copied_from(spec, 1, 1)).wrong, 1000u);
}

TEST(VerifyHost, EmptyBufferHasNothingWrong) {
  const pattern::Spec spec = make_spec(DataType::Float32, RedOp::Sum, 2, kHostSeed);
  EXPECT_EQ(verify_host(nullptr, 0, expect::reduced(spec, 0)).wrong, 0u);
}

TEST(PoisonHost, MakesEveryElementWrong) {
  for (DataType t : all_data_types()) {
    for (RedOp op : {RedOp::Sum, RedOp::Max, RedOp::None}) {
      const pattern::Spec spec = make_spec(t, op, 4, kHostSeed);
      const pattern::Expect e =
          op == RedOp::None ? expect::copied_in_blocks(spec, 25, 0) : expect::reduced(spec, 0);
      auto buf = buffer_of(t, 100);
      poison_host(buf.data(), 100, e);
      const Mismatch m = verify_host(buf.data(), 100, e);
      EXPECT_EQ(m.wrong, 100u) << name_of(t) << " " << name_of(op);
      EXPECT_EQ(m.first_index, 0u) << name_of(t) << " " << name_of(op);
    }
  }
}

TEST(ExpectedBits, CopyFromOneRank) {
  const pattern::Spec spec = make_spec(DataType::Float32, RedOp::None, 4, kHostSeed);
  const pattern::Expect e = expect::copied_from(spec, 3, 100);
  for (std::uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(pattern::expected_bits(e, i), pattern::input_bits(spec, 3, 100 + i));
  }
}

TEST(ExpectedBits, CopyInBlocksTakesBlockBFromRankB) {
  const pattern::Spec spec = make_spec(DataType::Bfloat16, RedOp::None, 4, kHostSeed);
  const pattern::Expect e = expect::copied_in_blocks(spec, 3, 10);
  // Element 7 is element 1 of block 2: rank 2's input at 10 + 1.
  EXPECT_EQ(pattern::expected_bits(e, 7), pattern::input_bits(spec, 2, 11));
  for (std::uint64_t i = 0; i < 12; ++i) {
    EXPECT_EQ(pattern::expected_bits(e, i),
              pattern::input_bits(spec, static_cast<int>(i / 3), 10 + i % 3))
        << i;
  }
}

TEST(ExpectedBits, ReducedUsesTheIndexBase) {
  const pattern::Spec spec = make_spec(DataType::Int32, RedOp::Sum, 4, kHostSeed);
  const pattern::Expect e = expect::reduced(spec, 1000);
  for (std::uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(pattern::expected_bits(e, i), pattern::reduced_bits(spec, 1000 + i));
  }
}

// Copies carry the raw hash, so ranks' inputs differ almost everywhere: a block from the
// wrong rank cannot pass.
TEST(InputBits, CopiesDifferBetweenRanksAndSeeds) {
  const pattern::Spec spec = make_spec(DataType::Float32, RedOp::None, 4, kHostSeed);
  const pattern::Spec other_seed = make_spec(DataType::Float32, RedOp::None, 4, kHostSeed + 1);
  int same_rank = 0, same_seed = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    same_rank += pattern::input_bits(spec, 0, i) == pattern::input_bits(spec, 1, i);
    same_seed += pattern::input_bits(spec, 0, i) == pattern::input_bits(other_seed, 0, i);
  }
  EXPECT_EQ(same_rank, 0);
  EXPECT_EQ(same_seed, 0);
}

}  // namespace
}  // namespace commsweep
