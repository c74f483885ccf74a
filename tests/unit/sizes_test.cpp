// Message sizes as -b/-e/-i take them, and the list a sweep walks (nccl-tests' rules: powers
// of 1024, min then *factor or +step while <= max).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/sizes.hpp"
#include "usage_error.hpp"

namespace commsweep {
namespace {

using testing::throws_usage;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(ParseSize, PlainBytes) {
  EXPECT_EQ(parse_size("8", "-b"), 8u);
  EXPECT_EQ(parse_size("0", "-b"), 0u);
  EXPECT_EQ(parse_size("1000", "-b"), 1000u);  // no decimal multiples
  EXPECT_EQ(parse_size("18446744073709551615", "-e"), kMax);
}

TEST(ParseSize, BinarySuffixes) {
  EXPECT_EQ(parse_size("64K", "-b"), 64u << 10);
  EXPECT_EQ(parse_size("1M", "-b"), 1u << 20);
  EXPECT_EQ(parse_size("8G", "-b"), std::uint64_t{8} << 30);
  EXPECT_EQ(parse_size("1T", "-b"), std::uint64_t{1} << 40);
  EXPECT_EQ(parse_size("64k", "-b"), 64u << 10);
  EXPECT_EQ(parse_size("16777215T", "-e"), std::uint64_t{16777215} << 40);  // largest that fits
}

TEST(ParseSize, IecSpellingsAndBytes) {
  EXPECT_EQ(parse_size("1Ki", "-b"), 1024u);
  EXPECT_EQ(parse_size("1KiB", "-b"), 1024u);
  EXPECT_EQ(parse_size("2MiB", "-b"), 2u << 20);
  EXPECT_EQ(parse_size("2Mi", "-b"), 2u << 20);
  EXPECT_EQ(parse_size("4Gi", "-b"), std::uint64_t{4} << 30);
  EXPECT_EQ(parse_size("1TiB", "-b"), std::uint64_t{1} << 40);
  EXPECT_EQ(parse_size("8B", "-b"), 8u);
}

// GB is 10^9 bytes in the tables' GB/s: "1GB" read as 2^30 would silently run another size.
TEST(ParseSize, DecimalUnitsRefusedWithDidYouMean) {
  EXPECT_TRUE(throws_usage([] { parse_size("1GB", "-e/--maxbytes"); },
                           {"-e/--maxbytes: '1GB': GB is 10^9 bytes (as in GB/s), while sizes here are powers of "
                            "1024: did you mean '1G' (1073741824 bytes), or 1000000000 for 10^9 bytes?"}));
  EXPECT_TRUE(throws_usage([] { parse_size("100KB", "-b"); }, {"did you mean '100K' (102400 bytes), or 100000"}));
  EXPECT_TRUE(throws_usage([] { parse_size("1kb", "-b"); }, {"'1kb': KB is 10^3", "did you mean '1K'"}));
  EXPECT_TRUE(throws_usage([] { parse_size("4gb", "-b"); }, {"did you mean '4G'"}));
  EXPECT_TRUE(throws_usage([] { parse_size("2Tb", "-b"); }, {"did you mean '2T'", "10^12"}));
  // Past 2^64 as a binary size: the did-you-mean still names the flag and the spelling.
  EXPECT_TRUE(throws_usage([] { parse_size("99999999TB", "-e"); }, {"-e: '99999999TB'", "did you mean '99999999T'?"}));
}

TEST(ParseSize, RejectsOverflowNamingTheFlag) {
  // 2^64 as digits, and 2^64 reached through a suffix.
  EXPECT_TRUE(throws_usage([] { parse_size("18446744073709551616", "-e/--maxbytes"); },
                           {"-e/--maxbytes", "too large"}));
  EXPECT_TRUE(throws_usage([] { parse_size("16777216T", "-e/--maxbytes"); },
                           {"-e/--maxbytes", "too large"}));
  EXPECT_TRUE(throws_usage([] { parse_size("17179869184G", "-i/--stepbytes"); },
                           {"-i/--stepbytes", "too large"}));
  EXPECT_TRUE(throws_usage([] { parse_size("99999999999999999999999", "-b"); }, {"-b"}));
}

SweepConfig geometric(std::uint64_t min, std::uint64_t max, std::uint64_t factor) {
  SweepConfig c;
  c.min_bytes = min;
  c.max_bytes = max;
  c.step_factor = factor;
  return c;
}

SweepConfig linear(std::uint64_t min, std::uint64_t max, std::uint64_t step) {
  SweepConfig c;
  c.min_bytes = min;
  c.max_bytes = max;
  c.step_factor = 1;
  c.step_bytes = step;
  return c;
}

using Sizes = std::vector<std::uint64_t>;

TEST(SizeList, GeometricIncludesBothEnds) {
  EXPECT_EQ(size_list(geometric(8, 128, 2)), (Sizes{8, 16, 32, 64, 128}));
  EXPECT_EQ(size_list(geometric(8, 100, 2)), (Sizes{8, 16, 32, 64}));
  EXPECT_EQ(size_list(geometric(3, 300, 10)), (Sizes{3, 30, 300}));
  EXPECT_EQ(size_list(geometric(1024, 1024, 2)), (Sizes{1024}));
}

TEST(SizeList, DefaultsAreNcclTestsDefaults) {
  const auto sizes = size_list(SweepConfig{});  // -b 8 -e 128M -f 2
  ASSERT_EQ(sizes.size(), 25u);
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 128u << 20);
}

TEST(SizeList, LinearSteps) {
  EXPECT_EQ(size_list(linear(1, 10, 3)), (Sizes{1, 4, 7, 10}));
  EXPECT_EQ(size_list(linear(1, 9, 3)), (Sizes{1, 4, 7}));
  EXPECT_EQ(size_list(linear(1 << 20, 4 << 20, 1 << 20)),
            (Sizes{1 << 20, 2 << 20, 3 << 20, 4 << 20}));
}

TEST(SizeList, EmptyWhenMinAboveMax) { EXPECT_TRUE(size_list(geometric(16, 8, 2)).empty()); }

// A zero start never grows by a factor, a zero step never moves: one size, not a hang.
TEST(SizeList, StopsWhenTheSizeCannotGrow) {
  EXPECT_EQ(size_list(geometric(0, 1024, 2)), (Sizes{0}));
  EXPECT_EQ(size_list(linear(8, 1024, 0)), (Sizes{8}));
}

TEST(SizeList, OverflowEndsTheGeometricList) {
  EXPECT_EQ(size_list(geometric(std::uint64_t{1} << 63, kMax, 2)), (Sizes{std::uint64_t{1} << 63}));
  // 3 * 2^63 wraps to 2^63, which is larger than 3 * 2^59 and below max: only a guard that
  // looks before it multiplies stops here.
  const std::uint64_t start = std::uint64_t{3} << 39;
  EXPECT_EQ(size_list(geometric(start, kMax, 16)),
            (Sizes{start, start << 4, start << 8, start << 12, start << 16, start << 20}));
  // 2^55 * 1000 wraps to a number far above 2^55.
  EXPECT_EQ(size_list(geometric(std::uint64_t{1} << 55, kMax, 1000)),
            (Sizes{std::uint64_t{1} << 55}));
}

TEST(SizeList, OverflowEndsTheLinearList) {
  EXPECT_EQ(size_list(linear(kMax - 10, kMax, 8)), (Sizes{kMax - 10, kMax - 2}));
  EXPECT_EQ(size_list(linear(kMax - 1, kMax, kMax)), (Sizes{kMax - 1}));
}

TEST(CompactSize, UsesTheLargestWholeBinaryUnit) {
  EXPECT_EQ(compact_size(1048576), "1M");
  EXPECT_EQ(compact_size(1000), "1000");
  EXPECT_EQ(compact_size(1536), "1536");
  EXPECT_EQ(compact_size(3072), "3K");
  EXPECT_EQ(compact_size(0), "0");
  EXPECT_EQ(compact_size(std::uint64_t{1} << 40), "1T");
  EXPECT_EQ(compact_size(std::uint64_t{1} << 50), "1024T");
}

}  // namespace
}  // namespace commsweep
